"""What a reader read, so that a controller whose inputs did not change need not run again.

A real controller reconciles when a watch says an object it cares about changed, or when a
timer it set fires. The mock store gets the same effect without anything declared: it counts
its changes per resource, and while tracking it notes which resources were read and whether the
clock was. A run that read the clock may have been waiting on time; a run that wrote nothing
and read no clock would write nothing again until one of the resources it read changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

# Container logs are not objects (no resourceVersion), but controllers read and write them.
LOGS = "pods/log"


def renews_heartbeat_only(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether a node's update only moves its conditions' ``lastHeartbeatTime``.

    The kubelet posts that every five minutes of cluster time, and only the kubelet reads it
    (alongside the clock), so such an update is no change to any other controller: kube-scheduler
    drops these node updates the same way (``nodeSchedulingPropertiesChange``).
    """
    if old.keys() != new.keys():
        return False
    for key in old:
        if key == "status":
            if _without_heartbeats(old[key]) != _without_heartbeats(new[key]):
                return False
        elif old[key] != new[key]:
            return False
    return True


def _without_heartbeats(status: Any) -> Any:
    if not isinstance(status, dict) or not isinstance(status.get("conditions"), list):
        return status
    conditions = [
        {k: v for k, v in c.items() if k != "lastHeartbeatTime"} if isinstance(c, dict) else c
        for c in status["conditions"]
    ]
    return {**status, "conditions": conditions}


@dataclass
class Reads:
    """The resources (their registry keys, or ``LOGS``) read while tracking, and the clock;
    ``until``: the clock was read only to tell whether that time has come (``quiet_until``)."""

    resources: set[str] = field(default_factory=set)
    clock: bool = False
    until: str | None = None


class Changes:
    """The store's change counter, per resource, the reads being tracked, and the controllers'
    last quiet runs (by controller name, kept by ``controllers.manager``).

    A saved lab keeps the counts and the quiet runs (``to_json``): its store comes back with the
    same objects, so a restored lab skips the controllers the kept one would have skipped, and
    its first command is not a full reconcile. A store restored without them starts with no
    history to trust: every controller runs once.
    """

    def __init__(self) -> None:
        self.count = 0
        self._at: dict[str, int] = {}
        self.reads: Reads | None = None
        self.quiet: dict[str, QuietRun] = {}

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "at": dict(sorted(self._at.items())),
            "quiet": {
                name: {"resources": sorted(run.resources), "at": run.at}
                | ({"until": run.until} if run.until is not None else {})
                for name, run in sorted(self.quiet.items())
            },
        }

    @classmethod
    def from_json(cls, data: Any) -> Changes:
        """Counts and quiet runs saved by ``to_json``; ValueError if they make no sense."""
        changes = cls()
        if data is None:
            return changes
        count = data["count"]
        at = {str(resource): n for resource, n in data["at"].items()}
        quiet = {
            str(name): QuietRun(
                resource_set(str(r) for r in run["resources"]), run["at"], until=run.get("until")
            )
            for name, run in data["quiet"].items()
        }
        numbers = [count, *at.values(), *(run.at for run in quiet.values())]
        if not all(type(n) is int and 0 <= n <= count for n in numbers):
            raise ValueError("saved change counts are out of range")
        if not all(run.until is None or type(run.until) is str for run in quiet.values()):
            raise ValueError("saved quiet runs have a time that is not one")
        changes.count, changes._at, changes.quiet = count, at, quiet
        return changes

    def fork(self) -> Changes:
        """A copy with the same counts and quiet runs (a forked store's, MockCluster.fork)."""
        other = Changes()
        other.count, other._at, other.quiet = self.count, dict(self._at), dict(self.quiet)
        return other

    def changed(self, resource: str) -> None:
        self.count += 1
        self._at[resource] = self.count

    def changed_since(self, resources: Iterable[str], count: int) -> bool:
        at = self._at
        return any(at.get(resource, 0) > count for resource in resources)

    def read(self, resource: str) -> None:
        if self.reads is not None:
            self.reads.resources.add(resource)

    def read_clock(self) -> None:
        if self.reads is not None:
            self.reads.clock = True

    def quiet_until(self, stamp: str | None) -> None:
        """The reader being tracked (a controller's whole run) asked the time only to compare
        it with times it read, and its answer stays the same, while nothing it read changes,
        until ``stamp`` (RFC 3339, as ``clock.format_time`` writes it: event expiry's next due
        time, say), or at any time (None: no event left to expire). An enclosing tracker still
        counts the clock as read."""
        reads = self.reads
        if reads is None:
            return
        if stamp is None:
            reads.clock = False
        else:
            reads.until = stamp if reads.until is None else min(stamp, reads.until)

    @contextmanager
    def tracking(self) -> Iterator[Reads]:
        """Note what is read until the block ends (an enclosing tracker sees it too)."""
        outer, reads = self.reads, Reads()
        self.reads = reads
        try:
            yield reads
        finally:
            self.reads = outer
            if outer is not None:
                outer.resources |= reads.resources
                outer.clock = outer.clock or reads.clock


# The sets of resources quiet runs read, one object for each distinct set (resource_set).
_RESOURCE_SETS: dict[frozenset[str], frozenset[str]] = {}
RESOURCE_SETS_KEPT = 512


def resource_set(names: Iterable[str]) -> frozenset[str]:
    """``names`` as a frozenset, the same object for the same names. Each controller reads the
    same few resources run after run, and every lab's quiet runs (about thirty, each a set of
    up to a dozen names) held their own copies: 8 KB of a kept lab. The sets come from the
    controllers' code, so there are few; past RESOURCE_SETS_KEPT (a saved lab naming
    resources of its own) a set is not kept."""
    found = frozenset(names)
    shared = _RESOURCE_SETS.get(found)
    if shared is not None:
        return shared
    if len(_RESOURCE_SETS) < RESOURCE_SETS_KEPT:
        return _RESOURCE_SETS.setdefault(found, found)
    return found


@dataclass(frozen=True)
class QuietRun:
    """A controller's run that changed nothing (or, for the scheduler, only recorded events)
    and never asked the time, or asked it only to compare (``until``, see
    ``Changes.quiet_until``): what it read, and the store's change count when it began."""

    resources: frozenset[str]
    at: int
    until: str | None = field(default=None, kw_only=True)

    def still_holds(self, changes: Changes, now: Callable[[], str] | None = None) -> bool:
        """Nothing read has changed, and ``until`` has not come (``now``: the clock's time,
        asked only for a run with an ``until``; without it such a run never holds)."""
        if changes.changed_since(self.resources, self.at):
            return False
        return self.until is None or (now is not None and now() < self.until)
