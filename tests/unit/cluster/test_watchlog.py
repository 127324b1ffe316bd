"""The watch log: where a watch may start, and what it replays to a watcher with and without a
selector (the API server's watch cache: 410 Expired for a compacted start, ADDED and DELETED
when an object starts or stops matching a selector)."""

from __future__ import annotations

from typing import Any

import pytest

from simulators.cluster.api import ApiError, Obj
from simulators.cluster.watchlog import Entry, parse_since, replay


def pod(name: str, **labels: str) -> Obj:
    return {"metadata": {"name": name, "namespace": "default", "labels": labels}}


def log_of(*entries: tuple[int, str, Obj], resource: str = "pods") -> list[Entry]:
    return [(rv, resource, event_type, obj) for rv, event_type, obj in entries]


def gpu(obj: Obj) -> bool:
    return bool(obj["metadata"]["labels"].get("gpu") == "yes")


def seen(events: list[Any]) -> list[tuple[str, str]]:
    return [(e.type, e.object["metadata"]["name"]) for e in events]


def test_a_watch_starts_after_its_version_while_the_log_reaches_back_to_it() -> None:
    log = log_of((10, "ADDED", pod("a")), (11, "MODIFIED", pod("a")))
    assert parse_since("9", log, 11) == 9  # the entry just before the oldest kept one
    assert parse_since("11", log, 11) == 11
    assert parse_since("40", [], 11) == 40  # a version from the future waits for changes
    with pytest.raises(ApiError) as expired:
        parse_since("8", log, 11)
    assert (expired.value.code, expired.value.reason, expired.value.message) == (
        410,
        "Expired",
        "too old resource version: 8 (9)",
    )


def test_a_resource_version_that_is_not_a_number_is_a_bad_request() -> None:
    with pytest.raises(ApiError) as bad:
        parse_since("abc", [], 3)
    assert (bad.value.code, bad.value.message) == (400, 'invalid resource version "abc"')


def test_without_a_selector_a_watch_replays_its_resources_later_entries_as_copies() -> None:
    log = log_of((1, "ADDED", pod("a")), (2, "ADDED", pod("b")), (3, "DELETED", pod("a")))
    log += log_of((4, "ADDED", {"metadata": {"name": "n"}}), resource="nodes")
    events = replay(log, "pods", 1, lambda obj: True, selective=False)
    assert seen(events) == [("ADDED", "b"), ("DELETED", "a")]
    events[0].object["metadata"]["name"] = "changed"
    assert log[1][3]["metadata"]["name"] == "b"  # the log keeps what was written


def test_a_selective_watch_sees_an_object_arrive_and_leave_as_it_starts_and_stops_matching() -> (
    None
):
    log = log_of(
        (1, "ADDED", pod("a", gpu="no")),
        (2, "MODIFIED", pod("a", gpu="yes")),  # starts matching: ADDED for this watcher
        (3, "MODIFIED", pod("a", gpu="yes", x="1")),  # still matching: MODIFIED
        (4, "MODIFIED", pod("a", gpu="no")),  # stops matching: DELETED
        (5, "MODIFIED", pod("a", gpu="no", x="2")),  # never seen again while it does not match
    )
    assert seen(replay(log, "pods", 0, gpu, selective=True)) == [
        ("ADDED", "a"),
        ("MODIFIED", "a"),
        ("DELETED", "a"),
    ]
    # Starting later, the earlier entries still tell what the object was.
    assert seen(replay(log, "pods", 3, gpu, selective=True)) == [("DELETED", "a")]


def test_deleting_an_object_that_matched_before_its_last_change_is_a_deleted_event() -> None:
    log = log_of((1, "ADDED", pod("a", gpu="yes")), (2, "DELETED", pod("a", gpu="no")))
    assert seen(replay(log, "pods", 1, gpu, selective=True)) == [("DELETED", "a")]
    never = log_of((1, "ADDED", pod("b", gpu="no")), (2, "DELETED", pod("b", gpu="no")))
    assert replay(never, "pods", 0, gpu, selective=True) == []


def test_an_object_first_seen_modified_is_taken_to_have_matched_as_it_does_now() -> None:
    log = log_of((7, "MODIFIED", pod("a", gpu="yes")))
    assert seen(replay(log, "pods", 6, gpu, selective=True)) == [("MODIFIED", "a")]
