"""One node pool's scheduling cycle: allocate, consolidate, reclaim, preempt.

The rules are those of the design note (and the KAI Scheduler where it is silent).
A `PoolSession` is built from the cluster's objects at the start of a cycle, runs
the actions, and reports what it did through a `Recorder`; the cluster turns that
into events.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from simulators.engine import messages as msg
from simulators.engine.errors import EngineError
from simulators.engine.fairshare import EPSILON, ShareQueue, fair_share
from simulators.engine.messages import Reason
from simulators.engine.mig import GPU_RESOURCE, mig_profile
from simulators.engine.model import Placement, Pod, PodStatus, Queue, Workload
from simulators.engine.ordering import JobPicker
from simulators.engine.state import INF, JobState, NodeState, QState

ACTIONS: tuple[str, ...] = ("allocate", "consolidate", "reclaim", "preempt")


@dataclass
class Action:
    """One thing the scheduler did to one pod."""

    kind: Literal["scheduled", "pipelined", "evicted", "moved"]
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


@dataclass
class Note:
    """An event to leave on a workload (and its pod when `pod` is set)."""

    workload: Workload
    pod: Pod | None
    type: Literal["Normal", "Warning"]
    reason: str
    message: str
    code: Reason


@dataclass
class Recorder:
    notes: list[Note] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)


@dataclass(frozen=True)
class FairShareRow:
    """One queue's line in the fair-share table that explains a decision."""

    queue: str
    parent: str | None
    is_project: bool
    deserved: float
    over_quota_weight: float
    limit: float | None
    priority: int
    request: float
    allocated: float
    fair_share: float

    @property
    def over_quota(self) -> float:
        return max(0.0, self.allocated - self.deserved)

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


@dataclass
class _Placement:
    pod: Pod
    node: NodeState
    devices: tuple[int, ...]
    portion: float
    extended: str | None


class _VictimTake:
    """Pods a victim loses at once, and the GPUs they free: (node index, devices, portion,
    extended resource) per pod on a node."""

    __slots__ = ("frees", "job", "pods", "units")

    def __init__(
        self, job: JobState, pods: list[Pod], units: float, node_by_name: dict[str, NodeState]
    ) -> None:
        self.job = job
        self.pods = pods
        self.units = units
        self.frees = [
            (node_by_name[p.node].index, p.devices, p.portion, p.extended_resource)
            for p in pods
            if p.node is not None
        ]


class PoolSession:
    """The scheduler's view of one node pool during one cycle."""

    def __init__(
        self,
        pool: str,
        placement: Placement,
        nodes: Sequence[NodeState],
        queues: Sequence[Queue],
        workloads: Sequence[Workload],
        recorder: Recorder,
    ) -> None:
        self.pool = pool
        self.placement = placement
        self.recorder = recorder
        self.nodes = sorted(nodes, key=lambda n: n.name)
        for index, node_state in enumerate(self.nodes):
            node_state.index = index
        self.node_by_name = {n.name: n for n in self.nodes}
        memories = [d.memory_gib for n in self.nodes for d in n.devices]
        self.smallest_memory = min(memories) if memories else 80.0
        self._build_queues(queues)
        self._build_jobs(workloads)
        self._count_holds()
        self._compute_fair_share()
        self._build_index()
        self._evicted_this_action: set[int] = set()
        self._decided: set[int] = set()
        self._jobs_cache: dict[tuple[str, str], JobState] | None = None
        self._census: dict[
            tuple[str, tuple[tuple[str, str], ...]], tuple[dict[str, int], int, int]
        ] = {}

    # ------------------------------------------------------------------ building

    def _build_queues(self, queues: Sequence[Queue]) -> None:
        self.queues: dict[str, QState] = {}
        for rank, queue in enumerate(queues):
            quota = queue.quota(self.pool)
            self.queues[queue.name] = QState(
                name=queue.name,
                parent=None,
                rank=rank,
                priority=queue.priority,
                deserved=quota.deserved,
                weight=quota.over_quota_weight,
                limit=quota.limit,
            )
        self.top_level: list[QState] = []
        for queue in queues:
            state = self.queues[queue.name]
            if queue.parent is None:
                self.top_level.append(state)
            else:
                parent = self.queues.get(queue.parent)
                if parent is None:
                    raise EngineError(f"queue {queue.name}: parent {queue.parent!r} is not a queue")
                state.parent = parent
                parent.children.append(state)
                parent.is_leaf = False
        for state in self.queues.values():
            path: list[QState] = []
            cursor: QState | None = state
            while cursor is not None:
                path.append(cursor)
                cursor = cursor.parent
                if len(path) > len(self.queues):
                    raise EngineError(f"queue {state.name}: its parents form a loop")
            state.path = path  # leaf first, top-level last

    def _units(self, workload: Workload) -> float:
        return workload.gpu.units(self.smallest_memory)

    def _build_jobs(self, workloads: Sequence[Workload]) -> None:
        self.jobs: list[JobState] = []
        for workload in workloads:
            queue = self.queues.get(workload.project)
            if queue is None:
                raise EngineError(
                    f"workload {workload.name}: project {workload.project!r} is not a queue"
                )
            if not queue.is_leaf:
                raise EngineError(
                    f"workload {workload.name}: queue {workload.project} has child queues; "
                    "workloads belong to projects (leaf queues)"
                )
            self.jobs.append(JobState(workload, queue, self._units(workload)))
        self.jobs.sort(key=lambda j: j.workload.creation_rank)

    def _count_holds(self) -> None:
        for job in self.jobs:
            for pod in job.workload.pods:
                if pod.leaving_node is not None and pod.leaving_node in self.node_by_name:
                    self.node_by_name[pod.leaving_node].add_leaving(pod)
                if not pod.holds_gpus or pod.node is None:
                    continue
                node_state = self.node_by_name.get(pod.node)
                if node_state is None:
                    raise EngineError(
                        f"pod {pod.name}: node {pod.node!r} is not in node pool {self.pool}"
                    )
                node_state.add(pod, pod.status)
                if pod.status in (PodStatus.RUNNING, PodStatus.PIPELINED):
                    self._charge(job, job.pod_units)

    def _charge(self, job: JobState, units: float) -> None:
        for queue in job.queue.path:
            queue.allocated += units
            if not job.preemptible:
                queue.allocated_non_preemptible += units

    def _compute_fair_share(self) -> None:
        for job in self.jobs:
            live = sum(1 for p in job.workload.pods if p.status != PodStatus.SUCCEEDED)
            job.queue.request += live * job.pod_units
        for queue in self.queues.values():
            if not queue.is_leaf:
                queue.request = 0.0
        for queue in self.queues.values():
            if queue.is_leaf:
                for ancestor in queue.path[1:]:
                    ancestor.request += queue.request
        self.capacity = self._pool_capacity()
        shares = fair_share(
            self.capacity,
            [
                ShareQueue(
                    name=q.name,
                    parent=q.parent.name if q.parent else None,
                    deserved=q.deserved,
                    over_quota_weight=q.weight,
                    limit=q.limit,
                    priority=q.priority,
                    request=q.request if q.is_leaf else 0.0,
                )
                for q in self.queues.values()
            ],
        )
        for name, share in shares.items():
            self.queues[name].fair_share = share

    def _pool_capacity(self) -> float:
        total = 0.0
        for node_state in self.nodes:
            if not node_state.schedulable:
                continue
            total += node_state.gpu_count
            for resource, count in node_state.ext_capacity.items():
                total += count * mig_profile(resource).gpu_fraction
        return total

    def fair_share_rows(self) -> list[FairShareRow]:
        return [
            FairShareRow(
                queue=q.name,
                parent=q.parent.name if q.parent else None,
                is_project=q.is_leaf,
                deserved=q.deserved,
                over_quota_weight=q.weight,
                limit=q.limit,
                priority=q.priority,
                request=q.request,
                allocated=q.allocated,
                fair_share=q.fair_share,
            )
            for q in sorted(self.queues.values(), key=lambda s: s.rank)
        ]

    # ------------------------------------------------------------------ node index

    def _build_index(self) -> None:
        # Buckets of nodes by (fully idle devices, devices) answer "the fullest node with
        # n idle GPUs" without scanning every node for every pod.
        self._buckets: dict[tuple[int, int], list[int]] = {}
        self._future_nodes: set[int] = set()
        self._future_by_node: dict[int, float] = {}
        self.future_free_total = 0.0
        for node_state in self.nodes:
            self._touch(node_state)

    def _touch(self, node_state: NodeState) -> None:
        node_state.recount()
        if node_state.schedulable and node_state.devices:
            key = (node_state.idle_whole, node_state.gpu_count)
            if key != node_state.bucket:
                node_state.bucket = key
                heapq.heappush(self._buckets.setdefault(key, []), node_state.index)
        future = node_state.future_total() if node_state.schedulable else 0.0
        self.future_free_total += future - self._future_by_node.get(node_state.index, 0.0)
        self._future_by_node[node_state.index] = future
        if future > EPSILON:
            self._future_nodes.add(node_state.index)
        else:
            self._future_nodes.discard(node_state.index)

    def _bucket_top(self, key: tuple[int, int]) -> NodeState | None:
        heap = self._buckets.get(key)
        while heap:
            node_state = self.nodes[heap[0]]
            if node_state.bucket == key:
                return node_state
            heapq.heappop(heap)
        return None

    def _indexed_whole_node(self, count: int) -> NodeState | None:
        best: tuple[float, int] | None = None
        chosen: NodeState | None = None
        for key in list(self._buckets):
            idle, total = key
            if idle < count:
                continue
            top = self._bucket_top(key)
            if top is None:
                continue
            score = float(idle) if self.placement == "binpack" else -idle / total
            candidate = (score, top.index)
            if best is None or candidate < best:
                best, chosen = candidate, top
        return chosen

    # ------------------------------------------------------------------ placing pods

    def _portion_on(self, workload: Workload, node_state: NodeState, device_memory: float) -> float:
        request = workload.gpu
        if request.memory_gib is not None:
            return request.memory_gib / device_memory
        return request.gpus

    def _fit_now(self, workload: Workload, node_state: NodeState) -> _Placement | None:
        """Where the pod goes on this node using idle GPUs only, or None."""
        request = workload.gpu
        if request.mig_profile is not None:
            resource = request.resource_name
            if node_state.ext_idle(resource) >= 1 - EPSILON:
                return _Placement(_NO_POD, node_state, (), 1.0, resource)
            return None
        if request.kind == "whole":
            need = request.whole_gpus
            if node_state.idle_whole < need:
                return None
            chosen = [i for i, d in enumerate(node_state.devices) if d.idle >= 1 - EPSILON][:need]
            return _Placement(_NO_POD, node_state, tuple(chosen), 1.0, None)
        best: tuple[float, int] | None = None
        portion_used = 0.0
        for index, device in enumerate(node_state.devices):
            portion = self._portion_on(workload, node_state, device.memory_gib)
            if portion > 1 + EPSILON or device.idle < portion - EPSILON:
                continue
            # Bin-pack prefers the fullest shared GPU that still fits, spread the emptiest.
            score = device.idle if self.placement == "binpack" else -device.idle
            if best is None or (score, index) < best:
                best, portion_used = (score, index), portion
        if best is None:
            return None
        return _Placement(_NO_POD, node_state, (best[1],), portion_used, None)

    def _node_order_score(self, node_state: NodeState) -> float:
        idle = node_state.idle_total()
        if self.placement == "binpack":
            return idle
        total = node_state.gpu_count or 1
        return -idle / total

    def _find_now(self, workload: Workload) -> _Placement | None:
        request = workload.gpu
        if (
            request.kind == "whole"
            and not workload.node_selector
            and request.resource_name == GPU_RESOURCE
        ):
            node_state = self._indexed_whole_node(request.whole_gpus)
            return self._fit_now(workload, node_state) if node_state is not None else None
        return self._scan_for_fit(workload, exclude=None)

    def _scan_for_fit(self, workload: Workload, exclude: NodeState | None) -> _Placement | None:
        """The best-scored node that fits the pod now, trying every node (but `exclude`)."""
        best: tuple[float, int] | None = None
        chosen: _Placement | None = None
        for node_state in self.nodes:
            if node_state is exclude or not node_state.schedulable:
                continue
            if not node_state.matches(workload.node_selector):
                continue
            fit = self._fit_now(workload, node_state)
            if fit is None:
                continue
            key = (self._node_order_score(node_state), node_state.index)
            if best is None or key < best:
                best, chosen = key, fit
        return chosen

    def _bind(self, pod: Pod, placement: _Placement, status: PodStatus) -> None:
        pod.node = placement.node.name
        pod.devices = placement.devices
        pod.portion = placement.portion
        pod.extended_resource = placement.extended
        pod.status = status
        placement.node.add(pod, status, recount=False)
        self._touch(placement.node)

    def _unbind(self, pod: Pod) -> None:
        if pod.node is not None:
            node_state = self.node_by_name[pod.node]
            node_state.add(pod, pod.status, -1.0, recount=False)
            self._touch(node_state)
        pod.node = None
        pod.devices = ()
        pod.portion = 0.0
        pod.extended_resource = None
        pod.status = PodStatus.PENDING

    def _evict(self, pod: Pod) -> None:
        assert pod.node is not None
        node_state = self.node_by_name[pod.node]
        node_state.add(pod, PodStatus.RUNNING, -1.0, recount=False)
        pod.status = PodStatus.RELEASING
        node_state.add(pod, PodStatus.RELEASING, recount=False)
        self._touch(node_state)

    def _move(self, pod: Pod, placement: _Placement) -> str:
        """Consolidation: the pod leaves its node (still holding it) and is Pipelined elsewhere."""
        assert pod.node is not None
        old = self.node_by_name[pod.node]
        old.add(pod, PodStatus.RUNNING, -1.0)
        pod.leaving_node, pod.leaving_devices = pod.node, pod.devices
        pod.leaving_extended = pod.extended_resource
        old.add_leaving(pod)
        self._touch(old)
        self._bind(pod, placement, PodStatus.PIPELINED)
        return old.name

    # ------------------------------------------------------------------ quota gates

    def _quota_block(
        self, job: JobState, units: float, freed: dict[int, float] | None = None
    ) -> tuple[Reason, str] | None:
        """NonPreemptibleOverQuota and limits: the only gates of the allocate step."""
        for queue in job.queue.path:
            kind = "project" if queue.is_leaf else "department"
            taken = freed.get(id(queue), 0.0) if freed else 0.0
            # Only the project's quota gates non-preemptible work here (the reclaim check adds
            # the ancestors); victims are preemptible, so evicting them never makes room.
            if (
                not job.preemptible
                and queue.is_leaf
                and queue.allocated_non_preemptible + units > queue.deserved + EPSILON
            ):
                return (
                    Reason.NON_PREEMPTIBLE_OVER_QUOTA,
                    msg.non_preemptible_over_quota(kind, queue.name, queue.deserved),
                )
            if queue.limit is not None and queue.allocated - taken + units > queue.limit + EPSILON:
                return Reason.OVER_LIMIT, msg.over_limit(kind, queue.name, queue.limit)
        return None

    # ------------------------------------------------------------------ allocate

    def allocate(self) -> None:
        pending = [j for j in self.jobs if j.pending_pods()]
        picker = JobPicker(pending)
        while (job := picker.next()) is not None:
            self._try_allocate(job)

    def _try_allocate(self, job: JobState) -> None:
        pods = job.pending_pods()
        units = job.pod_units * len(pods)
        block = self._quota_block(job, units)
        if block is not None:
            self._set_reason(job, block[0], block[1])
            return
        needed = max(0, job.workload.min_available - job.active_pods())
        placed: list[Pod] = []
        for pod in pods:
            fit = self._find_now(job.workload)
            if fit is None:
                break
            self._bind(pod, fit, PodStatus.RUNNING)
            placed.append(pod)
        if len(placed) < needed:
            # Gang: all missing pods in one transaction, or none.
            for pod in placed:
                self._unbind(pod)
            job.workload.reason_code = ""
            return
        for pod in placed:
            self._charge(job, job.pod_units)
            self._record_scheduled(job, pod)

    def _record(
        self,
        owner: JobState,
        pod: Pod,
        kind: Literal["scheduled", "pipelined", "evicted", "moved"],
        node: str | None,
        event: tuple[Literal["Normal", "Warning"], str],
        message: str,
        codes: tuple[Reason, Reason] = (Reason.SCHEDULED, Reason.SCHEDULED),
        by: JobState | None = None,
    ) -> None:
        """Leave the event on the owner's workload and pod, and the action in the log.

        `codes` are the event's reason and the action's (they differ when a pod is
        pipelined by consolidation or reclaim); `by` is the job that caused it.
        """
        event_type, event_reason = event
        note_code, action_code = codes
        self.recorder.notes.append(
            Note(owner.workload, pod, event_type, event_reason, message, note_code)
        )
        self.recorder.actions.append(
            Action(
                kind,
                self.pool,
                owner.workload.project,
                owner.name,
                pod.name,
                node,
                owner.pod_units,
                action_code,
                by_project=by.workload.project if by else "",
                by_workload=by.name if by else "",
                message=message,
            )
        )

    def _record_scheduled(self, job: JobState, pod: Pod) -> None:
        assert pod.node is not None
        message = msg.scheduled(pod.namespace, pod.name, pod.node)
        self._record(job, pod, "scheduled", pod.node, ("Normal", "Scheduled"), message)
        self._set_reason(job, Reason.SCHEDULED, message, record=False)

    def _set_reason(self, job: JobState, code: Reason, message: str, record: bool = True) -> None:
        job.workload.reason_code = code.value
        job.workload.reason_message = message
        self._decided.add(id(job))
        if record:
            self.recorder.notes.append(
                Note(job.workload, None, "Warning", "Unschedulable", message, code)
            )

    # ------------------------------------------------------------------ consolidate

    def consolidate(self) -> None:
        """Bin-pack only: move preemptible running pods so a fragmented pending job fits.

        A move happens only if every moved pod is placed again on another node's idle GPUs.
        """
        if self.placement != "binpack":
            return
        idle = sum(n.idle_whole for n in self.nodes if n.schedulable)
        if idle == 0:
            return
        for job in self._ordered_pending():
            if id(job) in self._decided and job.workload.reason_code != Reason.SCHEDULED.value:
                continue
            if job.workload.gpu.kind != "whole" or job.workload.node_selector:
                continue
            pods = job.pending_pods()
            per_pod = job.workload.gpu.whole_gpus
            if not pods or idle < per_pod * len(pods):
                continue
            if self._quota_block(job, job.pod_units * len(pods)) is not None:
                continue
            if self._consolidate_job(job, pods, per_pod):
                idle = sum(n.idle_whole for n in self.nodes if n.schedulable)

    def _ordered_pending(self) -> list[JobState]:
        pending = [j for j in self.jobs if j.pending_pods()]
        picker = JobPicker(pending)
        ordered: list[JobState] = []
        while (job := picker.next()) is not None:
            ordered.append(job)
        return ordered

    def _movable_by_node(self, job: JobState) -> dict[str, list[Pod]]:
        by_node: dict[str, list[Pod]] = {}
        for other in self.jobs:
            if other is job or not other.preemptible or other.workload.gpu.kind != "whole":
                continue
            for pod in other.running_pods():
                if pod.node is not None:
                    by_node.setdefault(pod.node, []).append(pod)
        return by_node

    def _consolidate_job(self, job: JobState, pods: list[Pod], per_pod: int) -> bool:
        moves: list[tuple[Pod, str, _Placement]] = []
        placed: list[Pod] = []
        movable = self._movable_by_node(job)
        for pod in pods:
            if not self._consolidate_pod(job, pod, per_pod, moves, movable):
                for done in reversed(placed):
                    self._unbind(done)
                for moved, old_node, _placement in reversed(moves):
                    self._unmove(moved, old_node)
                return False
            placed.append(pod)
        for pod in placed:
            self._charge(job, job.pod_units)
            assert pod.node is not None
            message = msg.pipelined(pod.node)
            self._record(
                job,
                pod,
                "pipelined",
                pod.node,
                ("Normal", "Pipelined"),
                message,
                codes=(Reason.PIPELINED, Reason.CONSOLIDATED),
            )
            self._set_reason(job, Reason.PIPELINED, message, record=False)
        for moved, old_node, placement in moves:
            owner = self._job_of(moved)
            message = msg.consolidated(old_node, placement.node.name, job.name)
            self._record(
                owner,
                moved,
                "moved",
                placement.node.name,
                ("Normal", "Consolidated"),
                message,
                codes=(Reason.CONSOLIDATED, Reason.CONSOLIDATED),
                by=job,
            )
        return True

    def _job_of(self, pod: Pod) -> JobState:
        if self._jobs_cache is None:
            self._jobs_cache = {(j.workload.project, j.name): j for j in self.jobs}
        return self._jobs_cache[(pod.project, pod.workload)]

    def _unmove(self, pod: Pod, old_node: str) -> None:
        self._unbind(pod)
        node_state = self.node_by_name[old_node]
        node_state.add_leaving(pod, -1.0)
        pod.node, pod.devices = old_node, pod.leaving_devices
        pod.extended_resource = pod.leaving_extended
        pod.portion = 1.0
        pod.leaving_node, pod.leaving_devices, pod.leaving_extended = None, (), None
        pod.status = PodStatus.RUNNING
        node_state.add(pod, PodStatus.RUNNING)
        self._touch(node_state)

    def _consolidate_pod(
        self,
        job: JobState,
        pod: Pod,
        per_pod: int,
        moves: list[tuple[Pod, str, _Placement]],
        movable: dict[str, list[Pod]],
    ) -> bool:
        targets = [n for n in self.nodes if n.schedulable and n.gpu_count >= per_pod]
        targets.sort(key=lambda n: (-n.idle_whole, n.index))
        for target in targets:
            candidates = [p for p in movable.get(target.name, []) if p.status == PodStatus.RUNNING]
            candidates.sort(key=lambda p: (len(p.devices), p.name))
            chosen: list[Pod] = []
            freed = target.idle_whole
            for candidate in candidates:
                if freed >= per_pod:
                    break
                chosen.append(candidate)
                freed += len(candidate.devices)
            if freed < per_pod or not chosen:
                continue
            local: list[tuple[Pod, str, _Placement]] = []
            ok = True
            for candidate in chosen:
                owner = self._job_of(candidate)
                spot = self._find_elsewhere(owner.workload, exclude=target)
                if spot is None:
                    ok = False
                    break
                spot.pod = candidate
                old = self._move(candidate, spot)
                local.append((candidate, old, spot))
            if ok:
                fit = self._fit_future(job.workload, target)
                if fit is not None:
                    fit.pod = pod
                    self._bind(pod, fit, PodStatus.PIPELINED)
                    moves.extend(local)
                    return True
            for moved, old, _spot in reversed(local):
                self._unmove(moved, old)
        return False

    def _find_elsewhere(self, workload: Workload, exclude: NodeState) -> _Placement | None:
        request = workload.gpu
        if (
            request.kind == "whole"
            and not workload.node_selector
            and request.resource_name == GPU_RESOURCE
        ):
            # Hide the excluded node from the index for one lookup, then put it back.
            saved = exclude.bucket
            exclude.bucket = (-1, -1)
            node_state = self._indexed_whole_node(request.whole_gpus)
            exclude.bucket = (-2, -2)
            self._touch(exclude)
            if exclude.bucket == (-2, -2):
                exclude.bucket = saved
            return self._fit_now(workload, node_state) if node_state is not None else None
        return self._scan_for_fit(workload, exclude=exclude)

    def _fit_future(self, workload: Workload, node_state: NodeState) -> _Placement | None:
        free = [d.future for d in node_state.devices]
        return _fit_on(
            workload, node_state, free, [d.idle for d in node_state.devices], None, self.placement
        )

    # ------------------------------------------------------------------ reclaim & preempt

    def reclaim(self) -> None:
        self._evicted_this_action = set()
        reclaimers = [j for j in self.jobs if j.pending_pods()]
        picker = JobPicker(reclaimers)
        index = _VictimIndex(self, self.jobs)
        while (job := picker.next()) is not None:
            for victim_queue in self._try_reclaim(job, index):
                picker.refresh(victim_queue)

    def _try_reclaim(self, job: JobState, index: _VictimIndex) -> list[QState]:
        """Try one reclaimer; returns the queues that lost victims (their order keys changed)."""
        pods = job.pending_pods()
        units = job.pod_units * len(pods)
        leaf = job.queue
        if leaf.allocated + units > leaf.fair_share + EPSILON:
            return []
        if self._quota_block(job, units) is not None:
            return []
        if units > index.available_outside(leaf) + self.future_free_total + EPSILON:
            return []
        picker = index.picker_for(job)
        trial = _Trial(self, job)
        victims: list[_VictimTake] = []
        plan: list[_Placement] | None = None
        for count in range(1, len(pods) + 1):
            while True:
                if victims and trial.may_fit(count):
                    plan = trial.place(pods[:count])
                    if plan is not None and self._ratio_ok(job, units, picker.taken):
                        break
                picked = picker.next(units)
                if picked is None or not picked[1]:
                    # A failing victim stays in the set, so no larger set can pass either.
                    return []
                victims.append(picked[0])
                trial.add(picked[0])
        assert plan is not None
        self._commit_reclaim(job, victims, plan, index, Reason.RECLAIMED)
        # Each queue once: the allocate order re-keys a queue from its current numbers.
        return list(dict.fromkeys(take.job.queue for take in victims))

    def _ratio_ok(self, job: JobState, units: float, taken: list[float]) -> bool:
        for queue in job.queue.path:
            share = queue.fair_share
            after = queue.allocated - taken[queue.rank] + units
            ratio = after / share if share > EPSILON else (INF if after > EPSILON else 0.0)
            if ratio <= 1 + EPSILON:
                continue
            siblings = queue.parent.children if queue.parent else self.top_level
            for sibling in siblings:
                lost = taken[sibling.rank]
                if sibling is queue or lost <= EPSILON or sibling.fair_share <= EPSILON:
                    continue
                sibling_ratio = (sibling.allocated - lost) / sibling.fair_share
                if ratio >= sibling_ratio - EPSILON:
                    return False
        if not job.preemptible:
            for queue in job.queue.path:
                if queue.allocated_non_preemptible + units > queue.deserved + EPSILON:
                    return False
        return True

    def _commit_reclaim(
        self,
        job: JobState,
        victims: list[_VictimTake],
        plan: list[_Placement],
        index: _VictimIndex | None,
        reason: Reason,
    ) -> None:
        for placement in plan:
            self._bind(placement.pod, placement, PodStatus.PIPELINED)
            self._charge(job, job.pod_units)
            message = msg.pipelined(placement.node.name)
            self._record(
                job,
                placement.pod,
                "pipelined",
                placement.node.name,
                ("Normal", "Pipelined"),
                message,
                codes=(Reason.PIPELINED, reason),
            )
        self._set_reason(job, Reason.PIPELINED, msg.pipelined(plan[0].node.name), record=False)
        for take in victims:
            if len(take.pods) == 1:
                # Most victims of a long search sit on nodes the reclaimer did not use: a lone
                # pod that is not Running, or whose GPUs stay free enough, is left as it is.
                pod = take.pods[0]
                if pod.status != PodStatus.RUNNING or (
                    pod.node is not None and _untouched(pod, self.node_by_name[pod.node])
                ):
                    continue
            victim = take.job
            queue = victim.queue
            shown_alloc = queue.allocated
            lost_pods = False
            for pod in take.pods:
                if pod.status != PodStatus.RUNNING:
                    continue
                # Consolidating reclaim: a victim that fits back on its node, or on idle GPUs
                # elsewhere, is kept or moved instead of being evicted.
                assert pod.node is not None
                home = self.node_by_name[pod.node]
                # Only a single-pod take can stay or move: a gang victim leaves whole.
                single = len(take.pods) == 1
                if single and _untouched(pod, home):
                    continue
                self._evict(pod)
                lost_pods = True
                elsewhere = self._find_elsewhere(victim.workload, exclude=home) if single else None
                if elsewhere is not None:
                    home.add(pod, PodStatus.RELEASING, -1.0)
                    pod.status = PodStatus.RUNNING
                    home.add(pod, PodStatus.RUNNING)
                    self._touch(home)
                    elsewhere.pod = pod
                    old = self._move(pod, elsewhere)
                    message = msg.consolidated(old, elsewhere.node.name, job.name)
                    self._record(
                        victim,
                        pod,
                        "moved",
                        elsewhere.node.name,
                        ("Normal", "Consolidated"),
                        message,
                        codes=(Reason.CONSOLIDATED, Reason.CONSOLIDATED),
                        by=job,
                    )
                    continue
                for q in victim.queue.path:
                    q.allocated -= victim.pod_units
                    if not victim.preemptible:
                        q.allocated_non_preemptible -= victim.pod_units
                if reason == Reason.RECLAIMED:
                    message = msg.reclaimed(
                        job.workload.project,
                        job.name,
                        queue.name,
                        shown_alloc,
                        queue.fair_share,
                        self.pool,
                    )
                else:
                    message = msg.preempted(
                        f"{job.workload.project}/{job.name}", job.priority, victim.priority
                    )
                victim.workload.evicted_by = f"{job.workload.project}/{job.name}"
                victim.workload.eviction_message = message
                victim.workload.reason_code = reason.value
                victim.workload.reason_message = message
                self._record(
                    victim,
                    pod,
                    "evicted",
                    pod.node,
                    ("Warning", "Evicted"),
                    message,
                    codes=(reason, reason),
                    by=job,
                )
            if lost_pods:
                self._evicted_this_action.add(id(victim))
                if index is not None:
                    index.remove(victim)

    def preempt(self) -> None:
        """Within one project, a higher-priority job evicts lower-priority preemptible jobs."""
        self._evicted_this_action = set()
        by_leaf: dict[int, list[JobState]] = {}
        for other in self.jobs:
            if other.preemptible and other.running_pods():
                by_leaf.setdefault(id(other.queue), []).append(other)
        lowest = {leaf: min(j.priority for j in jobs) for leaf, jobs in by_leaf.items()}
        pending = [
            j
            for j in self.jobs
            if j.pending_pods() and lowest.get(id(j.queue), j.priority) < j.priority
        ]
        picker = JobPicker(pending)
        while (job := picker.next()) is not None:
            if not job.pending_pods():
                continue
            candidates = [
                v
                for v in by_leaf.get(id(job.queue), [])
                if v.priority < job.priority
                and v.running_pods()
                and id(v) not in self._evicted_this_action
            ]
            if candidates:
                self._try_preempt(job, candidates)

    def _try_preempt(self, job: JobState, candidates: list[JobState]) -> None:
        pods = job.pending_pods()
        units = job.pod_units * len(pods)
        candidates.sort(key=lambda v: (v.priority, -v.workload.creation_rank))
        takes = _victim_takes(candidates, self.node_by_name)
        trial = _Trial(self, job)
        victims: list[_VictimTake] = []
        freed: dict[int, float] = {}
        plan: list[_Placement] | None = None
        for count in range(1, len(pods) + 1):
            while True:
                if (
                    victims
                    and trial.may_fit(count)
                    and self._quota_block(job, units, freed) is None
                ):
                    plan = trial.place(pods[:count])
                    if plan is not None:
                        break
                take = next(takes, None)
                if take is None:
                    return
                victims.append(take)
                trial.add(take)
                for queue in take.job.queue.path:
                    freed[id(queue)] = freed.get(id(queue), 0.0) + take.units
        assert plan is not None
        self._commit_reclaim(job, victims, plan, None, Reason.PREEMPTED)

    # ------------------------------------------------------------------ why still pending

    def explain_pending(self) -> None:
        """Leave an Unschedulable event on every job still waiting, with the guide's reason."""
        free_total = sum(n.idle_total() for n in self.nodes if n.schedulable)
        for job in self.jobs:
            pods = job.pending_pods()
            if not pods:
                continue
            if id(job) in self._decided and job.workload.reason_code in (
                Reason.NON_PREEMPTIBLE_OVER_QUOTA.value,
                Reason.OVER_LIMIT.value,
                Reason.PIPELINED.value,
            ):
                if job.workload.reason_code != Reason.PIPELINED.value:
                    self._pod_notes(job, pods)
                continue
            code, message = self._classify(job, len(pods), free_total)
            job.workload.reason_code = code.value
            job.workload.reason_message = message
            self.recorder.notes.append(
                Note(job.workload, None, "Warning", "Unschedulable", message, code)
            )
            self._pod_notes(job, pods)

    def _pod_notes(self, job: JobState, pods: list[Pod]) -> None:
        code = Reason(job.workload.reason_code)
        for pod in pods:
            self.recorder.notes.append(
                Note(
                    job.workload, pod, "Warning", "Unschedulable", job.workload.reason_message, code
                )
            )

    def _classify(self, job: JobState, pending: int, free_total: float) -> tuple[Reason, str]:
        workload = job.workload
        resource = workload.gpu.resource_name
        if not self.nodes:
            return Reason.NO_NODES_IN_POOL, msg.no_nodes_in_pool(self.pool)
        counts, advertising, largest = self._node_census(resource, workload.node_selector)
        need = workload.gpu.whole_gpus if workload.gpu.kind == "whole" else 1
        fits_some_empty_node = largest >= need
        total = len(self.nodes)
        summary = msg.node_summary(total, counts)
        if advertising == 0:
            return Reason.NODES_ADVERTISE_NO_GPUS, msg.nodes_advertise_no_gpus(
                total, resource, self.pool
            )
        per_pod = need
        if not fits_some_empty_node and largest > 0 and workload.gpu.kind == "whole":
            return Reason.REQUEST_TOO_BIG, msg.request_too_big(
                resource, per_pod, largest, self.pool
            )
        if largest == 0:
            return Reason.INSUFFICIENT_GPUS, msg.insufficient(summary)
        if workload.pod_count > 1 and workload.min_available > 1 and job.below_min:
            placed = self._pods_that_fit_now(workload, pending)
            return Reason.GANG_CANNOT_FIT, msg.gang_cannot_fit(
                workload.name, workload.pod_count, job.pod_units, placed, self.pool
            )
        if workload.gpu.kind == "whole" and free_total + EPSILON >= job.pod_units:
            return Reason.FRAGMENTATION, msg.fragmentation(
                summary, free_total, job.pod_units, self.pool
            )
        leaf = job.queue
        if leaf.deserved <= EPSILON:
            return Reason.NO_QUOTA_IN_POOL, msg.no_quota_in_pool(leaf.name, self.pool, free_total)
        if leaf.allocated + EPSILON >= leaf.deserved:
            return Reason.OVER_QUOTA_NO_FREE_GPUS, msg.over_quota_no_free(
                leaf.name, leaf.deserved, leaf.allocated, free_total, self.pool
            )
        return Reason.INSUFFICIENT_GPUS, msg.insufficient(summary)

    def _node_census(
        self, resource: str, selector: dict[str, str]
    ) -> tuple[dict[str, int], int, int]:
        """Per-node reasons, nodes advertising GPUs, and the largest eligible node; cached."""
        key = (resource, tuple(sorted(selector.items())))
        cached = self._census.get(key)
        if cached is not None:
            return cached
        counts: dict[str, int] = {}
        advertising = 0
        largest = 0
        for node_state in self.nodes:
            capacity = (
                node_state.gpu_count
                if resource == GPU_RESOURCE
                else node_state.ext_capacity.get(resource, 0)
            )
            if node_state.advert.resources:
                advertising += 1
            if not node_state.schedulable:
                reason = "node(s) were unschedulable"
            elif not node_state.matches(selector):
                reason = "node(s) didn't match Pod's node affinity/selector"
            else:
                largest = max(largest, capacity)
                reason = f"Insufficient {resource}"
            counts[reason] = counts.get(reason, 0) + 1
        self._census[key] = (counts, advertising, largest)
        return counts, advertising, largest

    def _pods_that_fit_now(self, workload: Workload, pending: int) -> int:
        # Count on scratch copies: the question is how many pods would fit together now.
        idle = {n.index: [d.idle for d in n.devices] for n in self.nodes if n.schedulable}
        placed = 0
        for _ in range(pending):
            spot = None
            for node_state in self.nodes:
                if node_state.index not in idle or not node_state.matches(workload.node_selector):
                    continue
                spot = _fit_on(
                    workload,
                    node_state,
                    idle[node_state.index],
                    idle[node_state.index],
                    None,
                    self.placement,
                )
                if spot is not None:
                    for device in spot.devices:
                        idle[node_state.index][device] -= spot.portion
                    break
            if spot is None:
                break
            placed += 1
        return placed


# ---------------------------------------------------------------------------- helpers


class _NoPod(Pod):
    pass


_NO_POD = _NoPod(name="", workload="", project="", index=-1)


def _fit_on(
    workload: Workload,
    node_state: NodeState,
    available: list[float],
    idle: list[float],
    ext_available: dict[str, float] | None,
    placement: Placement,
) -> _Placement | None:
    """Fit one pod on a node given per-device availability (a trial's view)."""
    request = workload.gpu
    if request.mig_profile is not None:
        resource = request.resource_name
        free = (
            ext_available.get(resource, 0.0)
            if ext_available is not None
            else node_state.ext_future(resource)
        )
        return _Placement(_NO_POD, node_state, (), 1.0, resource) if free >= 1 - EPSILON else None
    if request.kind == "whole":
        need = request.whole_gpus
        chosen = [i for i, free in enumerate(available) if free >= 1 - EPSILON]
        if len(chosen) < need:
            return None
        # Prefer devices that are idle now, so fewer pods wait on releases.
        chosen.sort(key=lambda i: (0 if idle[i] >= 1 - EPSILON else 1, i))
        return _Placement(_NO_POD, node_state, tuple(sorted(chosen[:need])), 1.0, None)
    best: tuple[float, int] | None = None
    portion_used = 0.0
    for index, free in enumerate(available):
        memory = node_state.devices[index].memory_gib
        portion = request.memory_gib / memory if request.memory_gib is not None else request.gpus
        if portion > 1 + EPSILON or free < portion - EPSILON:
            continue
        score = free if placement == "binpack" else -free
        if best is None or (score, index) < best:
            best, portion_used = (score, index), portion
    if best is None:
        return None
    return _Placement(_NO_POD, node_state, (best[1],), portion_used, None)


def _untouched(pod: Pod, home: NodeState) -> bool:
    """Did the reclaimer's pods leave this running victim's own GPUs alone?"""
    if pod.extended_resource is not None:
        return home.ext_future(pod.extended_resource) >= -EPSILON
    futures = home.future_list()
    return min([futures[d] for d in pod.devices], default=0.0) >= -EPSILON


def _victim_takes(
    candidates: list[JobState], node_by_name: dict[str, NodeState]
) -> Iterator[_VictimTake]:
    """Preempt's victims in order; each job's takes are worked out when they are reached."""
    # The running pods are read now, for every candidate, as the search starts.
    remaining = [(job, job.running_pods()) for job in candidates]
    return (
        take for job, running in remaining for take in _take_sequence(job, running, node_by_name)
    )


def _take_sequence(
    job: JobState, running: list[Pod], node_by_name: dict[str, NodeState]
) -> list[_VictimTake]:
    """Gang rule: a victim at or below its minimum loses all pods, above it one pod, last first."""
    remaining = list(running)
    takes: list[_VictimTake] = []
    while remaining:
        if len(remaining) <= job.workload.min_available:
            pods = list(remaining)
            remaining.clear()
        else:
            remaining.sort(key=lambda p: p.index)
            pods = [remaining.pop()]
        takes.append(_VictimTake(job, pods, job.pod_units * len(pods), node_by_name))
    return takes


class _VictimIndex:
    """Reclaim candidates for one action: preemptible jobs with running pods, per leaf queue.

    Queue numbers are lists indexed by `QState.rank`. Each leaf's takes, in victim order,
    are laid out once per action in a flat list that grows as pickers reach further: a job
    keeps its running pods until it loses some, and then it leaves the list.
    """

    def __init__(self, session: PoolSession, jobs: list[JobState]) -> None:
        self.session = session
        size = 1 + max((q.rank for q in session.queues.values()), default=-1)
        self.by_leaf: dict[int, list[JobState]] = {}
        self.units = [0.0] * size
        self.count = [0] * size
        self.job_units: dict[int, float] = {}
        for job in jobs:
            if not job.preemptible:
                continue
            running = job.running_pods()
            if not running:
                continue
            self.by_leaf.setdefault(job.queue.rank, []).append(job)
            self.job_units[id(job)] = len(running) * job.pod_units
            for queue in job.queue.path:
                self.units[queue.rank] += self.job_units[id(job)]
                self.count[queue.rank] += 1
        for leaf_jobs in self.by_leaf.values():
            # Inside a queue: lowest job priority first, then the newest.
            leaf_jobs.sort(key=lambda j: (j.priority, -j.workload.creation_rank))
        self.removed: set[int] = set()
        self.total = sum(self.units[q.rank] for q in session.top_level)
        # min(limit, max(deserved, fair share)) is fixed for the cycle; the order reads it often.
        self.capped = [0.0] * size
        for queue in session.queues.values():
            self.capped[queue.rank] = queue.capped_share
        # Per leaf: (take, whether it is the job's last) in order, and how many jobs are laid out.
        self.flat: list[list[tuple[_VictimTake | None, bool]]] = [[] for _ in range(size)]
        self.laid_out = [0] * size
        self._entries: dict[int, list[tuple[_VictimTake | None, bool]]] = {}

    def available_outside(self, leaf: QState) -> float:
        """An upper bound on what victims outside this queue could free."""
        return self.total - self.units[leaf.rank]

    def lay_out(self, rank: int) -> bool:
        """Append the leaf's next job's takes to its flat list; False when none is left."""
        jobs = self.by_leaf.get(rank, [])
        while self.laid_out[rank] < len(jobs):
            job = jobs[self.laid_out[rank]]
            self.laid_out[rank] += 1
            if id(job) in self.removed:
                continue
            takes = _take_sequence(job, job.running_pods(), self.session.node_by_name)
            entries: list[tuple[_VictimTake | None, bool]] = [
                (take, i == len(takes) - 1) for i, take in enumerate(takes)
            ]
            if not entries:
                # Nothing to take, but the job still counts until a picker passes it.
                entries = [(None, True)]
            self._entries[id(job)] = entries
            self.flat[rank].extend(entries)
            return True
        return False

    def remove(self, job: JobState) -> None:
        """A job that lost pods in this action is no longer a candidate in it."""
        if id(job) in self.removed or id(job) not in self.job_units:
            return
        self.removed.add(id(job))
        flat = self.flat[job.queue.rank]
        for entry in self._entries.pop(id(job), []):
            flat.remove(entry)
        units = self.job_units[id(job)]
        for queue in job.queue.path:
            self.count[queue.rank] -= 1
            self.units[queue.rank] -= units
        self.total -= units

    def picker_for(self, reclaimer: JobState) -> _VictimPicker:
        return _VictimPicker(self, reclaimer)


# Victim order at one level: smaller is taken first (design step 3). The rank is unique, so
# two entries never tie and the queue itself is never compared.
_VictimKey = tuple[bool, int, float, int, QState]


class _VictimPicker:
    """Victim order for one reclaimer: re-evaluated after every pick (design step 3).

    Each visited parent keeps a heap of its children that still have candidates. A pick
    walks down the heap tops, so every queue on the picked path sits on top of its
    parent's heap and is re-keyed in place (`heapreplace`): no stale entries pile up.
    """

    def __init__(self, index: _VictimIndex, reclaimer: JobState) -> None:
        self.index = index
        self.session = index.session
        self.reclaimer = reclaimer
        self.capped = index.capped
        self.taken = [0.0] * len(index.count)
        # Candidates left per queue; the reclaimer's own jobs are never its victims.
        live = list(index.count)
        own = reclaimer.queue
        for queue in own.path[1:]:
            live[queue.rank] -= live[own.rank]
        live[own.rank] = 0
        self.live = live
        self.cursor = [0] * len(index.count)
        self.heaps: dict[int, list[_VictimKey]] = {}
        self.sides: dict[int, tuple[QState, QState]] = {}

    def _key(self, queue: QState) -> _VictimKey:
        left = queue.allocated - self.taken[queue.rank]
        capped = self.capped[queue.rank]
        # As QState.dominant_share, with the denominator read from the cache.
        share = (INF if left > EPSILON else 0.0) if capped <= EPSILON else left / capped
        return (not left > queue.deserved + EPSILON, queue.priority, -share, -queue.rank, queue)

    def _heap(self, parent: QState | None) -> list[_VictimKey]:
        key = parent.rank if parent is not None else -1
        heap = self.heaps.get(key)
        if heap is None:
            children = parent.children if parent is not None else self.session.top_level
            live = self.live
            heap = [self._key(c) for c in children if live[c.rank] > 0]
            heapq.heapify(heap)
            self.heaps[key] = heap
        return heap

    def _rekey(self, leaf: QState) -> None:
        # Only the picked path changed; each of its queues is the top of its parent's heap.
        live = self.live
        heaps = self.heaps
        for queue in leaf.path:
            parent = queue.parent
            heap = heaps[parent.rank if parent is not None else -1]
            if live[queue.rank] > 0:
                heapq.heapreplace(heap, self._key(queue))
            else:
                heapq.heappop(heap)

    def next(self, units: float) -> tuple[_VictimTake, bool] | None:
        """The next victim and whether it passes the check (design step 5), or None."""
        live = self.live
        heaps = self.heaps
        while True:
            heap = heaps.get(-1) or self._heap(None)
            if not heap:
                return None
            queue = heap[0][4]
            while not queue.is_leaf:
                heap = heaps.get(queue.rank) or self._heap(queue)
                if not heap:
                    return None
                queue = heap[0][4]
            take = self._take_in(queue)
            if take is None:
                # Nothing left to take here whatever the counts say: retire the queue.
                gone = live[queue.rank]
                for q in queue.path:
                    live[q.rank] -= gone
                self._rekey(queue)
                continue
            check_ok = self._check(queue, units)
            taken = self.taken
            capped = self.capped
            for q in queue.path:
                rank = q.rank
                taken[rank] += take.units
                # Each queue on the picked path is the top of its parent's heap.
                heap = heaps[q.parent.rank if q.parent is not None else -1]
                if live[rank] <= 0:
                    heapq.heappop(heap)
                    continue
                # `_key`, written out: this runs once per level for every victim.
                left = q.allocated - taken[rank]
                bound = capped[rank]
                share = (INF if left > EPSILON else 0.0) if bound <= EPSILON else left / bound
                heapq.heapreplace(
                    heap, (not left > q.deserved + EPSILON, q.priority, -share, -rank, q)
                )
            return take, check_ok

    def _take_in(self, leaf: QState) -> _VictimTake | None:
        rank = leaf.rank
        flat = self.index.flat[rank]
        position = self.cursor[rank]
        while True:
            if position == len(flat) and not self.index.lay_out(rank):
                self.cursor[rank] = position
                return None
            take, last = flat[position]
            position += 1
            if last:
                # The job is used up: one candidate fewer on the whole path.
                for queue in leaf.path:
                    self.live[queue.rank] -= 1
            if take is not None:
                self.cursor[rank] = position
                return take

    def _sides(self, leaf: QState) -> tuple[QState, QState]:
        """The children of the lowest common ancestor on the victim's and reclaimer's paths."""
        victim_path = leaf.path[::-1]
        reclaimer_path = self.reclaimer.queue.path[::-1]
        depth = 0
        while (
            depth < len(victim_path)
            and depth < len(reclaimer_path)
            and victim_path[depth] is reclaimer_path[depth]
        ):
            depth += 1
        reclaimer_side = (
            reclaimer_path[depth] if depth < len(reclaimer_path) else self.reclaimer.queue
        )
        return victim_path[depth], reclaimer_side

    def _check(self, leaf: QState, units: float) -> bool:
        sides = self.sides.get(leaf.rank)
        if sides is None:
            sides = self.sides[leaf.rank] = self._sides(leaf)
        victim_side, reclaimer_side = sides
        taken = self.taken
        victim_alloc = victim_side.allocated - taken[victim_side.rank]
        if victim_alloc > self.capped[victim_side.rank] + EPSILON:
            return True
        reclaimer_alloc = reclaimer_side.allocated - taken[reclaimer_side.rank]
        return (
            reclaimer_alloc + units <= reclaimer_side.deserved + EPSILON
            and victim_alloc > victim_side.deserved + EPSILON
        )


@dataclass(slots=True)
class _NodeView:
    """A candidate node as a reclaim trial sees it: what is free once the victims leave,
    less what the plan being built has already put there."""

    available: list[float]
    ext_available: dict[str, float]
    total: float
    whole_free: int


class _Trial:
    """Where a reclaimer's pods would go if these victims were released (design step 7).

    Victims are added one at a time and placing is tried often, so the trial keeps, per
    node, what the victims freed, how many whole GPUs are free, and the node's view for
    placing (rebuilt only for nodes that changed since the last try).
    """

    def __init__(self, session: PoolSession, job: JobState) -> None:
        self.session = session
        self.job = job
        self.freed: dict[int, list[float]] = {}
        self.freed_ext: dict[int, dict[str, float]] = {}
        request = job.workload.gpu
        # For whole-GPU pods, count how many pods the freed GPUs could hold; placing is only
        # tried once that count is high enough, so a long victim list stays linear.
        self.whole = request.whole_gpus if request.resource_name == GPU_RESOURCE else 0
        self.need = request.whole_gpus if request.kind == "whole" else 0
        self.selector = job.workload.node_selector
        self.free_by_node: dict[int, int] = {}
        self.slots_by_node: dict[int, int] = {}
        self.slots = 0
        self._eligible: dict[int, bool] = {}
        # Candidates are nodes with idle or being-freed GPUs, and the victims' nodes; a view
        # is (re)built for each one that changed since the last `place`.
        self._stale: set[int] = set(session._future_nodes)
        self._views: dict[int, _NodeView] = {}
        self._totals: dict[int, float] = {}
        self._roomy: set[int] = set()
        if self.whole:
            for node_index in session._future_nodes:
                if self._is_eligible(node_index):
                    self._set_free(node_index, session.nodes[node_index].future_whole())

    def _is_eligible(self, node_index: int) -> bool:
        eligible = self._eligible.get(node_index)
        if eligible is None:
            node_state = self.session.nodes[node_index]
            eligible = node_state.schedulable and node_state.matches(self.selector)
            self._eligible[node_index] = eligible
        return eligible

    def _set_free(self, node_index: int, free: int) -> None:
        self.free_by_node[node_index] = free
        slots = free // self.whole
        self.slots += slots - self.slots_by_node.get(node_index, 0)
        self.slots_by_node[node_index] = slots

    def may_fit(self, pods: int) -> bool:
        return not self.whole or self.slots >= pods

    def add(self, take: _VictimTake) -> None:
        nodes = self.session.nodes
        for node_index, devices, portion, extended in take.frees:
            self._stale.add(node_index)
            if extended is not None:
                ext = self.freed_ext.setdefault(node_index, {})
                ext[extended] = ext.get(extended, 0.0) + 1
                continue
            freed = self.freed.get(node_index)
            if freed is None:
                freed = self.freed[node_index] = [0.0] * len(nodes[node_index].devices)
            if not self.whole or not self._is_eligible(node_index):
                # No whole-GPU count is kept for this node.
                for device in devices:
                    freed[device] += portion
                continue
            # A node's first victim starts from the node's own count; after that only the
            # devices a victim frees can change it, so the rest are not looked at again.
            free = self.free_by_node.get(node_index)
            if free is None:
                free = nodes[node_index].future_whole()
            futures = nodes[node_index].future_list()
            for device in devices:
                was = futures[device] + freed[device] >= 1 - EPSILON
                freed[device] += portion
                free += (futures[device] + freed[device] >= 1 - EPSILON) - was
            self._set_free(node_index, free)

    def _view(
        self,
        node_state: NodeState,
        used: list[float] | None,
        used_ext: dict[str, float] | None,
    ) -> _NodeView:
        node_index = node_state.index
        futures = node_state.future_list()
        freed = self.freed.get(node_index)
        # The same sums, in the same order, as placing from scratch would do.
        if freed and used:
            available = [f + g - t for f, g, t in zip(futures, freed, used, strict=True)]
        elif freed:
            available = [f + g - 0.0 for f, g in zip(futures, freed, strict=True)]
        elif used:
            available = [f + 0.0 - t for f, t in zip(futures, used, strict=True)]
        else:
            available = [f + 0.0 - 0.0 for f in futures]
        ext_available = (
            {
                r: node_state.ext_future(r)
                + self.freed_ext.get(node_index, {}).get(r, 0.0)
                - (used_ext or {}).get(r, 0.0)
                for r in node_state.ext_capacity
            }
            if node_state.ext_capacity
            else {}
        )
        # Negative entries count as 0; when there are none the plain sum is the same number.
        if available and min(available) < 0.0:
            gpus = sum([max(0.0, a) for a in available])
        else:
            gpus = sum(available)
        total = gpus + sum(ext_available.values())
        whole_free = len([a for a in available if a >= 1 - EPSILON])
        return _NodeView(available, ext_available, total, whole_free)

    def _fits_alone(self, node_state: NodeState, view: _NodeView) -> bool:
        """Would one of the reclaimer's pods fit on this node as the view shows it?"""
        if self.need:
            # The whole-GPU test of `_fit_on`, without building the device list.
            return view.whole_free >= self.need
        return (
            _fit_on(
                self.job.workload,
                node_state,
                view.available,
                view.available,
                view.ext_available,
                self.session.placement,
            )
            is not None
        )

    def _refresh_views(self) -> None:
        nodes = self.session.nodes
        for node_index in self._stale:
            if not self._is_eligible(node_index):
                continue
            view = self._view(nodes[node_index], None, None)
            self._views[node_index] = view
            self._totals[node_index] = view.total
            if self._fits_alone(nodes[node_index], view):
                self._roomy.add(node_index)
            else:
                self._roomy.discard(node_index)
        self._stale.clear()

    def place(self, pods: list[Pod]) -> list[_Placement] | None:
        session = self.session
        workload = self.job.workload
        self._refresh_views()
        consumed: dict[int, list[float]] = {}
        consumed_ext: dict[int, dict[str, float]] = {}
        changed: dict[int, _NodeView] = {}
        plan: list[_Placement] = []
        for pod in pods:
            # Only nodes where a pod fits can be chosen: those whose view has not changed
            # since it was judged, and the nodes this plan already used, judged again below.
            contenders = self._roomy | changed.keys() if changed else self._roomy
            if not contenders:
                return None
            totals = self._totals
            if changed:
                totals = dict(totals)
                for node_index, view in changed.items():
                    totals[node_index] = view.total
            # Bin-pack score over every candidate node, whether the pod fits there or not.
            most = max(totals.values())
            least = min(totals.values())
            spread = most - least
            best: tuple[float, str] | None = None
            chosen: _Placement | None = None
            for node_index in contenders:
                node_state = session.nodes[node_index]
                view = changed.get(node_index) or self._views[node_index]
                idle = self._idle(node_state, consumed.get(node_index))
                fit = _fit_on(
                    workload,
                    node_state,
                    view.available,
                    idle,
                    view.ext_available,
                    session.placement,
                )
                if fit is None:
                    continue
                used_ext = consumed_ext.get(node_index, {})
                idle_ext = {
                    r: node_state.ext_idle(r) - used_ext.get(r, 0.0)
                    for r in node_state.ext_capacity
                }
                fits_idle = (
                    _fit_on(workload, node_state, idle, idle, idle_ext, session.placement)
                    is not None
                )
                packing = 9.0 * (most - view.total) / spread if spread > EPSILON else 9.0
                score = (100.0 if fits_idle else 0.0) + packing
                key = (-score, node_state.name)
                if best is None or key < best:
                    best, chosen = key, fit
            if chosen is None:
                return None
            chosen.pod = pod
            plan.append(chosen)
            node_index = chosen.node.index
            if chosen.extended is not None:
                ext_used = consumed_ext.setdefault(node_index, {})
                ext_used[chosen.extended] = ext_used.get(chosen.extended, 0.0) + 1
            else:
                used = consumed.setdefault(node_index, [0.0] * chosen.node.gpu_count)
                for device_index in chosen.devices:
                    used[device_index] += chosen.portion
            changed[node_index] = self._view(
                chosen.node, consumed.get(node_index), consumed_ext.get(node_index)
            )
        return plan

    @staticmethod
    def _idle(node_state: NodeState, used: list[float] | None) -> list[float]:
        if used:
            return [d.idle - t for d, t in zip(node_state.devices, used, strict=True)]
        return [d.idle - 0.0 for d in node_state.devices]


def run_actions(session: PoolSession, actions: Sequence[str] = ACTIONS) -> None:
    steps: dict[str, Callable[[], None]] = {
        "allocate": session.allocate,
        "consolidate": session.consolidate,
        "reclaim": session.reclaim,
        "preempt": session.preempt,
    }
    for name in actions:
        steps[name]()
    session.explain_pending()
