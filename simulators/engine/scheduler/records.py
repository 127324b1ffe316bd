"""What a scheduling session reports: actions on pods, events to leave, fair-share rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from simulators.engine.messages import Reason
from simulators.engine.model import Pod, Workload

ActionKind = Literal["scheduled", "pipelined", "evicted", "moved"]
EventType = Literal["Normal", "Warning"]


@dataclass(slots=True)
class Action:
    """One thing the scheduler did to one pod."""

    kind: ActionKind
    pool: str
    project: str
    workload: str
    pod: str
    node: str | None
    gpus: float
    reason: Reason
    by_project: str = ""
    by_workload: str = ""
    message: str = ""


@dataclass(slots=True)
class Note:
    """An event to leave on a workload (and its pod when `pod` is set)."""

    workload: Workload
    pod: Pod | None
    type: EventType
    reason: str
    message: str
    code: Reason


@dataclass
class Recorder:
    notes: list[Note] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)


@dataclass(frozen=True)
class Decision:
    """How one decision about a pod is reported.

    The event's reason code and the action log's code differ when a pod is pipelined by
    consolidation or reclaim: the pod's event says Pipelined, the log says why.
    """

    kind: ActionKind
    event_type: EventType
    event_reason: str
    event_code: Reason
    action_code: Reason


SCHEDULED = Decision("scheduled", "Normal", "Scheduled", Reason.SCHEDULED, Reason.SCHEDULED)
MOVED = Decision("moved", "Normal", "Consolidated", Reason.CONSOLIDATED, Reason.CONSOLIDATED)


def pipelined(because: Reason) -> Decision:
    return Decision("pipelined", "Normal", "Pipelined", Reason.PIPELINED, because)


def evicted(because: Reason) -> Decision:
    return Decision("evicted", "Warning", "Evicted", because, because)


@dataclass(frozen=True)
class FairShareRow:
    """One queue's line in the fair-share table that explains a decision."""

    queue: str
    parent: str | None
    is_project: bool
    deserved: float | None  # None: no quota set
    over_quota_weight: float
    limit: float | None
    priority: int
    request: float
    allocated: float
    fair_share: float

    @property
    def over_quota(self) -> float:
        return 0.0 if self.deserved is None else max(0.0, self.allocated - self.deserved)

    def as_dict(self) -> dict[str, object]:
        return {
            "queue": self.queue,
            "parent": self.parent,
            "is_project": self.is_project,
            "deserved": self.deserved,
            "over_quota_weight": self.over_quota_weight,
            "limit": self.limit,
            "priority": self.priority,
            "request": round(self.request, 6),
            "allocated": round(self.allocated, 6),
            "fair_share": self.fair_share,
            "over_quota": round(self.over_quota, 6),
        }
