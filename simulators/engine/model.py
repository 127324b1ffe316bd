"""The engine's objects: nodes, pools, queues (departments, projects), workloads, pods, events."""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

from simulators.engine.errors import EngineError
from simulators.engine.mig import GPU_RESOURCE, MigLayout, mig_profile

Placement = Literal["binpack", "spread"]
PLACEMENTS: tuple[Placement, ...] = ("binpack", "spread")
DEFAULT_POOL = "default"
H100_PRODUCT = "NVIDIA-H100-80GB-HBM3"
H100_MEMORY_GIB = 80.0

# Run:ai treats a job as preemptible when its priority is below this, unless told otherwise.
NON_PREEMPTIBLE_PRIORITY = 100


class WorkloadKind(enum.StrEnum):
    WORKSPACE = "workspace"
    TRAINING = "training"
    DISTRIBUTED = "distributed"
    INFERENCE = "inference"

    @property
    def label(self) -> str:
        return {
            WorkloadKind.WORKSPACE: "Workspace",
            WorkloadKind.TRAINING: "Training",
            WorkloadKind.DISTRIBUTED: "Distributed",
            WorkloadKind.INFERENCE: "Inference",
        }[self]


DEFAULT_PRIORITY: dict[WorkloadKind, int] = {
    WorkloadKind.INFERENCE: 125,
    WorkloadKind.WORKSPACE: 100,
    WorkloadKind.TRAINING: 50,
    WorkloadKind.DISTRIBUTED: 50,
}


class PodStatus(enum.StrEnum):
    PENDING = "Pending"
    RUNNING = "Running"
    PIPELINED = "Pipelined"
    RELEASING = "Releasing"
    SUCCEEDED = "Succeeded"


# ---------------------------------------------------------------------------- clock


class TickingClock:
    """The engine's deterministic clock: each reading returns the current time, then
    moves it one tick (the cluster's clock, `cluster.clock.StepClock`, moves only
    when the world steps)."""

    def __init__(
        self,
        start: datetime = datetime(2026, 11, 10, 9, 58, 0, tzinfo=UTC),
        step: timedelta = timedelta(seconds=1),
    ) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        current = self.now
        self.now = current + self.step
        return current


Clock = Callable[[], datetime]


# ---------------------------------------------------------------------------- requests

_MEMORY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(G|Gi|GB|GiB|M|Mi|MB|MiB)?\s*$")


@dataclass(frozen=True)
class GpuRequest:
    """What one pod asks for: whole GPUs, a portion, an amount of GPU memory, or a MIG slice."""

    gpus: float = 1.0
    memory_gib: float | None = None
    mig_profile: str | None = None

    def __post_init__(self) -> None:
        if self.mig_profile is not None:
            mig_profile(self.mig_profile)
            return
        if self.memory_gib is not None:
            if not math.isfinite(self.memory_gib) or self.memory_gib <= 0:
                raise EngineError("gpu.memory_gib: must be more than 0")
            return
        if not math.isfinite(self.gpus) or self.gpus <= 0:
            raise EngineError("gpu.gpus: must be more than 0")
        if self.gpus > 1 and self.gpus != int(self.gpus):
            raise EngineError("gpu.gpus: above 1 GPU, a request must be a whole number")

    @classmethod
    def whole(cls, gpus: int) -> GpuRequest:
        if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1:
            raise EngineError("gpu.gpus: a whole-GPU request must be an integer of 1 or more")
        return cls(gpus=float(gpus))

    @classmethod
    def portion(cls, portion: float) -> GpuRequest:
        if not 0 < portion < 1:
            raise EngineError("gpu.portion: must be between 0 and 1, e.g. 0.5")
        return cls(gpus=portion)

    @classmethod
    def memory(cls, amount: str | float) -> GpuRequest:
        """GPU memory such as "10G" (GiB) or 10.0."""
        if isinstance(amount, str):
            match = _MEMORY.match(amount)
            if not match:
                raise EngineError(f"gpu.memory: {amount!r} is not an amount such as 10G")
            value = float(match.group(1))
            unit = match.group(2) or "G"
            gib = value / 1024 if unit.startswith("M") else value
        else:
            gib = float(amount)
        return cls(memory_gib=gib)

    @classmethod
    def mig(cls, profile: str) -> GpuRequest:
        return cls(mig_profile=mig_profile(profile).name)

    @property
    def kind(self) -> Literal["whole", "portion", "memory", "mig"]:
        if self.mig_profile is not None:
            return "mig"
        if self.memory_gib is not None:
            return "memory"
        return "portion" if self.gpus < 1 else "whole"

    @property
    def resource_name(self) -> str:
        if self.mig_profile is not None:
            return mig_profile(self.mig_profile).resource_name
        return GPU_RESOURCE

    @property
    def whole_gpus(self) -> int:
        return int(self.gpus) if self.kind == "whole" else 0

    def units(self, smallest_gpu_memory_gib: float = H100_MEMORY_GIB) -> float:
        """GPUs this request counts for in quotas and fair share."""
        if self.mig_profile is not None:
            return mig_profile(self.mig_profile).gpu_fraction
        if self.memory_gib is not None:
            return self.memory_gib / smallest_gpu_memory_gib
        return self.gpus

    def describe(self) -> str:
        if self.mig_profile is not None:
            return f"1 x {self.resource_name}"
        if self.memory_gib is not None:
            return f"{_number(self.memory_gib)}G GPU memory"
        return f"{_number(self.gpus)} GPU" + ("" if self.gpus == 1 or self.gpus < 1 else "s")


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


# ---------------------------------------------------------------------------- cluster objects


@dataclass
class Node:
    """A GPU node. `gpu_operator_healthy=False` makes it advertise 0 GPUs."""

    name: str
    gpus: int = 8
    pool: str = DEFAULT_POOL
    gpu_memory_gib: float = H100_MEMORY_GIB
    gpu_product: str = H100_PRODUCT
    labels: dict[str, str] = field(default_factory=dict)
    cordoned: bool = False
    mig_layout: str | MigLayout = "all-disabled"
    gpu_operator_healthy: bool = True

    def __post_init__(self) -> None:
        if not self.name:
            raise EngineError("node.name: must not be empty")
        if isinstance(self.gpus, bool) or not isinstance(self.gpus, int) or self.gpus < 0:
            raise EngineError(f"node {self.name}: gpus must be an integer, 0 or more")
        if self.gpu_memory_gib <= 0:
            raise EngineError(f"node {self.name}: gpu_memory_gib must be more than 0")


@dataclass
class NodePool:
    name: str
    placement: Placement = "binpack"

    def __post_init__(self) -> None:
        if self.placement not in PLACEMENTS:
            raise EngineError(f"node pool {self.name}: placement must be binpack or spread")


@dataclass(frozen=True)
class PoolQuota:
    """A queue's quota in one node pool. `limit=None` means unlimited; `deserved=None` means
    no quota set: the queue deserves what its parent divides, up to its request and limit."""

    deserved: float | None = 0.0
    over_quota_weight: float = 1.0
    limit: float | None = None

    def __post_init__(self) -> None:
        for name in ("deserved", "over_quota_weight"):
            value = getattr(self, name)
            if name == "deserved" and value is None:
                continue
            if not math.isfinite(value) or value < 0:
                raise EngineError(f"quota.{name}: must be 0 or more")
        if self.limit is not None and (not math.isfinite(self.limit) or self.limit < 0):
            raise EngineError("quota.limit: must be 0 or more, or None for unlimited")


NO_QUOTA = PoolQuota()


@dataclass
class Queue:
    """A department (parent queue) or a project (leaf queue, namespace runai-<name>)."""

    name: str
    parent: str | None = None
    quotas: dict[str, PoolQuota] = field(default_factory=dict)
    priority: int = 0
    is_department: bool = False
    creation_rank: int = 0
    # GPUs per node pool held by running jobs of this queue itself that the scheduler does not
    # place (a parent queue's own jobs: KAI schedules only leaf queues' jobs, but counts every
    # job's GPUs in its queue's and its ancestors' usage).
    held: dict[str, float] = field(default_factory=dict)

    def quota(self, pool: str) -> PoolQuota:
        return self.quotas.get(pool, NO_QUOTA)

    @property
    def namespace(self) -> str:
        return f"runai-{self.name}"


@dataclass
class Pod:
    name: str
    workload: str
    project: str
    index: int
    status: PodStatus = PodStatus.PENDING
    node: str | None = None
    # Devices are indexes into the node's nvidia.com/gpu devices; `portion` is per device.
    devices: tuple[int, ...] = ()
    portion: float = 0.0
    # Set for MIG profile resources under the mixed strategy (counted, not per device).
    extended_resource: str | None = None
    # A pod moved by consolidation still holds its old GPUs until the next cycle.
    leaving_node: str | None = None
    leaving_devices: tuple[int, ...] = ()
    leaving_extended: str | None = None
    started_at: datetime | None = None

    @property
    def namespace(self) -> str:
        return f"runai-{self.project}"

    @property
    def holds_gpus(self) -> bool:
        return self.status in (PodStatus.RUNNING, PodStatus.PIPELINED, PodStatus.RELEASING)


@dataclass
class Workload:
    """A submitted workload and its pods. Create through `Cluster.submit`."""

    name: str
    project: str
    kind: WorkloadKind
    gpu: GpuRequest
    pod_count: int
    priority: int
    preemptible: bool
    min_available: int
    node_pool: str
    node_selector: dict[str, str]
    creation_rank: int
    created_at: datetime
    image: str = ""
    # A distributed workload's first pod is its master unless submitted with --no-master.
    master: bool = True
    pods: list[Pod] = field(default_factory=list)
    # Node pools in order of preference (Run:ai lets a workload name several); `node_pool`
    # is the one it runs in or is being tried in, `pool_reasons` why earlier ones said no.
    node_pools: tuple[str, ...] = ()
    pool_reasons: dict[str, str] = field(default_factory=dict)
    # The latest scheduling decision, for `explain` and `runai describe`.
    reason_code: str = ""
    reason_message: str = ""
    # Set when the workload lost pods to reclaim or preemption; kept after it restarts.
    evicted_by: str = ""
    eviction_message: str = ""

    @property
    def namespace(self) -> str:
        return f"runai-{self.project}"

    @property
    def status(self) -> str:
        """One status for the workload: the one its pods share, else the most active one."""
        statuses = {pod.status for pod in self.pods}
        if len(statuses) == 1:
            return next(iter(statuses)).value
        for candidate in (
            PodStatus.RUNNING,
            PodStatus.PIPELINED,
            PodStatus.RELEASING,
            PodStatus.PENDING,
        ):
            if candidate in statuses:
                return candidate.value
        return PodStatus.SUCCEEDED.value

    @property
    def running_pods(self) -> int:
        return sum(1 for pod in self.pods if pod.status == PodStatus.RUNNING)

    @property
    def gpus_requested(self) -> float:
        return self.gpu.units() * self.pod_count

    @property
    def gpus_allocated(self) -> float:
        """GPUs held by Running pods (what `runai training list` shows as GPU Allocation)."""
        return self.gpu.units() * self.running_pods


@dataclass(slots=True)
class Event:
    """A Kubernetes-style event left by a scheduling decision."""

    time: datetime
    type: Literal["Normal", "Warning"]
    reason: str
    message: str
    object_kind: Literal["Workload", "Pod"]
    object_name: str
    project: str
    code: str = ""
    count: int = 1
    source: str = "runai-scheduler"

    @property
    def namespace(self) -> str:
        return f"runai-{self.project}"

    def as_dict(self) -> dict[str, object]:
        return {
            "time": self.time.isoformat(),
            "type": self.type,
            "reason": self.reason,
            "message": self.message,
            "object_kind": self.object_kind,
            "object": self.object_name,
            "namespace": self.namespace,
            "code": self.code,
            "count": self.count,
        }
