"""The annex: a child process that runs the commands of the sessions that spend a lot, and each
lab's first command (see serves).

Every learner's commands run in threads of their web process and share its interpreter, and
with it Python's lock. A session sending expensive commands back to back (each within its
budget, paced) made the other learners of its process wait for that lock whenever its commands
ran: their p99 doubled (tests/benchmarks/bench_load.py). So a session whose recent commands
add up to more than studysite.rates.HEAVY_SECONDS of processor time (CpuShare.heavy) has its
commands run here instead: one child process per web process, started with its first lab socket. The
commands themselves run on the child's one thread of the idle scheduling class (SCHED_IDLE;
NICENESS where that is not allowed). The operating system, not the interpreter's lock, then
shares the cores, and the web processes always go first. Once the session's recent use has
faded, its commands run in the web process again.

Saving a command takes the database's writer lock, which every learner's save waits for
(studysite.lab.writes.SqliteWriter). A thread of idle priority holding it on a busy machine
waits for a free core, and every learner with it: so the child's main thread, at normal
priority, does the saving, and hands only the command's own work to the idle thread.

The annex is one more writer of the labs it runs, like another server process (see
studysite.lab.store): it opens the lab from the database (and keeps it, as a web process does),
applies the line under the one-writer check and commits it before it answers. The web process's
own copy of that lab is then behind the database, and its next command there reloads it.
The web process keeps the session's account: it refuses a line over the limits or past the
share before sending it, and charges the processor time the annex reports.

Protocol: one JSON object per line on the child's stdin and stdout. The child first says
{"ready": true}; then, for each request {"session": KEY, "ticket": ID, "line": LINE} (plus
{"probation": SECONDS} for a lab's first line), it answers the command's result as
CommandResult.to_dict makes it (CommandResult.from_dict reads it) plus {"cpu": SECONDS,
"saved_id": ROW}, or {"error": MESSAGE}. At the end of its stdin (its web process has gone) it
exits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import logging
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

from django.conf import settings

from simulators.lab import CommandResult
from studysite.interpreter import SERVING_ENVIRONMENT
from studysite.lab import store
from studysite.lab.accounts import EXAM_PREFIX, account
from studysite.lab.kinds import kind_of
from studysite.lab.process_lock import Slots, site_path
from studysite.lab.saved import prepare_lab

log = logging.getLogger(__name__)

# Added to the annex's nice value where SCHED_IDLE is refused: under contention the kernel then
# gives a web process about ten times the annex's processor time.
NICENESS = 10
STARTUP_SECONDS = 60.0
# A background start that failed is not tried again sooner (see warm); when it last failed.
RETRY_SECONDS = 30.0
_failed_at = [float("-inf")]
# A command is at most LAB_COMMAND_CPU_MS of processor time, paced; this is a hung annex.
REPLY_SECONDS = 30.0
FAILED = "lab: internal error; the command may not have run. Reload the page to see the lab"
# Waiting for the annex's answer blocks a thread: these, not the command pool's, so that heavy
# sessions waiting their turn never hold up the other learners' commands.
WAITERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="lab-annex")


class AnnexError(Exception):
    """The annex did not answer: it failed to start, exited, or took too long."""


class Annex:
    """The client side: one child process, one request at a time, restarted when it fails."""

    def __init__(self, argv: list[str], cwd: str | None = None) -> None:
        self.argv = argv
        self.cwd = cwd
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        # Set once the running child has said it is ready.
        self.started = False
        self.pending = bytearray()

    def start(self) -> None:
        """Start the child now (if it is not running) and wait until it is ready."""
        with self.lock:
            self._running()

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(request).encode() + b"\n"
        with self.lock:
            process = self._running()
            try:
                try:
                    self._send(process, data)
                except OSError:
                    # It died since its last answer (nobody read the request): start another.
                    self._stop()
                    process = self._running()
                    self._send(process, data)
                return self._reply(process, REPLY_SECONDS)
            except (OSError, ValueError, AnnexError) as error:
                self._stop()
                raise AnnexError(f"the annex did not answer: {error}") from error

    @staticmethod
    def _send(process: subprocess.Popen[bytes], data: bytes) -> None:
        assert process.stdin is not None
        process.stdin.write(data)
        process.stdin.flush()

    def stop(self) -> None:
        with self.lock:
            self._stop()

    def ready(self) -> bool:
        """Whether the child has started and said it is ready (never blocks)."""
        process = self.process
        return self.started and process is not None and process.poll() is None

    def pid(self) -> int | None:
        process = self.process
        return process.pid if process is not None and process.poll() is None else None

    def _running(self) -> subprocess.Popen[bytes]:
        if self.process is not None and self.process.poll() is None:
            return self.process
        self.started = False
        self.pending.clear()
        try:
            self.process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=self.cwd,
                env={**os.environ, **SERVING_ENVIRONMENT},
            )
            ready = self._reply(self.process, STARTUP_SECONDS)
        except (OSError, ValueError, AnnexError) as error:
            self._stop()
            raise AnnexError(f"the annex did not start: {error}") from error
        if ready != {"ready": True}:
            self._stop()
            raise AnnexError(f"the annex did not start: it said {ready!r}")
        self.started = True
        return self.process

    def _reply(self, process: subprocess.Popen[bytes], seconds: float) -> dict[str, Any]:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        deadline = time.monotonic() + seconds
        while (end := self.pending.find(b"\n")) < 0:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AnnexError(f"no answer in {seconds:.0f} s")
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise AnnexError(f"it exited (code {process.wait()})")
            self.pending += chunk
        line = bytes(self.pending[:end])
        del self.pending[: end + 1]
        reply = json.loads(line)
        if not isinstance(reply, dict):
            raise AnnexError("not a JSON object")
        return reply

    def _stop(self) -> None:
        process, self.process = self.process, None
        self.started = False
        if process is None:
            return
        with contextlib.suppress(OSError):
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


_annex = Annex(
    [sys.executable, str(settings.BASE_DIR / "manage.py"), "labannex"], cwd=str(settings.BASE_DIR)
)


def enabled() -> bool:
    return bool(settings.LAB_ANNEX)


def warm() -> None:
    """Start the annex in the background, so that the first heavy command need not wait; not
    again within RETRY_SECONDS of a start that failed (a heavy session's command still starts
    it at once): a broken annex costs a process start per RETRY_SECONDS, not one per command."""
    if enabled() and _annex.pid() is None and time.monotonic() - _failed_at[0] >= RETRY_SECONDS:
        WAITERS.submit(_start_quietly)


def _start_quietly() -> None:
    try:
        _annex.start()
    except AnnexError:
        _failed_at[0] = time.monotonic()
        log.exception("the lab's annex did not start")


def _may_serve(opened: store.OpenLab) -> bool:
    """Whether this lab's commands may run in the annex. Never an exam task's: its terminal
    notes a kept command by its own copy of the lab moving on (studysite.lab.exam_consumers),
    which a command kept by the annex leaves behind, so the report would lose its times."""
    return (
        enabled()
        and kind_of(opened.ticket).annexed
        and not opened.session_key.startswith(EXAM_PREFIX)
    )


def serves(opened: store.OpenLab) -> bool:
    """Whether this lab's next command runs in the annex: its session spends a lot, or it is
    the lab's first command (the lab is not saved yet) and the annex is up.

    A newcomer's page and socket cost this process about 4 ms; its first command costs what it
    types, which nothing knows before it runs: the heaviest (a scale to 600, 300 columns) cost
    this process their probation, a reload and the lab's first save, and eight sessions
    arriving within 100 ms held its interpreter (and the database's writer lock, for the
    saves) for some 200 ms while the learners whose sockets it holds waited: their p99 was 2.4
    times as long as alone (tests/benchmarks/bench_heavy.py). In the annex, a process of its own,
    a first command runs on probation at normal priority, then on the idle thread past it
    (answer); the lab is saved there, and this process's copy catches up at its next command
    (store.catch_up: one logged line to replay). Only the first: a class of 150 typing a line a
    second each queued behind one another in the annex when their first ten went there
    (docs/performance.md, round 45). While the annex starts, a first command runs here, in
    admission's lane, on probation; an annex found not running is started in the background.
    """
    if not _may_serve(opened):
        return False
    if store.cpu_share.heavy(account(opened.session_key), time.monotonic()):
        return True
    up = _annex.ready()
    if not up:
        # Gone (killed, out of memory) or never started: started again in the background now,
        # not when a heavy session next needs it and waits for it.
        warm()
    return not opened.saved_id and up


def probation(opened: store.OpenLab) -> float | None:
    """How long this lab's next command may run in the web process before it is thrown away
    there and run here instead (store.Overran); None: it runs in the web process to the end.

    The first command of a fresh session (one page load) is never heavy by its session's
    account, yet can be the most expensive there is: `kubectl scale ... --replicas=600` held
    the web process's interpreter for its whole budget, paced, and tripled the quiet learners'
    p99 (tests/benchmarks/bench_heavy.py). On probation it costs the web process at most
    store.PROBATION_SECONDS and a reload of the lab as saved."""
    return store.PROBATION_SECONDS if _may_serve(opened) else None


def apply_anywhere(opened: store.OpenLab, line: str) -> CommandResult:
    """The line run where the terminal would run it (studysite.lab.consumers.run_line, which
    does the same across its pools), for a caller without them (the form fallback): in the
    annex for a heavy session or a lab's first line (serves), else here on probation, and in the
    annex if it overran it. Blocking."""
    if serves(opened):
        return apply(opened, line, probation=newcomers_probation(opened))
    try:
        return store.apply(opened, line, probation=probation(opened))
    except store.Overran:
        return apply(opened, line)


def apply(opened: store.OpenLab, line: str, probation: float | None = None) -> CommandResult:
    """store.apply, the line run and kept in the annex (blocking: call it from one of the
    WAITERS). The refusals and the account are store.apply's, here in the web process. With a
    `probation` (a newcomer's line), the annex runs it at normal priority that long first."""
    return store.apply(opened, line, elsewhere=functools.partial(_in_annex, probation=probation))


def newcomers_probation(opened: store.OpenLab) -> float | None:
    """The probation a line sent to the annex runs on there (see answer): a newcomer's, whose
    session has not spent enough to be heavy; None for a heavy session's."""
    heavy = store.cpu_share.heavy(account(opened.session_key), time.monotonic())
    return None if heavy else store.PROBATION_SECONDS


def _in_annex(
    opened: store.OpenLab, line: str, probation: float | None = None
) -> tuple[CommandResult, float]:
    """The line kept by the annex; this process's copy of the lab is then behind the database
    (reloaded before its next use here), and knows the lab's row (a fresh lab is saved there)."""
    request: dict[str, Any] = {"session": opened.session_key, "ticket": opened.ticket, "line": line}
    if probation is not None:
        request["probation"] = probation
    try:
        reply = _annex.call(request)
        if "error" in reply:
            raise AnnexError(str(reply["error"]))
        result = CommandResult.from_dict(reply)
        opened.moved(saved_id=int(reply["saved_id"]), behind=True)
        return dataclasses.replace(result, line=line[:80]), float(reply["cpu"])
    except (AnnexError, KeyError, TypeError, ValueError):
        log.exception("a lab command in the annex failed")
        with store.reading(opened) as lab:
            result = CommandResult(line[:80], FAILED, lab.checklist(), lab.step)
        # It may have been kept before the annex failed: read the database before going on.
        opened.moved(behind=bool(opened.saved_id))
        return result, 0.0


def answer(
    request: dict[str, Any], runner: store.Runner = store.run_here
) -> tuple[dict[str, Any], store.OpenLab]:
    """In the annex: run one request as the web process would have (store.apply); the reply
    (the result as CommandResult.to_dict makes it, and the processor time) and the lab, to fold
    once the reply has gone."""
    session, ticket = str(request["session"]), str(request["ticket"])
    line, probation = str(request["line"]), request.get("probation")
    if probation is not None:
        # A newcomer's first line: the starting world its page built in the web process is
        # built here too, once per seed, as the annex's cache and not the newcomer's command.
        # Charged, it made a quiet learner's first `kubectl get nodes` (140-220 ms) heavy, and
        # every command of it then waited in the annex behind the crowd's (issue 33).
        prepare_lab(session, ticket)
    # The process's time: the idle thread's work and this thread's save are the request's.
    started = time.process_time()
    opened = store.open_lab(session, ticket)
    try:
        if not isinstance(probation, int | float):
            raise store.Overran
        # A newcomer's line: on this thread first, at normal priority, as long as the web
        # process would have run it; past that, on the idle thread like a heavy session's.
        result = store.apply(opened, line, share=None, pace=None, probation=float(probation))
    except store.Overran:
        result = store.apply(opened, line, share=None, runner=runner)
    reply = {**result.to_dict(), "cpu": time.process_time() - started, "saved_id": opened.saved_id}
    return reply, opened


def serve(requests: IO[bytes], replies: IO[bytes], runner: store.Runner = store.run_here) -> None:
    """The annex's loop: a request a line until its web process closes the pipe."""
    from django.db import DatabaseError, connection

    def say(reply: dict[str, Any]) -> None:
        replies.write(json.dumps(reply).encode() + b"\n")
        replies.flush()

    say({"ready": True})

    def closing_if_broken(error: Exception) -> None:
        if isinstance(error, DatabaseError):
            connection.close()

    for raw in requests:
        try:
            request = json.loads(raw)
            reply, opened = answer(request, runner)
        except Exception as error:
            closing_if_broken(error)
            log.exception("lab annex: a request failed")
            say({"error": type(error).__name__})
            continue
        say(reply)
        try:
            # Encoding the snapshot is the fold's work, done by the idle thread like a command.
            store.fold(opened, runner)
            if "probation" in request:
                # A newcomer's lab goes on in its web process: this copy would only take memory.
                store.kept.drop(opened.saved_id)
        except Exception as error:
            # Never a second reply to one request. The command is saved in the log, which the
            # next command's fold takes up again.
            closing_if_broken(error)
            log.exception("lab annex: a fold failed")


def lower_priority() -> None:
    """Run this thread from now on only when the web processes leave a core free."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        # Not Linux, or not allowed: a lower priority still gives way.
        with contextlib.suppress(OSError):
            os.nice(NICENESS)


class IdleRunner:
    """The annex's runner: a command's work on the idle thread, in one of the idle slots."""

    def __init__(self, idle: ThreadPoolExecutor, slots: Slots) -> None:
        self.idle, self.slots = idle, slots

    def __call__[T](self, work: Callable[[], T]) -> T:
        with self.slots.held():
            return self.idle.submit(work).result()


def idle_slots() -> Slots:
    """The idle cores the annexes of every web process of this site share: half the machine's.

    Idle priority keeps an annex's work off the cores the web processes want, but not out of
    what they share with it (caches, memory): with two web processes on two cores, their two
    annexes kept both cores busy with the heaviest sessions' work and the quiet learners' p99
    beside them rose from about 1.0 to 1.2-2.1 times alone, where one annex left it at about
    1.0 (tests/benchmarks/bench_heavy.py; docs/performance.md, round 54). So an annex runs its
    idle thread's work only in one of these slots, named after the database the site uses."""
    return Slots(site_path("annex"), (os.cpu_count() or 1) // 2)


def main() -> None:
    """The annex's entry point (`manage.py labannex`)."""
    idle = ThreadPoolExecutor(1, thread_name_prefix="lab-annex-idle", initializer=lower_priority)
    idle.submit(int).result()  # its thread starts now, before the first command
    # Replies get the real stdout to themselves; anything else printed goes to stderr.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)

    serve(sys.stdin.buffer, replies, IdleRunner(idle, idle_slots()))
