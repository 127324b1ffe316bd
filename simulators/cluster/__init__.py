"""The lab's cluster as a Kubernetes API: the mock store, its printers and its HTTP server."""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj, ResourceInfo, WatchEvent
from simulators.cluster.clock import StepClock
from simulators.cluster.events import record_event
from simulators.cluster.store import MockCluster

__all__ = [
    "ApiError",
    "ClusterAPI",
    "MockCluster",
    "Obj",
    "ResourceInfo",
    "StepClock",
    "WatchEvent",
    "record_event",
]
