"""Event expiry: the API server keeps an Event for an hour after its last update (--event-ttl).

kube-apiserver stores events with an etcd lease of ``--event-ttl`` (default 1h), refreshed on
every update, so ``kubectl get events`` shows only the last hour and a month-old pod's describe
says ``Events: <none>``. The mock store has no leases; this controller deletes what has expired.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

from simulators.cluster.api import ApiError, ClusterAPI
from simulators.cluster.clock import format_time
from simulators.controllers.util import items, name_of, namespace_of

EVENT_TTL_SECONDS = 3600


def run(api: ClusterAPI) -> None:
    # RFC 3339 UTC stamps of one format sort as text: no parsing per event.
    cutoff = format_time(api.now() - timedelta(seconds=EVENT_TTL_SECONDS))
    expired = [
        event
        for event in items(api, "events")
        if str(event.get("lastTimestamp") or event.get("firstTimestamp") or cutoff) < cutoff
    ]
    for event in expired:
        with contextlib.suppress(ApiError):
            api.delete("events", name_of(event), namespace_of(event))
