"""Streams over the websocket: frames as the world steps, Ctrl+C, the next command, one per lab."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from simulators.lab import streams
from tests.web.test_lab_consumer import connect, new_session_key, receive

pytestmark = [pytest.mark.django_db(transaction=True)]


async def send_line(comm, line: str) -> None:  # type: ignore[no-untyped-def]
    await comm.send_to(text_data=json.dumps({"type": "line", "data": line}))


async def test_a_watch_streams_rows_as_the_world_steps_until_ctrl_c() -> None:
    key = await new_session_key()
    comm = await connect("mig-single", key)
    await send_line(comm, "kubectl cordon gpu-node2")
    await receive(comm)
    await send_line(comm, "kubectl drain gpu-node2 --ignore-daemonsets")
    await receive(comm)
    await send_line(
        comm, "kubectl label node gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite"
    )
    await receive(comm)
    await send_line(comm, "kubectl get nodes -L nvidia.com/mig.config.state -w")
    first = await receive(comm)
    assert first["type"] == "output" and first["stream"] is True
    assert first["data"].startswith("NAME ")
    # The world steps with no command typed: MIG Manager finishes while we watch.
    seen = []
    while not any(row.endswith("success") for row in seen):
        frame = await receive(comm)
        assert frame["type"] == "stream"
        seen.extend(filter(None, frame["data"].split("\n")))
    assert seen[0].startswith("gpu-node2 ")
    await comm.send_to(text_data=json.dumps({"type": "interrupt"}))
    frame = await receive(comm)
    while frame["type"] == "stream":
        frame = await receive(comm)
    assert frame == {"type": "stream-end", "data": ""}
    await comm.disconnect()


async def test_the_next_command_ends_the_stream_then_runs() -> None:
    comm = await connect("mig-single", await new_session_key())
    await send_line(comm, "watch kubectl get nodes")
    first = await receive(comm)
    assert first["data"].startswith("Every 2.0s: kubectl get nodes  kadmin: ")
    await send_line(comm, "kubectl cordon gpu-node1")
    frame = await receive(comm)
    while frame["type"] == "stream":
        frame = await receive(comm)
    assert frame["type"] == "stream-end"
    assert (await receive(comm))["data"] == "node/gpu-node1 cordoned"
    await comm.disconnect()


async def test_one_stream_per_lab_a_new_one_in_another_tab_ends_the_first() -> None:
    key = await new_session_key()
    first, second = await connect("mig-single", key), await connect("mig-single", key)
    await send_line(first, "kubectl get nodes -w")
    assert (await receive(first))["stream"] is True
    await send_line(second, "kubectl get pods -A -w")
    assert (await receive(second))["stream"] is True
    frame = await receive(first)
    while frame["type"] == "stream":
        frame = await receive(first)
    assert frame == {
        "type": "stream-end",
        "data": "(stopped: a stream started in another tab of this lab)",
    }
    await first.disconnect()
    await second.disconnect()


async def test_a_watchs_jsonpath_template_goes_on_on_the_line_it_left_open() -> None:
    """kubectl's jsonpath printer ends no line: each event's name follows the last one."""
    key = await new_session_key()
    watching, other = await connect("mig-single", key), await connect("mig-single", key)
    await send_line(watching, "kubectl get nodes -w -o jsonpath='{.metadata.name}'")
    first = await receive(watching)
    assert first["stream"] is True and first["open"] is True
    assert first["data"] == "gpu-node1gpu-node2gpu-node3"
    await send_line(other, "kubectl cordon gpu-node3")
    assert (await receive(other))["data"] == "node/gpu-node3 cordoned"
    frame = await receive(watching)
    while not frame.get("data"):
        frame = await receive(watching)
    assert frame["type"] == "stream" and frame["open"] is True
    assert frame["data"].startswith("gpu-node3") and "\n" not in frame["data"]
    await watching.disconnect()
    await other.disconnect()


async def test_a_watchs_table_rows_end_their_lines() -> None:
    watching = await connect("mig-single", await new_session_key())
    await send_line(watching, "kubectl get nodes -w")
    first = await receive(watching)
    assert first["stream"] is True and "open" not in first
    await watching.disconnect()


def test_the_form_prints_one_snapshot_and_says_so(client: Client) -> None:
    response = client.post(
        "/lab/mig-single/command", {"line": "kubectl get nodes -w"}, headers={"HX-Request": "true"}
    )
    body = response.content.decode()
    assert "gpu-node3" in body and streams.NOT_STREAMED in body


async def test_a_stream_counts_against_the_sessions_share_and_ends_when_it_is_spent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from studysite.lab import store

    comm = await connect("mig-single", await new_session_key())
    await send_line(comm, "kubectl get nodes -w")
    assert (await receive(comm))["stream"] is True
    monkeypatch.setattr(store.cpu_share, "allows", lambda key, now: False)
    frame = await receive(comm)
    while frame["type"] == "stream":
        frame = await receive(comm)
    assert frame == {"type": "stream-end", "data": store.SLOW_DOWN}
    await comm.disconnect()
