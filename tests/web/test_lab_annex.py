"""The annex: the child process that runs the commands of sessions that spend a lot.

Here the pipe protocol (a stand-in child for the client's failure cases), the annex's own loop
on the test database, and the websocket's choice between the web process and the annex. The
real child beside a real server: tests/reliability/test_annex.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import LazySettings
from django.db import connection
from django.test import Client

from simulators.lab import world
from studysite.lab import annex, store
from studysite.lab.accounts import EXAM_PREFIX
from studysite.lab.saved import new_lab
from tests.web.test_lab_consumer import connect, new_session_key, receive

# A stand-in child: says ready, then answers each request line by its "do".
CHILD = r"""
import json, sys, time
out = sys.stdout
out.write(json.dumps({"ready": True}) + "\n"); out.flush()
for raw in sys.stdin:
    request = json.loads(raw)
    do = request.get("do")
    if do == "exit":
        sys.exit(3)
    if do == "hang":
        time.sleep(60)
    if do == "halves":
        text = json.dumps({"echo": request})
        out.write(text[:5]); out.flush(); time.sleep(0.2)
        out.write(text[5:] + "\n"); out.flush()
        continue
    out.write(json.dumps({"echo": request}) + "\n"); out.flush()
"""


def stand_in(child: str = CHILD) -> annex.Annex:
    return annex.Annex([sys.executable, "-c", child])


def test_a_reply_split_across_reads_comes_back_whole() -> None:
    client = stand_in()
    try:
        assert client.call({"do": "halves", "n": 1}) == {"echo": {"do": "halves", "n": 1}}
        assert client.call({"n": 2}) == {"echo": {"n": 2}}
    finally:
        client.stop()


def test_a_child_that_does_not_say_it_is_ready_is_refused_and_stopped() -> None:
    client = stand_in("print('hello')\nimport time; time.sleep(60)")
    with pytest.raises(annex.AnnexError, match="did not start"):
        client.start()
    assert client.pid() is None


def test_a_child_that_exits_mid_command_is_an_error_and_the_next_call_starts_another() -> None:
    client = stand_in()
    try:
        client.start()
        first = client.pid()
        with pytest.raises(annex.AnnexError, match="exited"):
            client.call({"do": "exit"})
        assert client.call({"n": 1}) == {"echo": {"n": 1}}
        assert client.pid() not in (None, first)
    finally:
        client.stop()


def test_a_child_that_takes_too_long_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(annex, "REPLY_SECONDS", 0.5)
    client = stand_in()
    try:
        client.start()
        pid = client.pid()
        with pytest.raises(annex.AnnexError, match="no answer"):
            client.call({"do": "hang"})
        assert client.pid() is None
        assert pid is not None and not _alive(pid)
    finally:
        client.stop()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _serve(*requests: bytes) -> list[dict[str, Any]]:
    replies = io.BytesIO()
    annex.serve(io.BytesIO(b"".join(requests)), replies)
    return [json.loads(line) for line in replies.getvalue().splitlines()]


def _request(key: str, line: str) -> bytes:
    return json.dumps({"session": key, "ticket": "mig-single", "line": line}).encode() + b"\n"


@pytest.mark.django_db(transaction=True)
def test_the_annex_runs_a_line_on_the_saved_lab_and_keeps_it_before_it_answers() -> None:
    key = "a" * 32
    store.open_lab(key, "mig-single")
    ready, reply = _serve(_request(key, "kubectl cordon gpu-node2"))
    assert ready == {"ready": True}
    assert reply["output"] == "node/gpu-node2 cordoned"
    assert reply["checklist"][0]["id"] == "layout-applied"
    assert reply["cpu"] > 0
    store.kept.clear()  # as another process sees it: from the database
    reopened = store.open_lab(key, "mig-single")
    assert "SchedulingDisabled" in reopened.lab.run("kubectl get nodes").output


@pytest.mark.django_db(transaction=True)
def test_the_annex_runs_a_command_on_its_runner_thread_and_saves_it_on_its_own() -> None:
    key = "c" * 32
    store.open_lab(key, "mig-single")
    threads: list[str] = []
    idle = ThreadPoolExecutor(1, thread_name_prefix="idle")

    def runner[T](work: Callable[[], T]) -> T:
        def traced() -> T:
            threads.append(threading.current_thread().name)
            return work()

        return idle.submit(traced).result()

    replies = io.BytesIO()
    line = "kubectl get nodes | grep -c gpu"
    annex.serve(io.BytesIO(_request(key, line)), replies, runner)
    idle.shutdown()
    reply = json.loads(replies.getvalue().splitlines()[1])
    assert reply["output"].isdigit()
    assert reply["cpu"] > 0
    # Kept by the calling thread: the command is in the log another process reads.
    store.kept.clear()
    reopened = store.open_lab(key, "mig-single")
    assert reopened.lab.history[-1] == line
    # The command ran on the runner, and so did the fold's encoding if this one made the log
    # costly enough to fold (under coverage on a busy machine it may).
    folded = reopened.logged == 0
    assert threads == ["idle_0"] * (2 if folded else 1)


@pytest.mark.django_db(transaction=True)
def test_the_annex_encodes_an_over_budget_commands_snapshot_on_its_runner_thread(
    settings: LazySettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A session sending over-budget commands nonstop has its lab folded after each of them:
    # the encoding (several ms) must not run at normal priority beside the learners.
    key = "e" * 32
    store.open_lab(key, "mig-single")
    settings.LAB_MAX_OUTPUT_BYTES = 1024
    encoded_on: list[str] = []
    encode = store.Snapshot.of

    def traced(lab: Any) -> store.Snapshot:
        encoded_on.append(threading.current_thread().name)
        return encode(lab)

    monkeypatch.setattr(store.Snapshot, "of", traced)
    idle = ThreadPoolExecutor(1, thread_name_prefix="idle")
    replies = io.BytesIO()
    annex.serve(
        io.BytesIO(_request(key, "kubectl get pods -A -o yaml")),
        replies,
        lambda work: idle.submit(work).result(),
    )
    idle.shutdown()
    reply = json.loads(replies.getvalue().splitlines()[1])
    assert "the lab's limit of 1 KiB" in reply["output"]
    assert encoded_on == ["idle_0"]
    store.kept.clear()
    assert store.open_lab(key, "mig-single").logged == 0


@pytest.mark.django_db(transaction=True)
def test_a_fold_that_fails_in_the_annex_adds_no_reply_and_loses_no_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    attempts: list[str] = []

    def broken(opened: store.OpenLab, runner: Any = None) -> bool:
        attempts.append(opened.session_key)
        raise RuntimeError("the fold broke")

    monkeypatch.setattr(store, "fold", broken)
    key = "a" * 32
    first, second = "kubectl cordon gpu-node1", "kubectl uncordon gpu-node1"
    replies = _serve(_request(key, first), _request(key, second))
    # One reply per request, in order: the web process reads them so.
    assert len(replies) == 3 and replies[0] == {"ready": True}
    assert replies[1]["output"] == "node/gpu-node1 cordoned"
    assert replies[2]["output"] == "node/gpu-node1 uncordoned"
    assert attempts == [key, key]  # tried after each reply
    store.kept.clear()
    assert store.open_lab(key, "mig-single").lab.history[-2:] == [first, second]


@pytest.mark.django_db(transaction=True)
def test_a_request_the_annex_cannot_read_gets_an_error_and_the_next_one_runs() -> None:
    key = "b" * 32
    replies = _serve(b"not json\n", b'{"session": 1}\n', _request(key, "kubectl cordon gpu-node1"))
    assert replies[0] == {"ready": True}
    assert "error" in replies[1] and "error" in replies[2]
    assert replies[3]["output"] == "node/gpu-node1 cordoned"


class FakeAnnex:
    """The process boundary, for the websocket's choice: records what it was sent. `up`: the
    child has said it is ready (False: still starting)."""

    def __init__(self, reply: dict[str, Any] | Exception, up: bool = True) -> None:
        self.reply = reply
        self.up = up
        self.sent: list[dict[str, Any]] = []

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        self.sent.append(request)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply

    def ready(self) -> bool:
        return self.up

    def pid(self) -> int:
        return 1  # running: warm() leaves it be


class AnnexHere(FakeAnnex):
    """The annex's own answer (annex.answer: the lab opened from the database, the line run and
    kept there), in this process: a writer of the lab other than the socket's copy."""

    def __init__(self) -> None:
        super().__init__({})

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        self.sent.append(request)
        store.kept.clear()  # the annex's copies are its own, read from the database
        try:
            reply, _ = annex.answer(request)
        finally:
            store.kept.clear()
            # Its own connection, as the annex's own process has: closed when it has answered
            # (PostgreSQL refuses to drop a test database that a session still holds).
            connection.close()
        return reply


@pytest.fixture
def annex_on(settings: LazySettings) -> None:
    settings.LAB_ANNEX = True


@pytest.fixture
def here(annex_on: None, monkeypatch: pytest.MonkeyPatch) -> AnnexHere:
    """The annex on, answering in this process (AnnexHere)."""
    answering = AnnexHere()
    monkeypatch.setattr(annex, "_annex", answering)
    return answering


def _spend(key: str, seconds: float) -> None:
    store.cpu_share.allows(key, time.monotonic())  # the bucket starts full
    store.cpu_share.charge(key, seconds)


REPLY = {
    "output": "node/gpu-node2 cordoned",
    "checklist": [{"id": "layout-applied", "text": "The layout is applied", "done": True}],
    "step": 3,
    "clear": False,
    "cpu": 0.05,
    "saved_id": 0,
}


@pytest.mark.django_db(transaction=True)
async def test_a_session_over_its_share_has_its_lines_run_in_the_annex(
    annex_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeAnnex(dict(REPLY))
    monkeypatch.setattr(annex, "_annex", fake)
    key = await new_session_key()
    _spend(key, store.HEAVY_SECONDS + 0.1)
    comm = await connect("mig-single", key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    frame = await receive(comm)
    assert frame["data"] == "node/gpu-node2 cordoned"
    assert frame["checklist"] == REPLY["checklist"]
    line = "kubectl cordon gpu-node2"
    assert fake.sent == [{"session": key, "ticket": "mig-single", "line": line}]
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_annex_is_charged_to_the_session_and_refused_past_its_share(
    annex_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeAnnex(dict(REPLY, cpu=5.0))
    monkeypatch.setattr(annex, "_annex", fake)
    key = await new_session_key()
    _spend(key, store.HEAVY_SECONDS + 0.1)
    comm = await connect("mig-single", key)
    for _ in range(2):
        await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get nodes"}))
    assert (await receive(comm))["data"] == REPLY["output"]
    # The annex said the first used 5 s: the second is refused here, never sent.
    assert (await receive(comm))["data"] == store.SLOW_DOWN
    assert len(fake.sent) == 1
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_saved_labs_lines_within_the_sessions_share_run_in_the_web_process(
    annex_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeAnnex(annex.AnnexError("not to be called"))
    monkeypatch.setattr(annex, "_annex", fake)
    key = await new_session_key()
    await sync_to_async(store.open_lab)(key, "mig-single")  # saved: not its first line
    comm = await connect("mig-single", key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl cordon gpu-node2"}))
    assert (await receive(comm))["data"] == "node/gpu-node2 cordoned"
    assert fake.sent == []
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_an_annex_that_fails_answers_the_line_with_a_clear_message(
    annex_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(annex, "_annex", FakeAnnex(annex.AnnexError("it exited (code -9)")))
    key = await new_session_key()
    _spend(key, store.HEAVY_SECONDS + 0.1)
    comm = await connect("mig-single", key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl get nodes"}))
    frame = await receive(comm)
    assert frame["type"] == "output" and frame["data"] == annex.FAILED
    assert frame["checklist"][0]["id"] == "layout-applied"
    await comm.disconnect()


SCALE = "kubectl scale deployment coredns -n kube-system --replicas=600"
REPLICAS = "kubectl get deploy coredns -n kube-system -o jsonpath={.spec.replicas}"


def world_json(opened: store.OpenLab) -> str:
    return json.dumps(opened.lab.world.to_json(), sort_keys=True)


@pytest.mark.django_db(transaction=True)
def test_a_line_past_its_probation_keeps_nothing_and_leaves_the_lab_as_it_was_saved() -> None:
    key = "b" * 32
    opened = store.open_lab(key, "mig-single")
    store.apply(opened, "kubectl cordon gpu-node2")
    saved, version = world_json(opened), opened.version
    with pytest.raises(store.Overran):
        store.apply(opened, SCALE, probation=0.001)
    assert (opened.version, world_json(opened)) == (version, saved)
    store.kept.clear()  # as the annex sees it: from the database
    assert world_json(store.open_lab(key, "mig-single")) == saved


@pytest.mark.django_db(transaction=True)
async def test_a_fresh_sessions_first_line_that_overruns_its_probation_is_run_by_the_annex(
    annex_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The annex is still starting: a fresh session's lines run here, on probation.
    fake = FakeAnnex(dict(REPLY, output="deployment.apps/coredns scaled"), up=False)
    monkeypatch.setattr(annex, "_annex", fake)
    monkeypatch.setattr(store, "PROBATION_SECONDS", 0.001)
    key = await new_session_key()
    comm = await connect("mig-single", key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": SCALE}))
    assert (await receive(comm))["data"] == "deployment.apps/coredns scaled"
    assert fake.sent == [{"session": key, "ticket": "mig-single", "line": SCALE}]
    await comm.disconnect()
    # Nothing of the half-run scale stayed in the web process's copy of the lab.
    kept = await sync_to_async(store.open_lab)(key, "mig-single")
    assert kept.lab.run(REPLICAS).output != "600"


def test_an_exam_tasks_lines_are_never_on_probation(annex_on: None) -> None:
    lab = new_lab("c" * 32, "mig-single")
    practice = store.OpenLab(lab, False, 1, "c" * 32, "mig-single")
    exam = store.OpenLab(lab, False, 1, EXAM_PREFIX + "c" * 27, "mig-single")
    assert annex.probation(practice) == store.PROBATION_SECONDS
    assert annex.probation(exam) is None


@pytest.mark.django_db(transaction=True)
def test_the_form_fallback_sends_a_line_that_overruns_its_probation_to_the_annex(
    annex_on: None, monkeypatch: pytest.MonkeyPatch, client: Client
) -> None:
    fake = FakeAnnex(dict(REPLY, output="deployment.apps/coredns scaled"), up=False)
    monkeypatch.setattr(annex, "_annex", fake)
    monkeypatch.setattr(store, "PROBATION_SECONDS", 0.001)
    client.get("/lab/mig-single/")
    response = client.post("/lab/mig-single/command", {"line": SCALE}, follow=True)
    assert [sent["line"] for sent in fake.sent] == [SCALE]
    # Kept elsewhere, not refused: the page says nothing went wrong.
    assert "command-refused" not in response.content.decode()
    partial = client.post(
        "/lab/mig-single/command", {"line": SCALE}, headers={"HX-Request": "true"}
    )
    assert "deployment.apps/coredns scaled" in partial.content.decode()
    assert len(fake.sent) == 2


@pytest.mark.django_db(transaction=True)
async def test_a_new_labs_first_line_runs_in_the_annex_and_the_next_here_on_what_it_kept(
    here: AnnexHere,
) -> None:
    key = await new_session_key()
    comm = await connect("mig-single", key)
    lines = ["kubectl cordon gpu-node2", "kubectl label node gpu-node2 team=a", "kubectl get nodes"]
    replies = []
    for line in lines:
        await comm.send_to(text_data=json.dumps({"type": "line", "data": line}))
        replies.append((await receive(comm))["data"])
    # The first, on probation there as it would have been here.
    assert here.sent == [
        {"session": key, "ticket": "mig-single", "line": lines[0], "probation": 0.05}
    ]
    assert replies[:2] == ["node/gpu-node2 cordoned", "node/gpu-node2 labeled"]
    # The next ran in this process, on the lab as the annex kept it.
    assert "Ready,SchedulingDisabled" in replies[2]
    await comm.disconnect()
    saved = await sync_to_async(store.open_lab)(key, "mig-single")
    assert [entry.line for entry in saved.lab.transcript] == lines


@pytest.mark.django_db(transaction=True)
def test_the_annex_runs_a_newcomers_line_here_then_on_its_runner_past_the_probation() -> None:
    on_runner: list[str] = []
    idle = ThreadPoolExecutor(1, thread_name_prefix="idle")

    def runner[T](work: Callable[[], T]) -> T:
        # A command's work is store._run(opened, line, meter); a fold's, Snapshot.of(lab).
        arguments = getattr(work, "args", ())
        on_runner.extend(a for a in arguments[1:2] if isinstance(a, str))
        return idle.submit(work).result()

    def newcomer(key: str, line: str) -> bytes:
        request = {"session": key, "ticket": "mig-single", "line": line, "probation": 0.05}
        return json.dumps(request).encode() + b"\n"

    replies = io.BytesIO()
    requests = newcomer("d" * 32, "kubectl cordon gpu-node2") + newcomer("e" * 32, SCALE)
    annex.serve(io.BytesIO(requests), replies, runner)
    idle.shutdown()
    cordoned, scaled = (json.loads(line) for line in replies.getvalue().splitlines()[1:])
    assert cordoned["output"] == "node/gpu-node2 cordoned"
    assert scaled["output"].startswith("deployment.apps/coredns scaled")
    # The light line never left the annex's own thread; the scale ran again on the runner.
    assert on_runner == [SCALE]
    # Neither lab stays in the annex: each goes on in its web process.
    assert store.kept.get(cordoned["saved_id"], time.monotonic()) is None
    assert store.kept.get(scaled["saved_id"], time.monotonic()) is None
    store.kept.clear()
    assert store.open_lab("e" * 32, "mig-single").lab.run(REPLICAS).output.splitlines()[0] == "600"


@pytest.mark.django_db(transaction=True)
def test_a_newcomers_first_line_is_charged_its_command_not_the_starting_world_the_annex_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A starting world built here costs what it costs on the machine (140 ms; more in CI):
    # made to cost 0.4 s of processor time, so that charging it shows whatever the machine.
    build = world.build_world

    def slow_build(*args: Any) -> Any:
        until = time.process_time() + 0.4
        while time.process_time() < until:
            pass
        return build(*args)

    monkeypatch.setattr(world, "build_world", slow_build)
    monkeypatch.setattr(world, "_templates", type(world._templates)())
    request = {"session": "q" * 32, "ticket": "mig-single", "line": "kubectl get nodes"}
    reply, _ = annex.answer({**request, "probation": store.PROBATION_SECONDS})
    assert "gpu-node1" in reply["output"]
    # Well under HEAVY_SECONDS: the newcomer's next commands run in its web process.
    assert reply["cpu"] < 0.2
    store.kept.clear()


@pytest.mark.django_db(transaction=True)
async def test_tab_completes_what_the_annex_kept(here: AnnexHere) -> None:
    comm = await connect("mig-single", await new_session_key())
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "kubectl create ns zeta"}))
    assert (await receive(comm))["data"] == "namespace/zeta created"
    await comm.send_to(text_data=json.dumps({"type": "complete", "line": "kubectl get ns ze"}))
    assert (await receive(comm))["items"] == ["zeta"]
    await comm.disconnect()


def test_an_annex_is_ready_only_once_its_child_has_said_so() -> None:
    client = stand_in()
    assert not client.ready()
    try:
        client.start()
        assert client.ready()
    finally:
        client.stop()
    assert not client.ready()
    silent = stand_in("import time; time.sleep(60)")
    starting = threading.Thread(target=lambda: _quietly(silent.start))
    starting.start()
    try:
        deadline = time.monotonic() + 10
        while silent.pid() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        pid = silent.pid()
        assert pid is not None and not silent.ready()  # started, not ready
    finally:
        if (pid := silent.pid()) is not None:
            os.kill(pid, signal.SIGKILL)  # its start then fails, and stops it
        starting.join(timeout=10)
    assert not silent.ready()


class GoneAnnex(FakeAnnex):
    """A child that was killed (or never started): no process; each `start` counted, and
    refused with `failing`."""

    def __init__(self, failing: bool = False) -> None:
        super().__init__({}, up=False)
        self.started = threading.Event()
        self.starts = 0
        self.failing = failing

    def pid(self) -> None:  # type: ignore[override]
        return None

    def start(self) -> None:
        self.starts += 1
        self.started.set()
        if self.failing:
            raise annex.AnnexError("it exited (code 1)")


@pytest.mark.django_db(transaction=True)
def test_an_annex_found_gone_is_started_again_in_the_background_by_the_next_command(
    annex_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = GoneAnnex()
    monkeypatch.setattr(annex, "_annex", gone)
    opened = store.open_lab("g" * 32, "mig-single")
    store.apply(opened, "kubectl get nodes")  # a saved lab of a light session
    assert not annex.serves(opened)  # its line runs here, without waiting for the annex
    assert gone.started.wait(5), "the annex was not started again"


@pytest.mark.django_db(transaction=True)
def test_an_annex_that_fails_to_start_is_not_tried_again_by_every_command(
    annex_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = GoneAnnex(failing=True)
    monkeypatch.setattr(annex, "_annex", broken)
    monkeypatch.setattr(annex, "_failed_at", [float("-inf")])
    opened = store.open_lab("f" * 32, "mig-single")
    store.apply(opened, "kubectl get nodes")
    assert not annex.serves(opened)
    deadline = time.monotonic() + 5
    while annex._failed_at[0] == float("-inf"):  # the failed start noted
        assert time.monotonic() < deadline, "the failed start was not noted"
        time.sleep(0.01)
    for _ in range(5):
        assert not annex.serves(opened)
    time.sleep(0.2)  # time for any start these commands asked for
    assert broken.starts == 1  # once per annex.RETRY_SECONDS, not once per command


def _quietly(action: Callable[[], object]) -> None:
    with contextlib.suppress(annex.AnnexError):
        action()


@pytest.mark.django_db(transaction=True)
async def test_two_newcomers_streams_in_the_annex_are_two_labs_streams(here: AnnexHere) -> None:
    first = await connect("mig-single", await new_session_key())
    second = await connect("mig-single", await new_session_key())
    for comm in (first, second):
        await comm.send_to(
            text_data=json.dumps({"type": "line", "data": "watch kubectl get nodes"})
        )
        assert (await receive(comm))["stream"] is True
    # Each lab has its row (the annex saved it): the second stream is not the first's other tab.
    frame = json.loads(await first.receive_from(timeout=10))
    assert frame["type"] == "stream" and frame["data"].startswith("Every 2.0s: kubectl get nodes")
    for comm in (first, second):
        await comm.send_to(text_data=json.dumps({"type": "interrupt"}))
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
def test_the_form_sends_a_new_labs_first_line_to_the_annex_and_runs_the_next_here(
    here: AnnexHere, client: Client
) -> None:
    client.get("/lab/mig-single/")
    htmx = {"HX-Request": "true"}
    client.post("/lab/mig-single/command", {"line": "kubectl cordon gpu-node2"}, headers=htmx)
    nodes = client.post("/lab/mig-single/command", {"line": "kubectl get nodes"}, headers=htmx)
    assert [sent["line"] for sent in here.sent] == ["kubectl cordon gpu-node2"]
    assert "Ready,SchedulingDisabled" in nodes.content.decode()
