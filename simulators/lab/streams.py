"""Commands that keep printing: `kubectl get -w`, `kubectl logs -f`, `kubectl rollout status`
and `watch CMD`.

A streaming command answers at once with its first snapshot, as any command, and asks for a
stream (`start`). The browser terminal then keeps it going: every `interval` seconds it runs a
*step line* (STEP_MARK, a control character no terminal sends, then JSON) that steps the world
once and runs the stream's *probe* (the command without its watch flag); `Stream.feed` turns
each probe's output into what the real tool would print next (a changed table row, new log
lines, watch's new screen) and says when the stream ends on its own. Step lines are kept and
replayed like typed lines, so the world a stream moved is the world every tab and restart
sees. Without the terminal (the form, the stdin lab) a streaming command prints its snapshot
and NOT_STREAMED says so.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from simulators.lab.tool import Context, Output

STEP_MARK = "\x1f"  # ASCII's unit separator: never typed at a terminal
# The kinds of stream: table rows that change, lines that append, a screen that repeats, and a
# status that ends when it says it is done.
ROWS, APPEND, SCREEN, UNTIL = "rows", "append", "screen", "until"
# A condition checked each step, silent until it holds (kubectl wait); at its timeout, the
# probe's last answer (kubectl's timed-out error).
WAIT = "wait"
KINDS = (ROWS, APPEND, SCREEN, UNTIL, WAIT)
# A stream's steps are at least this far apart, and it ends after MAX_SECONDS (a command's
# budget is per step; a learner who walked away should not keep a stream running all night).
MIN_INTERVAL = 1.0
MAX_INTERVAL = 60.0
MAX_SECONDS = 600.0
NOT_STREAMED = "(the browser terminal streams this command until Ctrl+C; this is one snapshot)"
ENDED = "(the stream stopped after {minutes} minutes: run the command again to keep watching)"
# Columns whose cells move with the clock alone: a change there is no event.
TIME_COLUMNS = frozenset({"AGE", "LAST SEEN", "FIRST SEEN", "DURATION"})
KEY_COLUMNS = ("NAMESPACE", "NAME")
WATCH_EVENTS_WIDTH = 8  # len("ADDED") + kubectl's tabwriter padding of 3


@dataclass(frozen=True)
class StreamRequest:
    """What to re-run (`probe`), how its output streams (`kind`), every `interval` seconds;
    `events` prefixes table rows with the watch event (--output-watch-events); `timeout`
    (seconds, 0 for MAX_SECONDS) is when the stream gives up; `only` (--watch-only) prints
    nothing until a row changes, and that first row under its header."""

    kind: str
    probe: str
    interval: float = MIN_INTERVAL
    events: bool = False
    title: str = ""
    timeout: float = 0.0
    only: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "probe": self.probe,
            "interval": self.interval,
            "events": self.events,
            "title": self.title,
            "timeout": self.timeout,
            "only": self.only,
        }

    @property
    def seconds(self) -> float:
        """How long the stream may run."""
        return min(self.timeout, MAX_SECONDS) if self.timeout > 0 else MAX_SECONDS

    @classmethod
    def from_dict(cls, data: object) -> StreamRequest | None:
        if not isinstance(data, dict) or data.get("kind") not in KINDS:
            return None
        probe, title = data.get("probe"), data.get("title", "")
        interval = data.get("interval", MIN_INTERVAL)
        if not isinstance(probe, str) or not isinstance(title, str):
            return None
        timeout = data.get("timeout", 0.0)
        if not isinstance(interval, int | float) or not isinstance(timeout, int | float):
            return None
        interval = min(MAX_INTERVAL, max(MIN_INTERVAL, float(interval)))
        return cls(
            str(data["kind"]),
            probe,
            interval,
            bool(data.get("events")),
            title,
            float(timeout),
            bool(data.get("only")),
        )


def start(ctx: Context, request: StreamRequest) -> None:
    """What a streaming command calls once it has printed its first snapshot."""
    ctx.stream = request


def step_line(request: StreamRequest) -> str:
    return STEP_MARK + json.dumps(request.to_dict())


def is_step(line: str) -> bool:
    return line.startswith(STEP_MARK)


def parse_step(line: str) -> StreamRequest | None:
    try:
        return StreamRequest.from_dict(json.loads(line[len(STEP_MARK) :]))
    except ValueError:
        return None


# The flags that make a command stream, per kind: the probe runs the command without them.
STREAM_FLAGS = {
    ROWS: ("-w", "--watch", "--watch-only", "--output-watch-events"),
    APPEND: ("-f", "--follow"),
    UNTIL: (),
    SCREEN: (),
    WAIT: (),
}


def probe_for(line: str, kind: str) -> str:
    """The typed line again, quoted for the shell, without the flags that make it stream."""
    # Here, not at the top: the shell imports kubectl, whose verbs import this module.
    from simulators.lab.shell import Op, tokenize
    from simulators.lab.shell_syntax import Word

    flags = STREAM_FLAGS.get(kind, ())
    words: list[str] = []
    for token in tokenize(line):
        if isinstance(token, Op):
            words.append(token.text)
            continue
        if not isinstance(token, Word):  # a here-document: the line probes as it was typed
            return line
        text = token.text
        if text in flags or any(text.startswith(f + "=") for f in flags if f[:2] == "--"):
            continue
        words.append(shlex.quote(text))
    return " ".join(words)


Probe = Callable[[str], Output]


def begin(
    request: StreamRequest, line: str, first: Output, probe: Probe, now: Callable[[], datetime]
) -> tuple[StreamRequest, Output]:
    """A streaming command's request, completed with its probe, and its first answer (watch's
    first screen)."""
    if request.kind == SCREEN:
        return request, screen(request, probe, now)
    return dataclasses.replace(request, probe=probe_for(line, request.kind)), first


def step(
    line: str, probe: Probe, now: Callable[[], datetime]
) -> tuple[StreamRequest | None, Output]:
    """A step line, once the world has stepped: its request and the probe's answer."""
    request = parse_step(line)
    if request is None:
        return None, Output.error("lab: the stream's step was not understood")
    if request.kind == SCREEN:
        return request, screen(request, probe, now)
    return request, probe(request.probe)


def screen(request: StreamRequest, probe: Probe, now: Callable[[], datetime]) -> Output:
    """watch's screen: its header and the command's output (stdout and stderr, as watch)."""
    shown = probe(request.probe)
    return Output(watch_header(request, now().strftime("%a %b %e %H:%M:%S %Y")) + shown.text)


# ------------------------------------------------------------------------------ watch


def watch(ctx: Context, args: list[str]) -> Output:
    """procps-ng watch: `watch [-n SECONDS] [-t] COMMAND...`, its header and first screen."""
    interval, title, i = 2.0, True, 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        arg = args[i]
        if arg in ("-n", "--interval") and i + 1 < len(args):
            value, i = args[i + 1], i + 2
        elif arg.startswith("--interval="):
            value, i = arg.partition("=")[2], i + 1
        elif arg.startswith("-n") and len(arg) > 2:
            value, i = arg[2:], i + 1
        elif arg in ("-t", "--no-title"):
            title, i = False, i + 1
            continue
        elif arg in ("-d", "--differences", "-c", "--color", "-x", "--exec"):
            i += 1
            continue
        else:
            return Output.error(f"watch: invalid option -- '{arg.lstrip('-')[:1]}'\n{WATCH_USAGE}")
        try:
            interval = float(value.replace(",", "."))
        except ValueError:
            return Output.error(f"watch: failed to parse argument: '{value}'")
        if interval != interval or interval < 0:  # NaN or negative
            return Output.error(f"watch: failed to parse argument: '{value}'")
    command = args[i:]
    if not command:
        return Output.error(WATCH_USAGE)
    # procps runs the words through `sh -c`: joined with spaces, as typed.
    probe = " ".join(command)
    interval = min(MAX_INTERVAL, max(MIN_INTERVAL, interval))
    request = StreamRequest(SCREEN, probe, interval, title=probe if title else "")
    start(ctx, request)
    return Output()


WATCH_USAGE = (
    "\nUsage:\n watch [options] command\n\nOptions:\n"
    "  -n, --interval <secs>  seconds to wait between updates\n"
    "  -t, --no-title         turn off header"
)


def watch_header(request: StreamRequest, ctx_now: str) -> str:
    """procps watch's first line: `Every 2.0s: CMD  kadmin: DATE`, then a blank line."""
    if not request.title:
        return ""
    return f"Every {request.interval:.1f}s: {request.title}  kadmin: {ctx_now}\n\n"


# ------------------------------------------------------------------------------ feeding


@dataclass
class Stream:
    """One open stream's memory of what it printed: turns each probe's output into the next
    piece to print (`feed`)."""

    request: StreamRequest
    last: str = ""
    rows: dict[str, tuple[str, ...]] = field(default_factory=dict)
    header: list[tuple[str, int]] = field(default_factory=list)
    # --watch-only: the rows the first step finds are the ones changes are read against, and
    # the header is printed with the first change.
    unseen: bool = False
    headless: bool = False

    def first(self, output: str) -> str:
        """Remember the first snapshot; what to print instead of it (watch events add a column)."""
        self.last = output
        if self.request.kind == WAIT:
            return ""  # kubectl wait prints nothing until the condition holds
        if self.request.kind != ROWS:
            return output
        if self.request.only:
            self.unseen = self.headless = True
            return ""
        self._read_table(output, remember=True)
        if not self.request.events or not self.header:
            return output
        lines = output.split("\n")
        head = "EVENT".ljust(WATCH_EVENTS_WIDTH) + lines[0]
        return "\n".join([head, *("ADDED".ljust(WATCH_EVENTS_WIDTH) + line for line in lines[1:])])

    def feed(self, output: str, code: int = 0) -> tuple[str, bool]:
        """The probe's newest output: (what to print now, whether the stream has ended)."""
        kind = self.request.kind
        if kind == SCREEN:
            self.last = output
            return output, False
        if kind == APPEND:
            new = _appended(self.last, output)
            self.last = output
            return new, False
        if kind == WAIT:
            self.last = output
            return (output, True) if code == 0 else ("", False)
        if kind == UNTIL:
            done = code != 0 or "successfully rolled out" in output
            new = "" if output == self.last else output
            self.last = output
            return new, done
        return self._changed_rows(output), False

    def expired(self) -> str:
        """What to print when the stream's time is up."""
        if self.request.kind == WAIT:
            return self.last
        return ENDED.format(minutes=int(MAX_SECONDS // 60))

    def _read_table(self, output: str, remember: bool) -> dict[str, tuple[str, ...]]:
        lines = [line for line in output.split("\n") if line]
        if not lines:
            return {}
        # Where each column starts moves with the widest cell: read it from each output's header.
        columns = _columns(lines[0])
        if not columns or columns[0][0] not in _HEADS:
            # Not a table (a probe's error text, -o yaml): the first output says which it is.
            if remember:
                self.header = []
            return {}
        if remember or [name for name, _ in columns] == [name for name, _ in self.header]:
            self.header = columns
        if not self.header:
            return {}
        rows = {}
        for line in lines[1:]:
            cells = _cells(line, columns)
            rows[self._key(cells)] = cells
        if remember:
            self.rows = rows
        return rows

    def _key(self, cells: tuple[str, ...]) -> str:
        names = [name for name, _ in self.header]
        keyed = [cells[names.index(c)] for c in KEY_COLUMNS if c in names]
        if not keyed:
            pairs = zip(cells, names, strict=False)
            keyed = [cell for cell, name in pairs if name not in TIME_COLUMNS]
        return "\x00".join(keyed)

    def _changed_rows(self, output: str) -> str:
        if self.unseen:
            self.unseen = False
            self._read_table(output, remember=True)
            self.last = output
            return ""
        if not self.header:
            before = self.last
            shown = self.first(output)
            if self.header:
                return shown  # the first rows (`No resources found` before): with their header
            # Not a table (-o yaml, -o name ...): the whole output again when it changes.
            return "" if output == before else output
        rows = self._read_table(output, remember=False)
        names = [name for name, _ in self.header]
        moving = [i for i, name in enumerate(names) if name in TIME_COLUMNS]

        def steady(cells: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(cell for i, cell in enumerate(cells) if i not in moving)

        events: list[tuple[str, tuple[str, ...]]] = []
        for key, cells in rows.items():
            seen = self.rows.get(key)
            if seen is None or steady(seen) != steady(cells):
                events.append(("ADDED" if seen is None else "MODIFIED", cells))
        for key, cells in self.rows.items():
            if key not in rows:
                events.append(("DELETED", cells))
        self.rows = rows
        self.last = output
        printed = [self._row(event, cells) for event, cells in events]
        if events and self.headless:
            self.headless = False
            event, cells = events[0]
            head = ("EVENT",) if self.request.events else ()
            printed[0] = _aligned([(*head, *names), self._cells_of(event, cells)])
        return "\n".join(printed)

    def _cells_of(self, event: str, cells: tuple[str, ...]) -> tuple[str, ...]:
        return (event, *cells) if self.request.events else cells

    def _row(self, event: str, cells: tuple[str, ...]) -> str:
        """One event's row as kubectl prints it: a table of its own (tabwriter, padding 3)."""
        return _aligned([self._cells_of(event, cells)])


def _aligned(lines: list[tuple[str, ...]]) -> str:
    """Lines of cells as one flush of kubectl's tabwriter: each column as wide as its widest
    cell and 3 more, the last one unpadded."""
    widths = [max(len(cells[i]) for cells in lines) for i in range(len(lines[0]) - 1)]
    return "\n".join(
        "".join(cell.ljust(width + 3) for cell, width in zip(cells, widths, strict=False))
        + cells[-1]
        for cells in lines
    )


# A table's first header cell, so that a probe's error text is never read as a table.
_HEADS = frozenset({"NAME", "NAMESPACE", "LAST SEEN"})


def _columns(header: str) -> list[tuple[str, int]]:
    """The header's column names and where each starts (tabwriter pads with 3 spaces, and a
    name such as NOMINATED NODE has one)."""
    return [(m.group(0), m.start()) for m in re.finditer(r"\S+(?: \S+)*", header)]


def _cells(line: str, header: list[tuple[str, int]]) -> tuple[str, ...]:
    starts = [start for _, start in header] + [len(line) + 1]
    return tuple(line[starts[i] : starts[i + 1]].rstrip() for i in range(len(header)))


def _appended(before: str, after: str) -> str:
    """The lines `after` adds to `before` (logs are kept to their last lines, so the head may
    have moved on: match on the last line printed)."""
    if after.startswith(before):
        return after[len(before) :].lstrip("\n")
    old, new = before.split("\n"), after.split("\n")
    if old and old[-1] in new:
        at = len(new) - 1 - new[::-1].index(old[-1])
        return "\n".join(new[at + 1 :])
    return after
