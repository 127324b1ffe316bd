"""The scheduler's view of one node pool during one cycle (KAI's session).

Built from the cluster's objects at the start of a cycle: queues with their fair
shares, jobs, nodes and the node index. The actions (`actions/`) read and change it
through a `Statement`, and it reports what they did through a `Recorder`.
"""

from __future__ import annotations

from collections.abc import Sequence

from simulators.engine.errors import EngineError
from simulators.engine.fairshare import ShareQueue, fair_share
from simulators.engine.messages import Reason
from simulators.engine.mig import mig_profile
from simulators.engine.model import Placement, Pod, PodStatus, Queue, Workload
from simulators.engine.scheduler.placement import NodeIndex
from simulators.engine.scheduler.records import (
    Action,
    Decision,
    FairShareRow,
    Note,
    Recorder,
)
from simulators.engine.scheduler.statement import Statement
from simulators.engine.state import INF, JobState, NodeState, QState

CensusKey = tuple[str, tuple[tuple[str, str], ...]]


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
        self.index = NodeIndex(self.nodes, placement)
        # Jobs evicted from in the running action: no longer victims in it.
        self.evicted_this_action: set[int] = set()
        # Jobs whose outcome this cycle is settled (placed, or blocked by a quota gate).
        self.decided: set[int] = set()
        self._jobs_by_key: dict[tuple[str, str], JobState] | None = None
        self.census_cache: dict[CensusKey, tuple[int, int, str]] = {}

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
                deserved=INF if quota.deserved is None else quota.deserved,
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
        # Usage the queues carry beyond their jobs here (Queue.held), charged in _count_holds.
        self._held = {q.name: q.held[self.pool] for q in queues if q.held.get(self.pool)}

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
            units = workload.gpu.units(self.smallest_memory)
            self.jobs.append(JobState(workload, queue, units))
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
                    self.charge(job, job.pod_units)
        for name, units in self._held.items():
            for queue in self.queues[name].path:
                queue.allocated += units

    def _compute_fair_share(self) -> None:
        for job in self.jobs:
            live = len([p for p in job.workload.pods if p.status != PodStatus.SUCCEEDED])
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
                    deserved=q.quota,
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
                deserved=q.quota,
                over_quota_weight=q.weight,
                limit=q.limit,
                priority=q.priority,
                request=q.request,
                allocated=q.allocated,
                fair_share=q.fair_share,
            )
            for q in sorted(self.queues.values(), key=lambda s: s.rank)
        ]

    # ------------------------------------------------------------------ bookkeeping

    def statement(self) -> Statement:
        return Statement(self.node_by_name, self.index)

    def charge(self, job: JobState, units: float) -> None:
        """Count GPUs a job now holds (or, negative, gave back) on its queue path."""
        for queue in job.queue.path:
            queue.allocated += units
            if not job.preemptible:
                queue.allocated_non_preemptible += units

    def pending_jobs(self) -> list[JobState]:
        return [j for j in self.jobs if j.pending_pods()]

    def job_of(self, pod: Pod) -> JobState:
        if self._jobs_by_key is None:
            self._jobs_by_key = {(j.workload.project, j.name): j for j in self.jobs}
        return self._jobs_by_key[(pod.project, pod.workload)]

    # ------------------------------------------------------------------ reporting

    def record(
        self,
        owner: JobState,
        pod: Pod,
        decision: Decision,
        node: str | None,
        message: str,
        by: JobState | None = None,
    ) -> None:
        """Leave the event on the owner's workload and pod, and the action in the log;
        `by` is the job that caused it."""
        self.recorder.notes.append(
            Note(
                owner.workload,
                pod,
                decision.event_type,
                decision.event_reason,
                message,
                decision.event_code,
            )
        )
        self.recorder.actions.append(
            # Positional, in field order (by project, by workload, message last): this runs
            # for every pod placed, and keywords cost more.
            Action(
                decision.kind,
                self.pool,
                owner.workload.project,
                owner.name,
                pod.name,
                node,
                owner.pod_units,
                decision.action_code,
                by.workload.project if by else "",
                by.name if by else "",
                message,
            )
        )

    def set_reason(self, job: JobState, code: Reason, message: str, record: bool = True) -> None:
        """Settle the job's status line for this cycle (and leave an Unschedulable event)."""
        job.workload.reason_code = str(code)  # the value (a StrEnum), looked up faster
        job.workload.reason_message = message
        self.decided.add(id(job))
        if record:
            self.recorder.notes.append(
                Note(job.workload, None, "Warning", "Unschedulable", message, code)
            )
