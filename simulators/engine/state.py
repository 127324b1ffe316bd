"""Per-cycle working state: GPU devices on nodes, queue allocations, job wrappers.

Rebuilt from the pods at the start of every cycle, so the pods stay the single
source of truth and no counter can drift between cycles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from simulators.engine.fairshare import EPSILON
from simulators.engine.mig import GPU_RESOURCE, MigAdvertisement
from simulators.engine.model import Node, Pod, PodStatus, Workload

INF = math.inf


@dataclass(slots=True)
class Device:
    """One nvidia.com/gpu device: a whole GPU, or a MIG slice under the single strategy."""

    memory_gib: float
    running: float = 0.0
    releasing: float = 0.0
    pipelined: float = 0.0

    @property
    def idle(self) -> float:
        # Pipelined pods sit on GPUs being released first, so they overlap `releasing`.
        return 1.0 - self.running - max(self.releasing, self.pipelined)

    @property
    def future(self) -> float:
        """Free once every Releasing pod has gone."""
        return 1.0 - self.running - self.pipelined


class NodeState:
    """A node's devices and counted extended resources during one cycle."""

    __slots__ = (
        "advert",
        "bucket",
        "devices",
        "ext_capacity",
        "ext_pipelined",
        "ext_releasing",
        "ext_running",
        "futures",
        "futures_whole",
        "idle_whole",
        "idles",
        "index",
        "labels",
        "name",
        "node",
        "schedulable",
    )

    def __init__(self, node: Node, index: int, advert: MigAdvertisement, labels: dict[str, str]):
        self.node = node
        self.name = node.name
        self.index = index
        self.advert = advert
        self.labels = labels
        self.devices = [Device(float(m)) for m in advert.gpu_device_memory_gib]
        # Each device's `idle`, kept current by `_change`: the node search reads it per pod.
        self.idles = [d.idle for d in self.devices]
        self.ext_capacity = {k: v for k, v in advert.resources.items() if k != GPU_RESOURCE}
        self.ext_running: dict[str, float] = {}
        self.ext_releasing: dict[str, float] = {}
        self.ext_pipelined: dict[str, float] = {}
        self.schedulable = not node.cordoned
        self.idle_whole = len(self.devices)
        self.bucket: tuple[int, int] = (-1, -1)
        self.futures: list[float] | None = None
        self.futures_whole = 0

    @property
    def gpu_count(self) -> int:
        return len(self.devices)

    def recount(self) -> None:
        self.idle_whole = len([idle for idle in self.idles if idle >= 1.0 - EPSILON])
        self.futures = None

    def future_list(self) -> list[float]:
        """Each device's `future`, cached until the next change (reclaim trials read it often)."""
        if self.futures is None:
            self.futures = [d.future for d in self.devices]
            self.futures_whole = len([f for f in self.futures if f >= 1.0 - EPSILON])
        return self.futures

    def future_whole(self) -> int:
        """Devices that will be whole and free once every Releasing pod has gone."""
        self.future_list()
        return self.futures_whole

    def idle_total(self) -> float:
        return sum([max(0.0, idle) for idle in self.idles])

    def future_total(self) -> float:
        return sum([max(0.0, f) for f in self.future_list()]) + sum(
            self.ext_future(r) for r in self.ext_capacity
        )

    def ext_idle(self, resource: str) -> float:
        return (
            self.ext_capacity.get(resource, 0)
            - self.ext_running.get(resource, 0.0)
            - max(self.ext_releasing.get(resource, 0.0), self.ext_pipelined.get(resource, 0.0))
        )

    def ext_future(self, resource: str) -> float:
        return (
            self.ext_capacity.get(resource, 0)
            - self.ext_running.get(resource, 0.0)
            - self.ext_pipelined.get(resource, 0.0)
        )

    def matches(self, selector: dict[str, str]) -> bool:
        return all(self.labels.get(k) == v for k, v in selector.items())

    # -- counters -------------------------------------------------------------------

    def add(self, pod: Pod, status: PodStatus, sign: float = 1.0, recount: bool = True) -> None:
        """Count (or with sign=-1 uncount) a pod's hold on this node in `status`.

        `recount=False` leaves the derived counts for the caller, who recounts once after
        several changes.
        """
        self._change(pod.devices, pod.portion, pod.extended_resource, status, sign, recount)

    def add_leaving(self, pod: Pod, sign: float = 1.0) -> None:
        self._change(
            pod.leaving_devices, pod.portion, pod.leaving_extended, PodStatus.RELEASING, sign
        )

    def _change(
        self,
        devices: tuple[int, ...],
        portion: float,
        extended: str | None,
        status: PodStatus,
        sign: float,
        recount: bool = True,
    ) -> None:
        if extended is not None:
            table = {
                PodStatus.RUNNING: self.ext_running,
                PodStatus.RELEASING: self.ext_releasing,
                PodStatus.PIPELINED: self.ext_pipelined,
            }[status]
            table[extended] = table.get(extended, 0.0) + sign
            return
        for index in devices:
            if index >= len(self.devices):
                continue
            device = self.devices[index]
            if status == PodStatus.RUNNING:
                device.running += sign * portion
            elif status == PodStatus.RELEASING:
                device.releasing += sign * portion
            elif status == PodStatus.PIPELINED:
                device.pipelined += sign * portion
            self.idles[index] = device.idle
        if recount:
            self.recount()
        else:
            self.futures = None


@dataclass(eq=False, slots=True)
class QState:
    """A queue's numbers in one pool for one cycle."""

    name: str
    parent: QState | None
    rank: int
    priority: int
    # "No quota set" is infinite here: never above deserved, always within it.
    deserved: float
    weight: float
    limit: float | None
    is_leaf: bool = True
    children: list[QState] = field(default_factory=list)
    fair_share: float = 0.0
    request: float = 0.0
    allocated: float = 0.0
    allocated_non_preemptible: float = 0.0
    path: list[QState] = field(default_factory=list)

    @property
    def capped_share(self) -> float:
        """min(limit, max(deserved, fair share)): the denominator of the dominant share."""
        deserved = self.deserved if self.has_quota else 0.0
        bound = max(deserved, self.fair_share)
        return bound if self.limit is None else min(self.limit, bound)

    @property
    def has_quota(self) -> bool:
        return self.deserved != INF

    @property
    def quota(self) -> float | None:
        """The deserved quota as set, or None when no quota is set."""
        return self.deserved if self.has_quota else None

    def dominant_share(self, allocated: float) -> float:
        denominator = self.capped_share
        if denominator <= EPSILON:
            return INF if allocated > EPSILON else 0.0
        return allocated / denominator


@dataclass(eq=False, slots=True)
class JobState:
    """A workload as one pool's cycle sees it."""

    workload: Workload
    queue: QState
    pod_units: float

    @property
    def name(self) -> str:
        return self.workload.name

    @property
    def priority(self) -> int:
        return self.workload.priority

    @property
    def preemptible(self) -> bool:
        return self.workload.preemptible

    def pending_pods(self) -> list[Pod]:
        return [p for p in self.workload.pods if p.status == PodStatus.PENDING]

    def active_pods(self) -> int:
        """Pods holding (or about to hold) GPUs: Running or Pipelined."""
        # A list, not a generator: most jobs have one pod, and a generator costs twice as much.
        return len(
            [p for p in self.workload.pods if p.status in (PodStatus.RUNNING, PodStatus.PIPELINED)]
        )

    def running_pods(self) -> list[Pod]:
        return [p for p in self.workload.pods if p.status == PodStatus.RUNNING]

    @property
    def below_min(self) -> bool:
        return self.active_pods() < self.workload.min_available

    def job_order_key(self) -> tuple[int, int, int]:
        """Inside a queue: higher priority, then jobs below their gang minimum, then older."""
        return (-self.priority, 0 if self.below_min else 1, self.workload.creation_rank)
