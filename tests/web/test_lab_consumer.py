"""The lab websocket, driven as a browser would: origin, session cookie, JSON frames."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from django.test.utils import CaptureQueriesContext

from studysite.asgi import application
from studysite.lab import consumers, store
from studysite.lab import kept as kept_module
from studysite.lab import saved as lab_saved
from studysite.lab.models import LoggedCommand, SavedLab
from studysite.rates import TokenBucket
from studysite.sessions import SessionStore as SiteSessions
from studysite.sessions import mint_key

pytestmark = [pytest.mark.django_db(transaction=True)]

ORIGIN = (b"origin", b"http://127.0.0.1:8000")


@database_sync_to_async
def new_session_key() -> str:
    store = SessionStore()
    store["lab"] = True
    store.create()
    return str(store.session_key)


def communicator(ticket: str, key: str | None, origin: tuple[bytes, bytes] = ORIGIN):
    headers = [origin, (b"host", b"127.0.0.1:8000")]
    if key:
        headers.append((b"cookie", f"sessionid={key}".encode()))
    return WebsocketCommunicator(application, f"/ws/lab/{ticket}/", headers=headers)


async def receive(comm: WebsocketCommunicator) -> dict[str, Any]:
    return json.loads(await comm.receive_from(timeout=5))


@pytest.fixture
async def session_key() -> AsyncIterator[str]:
    yield await new_session_key()


async def connect(ticket: str, key: str) -> WebsocketCommunicator:
    comm = communicator(ticket, key)
    connected, _ = await comm.connect(timeout=5)
    assert connected
    replay = await receive(comm)
    assert replay["type"] == "output" and replay["replay"] is True
    return comm


async def test_a_command_returns_its_output_and_the_checklist(session_key: str) -> None:
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    output = await receive(comm)
    assert (output["type"], output["data"]) == ("output", "node/gpu-node2 cordoned")
    assert [(item["id"], item["done"]) for item in output["checklist"]] == [
        ("layout-applied", False),
        ("advertises-56", False),
        ("schedulable-again", False),
        ("others-untouched", False),
    ]
    await comm.disconnect()


async def test_completion_lists_the_nodes(session_key: str) -> None:
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=json.dumps({"type": "complete", "line": "kubectl drain gpu-n"}))
    frame = await receive(comm)
    assert frame == {"type": "completions", "items": ["gpu-node1", "gpu-node2", "gpu-node3"]}
    await comm.disconnect()


async def test_the_lab_is_saved_after_every_command_and_comes_back(session_key: str) -> None:
    comm = await connect("mig-single", session_key)
    line = "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb"
    await comm.send_to(text_data=json.dumps({"type": "line", "data": line}))
    first = await receive(comm)
    assert "--overwrite is false" in first["data"]
    await comm.disconnect()
    again = communicator("mig-single", session_key)
    await again.connect(timeout=5)
    replay = await receive(again)
    assert "admin@kadmin:~$ " + line in replay["data"]
    assert "--overwrite is false" in replay["data"]
    await again.disconnect()


async def test_sessions_never_see_each_others_lab(session_key: str) -> None:
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    await receive(comm)
    await comm.disconnect()
    stranger = communicator("mig-single", await new_session_key())
    await stranger.connect(timeout=5)
    replay = await receive(stranger)
    assert "cordon" not in replay["data"]
    await stranger.disconnect()


async def test_reset_brings_back_the_starting_cluster(session_key: str) -> None:
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    assert not (await receive(comm))["checklist"][2]["done"]
    await comm.send_to(text_data=json.dumps({"type": "reset"}))
    replay = await receive(comm)
    assert (replay["type"], replay["data"], replay["replay"]) == ("output", "", True)
    assert [item["done"] for item in replay["checklist"]] == [False] * 4
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get node gpu-node2"}))
    output = await receive(comm)
    assert "SchedulingDisabled" not in output["data"]
    await comm.disconnect()


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ("not json", "frame refused: not a JSON object with a type"),
        ("[1, 2]", "frame refused: not a JSON object with a type"),
        ('{"type": "launch"}', "frame refused: unknown or incomplete frame 'launch'"),
        ('{"type": "line"}', "frame refused: unknown or incomplete frame 'line'"),
        ('{"type": "line", "data": 5}', "frame refused: unknown or incomplete frame 'line'"),
        ("x" * 10_000, "frame refused: send JSON text of at most 5120 bytes"),
    ],
)
async def test_a_bad_frame_gets_a_one_line_error_and_the_session_survives(
    session_key: str, frame: str, message: str
) -> None:
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=frame)
    assert await receive(comm) == {"type": "error", "data": message}
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get nodes"}))
    assert "gpu-node1" in (await receive(comm))["data"]
    await comm.disconnect()


async def test_a_line_over_4_kib_is_refused_in_one_line(session_key: str) -> None:
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "echo " + "a" * 4200}))
    frame = await receive(comm)
    assert frame["data"] == "bash: line too long (over 4096 bytes)"
    await comm.disconnect()


async def test_a_flood_of_frames_closes_with_a_clear_code(session_key: str) -> None:
    comm = await connect("mig-single", session_key)
    for _ in range(60):
        await comm.send_to(text_data=json.dumps({"type": "complete", "line": "kub"}))
    codes = []
    while True:
        message = await comm.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            codes.append(message["code"])
            break
    assert codes == [4429]


async def test_a_foreign_origin_is_refused(session_key: str) -> None:
    comm = communicator("mig-single", session_key, origin=(b"origin", b"http://evil.example"))
    connected, _ = await comm.connect(timeout=5)
    assert not connected


async def test_an_unknown_ticket_is_refused_with_its_code(session_key: str) -> None:
    comm = communicator("no-such-ticket", session_key)
    connected, code = await comm.connect(timeout=5)
    assert not connected and code == 4404


async def test_a_browser_without_a_session_is_refused() -> None:
    comm = communicator("mig-single", None)
    connected, code = await comm.connect(timeout=5)
    assert not connected and code == 4401


async def test_exam_mode_turns_off_hints_and_completion(session_key: str) -> None:
    await database_sync_to_async(_save_a_fresh_lab_in_exam_mode)(session_key)
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=json.dumps({"type": "complete", "line": "kub"}))
    assert await receive(comm) == {"type": "completions", "items": []}
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "hint"}))
    assert (await receive(comm))["data"] == "hint: hints are off in exam mode"
    await comm.disconnect()


def _save_a_fresh_lab_in_exam_mode(session_key: str) -> None:
    from simulators.lab import LabSession

    store.create(session_key, "mig-single", LabSession.new("mig-single", seed=7), exam_mode=True)


def test_the_rate_limiter_allows_a_burst_then_refills() -> None:
    now = [0.0]
    limiter = TokenBucket(3, clock=lambda: now[0])
    assert [limiter.allow() for _ in range(4)] == [True, True, True, False]
    now[0] += 1 / 3
    assert limiter.allow() is True
    assert limiter.allow() is False


@pytest.mark.parametrize(
    ("ticket", "items"),
    [
        ("image-pull", ["credentials-stored", "credentials-used", "training-runs"]),
        ("department-cap", ["department-room", "sweep-runs", "work-kept"]),
        ("gang-fragmentation", ["gang-started", "gang-whole-nodes", "active-kept"]),
        ("inference-priority", ["inference-runs", "within-quota", "borrowed-returned"]),
        ("node-pool-quota", ["notebook-runs", "within-pool-quota", "guaranteed-kept"]),
        ("scheduler-bypass", ["no-bypass", "guaranteed-runs", "sweeps-queued", "baseline-kept"]),
        ("idle-allocations", ["finetune-runs", "idle-suspended", "active-kept"]),
        (
            "driver-stack",
            [
                "driver-settled",
                "validated",
                "gpus-advertised",
                "training-runs",
                "operator-elsewhere",
            ],
        ),
        (
            "xid-fallen-off",
            ["cordoned", "drained", "workloads-moved", "repair-marked", "others-kept"],
        ),
        ("fabric-nccl", ["nccl-ib", "steps-fast", "gang-runs", "others-kept"]),
        ("toolkit-runtime", ["toolkit-ready", "runtime-class", "smoke-passed", "policy-ready"]),
        (
            "ci-service-account",
            ["can-restart", "can-watch", "least-privilege", "checked-as-pipeline"],
        ),
        ("oncall-view", ["can-look", "sees-workloads", "read-only"]),
    ],
)
async def test_a_new_ticket_is_solved_over_the_websocket(
    session_key: str, ticket: str, items: list[str]
) -> None:
    from simulators.lab import load_ticket

    comm = await connect(ticket, session_key)
    checklist: list[dict[str, Any]] = []
    for line in load_ticket(ticket).answer_key:
        await comm.send_to(text_data=json.dumps({"type": "line", "data": line}))
        output = await receive(comm)
        assert output["type"] == "output" and "internal error" not in output["data"]
        checklist = output["checklist"]
    assert [item["id"] for item in checklist] == items
    assert all(item["done"] for item in checklist), checklist
    await comm.disconnect()


async def test_a_command_is_answered_while_the_shared_sync_thread_is_busy(
    session_key: str,
) -> None:
    comm = await connect("mig-single", session_key)
    # Channels' own dispatch first hops to asgiref's one sync thread for every frame; the lab's
    # frames must not queue behind whatever that thread is doing.
    gate = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(gate.wait)())
    try:
        await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get nodes"}))
        assert "gpu-node1" in (await receive(comm))["data"]
    finally:
        gate.set()
        await busy
    await comm.disconnect()


async def test_learners_typing_and_sockets_arriving_never_wait_for_each_others_threads(
    session_key: str,
) -> None:
    typing = await connect("mig-single", session_key)
    # Every command thread busy: a newcomer's socket still opens, with its replay.
    gate = threading.Event()
    busy = [consumers.POOL.submit(gate.wait) for _ in range(consumers.POOL_SIZE)]
    try:
        arriving = await connect("mig-single", await new_session_key())
    finally:
        gate.set()
        for done in busy:
            done.result()
    # The door's thread busy (sockets opening): the learner already typing is answered.
    gate = threading.Event()
    busy = [consumers.DOOR.submit(gate.wait) for _ in range(consumers.DOOR_SIZE)]
    try:
        await typing.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get nodes"}))
        assert "gpu-node1" in (await receive(typing))["data"]
    finally:
        gate.set()
        for done in busy:
            done.result()
    await typing.disconnect()
    await arriving.disconnect()


@pytest.fixture
def fold_after_every_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every lab's fold is due after its first logged command (and never within it)."""
    monkeypatch.setattr(lab_saved, "fold_spread", lambda saved_id: 1.0)
    monkeypatch.setattr(lab_saved, "SNAPSHOT_EVERY", 1)


async def test_a_fold_comes_after_the_commands_answer_which_is_already_saved(
    session_key: str, monkeypatch: pytest.MonkeyPatch, fold_after_every_command: None
) -> None:
    comm = await connect("mig-single", session_key)
    # The first command saves the lab (its first snapshot); the fold under test is the next's.
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get nodes"}))
    await receive(comm)
    await comm.send_to(text_data=json.dumps({"type": "complete", "line": "kubectl get n"}))
    await receive(comm)
    encoding = threading.Event()
    release = threading.Event()
    encode = store.Snapshot.of

    def slow_encode(lab: Any) -> store.Snapshot:
        encoding.set()
        assert release.wait(timeout=10)
        return encode(lab)

    monkeypatch.setattr(store.Snapshot, "of", slow_encode)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    # The answer arrives while the fold is still encoding: it never waits for the fold.
    assert (await receive(comm))["data"] == "node/gpu-node2 cordoned"
    assert await sync_to_async(encoding.wait)(10)
    logged = await database_sync_to_async(_logged_lines)(session_key)
    assert logged == ["kubectl cordon gpu-node2"]
    release.set()
    # Frames are handled in turn: once the next is answered, the fold is done.
    await comm.send_to(text_data=json.dumps({"type": "complete", "line": "kubectl drain gpu-n"}))
    await receive(comm)
    assert await database_sync_to_async(_logged_lines)(session_key) == []
    snapshot = await database_sync_to_async(_snapshot)(session_key)
    lines = [entry["line"] for entry in snapshot["transcript"]]
    assert lines == ["kubectl get nodes", "kubectl cordon gpu-node2"]
    await comm.disconnect()


def _logged_lines(session_key: str) -> list[str]:
    rows = LoggedCommand.objects.filter(lab__session_key=session_key).order_by("position")
    return list(rows.values_list("line", flat=True))


def _snapshot(session_key: str) -> Any:
    return SavedLab.objects.get(session_key=session_key).snapshot.data()


async def test_a_fold_that_fails_is_not_shown_and_the_command_is_kept(
    session_key: str, monkeypatch: pytest.MonkeyPatch, fold_after_every_command: None
) -> None:
    comm = await connect("mig-single", session_key)

    attempts: list[int] = []

    def broken(opened: store.OpenLab) -> bool:
        attempts.append(opened.saved_id)
        raise RuntimeError("the fold broke")

    monkeypatch.setattr(store, "fold", broken)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    assert (await receive(comm))["data"] == "node/gpu-node2 cordoned"
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get nodes"}))
    # The next frame is the next command's answer, not an error about the fold.
    answer = await receive(comm)
    assert answer["type"] == "output" and "SchedulingDisabled" in answer["data"]
    assert attempts, "the fold was never tried"
    assert await database_sync_to_async(_saved_history)(session_key) == [
        "kubectl cordon gpu-node2",
        "kubectl get nodes",
    ]
    await comm.disconnect()


def _saved_history(session_key: str) -> list[str]:
    """The lab's commands as another server process would load them."""
    store.kept.clear()
    return store.open_lab(session_key, "mig-single").lab.history


async def test_a_command_in_hand_when_the_socket_closes_is_saved_before_the_connection_ends(
    session_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    comm = await connect("mig-single", session_key)
    running, release = threading.Event(), threading.Event()
    apply = store.apply

    def held_apply(opened: store.OpenLab, line: str, **kwargs: Any) -> Any:
        running.set()
        assert release.wait(timeout=10)
        return apply(opened, line, **kwargs)

    monkeypatch.setattr(store, "apply", held_apply)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    assert await sync_to_async(running.wait)(10)
    closing = asyncio.ensure_future(comm.disconnect(timeout=10))
    await asyncio.sleep(0.3)
    # The server's side of the connection has not ended: the command is still being run.
    assert not closing.done()
    release.set()
    await closing
    # Once it has, the command is saved: nothing of it is left running (or writing) after.
    assert await database_sync_to_async(_logged_lines)(session_key) == ["kubectl cordon gpu-node2"]


def test_a_class_leaving_wakes_the_collector_at_once() -> None:
    owed = store.kept
    owed._wake.clear()
    owed._closed = 0  # as the rester leaves it after a collection
    for _ in range(kept_module.COLLECT_AFTER_CLOSED - 1):
        owed.closed()
    assert not owed._wake.is_set()
    owed.closed()
    assert owed._wake.is_set()


async def test_a_lab_whose_socket_closed_is_shelved_once_idle_and_answers_as_before(
    session_key: str,
) -> None:
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    await receive(comm)
    await comm.disconnect()
    pk = await database_sync_to_async(lambda: SavedLab.objects.get(session_key=session_key).pk)()

    def shelved() -> bool:
        # Its socket's close is in hand (or the resting thread was first): shelved either way.
        store.kept.shelve_left(time.monotonic() + kept_module.LEFT_SECONDS + 1)
        return isinstance(store.kept.recent.get(pk, (0.0, None))[1], kept_module.Shelved)

    for _ in range(100):
        if await sync_to_async(shelved)():
            break
        await asyncio.sleep(0.1)
    assert isinstance(store.kept.recent[pk][1], kept_module.Shelved)
    comm = await connect("mig-single", session_key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get node gpu-node2"}))
    assert "SchedulingDisabled" in (await receive(comm))["data"]
    await comm.disconnect()


@pytest.mark.django_db
def test_a_newcomers_socket_is_let_in_by_its_minted_key_without_a_session_query() -> None:
    with CaptureQueriesContext(connection) as queries:
        assert consumers.session_exists(SiteSessions(session_key=mint_key()))
        assert not consumers.session_exists(SiteSessions(session_key="x" * 32))
    # Only the invented key was looked up: a minted key is known by its tag.
    assert len(queries) == 1
