"""Each command's budget: CPU time, output size at every pipeline stage, line length.

A lab command is untrusted input. The caller (the web layer) sets the limits and
reads back what the command cost; the shell and its stages check the budget as
they go and stop with a one-line error like a shell's when it runs out. The
budget travels in a context variable so that deep code (sed, grep, jsonpath)
can check it without every tool signature carrying it; a worker thread started
with the caller's context (asyncio.to_thread) sees the same budget.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

DEFAULT_CPU_SECONDS = 0.25
DEFAULT_OUTPUT_BYTES = 512 * 1024
DEFAULT_LINE_BYTES = 4096


_collecting = threading.local()


def _on_collection(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _collecting.started = time.thread_time()
    elif (started := getattr(_collecting, "started", None)) is not None:
        _collecting.total = getattr(_collecting, "total", 0.0) + time.thread_time() - started
        _collecting.started = None


gc.callbacks.append(_on_collection)


def command_time() -> float:
    """CPU seconds of the running thread, less what the garbage collector took on it.

    A collection runs on whichever thread allocates when a threshold is crossed, and a full
    one walks every object of the process, every learner's lab included: late in a busy
    process it can take longer than a whole command's budget. Charging it to the command that
    happened to trigger it would stop a cheap command (and, in the tests, measured a hostile
    program's stop at 0.67 s against its 0.25 s budget, under coverage). What a command
    allocates is still bounded by its own time and its output limit.
    """
    return time.thread_time() - getattr(_collecting, "total", 0.0)


class BudgetExceeded(Exception):
    """A command ran out of budget; str() is the one-line error the learner sees."""


class Moved(BaseException):
    """The command ran past its probation (Meter.probation): its caller throws away what it
    did and runs it again elsewhere. A BaseException, like KeyboardInterrupt, so that no tool's
    or controller's own handler takes it for an error of theirs and carries on."""


@dataclass(frozen=True)
class Limits:
    cpu_seconds: float = DEFAULT_CPU_SECONDS
    output_bytes: int = DEFAULT_OUTPUT_BYTES
    line_bytes: int = DEFAULT_LINE_BYTES


@dataclass(frozen=True)
class Pace:
    """How a long command gives way: past `after` CPU seconds, each `slice` of CPU it uses is
    followed by a sleep `ratio` times as long.

    Commands share one process (and Python's lock) with every other learner's; a long one
    then holds the processor at most 1/(1 + ratio) of the time, in slices shorter than the
    interpreter's own switch interval, so the short commands of others go first.
    """

    after: float = 0.02
    slice: float = 0.002
    ratio: float = 4.0
    sleep: Callable[[float], None] = time.sleep


@dataclass
class Meter:
    """One command's spending against its limits.

    `clock` is CPU time of the running thread by default (command_time: without the garbage
    collector's): wall time would charge a command for the time other learners' commands held
    the processor.

    `whole_steps`: the command is a logged one replayed (studysite.lab.saved.restore). It ran
    within its budget when it was typed, so the world's step after it ran whole; replayed, the
    step runs whole again however slow this machine is now (out_of_time never cuts it), or the
    replay would build another world than the learner saw. Its own tools still stop at the
    limits.

    `probation`: CPU seconds the command may spend where it runs before it is Moved (raised
    by check_time and give_way, whatever the limits). Its caller then throws the lab's
    half-run state away and runs the line somewhere that can afford it (studysite.lab.store).
    """

    limits: Limits = field(default_factory=Limits)
    clock: Callable[[], float] = command_time
    started: float = -1.0
    ended: float = -1.0
    exceeded: bool = False
    pace: Pace | None = None
    paced_to: float = 0.0
    whole_steps: bool = False
    probation: float | None = None

    def start(self) -> None:
        self.started = self.clock()
        self.ended = -1.0
        self.exceeded = False
        self.paced_to = self.pace.after if self.pace is not None else 0.0

    def end(self) -> None:
        """Fix the spending: read later, or from another thread, it stays the command's."""
        self.ended = self.clock()

    def spent(self) -> float:
        """CPU seconds from start to end, or to now while running (0 before it)."""
        if self.started < 0:
            return 0.0
        return max(0.0, (self.ended if self.ended >= 0 else self.clock()) - self.started)

    def check_time(self) -> None:
        if self.started < 0:
            return
        spent = self.spent()
        self.on_probation(spent)
        if spent > self.limits.cpu_seconds:
            self.exceeded = True
            ms = round(self.limits.cpu_seconds * 1000)
            raise BudgetExceeded(f"bash: command stopped: it used more than {ms} ms of CPU time")
        pace = self.pace
        if pace is not None and spent - self.paced_to >= pace.slice:
            pace.sleep((spent - self.paced_to) * pace.ratio)
            self.paced_to = spent

    def on_probation(self, spent: float) -> None:
        """Raise Moved if `spent` is past the probation."""
        if self.probation is not None and spent > self.probation:
            raise Moved

    def check_output(self, size: int, stage: str) -> None:
        """`size` characters produced so far by `stage`; stops past the output limit."""
        if size > self.limits.output_bytes:
            self.exceeded = True
            kib = self.limits.output_bytes // 1024
            raise BudgetExceeded(
                f"{stage}: output stopped at the lab's limit of {kib} KiB"
                " (narrow it with grep, head or -o jsonpath)"
            )
        self.check_time()


_current: ContextVar[Meter | None] = ContextVar("lab_budget", default=None)


def current() -> Meter:
    """The running command's meter; an unlimited-time default outside a command."""
    meter = _current.get()
    return meter if meter is not None else Meter()


def limits() -> Limits:
    return current().limits


@contextmanager
def metered(meter: Meter) -> Iterator[Meter]:
    """Run the body (one command) against `meter`, started now."""
    token = _current.set(meter)
    meter.start()
    try:
        yield meter
    finally:
        meter.end()
        _current.reset(token)


@contextmanager
def ensured() -> Iterator[Meter]:
    """The caller's meter if a command is already metered, else a default one."""
    meter = _current.get()
    if meter is not None:
        yield meter
        return
    with metered(Meter()) as fresh:
        yield fresh


def check_time() -> None:
    current().check_time()


def out_of_time() -> bool:
    """Whether the running command has used its CPU time (paced as check_time paces it): the
    cluster's own work after a command (the controllers' step, the checklist) asks this
    between its units of work, so that it stops with the command instead of raising. Never,
    for a replayed command (Meter.whole_steps)."""
    if current().whole_steps:
        return False
    try:
        check_time()
    except BudgetExceeded:
        return True
    return False


def give_way() -> None:
    """Pace the running command (see Pace) without stopping it: for work that must finish
    once started (one controller's run), called often so that it yields in small slices. A
    command on probation is still Moved past it: all of its work is thrown away."""
    meter = current()
    pace = meter.pace
    if meter.started < 0 or (pace is None and meter.probation is None):
        return
    spent = meter.spent()
    meter.on_probation(spent)
    if pace is None:
        return
    if spent - meter.paced_to >= pace.slice:
        pace.sleep((spent - meter.paced_to) * pace.ratio)
        meter.paced_to = spent


def cluster_stopped() -> str:
    """The one line a command gets when the cluster's work after it ran out of its CPU time."""
    ms = round(limits().cpu_seconds * 1000)
    return (
        f"lab: the cluster stopped for this command at its {ms} ms of CPU time;"
        " it carries on at your next commands"
    )


def check_output(size: int, stage: str) -> None:
    current().check_output(size, stage)


def line_too_long(line: str) -> str | None:
    """bash's message for a line over the configured limit, or None if it fits."""
    limit = limits().line_bytes
    if len(line) * 4 <= limit or len(line.encode("utf-8", errors="replace")) <= limit:
        return None
    return f"bash: line too long (over {limit} bytes)"


def bounded_int(text: str, maximum: int) -> int | None:
    """A count typed by the learner, capped at `maximum`; None unless all digits.

    Python's int() refuses more than 4,300 digits (and is quadratic below that),
    so a long run of digits is capped from its length alone.
    """
    if not text.isascii() or not text.isdigit():
        return None
    stripped = text.lstrip("0") or "0"
    if len(stripped) > len(str(maximum)):
        return maximum
    return min(int(stripped), maximum)
