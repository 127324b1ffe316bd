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
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from simulators.cluster.store import WATCH_LOG_SIZE, MockCluster
from simulators.lab.tool import Context, Output

STEP_MARK = "\x1f"  # ASCII's unit separator: never typed at a terminal
# The kinds of stream: table rows that change, lines that append, a screen that repeats, and a
# status that ends when it says it is done.
ROWS, APPEND, SCREEN, UNTIL = "rows", "append", "screen", "until"
# A condition checked each step, silent until it holds (kubectl wait); at its timeout, the
# probe's last answer (kubectl's timed-out error).
WAIT = "wait"
KINDS = (ROWS, APPEND, SCREEN, UNTIL, WAIT)
# The kinds that are a watch resumed after a resourceVersion (`since`): get -w, rollout status.
WATCHES = (ROWS, UNTIL)
# A stream's steps are at least this far apart, and it ends after MAX_SECONDS (a command's
# budget is per step; a learner who walked away should not keep a stream running all night).
MIN_INTERVAL = 1.0
MAX_INTERVAL = 60.0
MAX_SECONDS = 600.0
# A watch's remembered column widths, as a step line may carry them.
MAX_COLUMNS, MAX_WIDTH = 512, 1 << 20
NOT_STREAMED = "(the browser terminal streams this command until Ctrl+C; this is one snapshot)"
ENDED = "(the stream stopped after {minutes} minutes: run the command again to keep watching)"


@dataclass(frozen=True)
class StreamRequest:
    """What to re-run (`probe`), how its output streams (`kind`), every `interval` seconds;
    `timeout` (seconds, 0 for MAX_SECONDS) is when the stream gives up. A watch (ROWS: `kubectl
    get -w`, simulators.lab.kubectl.get_watch) resumes after the resourceVersion `since`;
    `printed` says whether its printer has printed yet (a table's header, yaml's `---`), and
    `widths` are its table writer's remembered column widths."""

    kind: str
    probe: str
    interval: float = MIN_INTERVAL
    title: str = ""
    timeout: float = 0.0
    since: str = ""
    printed: bool = False
    widths: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "probe": self.probe,
            "interval": self.interval,
            "title": self.title,
            "timeout": self.timeout,
            "since": self.since,
            "printed": self.printed,
            "widths": list(self.widths),
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
        interval, since = data.get("interval", MIN_INTERVAL), data.get("since", "")
        if not isinstance(probe, str) or not isinstance(title, str) or not isinstance(since, str):
            return None
        timeout, widths = data.get("timeout", 0.0), data.get("widths", [])
        if not isinstance(interval, int | float) or not isinstance(timeout, int | float):
            return None
        if not isinstance(widths, list) or len(widths) > MAX_COLUMNS:
            return None
        if not all(isinstance(w, int) and 0 <= w <= MAX_WIDTH for w in widths):
            return None
        interval = min(MAX_INTERVAL, max(MIN_INTERVAL, float(interval)))
        return cls(
            str(data["kind"]),
            probe,
            interval,
            title,
            float(timeout),
            since,
            bool(data.get("printed")),
            tuple(widths),
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
    ROWS: (),  # a watch is the command itself, resumed (get_watch.resume)
    APPEND: ("-f", "--follow"),
    UNTIL: (),
    SCREEN: (),
    WAIT: (),
}


def probe_for(line: str, kind: str) -> str:
    """The typed line again without the flags that make it stream, each word as it was typed
    (its quotes and `$`s: the probe expands them again at each step)."""
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
        typed = line[token.start : token.end] if 0 <= token.start < token.end else ""
        words.append(typed or shlex.quote(text))
    return " ".join(words)


# Runs a stream's probe line on the world as it is; given the watch it resumes (ROWS), it
# answers with the request to resume from next (None once the watch has ended).
Probed = tuple[Output, "StreamRequest | None"]
Probe = Callable[[str, "StreamRequest | None"], Probed]


def begin(
    request: StreamRequest, line: str, first: Output, probe: Probe, now: Callable[[], datetime]
) -> tuple[StreamRequest, Output]:
    """A streaming command's request, completed with its probe, and its first answer (watch's
    first screen)."""
    if request.kind == SCREEN:
        return request, screen(request, probe, now)
    # The pipeline that started it (Shell.pipeline), else the whole line.
    return dataclasses.replace(request, probe=probe_for(request.probe or line, request.kind)), first


def step(
    line: str, probe: Probe, now: Callable[[], datetime]
) -> tuple[StreamRequest | None, Output]:
    """A step line, once the world has stepped: its request and the probe's answer."""
    request = parse_step(line)
    if request is None:
        return None, Output.error("lab: the stream's step was not understood")
    if request.kind == SCREEN:
        return request, screen(request, probe, now)
    if request.kind == ROWS:
        # The watch goes on while kubectl's does, whatever the rest of its line exits with
        # (`| grep` that matched nothing); it ends when kubectl's watch ended (an error).
        shown, resumed = probe(request.probe, request)
        return resumed, dataclasses.replace(shown, code=0 if resumed else shown.code or 1)
    if request.kind == UNTIL:
        # rollout status, resumed: `feed` ends it once it says it is done, or fails.
        shown, resumed = probe(request.probe, request)
        return resumed or request, shown
    return request, probe(request.probe, None)[0]


def watching(api: object, request: StreamRequest | None) -> str | None:
    """Before a world's step under an open watch (WATCHES) on the lab's mock store. From now on
    the store keeps its changes for the watch (a lab's store keeps none until it is watched),
    so that what a command in another tab changes between two steps is printed at the next.
    Returns the resourceVersion the step's watch resumes after: the request's own, or now
    where the store's history no longer reaches back to it (a lab reloaded meanwhile keeps no
    history). None without a watch, or on a real cluster (its watch resumes from the
    request's)."""
    if request is None or request.kind not in WATCHES or not isinstance(api, MockCluster):
        return None
    api.keep_watch_history(WATCH_LOG_SIZE)
    return request.since if api.watch_reaches(request.since) else str(api.resource_version)


def screen(request: StreamRequest, probe: Probe, now: Callable[[], datetime]) -> Output:
    """watch's screen: its header and the command's output (stdout and stderr, as watch)."""
    shown, _ = probe(request.probe, None)
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

    def first(self, output: str) -> str:
        """Remember the first snapshot; what to print instead of it."""
        self.last = output
        if self.request.kind == WAIT:
            return ""  # kubectl wait prints nothing until the condition holds
        return output

    def feed(self, output: str, code: int = 0) -> tuple[str, bool]:
        """The probe's newest output: (what to print now, whether the stream has ended)."""
        kind = self.request.kind
        if kind == ROWS:
            # The watch printed its events as kubectl does (get_watch.resume); an error ends it.
            return output, code != 0
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
        # UNTIL: each of the object's events printed its status (rollout status resumed).
        return output, code != 0 or "successfully rolled out" in output

    def expired(self) -> str:
        """What to print when the stream's time is up."""
        if self.request.kind == WAIT:
            return self.last
        return ENDED.format(minutes=int(MAX_SECONDS // 60))


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
