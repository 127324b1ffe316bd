"""kubectl's verbs that keep printing (`get -w`, `logs -f`, `rollout status`): each runs as
before for its first snapshot, then asks the terminal for a stream (simulators.lab.streams)."""

from __future__ import annotations

from simulators.lab.flags import Parsed
from simulators.lab.kubectl import get as get_verb
from simulators.lab.kubectl import logs as logs_verb
from simulators.lab.kubectl import rollout as rollout_verb
from simulators.lab.streams import APPEND, ROWS, UNTIL, StreamRequest, start
from simulators.lab.tool import Context, Output

_FALSE = ("false", "0", "f", "F", "FALSE", "False")


def get(ctx: Context, parsed: Parsed) -> Output:
    out = get_verb.run(ctx, parsed)
    if out.code == 0 and (parsed.has("watch") or parsed.has("watch-only")):
        start(ctx, StreamRequest(ROWS, "", events=parsed.has("output-watch-events")))
    return out


def logs(ctx: Context, parsed: Parsed) -> Output:
    out = logs_verb.run(ctx, parsed)
    if out.code == 0 and parsed.has("follow"):
        start(ctx, StreamRequest(APPEND, ""))
    return out


def rollout(ctx: Context, parsed: Parsed) -> Output:
    out = rollout_verb.run(ctx, parsed)
    watching = (parsed.value("watch") or "true") not in _FALSE
    status = parsed.positionals[:1] == ["status"]
    if status and watching and out.code == 0 and "successfully rolled out" not in out.text:
        # kubectl keeps watching until the rollout is done (or --timeout).
        start(ctx, StreamRequest(UNTIL, ""))
    return out
