"""A kept lab whose socket closed is shelved once idle (studysite.lab.kept: Kept.shelve_left):
the process keeps its saved form, not its objects, and the next holder gets the lab back
answering as it would have, without the database replaying its log."""

from __future__ import annotations

import json
import time
import weakref

import pytest

from simulators.lab import LabSession
from studysite.lab import store
from studysite.lab.kept import LEFT_SECONDS, Shelved

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def nothing_kept() -> None:
    """This process's kept labs start empty: other tests' closed sockets are not ours."""
    store.kept.clear()


TICKET = "mig-single"
LINES = [
    "kubectl label node gpu-node1 nvidia.com/mig.config=all-1g.10gb --overwrite",
    "kubectl get pods -n gpu-operator",
    "kubectl cordon gpu-node2",
    "echo left > notes.txt",
]


def _later() -> float:
    return time.monotonic() + LEFT_SECONDS + 1


def _saved(lab: LabSession) -> dict[str, object]:
    """The lab's snapshot but its record of what was typed (which holds processor times)."""
    data = json.loads(lab.encode())
    del data["typed"]
    return data  # type: ignore[no-any-return]


def _left_and_shelved(key: str) -> tuple[int, LabSession]:
    """A learner's lab after LINES, its socket closed; and the same lab never kept."""
    opened = store.open_lab(key, TICKET)
    awake = LabSession.new(TICKET, seed=opened.lab.seed)
    for line in LINES:
        assert store.apply(opened, line).output == awake.run(line).output
    pk = opened.saved_id
    store.kept.closed(pk)
    del opened  # the socket let go of it
    return pk, awake


def test_a_closed_idle_lab_is_shelved_and_comes_back_answering_as_it_would_have() -> None:
    pk, awake = _left_and_shelved("s" * 32)
    store.kept.shelve_left(time.monotonic())  # too soon: a reload would reconnect now
    assert not isinstance(store.kept.recent[pk][1], Shelved)
    assert store.kept.shelve_left(_later()) == 1
    assert isinstance(store.kept.recent[pk][1], Shelved)
    assert pk not in store.kept.live  # the lab's objects are gone; only its saved form stays

    back = store.open_lab("s" * 32, TICKET)
    assert back.saved_id == pk and not isinstance(store.kept.recent[pk][1], Shelved)
    assert back.lab.transcript == awake.transcript
    assert back.lab.checklist() == awake.checklist()
    line = "kubectl get nodes -L nvidia.com/mig.config && cat notes.txt"
    assert store.apply(back, line).output == awake.run(line).output
    assert _saved(back.lab) == _saved(awake)
    # And the database, opened by another process, holds the same lab.
    store.kept.clear()
    assert _saved(store.open_lab("s" * 32, TICKET).lab) == _saved(awake)


def test_a_shelved_lab_opens_without_replaying_its_log(monkeypatch: pytest.MonkeyPatch) -> None:
    pk, _ = _left_and_shelved("r" * 32)
    assert store.kept.shelve_left(_later()) == 1

    def replays(*args: object, **kwargs: object) -> None:
        raise AssertionError("the lab was opened from the database")

    monkeypatch.setattr(store, "restore", replays)
    assert store.open_lab("r" * 32, TICKET).saved_id == pk


def test_a_lab_another_tab_still_holds_is_not_shelved() -> None:
    key = "t" * 32
    opened = store.open_lab(key, TICKET)
    store.apply(opened, "kubectl cordon gpu-node3")
    store.kept.closed(opened.saved_id)  # one tab closed; this one holds it still
    assert store.kept.shelve_left(_later()) == 0
    assert store.kept.recent[opened.saved_id][1] is opened
    assert "SchedulingDisabled" in store.apply(opened, "kubectl get node gpu-node3").output
    # The holder and a new tab share the one lab.
    assert store.open_lab(key, TICKET) is opened


def test_a_lab_changed_by_another_process_while_shelved_opens_as_saved() -> None:
    key = "p" * 32
    pk, _ = _left_and_shelved(key)
    assert store.kept.shelve_left(_later()) == 1
    # Another server process opens it from the database and runs a command: the row moves on.
    elsewhere = store._load(key, TICKET)
    store.apply(elsewhere, "kubectl uncordon gpu-node2")
    assert isinstance(store.kept.recent[pk][1], Shelved)
    here = store.open_lab(key, TICKET)
    assert "SchedulingDisabled" not in store.apply(here, "kubectl get node gpu-node2").output


def test_a_lab_with_its_editor_open_is_not_shelved() -> None:
    opened = store.open_lab("e" * 32, TICKET)
    store.apply(opened, "vi notes.txt")
    assert opened.lab.editor is not None
    pk = opened.saved_id
    store.kept.closed(pk)
    held = weakref.ref(opened)
    del opened
    assert store.kept.shelve_left(_later()) == 0
    assert held() is not None and held() is store.kept.recent[pk][1]


def test_the_resting_thread_shelves_a_left_lab_within_seconds() -> None:
    pk, awake = _left_and_shelved("w" * 32)
    deadline = time.monotonic() + LEFT_SECONDS + 5
    while not isinstance(store.kept.recent[pk][1], Shelved):
        assert time.monotonic() < deadline, "not shelved by the resting thread"
        time.sleep(0.1)
    assert store.open_lab("w" * 32, TICKET).lab.transcript == awake.transcript


def test_a_shelved_lab_that_cannot_be_opened_comes_from_the_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, awake = _left_and_shelved("d" * 32)
    assert store.kept.shelve_left(_later()) == 1

    def damaged(shelved: bytes) -> LabSession:
        raise ValueError("damaged")

    monkeypatch.setattr(LabSession, "unshelve", damaged)
    assert _saved(store.open_lab("d" * 32, TICKET).lab) == _saved(awake)


def test_a_left_lab_whose_commands_ran_in_the_annex_is_let_go_of_without_encoding_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "a" * 32
    opened = store.open_lab(key, TICKET)
    store.apply(opened, "kubectl cordon gpu-node3")
    # The annex (another writer) keeps the session's next command; this copy is behind.
    store.apply(store._load(key, TICKET), "kubectl uncordon gpu-node3")
    opened.moved(behind=True)
    pk = opened.saved_id
    store.kept.closed(pk)
    del opened

    def encoded(self: LabSession) -> bytes:
        raise AssertionError("a copy behind the database was encoded")

    monkeypatch.setattr(LabSession, "shelve", encoded)
    assert store.kept.shelve_left(_later()) == 1
    assert pk not in store.kept.recent and pk not in store.kept.live
    back = store.open_lab(key, TICKET)
    assert "SchedulingDisabled" not in store.apply(back, "kubectl get node gpu-node3").output
