"""kubectl's verbs that keep printing (`get -w`, `logs -f`, `rollout status`): each runs as
before for its first snapshot, then asks the terminal for a stream (simulators.lab.streams)."""

from __future__ import annotations

import re
from collections.abc import Callable

from simulators.lab.flags import Parsed, parse_bool
from simulators.lab.kubectl import get as get_verb
from simulators.lab.kubectl import get_watch
from simulators.lab.kubectl import logs as logs_verb
from simulators.lab.kubectl import rollout as rollout_verb
from simulators.lab.streams import APPEND, ROWS, UNTIL, WAIT, StreamRequest, start
from simulators.lab.tool import Context, Output


def get(ctx: Context, parsed: Parsed) -> Output:
    """kubectl get; with -w or --watch-only, kubectl's watch (get_watch): its list now, then
    its events as the world steps (the terminal resumes the line with `ctx.resume`)."""
    if not (parsed.has("watch") or parsed.has("watch-only")) or parsed.value("raw") is not None:
        return get_verb.run(ctx, parsed)
    if ctx.resume is not None and ctx.resume.kind == ROWS:
        return get_watch.resume(ctx, parsed, ctx.resume)
    return get_watch.start(ctx, parsed)


def logs(ctx: Context, parsed: Parsed) -> Output:
    """kubectl logs; with -f, the logs it could read go on streaming. kubectl ends at once when
    it failed, when --ignore-errors skipped every log, and with --previous (a container that
    ended writes no more)."""
    out, read = logs_verb.read(ctx, parsed)
    if out.code == 0 and read and parsed.has("follow") and not parsed.has("previous"):
        start(ctx, StreamRequest(APPEND, ""))
    return out


def rollout(ctx: Context, parsed: Parsed) -> Output:
    out = rollout_verb.run(ctx, parsed)
    watching = parse_bool(parsed.value("watch") or "true") is not False
    status = parsed.positionals[:1] == ["status"]
    if status and watching and out.code == 0 and "successfully rolled out" not in out.text:
        # kubectl keeps watching until the rollout is done (or --timeout).
        start(ctx, StreamRequest(UNTIL, ""))
    return out


def wait(run: Callable[[Context, Parsed], Output], ctx: Context, parsed: Parsed) -> Output:
    """kubectl wait around the verb's own one check (`run`): a condition that does not hold yet
    is checked again as the world steps, silently, until it holds or --timeout (30s) runs out,
    when kubectl's timed-out error is printed."""
    out = run(ctx, parsed)
    timeout = _duration(parsed.value("timeout") or "30s")
    if out.code != 0 and "timed out waiting for the condition" in out.text and timeout:
        start(ctx, StreamRequest(WAIT, "", timeout=timeout))
    return out


def _duration(text: str) -> float:
    """A Go duration as kubectl wait reads --timeout (`30s`, `1m30s`, `500ms`); 0 when it is
    zero or unreadable (one check, as kubectl with --timeout=0)."""
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return 0.0
    return sum(float(number) * units[unit] for number, unit in parts)
