"""The cluster: the one mutable object the lab terminal, the quota page and the CLI drive."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from simulators.engine import mig as mig_module
from simulators.engine.errors import EngineError
from simulators.engine.memory import collector_paused
from simulators.engine.messages import Reason
from simulators.engine.mig import (
    GPU_RESOURCE,
    MIG_STRATEGIES,
    MigAdvertisement,
    MigStrategy,
)
from simulators.engine.model import (
    DEFAULT_POOL,
    DEFAULT_PRIORITY,
    NON_PREEMPTIBLE_PRIORITY,
    Clock,
    Event,
    GpuRequest,
    Node,
    NodePool,
    Placement,
    Pod,
    PodStatus,
    PoolQuota,
    Queue,
    TickingClock,
    Workload,
    WorkloadKind,
)
from simulators.engine.scheduler import (
    ACTIONS,
    Action,
    FairShareRow,
    Note,
    PoolSession,
    Recorder,
    run_actions,
)
from simulators.engine.scheduler.actions.allocate import allocate
from simulators.engine.scheduler.pending import explain_pending
from simulators.engine.scheduler.placement import fit_now
from simulators.engine.state import NodeState


@dataclass
class CycleResult:
    """What one scheduling cycle did."""

    cycle: int
    time: datetime
    events: list[Event] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    fair_share: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class NodeUsage:
    """A node's GPUs as `kubectl describe node` and `runai` show them."""

    name: str
    pool: str
    allocatable: dict[str, int]
    gpus_total: int
    gpus_allocated: float
    cordoned: bool


class Cluster:
    """Nodes, pools, queues and workloads; `run_cycle` runs the scheduler once."""

    def __init__(self, clock: Clock | None = None, mig_strategy: MigStrategy = "single") -> None:
        if mig_strategy not in MIG_STRATEGIES:
            raise EngineError(f"mig_strategy: must be single or mixed, got {mig_strategy!r}")
        self.clock: Clock = clock if clock is not None else TickingClock()
        self.mig_strategy: MigStrategy = mig_strategy
        self.pools: dict[str, NodePool] = {DEFAULT_POOL: NodePool(DEFAULT_POOL)}
        self.nodes: dict[str, Node] = {}
        self.queues: dict[str, Queue] = {}
        self._workloads: dict[tuple[str, str], Workload] = {}
        self.events: list[Event] = []
        self._events_by_object: dict[tuple[str, str, str], list[Event]] = {}
        self._rank = 0
        self.cycle = 0
        self.fair_share_tables: dict[str, list[FairShareRow]] = {}
        self.last_result: CycleResult | None = None

    # ------------------------------------------------------------------ topology

    def add_node_pool(self, name: str, placement: Placement = "binpack") -> NodePool:
        if not name:
            raise EngineError("node_pool.name: must not be empty")
        pool = NodePool(name, placement)
        self.pools[name] = pool
        return pool

    def ensure_node_pool(self, name: str) -> NodePool:
        """The pool of this name, added (bin-pack) if the cluster has none yet: quotas and
        workloads may name a pool before any node joins it, and it is a pool to wait in."""
        return self.pools.get(name) or self.add_node_pool(name)

    def add_node(self, node: Node) -> Node:
        if node.name in self.nodes:
            raise EngineError(f"node.name: {node.name!r} already exists")
        self.ensure_node_pool(node.pool)
        mig_module.mig_layout(node.mig_layout)
        self.nodes[node.name] = node
        return node

    def node(self, name: str) -> Node:
        try:
            return self.nodes[name]
        except KeyError:
            raise EngineError(f"node: {name!r} not found") from None

    def set_mig_strategy(self, strategy: MigStrategy) -> None:
        if strategy not in MIG_STRATEGIES:
            raise EngineError(f"mig_strategy: must be single or mixed, got {strategy!r}")
        self.mig_strategy = strategy

    def set_gpu_operator_healthy(self, name: str, healthy: bool) -> None:
        self.node(name).gpu_operator_healthy = healthy

    def advertisement(self, name: str) -> MigAdvertisement:
        """What the node's device plugin advertises now (empty when it is down)."""
        node = self.node(name)
        if not node.gpu_operator_healthy:
            return MigAdvertisement({}, message="the GPU Operator's device plugin is not running")
        return mig_module.mig_advertisement(
            node.gpus, node.mig_layout, self.mig_strategy, int(node.gpu_memory_gib)
        )

    def node_usage(self, name: str) -> NodeUsage:
        node = self.node(name)
        advert = self.advertisement(name)
        allocated = 0.0
        for workload in self._workloads.values():
            for pod in workload.pods:
                if pod.node == name and pod.status in (PodStatus.RUNNING, PodStatus.RELEASING):
                    allocated += pod.portion * max(1, len(pod.devices)) if pod.devices else 1.0
        return NodeUsage(
            name=node.name,
            pool=node.pool,
            allocatable=dict(advert.resources),
            gpus_total=advert.resources.get(GPU_RESOURCE, 0),
            gpus_allocated=round(allocated, 6),
            cordoned=node.cordoned,
        )

    # ------------------------------------------------------------------ queues

    def _add_queue(self, queue: Queue) -> Queue:
        if not queue.name:
            raise EngineError("queue.name: must not be empty")
        if queue.name in self.queues:
            raise EngineError(f"queue.name: {queue.name!r} already exists")
        if queue.parent is not None:
            parent = self.queues.get(queue.parent)
            if parent is None:
                raise EngineError(f"queue {queue.name}: parent {queue.parent!r} does not exist")
        queue.creation_rank = len(self.queues)
        self.queues[queue.name] = queue
        return queue

    def add_department(
        self,
        name: str,
        quotas: dict[str, PoolQuota] | None = None,
        priority: int = 0,
        parent: str | None = None,
    ) -> Queue:
        return self._add_queue(
            Queue(
                name,
                parent=parent,
                quotas=dict(quotas or {}),
                priority=priority,
                is_department=True,
            )
        )

    def add_project(
        self,
        name: str,
        department: str | None = None,
        quotas: dict[str, PoolQuota] | None = None,
        priority: int = 0,
    ) -> Queue:
        if department is not None and department in self.queues:
            self.queues[department].is_department = True
        return self._add_queue(
            Queue(name, parent=department, quotas=dict(quotas or {}), priority=priority)
        )

    def set_quota(self, queue: str, pool: str, quota: PoolQuota) -> None:
        self.project(queue).quotas[pool] = quota

    def project(self, name: str) -> Queue:
        try:
            return self.queues[name]
        except KeyError:
            raise EngineError(f"project: {name!r} does not exist") from None

    # ------------------------------------------------------------------ workloads

    def submit(
        self,
        name: str,
        project: str,
        kind: WorkloadKind | str = WorkloadKind.TRAINING,
        gpu: GpuRequest | None = None,
        pods: int = 1,
        priority: int | None = None,
        preemptible: bool | None = None,
        min_available: int | None = None,
        node_pool: str | Sequence[str] = DEFAULT_POOL,
        node_selector: dict[str, str] | None = None,
        image: str = "",
        master: bool = True,
    ) -> Workload:
        """Submit a workload; it stays Pending until the next `run_cycle`.

        Distributed workloads are gang-scheduled (all pods); `pods` counts them all, the
        first being the master unless `master` is false (Run:ai's `--no-master`), as
        `--workers 2` makes llm-ft-master-0, llm-ft-worker-0 and llm-ft-worker-1. `node_pool`
        may list several pools in order of preference: each cycle tries them in that order
        until one places the workload.
        """
        if not name:
            raise EngineError("workload.name: must not be empty")
        queue = self.project(project)
        if any(q.parent == project for q in self.queues.values()):
            raise EngineError(f"workload.project: {project} is a department; submit to a project")
        if (project, name) in self._workloads:
            raise EngineError(f"workload.name: {name!r} already exists in project {project}")
        try:
            kind = WorkloadKind(kind)
        except ValueError:
            raise EngineError(
                f"workload.kind: must be one of {', '.join(k.value for k in WorkloadKind)}"
            ) from None
        if isinstance(pods, bool) or not isinstance(pods, int) or pods < 1:
            raise EngineError("workload.pods: must be an integer of 1 or more")
        pools = (node_pool,) if isinstance(node_pool, str) else tuple(node_pool)
        if not pools:
            raise EngineError("workload.node_pool: name at least one node pool")
        if len(set(pools)) != len(pools):
            raise EngineError("workload.node_pool: a node pool is listed twice")
        for pool in pools:
            if pool not in self.pools:
                raise EngineError(f"workload.node_pool: node pool {pool!r} does not exist")
        request = gpu if gpu is not None else GpuRequest.whole(1)
        chosen_priority = DEFAULT_PRIORITY[kind] if priority is None else priority
        if isinstance(chosen_priority, bool) or not isinstance(chosen_priority, int):
            raise EngineError("workload.priority: must be an integer")
        is_preemptible = (
            chosen_priority < NON_PREEMPTIBLE_PRIORITY if preemptible is None else preemptible
        )
        if min_available is None:
            min_available = pods if kind == WorkloadKind.DISTRIBUTED else 1
        if not 1 <= min_available <= pods:
            raise EngineError("workload.min_available: must be between 1 and the number of pods")
        self._rank += 1
        workload = Workload(
            name=name,
            project=queue.name,
            kind=kind,
            gpu=request,
            pod_count=pods,
            priority=chosen_priority,
            preemptible=is_preemptible,
            min_available=min_available,
            node_pool=pools[0],
            node_selector=dict(node_selector or {}),
            creation_rank=self._rank,
            created_at=self.clock(),
            image=image,
            master=master,
            node_pools=pools,
        )
        workload.pods = [
            Pod(name=_pod_name(workload, i), workload=name, project=queue.name, index=i)
            for i in range(pods)
        ]
        self._workloads[(project, name)] = workload
        return workload

    def workload(self, project: str, name: str) -> Workload:
        try:
            return self._workloads[(project, name)]
        except KeyError:
            raise EngineError(f"workload: {name!r} not found in project {project}") from None

    def find_workload(self, name: str) -> Workload:
        """The workload of that name in any project (the lab's `runai describe` needs it)."""
        matches = [w for (_p, n), w in self._workloads.items() if n == name]
        if not matches:
            raise EngineError(f"workload: {name!r} not found")
        return matches[0]

    def workloads(self, project: str | None = None) -> list[Workload]:
        return [
            w
            for w in sorted(self._workloads.values(), key=lambda w: w.creation_rank)
            if project is None or w.project == project
        ]

    def pods(self, project: str | None = None) -> list[Pod]:
        return [pod for w in self.workloads(project) for pod in w.pods]

    def delete_workload(self, project: str, name: str) -> Workload:
        """Deleting frees the GPUs at once (the pods are gone by the next cycle)."""
        workload = self.workload(project, name)
        del self._workloads[(project, name)]
        return workload

    def complete_workload(self, project: str, name: str) -> None:
        """A training that ran to completion: its pods succeed and free their GPUs."""
        for pod in self.workload(project, name).pods:
            pod.status = PodStatus.SUCCEEDED
            pod.node = None
            pod.devices = ()
            pod.leaving_node = None
            pod.leaving_devices = ()

    def place_running(self, project: str, name: str, nodes: Sequence[str | None]) -> None:
        """Start a workload's pods on given nodes without a cycle (to set up a scene).

        Devices are taken from the node's idle GPUs; raises EngineError if they are not free.
        """
        workload = self.workload(project, name)
        if len(nodes) > len(workload.pods):
            raise EngineError(f"workload {name}: {len(nodes)} nodes for {len(workload.pods)} pods")
        states = self._node_states_for(workload.node_pool)
        by_name = {s.name: s for s in states}
        for pod, node_name in zip(workload.pods, nodes, strict=False):
            if node_name is None:
                continue
            state = by_name.get(node_name)
            if state is None:
                raise EngineError(
                    f"workload {name}: node {node_name!r} is not in node pool {workload.node_pool}"
                )
            _seat(workload, pod, state, self.pools[workload.node_pool].placement)
            pod.status = PodStatus.RUNNING
            pod.started_at = workload.created_at
            state.add(pod, PodStatus.RUNNING)
        workload.reason_code = Reason.SCHEDULED.value

    # ------------------------------------------------------------------ events

    def events_for(self, project: str, name: str, kind: str = "Workload") -> list[Event]:
        return list(self._events_by_object.get((kind, project, name), []))

    def _leave_events(self, now: datetime, notes: list[Note]) -> list[Event]:
        """Turn the cycle's notes into events on their objects; returns each event the
        cycle left, or folded a repeat into, once, in order."""
        left: list[Event] = []
        # Events already in `left`, by id. New events (most of them) join the set only when
        # a repeat needs it: `self.events[unindexed:]` are new ones not in it yet.
        in_left: set[int] = set()
        unindexed = len(self.events)
        by_object = self._events_by_object
        for note in notes:
            pod = note.pod
            workload = note.workload
            if pod is not None and note.reason == "Scheduled":
                pod.started_at = now
            targets: tuple[Pod | None, ...] = (pod,)
            if pod is not None and note.reason != "Unschedulable":
                # Pod decisions also show on the workload (`runai describe`); Unschedulable
                # already has its own workload-level note.
                targets = (pod, None)
            for target in targets:
                kind: Literal["Pod", "Workload"] = "Pod" if target is not None else "Workload"
                name = target.name if target is not None else workload.name
                key = (kind, workload.project, name)
                history = by_object.get(key)
                if history is None:
                    history = by_object[key] = []
                elif history[-1].reason == note.reason and history[-1].message == note.message:
                    # Kubernetes folds repeats into one event with a count.
                    event = history[-1]
                    event.count += 1
                    event.time = now
                    if unindexed < len(self.events):
                        in_left.update(map(id, self.events[unindexed:]))
                        unindexed = len(self.events)
                    if id(event) not in in_left:
                        in_left.add(id(event))
                        left.append(event)
                    continue
                # In field order: keywords cost twice as much, and this runs for every pod.
                event = Event(
                    now,
                    note.type,
                    note.reason,
                    note.message,
                    kind,
                    name,
                    workload.project,
                    # A StrEnum's str() is its value, without the enum's slower lookup.
                    str(note.code),
                )
                history.append(event)
                self.events.append(event)
                left.append(event)
        return left

    # ------------------------------------------------------------------ the cycle

    def _node_states_for(self, pool: str) -> list[NodeState]:
        states = []
        for node in self.nodes.values():
            if node.pool != pool:
                continue
            advert = self.advertisement(node.name)
            states.append(NodeState(node, 0, advert, node.labels))
        states.sort(key=lambda s: s.name)
        for index, state in enumerate(states):
            state.index = index
        for workload in self._workloads.values():
            if workload.node_pool != pool:
                continue
            for pod in workload.pods:
                if pod.holds_gpus and pod.node is not None:
                    for state in states:
                        if state.name == pod.node:
                            state.add(pod, pod.status)
        return states

    def _settle(self, now: datetime) -> None:
        """Between cycles: Releasing pods have gone, Pipelined pods have started."""
        for workload in self._workloads.values():
            running = 0
            for pod in workload.pods:
                pod.leaving_node, pod.leaving_devices, pod.leaving_extended = None, (), None
                if pod.status == PodStatus.RELEASING:
                    pod.status = PodStatus.PENDING
                    pod.node, pod.devices, pod.portion, pod.extended_resource = None, (), 0.0, None
                    pod.started_at = None
                elif pod.status == PodStatus.PIPELINED:
                    pod.status = PodStatus.RUNNING
                    pod.started_at = now
                if pod.status == PodStatus.RUNNING:
                    running += 1
            if workload.pods and running == len(workload.pods):
                nodes = sorted({p.node for p in workload.pods if p.node})
                workload.reason_code = Reason.SCHEDULED.value
                workload.reason_message = f"All pods are Running on {', '.join(nodes)}"

    def sessions(self, recorder: Recorder) -> list[PoolSession]:
        """One scheduling session per node pool, built from the current pods."""
        return [self.session_for(pool_name, recorder) for pool_name in sorted(self.pools)]

    def session_for(self, pool_name: str, recorder: Recorder) -> PoolSession:
        queues = sorted(self.queues.values(), key=lambda q: q.creation_rank)
        states = []
        for node in self.nodes.values():
            if node.pool == pool_name:
                advert = self.advertisement(node.name)
                states.append(NodeState(node, 0, advert, node.labels))
        workloads = [
            w
            for w in self._workloads.values()
            # Some pod not Succeeded (a list: cheaper than any() for the usual single pod).
            if w.node_pool == pool_name and [p for p in w.pods if p.status != PodStatus.SUCCEEDED]
        ]
        pool = self.pools[pool_name]
        return PoolSession(pool_name, pool.placement, states, queues, workloads, recorder)

    def _waiting_for_a_pool(self, workload: Workload) -> bool:
        return len(workload.node_pools) > 1 and all(
            p.status == PodStatus.PENDING for p in workload.pods
        )

    def _next_pools(self, recorder: Recorder) -> None:
        """Offer workloads that no pool placed yet to their next node pool, in order.

        Only allocate runs there: the pool's own actions already ran this cycle, and a
        later choice is never a reason to reclaim from others.
        """
        for choice in range(
            1, max((len(w.node_pools) for w in self._workloads.values()), default=0)
        ):
            moved: dict[str, list[Workload]] = {}
            for workload in self._workloads.values():
                if (
                    not self._waiting_for_a_pool(workload)
                    or workload.reason_code == Reason.PIPELINED.value
                    or choice >= len(workload.node_pools)
                    or workload.node_pools.index(workload.node_pool) != choice - 1
                ):
                    continue
                workload.pool_reasons[workload.node_pool] = workload.reason_message
                workload.node_pool = workload.node_pools[choice]
                moved.setdefault(workload.node_pool, []).append(workload)
            if not moved:
                return
            for pool_name in sorted(moved):
                session = self.session_for(pool_name, recorder)
                names = {(w.project, w.name) for w in moved[pool_name]}
                offered = [j for j in session.jobs if (j.workload.project, j.name) in names]
                allocate(session, offered)
                explain_pending(session, offered)
                self.fair_share_tables[pool_name] = session.fair_share_rows()

    def run_cycle(self, actions: Sequence[str] = ACTIONS, settle: bool = True) -> CycleResult:
        """Run one scheduling cycle in every pool and return what happened.

        `settle=False` skips finishing the previous cycle's releases (the CLI uses it to run
        one action on a given state).
        """
        with collector_paused():
            return self._run_cycle(actions, settle)

    def _run_cycle(self, actions: Sequence[str], settle: bool) -> CycleResult:
        for action in actions:
            if action not in ACTIONS:
                raise EngineError(f"actions: {action!r} is not one of {', '.join(ACTIONS)}")
        now = self.clock()
        if settle:
            self._settle(now)
        for workload in self._workloads.values():
            if self._waiting_for_a_pool(workload):
                workload.node_pool = workload.node_pools[0]
                workload.pool_reasons = {}
        self.cycle += 1
        recorder = Recorder()
        result = CycleResult(cycle=self.cycle, time=now)
        for session in self.sessions(recorder):
            run_actions(session, actions)
            self.fair_share_tables[session.pool] = session.fair_share_rows()
            result.fair_share[session.pool] = {
                q.name: q.fair_share for q in session.queues.values()
            }
        if "allocate" in actions:
            self._next_pools(recorder)
        result.events = self._leave_events(now, recorder.notes)
        result.actions = recorder.actions
        self.last_result = result
        return result

    def fair_share_table(self, pool: str = DEFAULT_POOL) -> list[FairShareRow]:
        """The fair-share table of the latest cycle in that pool (computed now if none ran)."""
        if pool not in self.fair_share_tables:
            if pool not in self.pools:
                raise EngineError(f"node_pool: {pool!r} does not exist")
            for session in self.sessions(Recorder()):
                if session.pool == pool:
                    return session.fair_share_rows()
        return self.fair_share_tables[pool]


def _pod_name(workload: Workload, index: int) -> str:
    if workload.kind == WorkloadKind.DISTRIBUTED and not workload.master:
        return f"{workload.name}-worker-{index}"
    if workload.kind == WorkloadKind.DISTRIBUTED:
        return f"{workload.name}-master-0" if index == 0 else f"{workload.name}-worker-{index - 1}"
    return f"{workload.name}-0-{index}"


def _seat(workload: Workload, pod: Pod, state: NodeState, strategy: Placement) -> None:
    """Seat a pod placed by hand on the node's idle GPUs; EngineError if it has no room."""
    seat = fit_now(workload, state, strategy)
    if seat is None:
        raise EngineError(
            f"pod {pod.name}: node {state.name} has no room for {workload.gpu.describe()}"
        )
    pod.node = state.name
    pod.devices, pod.portion, pod.extended_resource = seat.devices, seat.portion, seat.extended
