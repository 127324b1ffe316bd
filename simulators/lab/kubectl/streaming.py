"""kubectl's verbs that keep printing (`get -w`, `logs -f`, `rollout status`): each runs as
before for its first snapshot, then asks the terminal for a stream (simulators.lab.streams)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from simulators.cluster.api import ApiError, ResourceInfo
from simulators.lab.flags import Parsed, parse_bool
from simulators.lab.kubectl import get as get_verb
from simulators.lab.kubectl import get_watch
from simulators.lab.kubectl import logs as logs_verb
from simulators.lab.kubectl import rollout as rollout_verb
from simulators.lab.kubectl.common import error_text, meta, namespace, targets
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
    """kubectl rollout; `status` of a rollout not done keeps watching its object, as kubectl's
    UntilWithSync does: the terminal resumes the line with `ctx.resume`, and each ADDED or
    MODIFIED event prints that object's status (`_status_events`), until it is done."""
    status = parsed.positionals[:1] == ["status"]
    if status and ctx.resume is not None and ctx.resume.kind == UNTIL:
        return _status_events(ctx, parsed, ctx.resume)
    out = rollout_verb.run(ctx, parsed)
    watching = parse_bool(parsed.value("watch") or "true") is not False
    if status and watching and out.code == 0 and "successfully rolled out" not in out.text:
        found = _watched(ctx, parsed)
        if found is not None:
            info, name, ns = found
            since = meta(ctx.api.get(info.key, name, ns)).get("resourceVersion")
            start(ctx, StreamRequest(UNTIL, "", since=str(since or "")))
    return out


def _watched(ctx: Context, parsed: Parsed) -> tuple[ResourceInfo, str, str | None] | None:
    """The one object a `rollout status` line names: its kind, name and namespace."""
    groups = targets(ctx.api, parsed.positionals[1:], verb="rollout")
    if len(groups) != 1 or len(groups[0].names) != 1:
        return None
    return groups[0].info, groups[0].names[0], groups[0].scope(namespace(parsed))


def _status_events(ctx: Context, parsed: Parsed, request: StreamRequest) -> Output:
    """The object's events after `request.since`, each as the status kubectl prints for it;
    `ctx.stream` is the request to resume from, None once the rollout is done."""
    found = _watched(ctx, parsed)
    if found is None:
        return Output.error("error: the object rollout status watched is gone")
    info, name, ns = found
    try:
        events = ctx.api.watch(
            info.key,
            ns,
            resource_version=request.since or "0",
            field_selector=f"metadata.name={name}",
        )
    except ApiError as exc:
        return Output.error(error_text(exc))
    lines: list[str] = []
    for event in events:
        if event.type == "DELETED":
            return Output.error("\n".join([*lines, "error: object has been deleted"]))
        lines.append(rollout_verb.status_of(info.key, event.object))
        if "successfully rolled out" in lines[-1]:
            return Output("\n".join(lines))
    ctx.stream = dataclasses.replace(request, since=get_watch.resumed_after(events, request.since))
    return Output("\n".join(lines))


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
