"""The watch log: the store's recent history of changes, and what a watch replays from it.

``MockCluster`` appends every write as an entry (resourceVersion, resource key, event type, the
object as written); a watch from a resourceVersion replays the later entries the watcher asked
for, or gets 410 Expired once compaction has dropped them, as from the API server's watch cache.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from simulators.cluster.api import ApiError, Obj, WatchEvent
from simulators.cluster.patches import deep_copy

# (resourceVersion, resource key, ADDED | MODIFIED | DELETED, the object as written)
Entry = tuple[int, str, str, Obj]


def parse_since(resource_version: str, log: Sequence[Entry], current: int) -> int:
    """The resourceVersion a watch starts after; 410 if the log no longer reaches back to it."""
    try:
        since = int(resource_version)
    except ValueError as error:
        raise ApiError(
            400, "BadRequest", f'invalid resource version "{resource_version}"'
        ) from error
    oldest = log[0][0] if log else current + 1
    if since < oldest - 1 and since < current:
        raise ApiError(410, "Expired", f"too old resource version: {since} ({oldest - 1})")
    return since


def replay(
    log: Iterable[Entry],
    resource: str,
    since: int,
    wanted: Callable[[Obj], bool],
    *,
    selective: bool,
) -> list[WatchEvent]:
    """The events after ``since`` of the ``resource`` objects ``wanted`` accepts.

    ``selective``: the watch has a label or field selector, so an object that starts or stops
    matching is ADDED or DELETED for this watcher, as the API server's watch cache reports it.
    Its previous state is its last earlier entry in the log; without one, it is taken to have
    matched as it does now.
    """
    if not selective:
        return [
            WatchEvent(event_type, deep_copy(obj))
            for rv, key, event_type, obj in log
            if rv > since and key == resource and wanted(obj)
        ]
    events: list[WatchEvent] = []
    last: dict[tuple[str, str], bool] = {}
    for rv, key, event_type, obj in log:
        if key != resource:
            continue
        meta = obj["metadata"]
        ident = (str(meta.get("namespace", "")), str(meta["name"]))
        matches = wanted(obj)
        before = last.get(ident, matches if event_type != "ADDED" else False)
        last[ident] = matches and event_type != "DELETED"
        if rv <= since:
            continue
        # Sent when the object matches now or did before this change: a watcher never told
        # of an object is not told that it changed or went either.
        if not (matches or (before and event_type != "ADDED")):
            continue
        if event_type == "MODIFIED" and before != matches:
            event_type = "ADDED" if matches else "DELETED"
        events.append(WatchEvent(event_type, deep_copy(obj)))
    return events
