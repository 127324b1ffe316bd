"""Event expiry: the API server keeps an Event for an hour after its last update (--event-ttl).

kube-apiserver stores events with an etcd lease of ``--event-ttl`` (default 1h), refreshed on
every update, so ``kubectl get events`` shows only the last hour and a month-old pod's describe
says ``Events: <none>``. The mock store has no leases; this controller deletes what has expired.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

from simulators.cluster.api import ApiError, ClusterAPI
from simulators.cluster.clock import format_time, parse_time
from simulators.controllers.util import items, name_of, namespace_of

EVENT_TTL_SECONDS = 3600


# Later than any event's stamp (the oldest is looked for below it).
NEVER = "9999-12-31T23:59:59Z"


def run(api: ClusterAPI) -> None:
    """Delete the events past their TTL. A run that deletes none says when the next falls due
    (``Changes.quiet_until``), so the controller is not run again before that while the
    events stay as they are: a step need not read every event to learn that none expired."""
    ttl = timedelta(seconds=EVENT_TTL_SECONDS)
    # RFC 3339 UTC stamps of one format sort as text: no parsing per event.
    cutoff = format_time(api.now() - ttl)
    expired, oldest = [], NEVER
    for event in items(api, "events"):
        stamp = str(event.get("lastTimestamp") or event.get("firstTimestamp") or NEVER)
        if stamp < cutoff:
            expired.append(event)
        elif stamp < oldest:
            oldest = stamp
    for event in expired:
        with contextlib.suppress(ApiError):
            api.delete("events", name_of(event), namespace_of(event))
    changes = getattr(api, "changes", None)
    if changes is None or expired:
        return
    if oldest == NEVER:
        changes.quiet_until(None)  # nothing to expire until an event is recorded
        return
    try:
        due = format_time(parse_time(oldest) + ttl)
    except (ValueError, OverflowError):
        return  # a stamp that is no time (a learner's own event): run at every step
    changes.quiet_until(due)
