"""The scheduler engine as ``runai-scheduler``: one cycle per step, through the cluster API.

Reads nodes (GPUs and MIG layout from the node, cordons, device plugin health), Queues, Run:ai
workloads and their pods; builds the engine's model (``simulators.engine``); runs one cycle
(allocate, consolidate, reclaim, preempt); binds placed pods through ``pods/binding`` (with the
GPUs it chose in the pod's annotations, as Run:ai's binder does), evicts reclaimed and preempted
pods through ``pods/eviction``, and records the engine's events with its reasons and messages.
Nothing about scheduling is decided here; this module only translates.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.changes import Changes, QuietRun
from simulators.cluster.clock import parse_time
from simulators.controllers import devices, gpu_state, hardware, runai
from simulators.controllers.util import (
    RUNAI_SCHEDULER,
    annotations_of,
    emit,
    get_or_none,
    gpu_requests,
    holds_resources,
    is_deleting,
    items,
    labels_of,
    name_of,
    namespace_of,
    owned_by,
    spec,
    status,
    timestamp,
)
from simulators.engine import (
    Cluster,
    CycleResult,
    EngineError,
    GpuRequest,
    MigStrategy,
    PodStatus,
    PoolQuota,
)
from simulators.engine import Node as EngineNode
from simulators.engine import Workload as EngineWorkload

SOURCE = "runai-scheduler"


def gpu_request(workload: Obj) -> GpuRequest:
    mig = runai.value(workload, "migProfile")
    if mig:
        return GpuRequest.mig(str(mig))
    memory = runai.value(workload, "gpuMemory")
    if memory:
        return GpuRequest.memory(str(memory))
    fraction = runai.value(workload, "gpuFraction")
    if fraction:
        return GpuRequest.portion(float(fraction))
    return GpuRequest.whole(int(float(runai.value(workload, "gpu", 1) or 0)))


def _device_list(
    node: Obj, strategy: str, pods: list[Obj] | None = None
) -> list[tuple[int, int | None]]:
    """The node's nvidia.com/gpu devices in the engine's index order.

    Devices that pods of other schedulers hold are left out, as the engine's model of the node
    leaves them out (it sees fewer GPUs), so its indexes never point at a taken GPU.
    """
    held: list[tuple[int, int | None]] = []
    for pod in pods or []:
        if spec(pod).get("schedulerName") == RUNAI_SCHEDULER or not holds_resources(pod):
            continue
        if spec(pod).get("nodeName") == name_of(node):
            held.extend(hardware.pod_devices(pod))
    return hardware.free_devices(node, "nvidia.com/gpu", held, strategy)


def kube_gpu_usage(pods: list[Obj]) -> dict[str, float]:
    """GPUs held on each node by pods the Run:ai scheduler does not place."""
    used: dict[str, float] = {}
    for pod in pods:
        if spec(pod).get("schedulerName") == RUNAI_SCHEDULER or not holds_resources(pod):
            continue
        node = str(spec(pod).get("nodeName"))
        amount = float(sum(gpu_requests(pod).values()))
        if amount:
            used[node] = used.get(node, 0.0) + amount
    return used


class Model:
    """The engine's cluster built from the API, and the way back from its pods to the API's."""

    def __init__(self, api: ClusterAPI) -> None:
        self.api = api
        now = api.now()
        self.strategy: MigStrategy = "mixed" if gpu_state.mig_strategy(api) == "mixed" else "single"
        self.cluster = Cluster(clock=lambda: now, mig_strategy=self.strategy)
        self.nodes = {name_of(n): n for n in items(api, "nodes")}
        self.pods = items(api, "pods")
        self.workloads: dict[tuple[str, str], Obj] = {}
        self._orders: dict[str, list[tuple[int, int | None]]] = {}
        self.api_pods: dict[tuple[str, str], Obj] = {}
        self._add_nodes()
        self._add_queues()
        self._add_workloads()

    def order(self, node: Obj) -> list[tuple[int, int | None]]:
        """The node's device list in the engine's index order (computed once per step)."""
        name = name_of(node)
        if name not in self._orders:
            self._orders[name] = _device_list(node, self.strategy, self.pods)
        return self._orders[name]

    def _add_nodes(self) -> None:
        operator_pods = [p for p in self.pods if namespace_of(p) == devices.GPU_OPERATOR_NS]
        used = kube_gpu_usage(self.pods)
        for name, node in sorted(self.nodes.items()):
            layout_per_gpu = hardware.read_layout(node)
            layout = hardware.current_layout(node)
            count = len(layout_per_gpu)
            cordoned = bool(spec(node).get("unschedulable"))
            held = used.get(name, 0.0)
            if held and not layout.uses_mig:
                # GPUs held by default-scheduler pods are invisible to the engine's model;
                # take them off the node so nothing is double-booked.
                count = max(0, count - int(held))
                layout = hardware.current_layout(
                    {
                        "metadata": {
                            "annotations": {
                                hardware.GPUS_ANNOTATION: hardware.encode_layout(
                                    layout_per_gpu[:count]
                                )
                            }
                        }
                    }
                )
            elif held:
                cordoned = True
            model = hardware.gpu_model(node)
            self.cluster.add_node(
                EngineNode(
                    name,
                    gpus=count,
                    pool=runai.node_pool_of(node),
                    gpu_memory_gib=model.memory_gib,
                    gpu_product=model.label,
                    labels=labels_of(node),
                    cordoned=cordoned,
                    mig_layout=layout,
                    gpu_operator_healthy=devices.device_plugin_running(operator_pods, name),
                )
            )

    def _add_queues(self) -> None:
        queues = items(self.api, runai.QUEUES)
        queues.sort(key=lambda q: (str(q["metadata"].get("creationTimestamp", "")), name_of(q)))
        parents = [q for q in queues if not spec(q).get("parentQueue")]
        children = [q for q in queues if spec(q).get("parentQueue")]
        for queue in parents:
            quotas = {
                pool: PoolQuota(deserved=deserved, over_quota_weight=weight, limit=limit)
                for pool, (deserved, weight, limit) in runai.queue_pool_quotas(queue).items()
                if deserved is not None or limit is not None
            }
            self.cluster.add_department(name_of(queue), quotas=quotas or None)
        known = {name_of(q) for q in parents}
        for queue in children:
            parent = str(spec(queue)["parentQueue"])
            if parent not in known:
                self.cluster.add_department(parent)
                known.add(parent)
            self.cluster.add_project(
                name_of(queue),
                department=parent,
                quotas={
                    pool: PoolQuota(deserved=deserved or 0.0, over_quota_weight=weight, limit=limit)
                    for pool, (deserved, weight, limit) in runai.queue_pool_quotas(queue).items()
                },
            )

    def _add_workloads(self) -> None:
        runai_pods = [p for p in self.pods if spec(p).get("schedulerName") == RUNAI_SCHEDULER]
        projects = {name_of(p): p for p in items(self.api, runai.PROJECTS)}
        for workload in runai.all_workloads(self.api):
            project = runai.project_of(workload)
            if is_deleting(workload) or project not in self.cluster.queues:
                continue
            if status(workload).get("phase") in ("Completed", "Failed", "Suspended"):
                continue
            if not runai.active_of(workload):
                continue
            kind = runai.kind_of(workload)
            # A pool without nodes is still a pool the workload waits in (the engine says so).
            pools = runai.node_pools_of(workload, projects.get(project))
            for pool in pools:
                self.cluster.ensure_node_pool(pool)
            try:
                engine_wl = self.cluster.submit(
                    name_of(workload),
                    project,
                    kind=kind,
                    gpu=gpu_request(workload),
                    pods=runai.pod_count(workload),
                    priority=runai.priority_of(workload),
                    preemptible=runai.preemptible_of(workload),
                    image=str(runai.value(workload, "image", "")),
                    master=runai.has_master(workload),
                    node_pool=list(dict.fromkeys(pools)),
                )
            except EngineError:
                continue
            engine_wl.created_at = parse_time(str(workload["metadata"].get("creationTimestamp")))
            self.workloads[(project, engine_wl.name)] = workload
            mine = {
                name_of(p): p
                for p in runai_pods
                if namespace_of(p) == namespace_of(workload) and owned_by(p, workload)
            }
            for pod in engine_wl.pods:
                api_pod = mine.get(pod.name)
                if api_pod is None:
                    continue
                self.api_pods[(project, pod.name)] = api_pod
                self._load_pod(pod, api_pod, workload)

    def _load_pod(self, pod: object, api_pod: Obj, workload: Obj) -> None:
        from simulators.engine import Pod as EnginePod

        assert isinstance(pod, EnginePod)
        node_name = spec(api_pod).get("nodeName")
        phase = status(api_pod).get("phase")
        if phase == "Succeeded":
            pod.status = PodStatus.SUCCEEDED
            return
        if not node_name or phase == "Failed":
            return
        node = self.nodes.get(str(node_name))
        pod.node = str(node_name)
        pod.status = PodStatus.RELEASING if is_deleting(api_pod) else PodStatus.RUNNING
        started = status(api_pod).get("startTime") or api_pod["metadata"].get("creationTimestamp")
        pod.started_at = parse_time(str(started)) if started else None
        annotations = annotations_of(api_pod)
        pod.portion = 1.0
        fraction = annotations.get(runai.FRACTION)
        memory = annotations.get(runai.MEMORY)
        if fraction:
            pod.portion = float(fraction)
        elif memory:
            pod.portion = GpuRequest.memory(memory).units()
        mig = runai.value(workload, "migProfile")
        if mig and self.strategy == "mixed":
            pod.extended_resource = f"nvidia.com/mig-{mig}"
            return
        if node is not None:
            order = self.order(node)
            pod.devices = tuple(order.index(d) for d in hardware.pod_devices(api_pod) if d in order)


SCHEDULER_DEPLOYMENT = "runai-scheduler-default"
RUNAI_NAMESPACE = "runai"


def scheduler_running(api: ClusterAPI) -> bool:
    """Run:ai's scheduler schedules only while its own pod runs (a cluster without the
    Deployment, such as a bare test cluster, counts as having it)."""
    if get_or_none(api, "deployments.apps", SCHEDULER_DEPLOYMENT, RUNAI_NAMESPACE) is None:
        return True
    for pod in items(api, "pods", RUNAI_NAMESPACE):
        if labels_of(pod).get("app") != SCHEDULER_DEPLOYMENT or is_deleting(pod):
            continue
        if any(
            "running" in (c.get("state") or {}) for c in status(pod).get("containerStatuses") or []
        ):
            return True
    return False


@dataclass(frozen=True)
class QuietCycle(QuietRun):
    """A cycle that bound and evicted nothing: its decision holds until something it read
    changes, so the next cycles only record its events again (as a real scheduler's unchanged
    cycle would, each bumping the event's count)."""

    events: tuple[tuple[Obj, str, str, str], ...]
    result: CycleResult | None


_quiet: weakref.WeakKeyDictionary[Any, QuietCycle] = weakref.WeakKeyDictionary()


def run(api: ClusterAPI) -> CycleResult | None:
    changes: Changes | None = getattr(api, "changes", None)
    if changes is None:  # a store that keeps no change counts: decide every time
        decided = _decide(api)
        if decided is not None:
            _bind_and_evict(api, *decided)
            _record_events(api, *decided)
        return decided[1] if decided else None
    last = _quiet.pop(api, None)
    if last is not None and last.still_holds(changes):
        for involved, type_, reason, message in last.events:
            emit(api, involved, type_, reason, message, SOURCE)
        _quiet[api] = last
        return last.result
    with changes.tracking() as reads:
        decided = _decide(api)
    at = changes.count
    if decided is None:
        _quiet[api] = QuietCycle(frozenset(reads.resources), at, (), None)
        return None
    _bind_and_evict(api, *decided)
    events = _record_events(api, *decided)
    if changes.count - len(events) == at:
        _quiet[api] = QuietCycle(frozenset(reads.resources), at, events, decided[1])
    return decided[1]


def _decide(api: ClusterAPI) -> tuple[Model, CycleResult] | None:
    """The cycle's decision, from what the API holds; writes nothing."""
    if not scheduler_running(api):
        return None
    model = Model(api)
    if not model.workloads:
        return None
    try:
        return model, model.cluster.run_cycle()
    except EngineError:
        return None


def _bind_and_evict(api: ClusterAPI, model: Model, result: CycleResult) -> None:
    now = timestamp(api)
    evicted: set[tuple[str, str]] = set()
    for action in result.actions:
        if action.kind not in ("evicted", "moved"):
            continue
        api_pod = model.api_pods.get((action.project, action.pod))
        if api_pod is None or not spec(api_pod).get("nodeName") or is_deleting(api_pod):
            continue
        try:
            api.evict(name_of(api_pod), namespace_of(api_pod))
        except ApiError:
            continue
        evicted.add((action.project, action.pod))
        workload = model.workloads.get((action.project, action.workload))
        if workload is not None and action.kind == "evicted":
            record = {
                "time": now,
                "reason": action.reason.value,
                "byProject": action.by_project,
                "byWorkload": action.by_workload,
            }
            fresh = api.get(runai.resource_of(workload), name_of(workload), namespace_of(workload))
            history = [*list(status(fresh).get("evictions") or []), record]
            api.patch(
                runai.resource_of(workload),
                name_of(workload),
                {"status": {"evictions": history[-20:]}},
                namespace_of(workload),
                subresource="status",
            )
    for (project, _name), engine_wl in _engine_workloads(model).items():
        for pod in engine_wl.pods:
            if pod.status not in (PodStatus.RUNNING, PodStatus.PIPELINED) or pod.node is None:
                continue
            api_pod = model.api_pods.get((project, pod.name))
            if api_pod is None or spec(api_pod).get("nodeName") or is_deleting(api_pod):
                continue
            _bind(api, model, api_pod, pod.node, pod.devices, pod.extended_resource)


def _record_events(
    api: ClusterAPI, model: Model, result: CycleResult
) -> tuple[tuple[Obj, str, str, str], ...]:
    """Record the cycle's events; returns those recorded, each with the object it is about."""
    recorded = []
    for event in result.events:
        involved = _involved(api, model, event.object_kind, event.object_name, event.project)
        if involved is None:
            continue
        type_ = "Warning" if event.type == "Warning" else "Normal"
        emit(api, involved, type_, event.reason, event.message, SOURCE)
        recorded.append((involved, type_, event.reason, event.message))
    return tuple(recorded)


def _engine_workloads(model: Model) -> dict[tuple[str, str], EngineWorkload]:
    return {(w.project, w.name): w for w in model.cluster.workloads()}


def _bind(
    api: ClusterAPI,
    model: Model,
    api_pod: Obj,
    node_name: str,
    devices: tuple[int, ...],
    extended: str | None,
) -> None:
    node = model.nodes.get(node_name)
    if node is not None and devices and extended is None:
        order = model.order(node)
        chosen = [order[i] for i in devices if i < len(order)]
        api.patch(
            "pods",
            name_of(api_pod),
            {
                "metadata": {
                    "annotations": {hardware.DEVICES_ANNOTATION: hardware.encode_devices(chosen)}
                }
            },
            namespace_of(api_pod),
        )
    try:
        api.bind(name_of(api_pod), namespace_of(api_pod), node_name)
    except ApiError:
        return


def _involved(api: ClusterAPI, model: Model, kind: str, name: str, project: str) -> Obj | None:
    if kind != "Pod":
        return model.workloads.get((project, name))
    involved = model.api_pods.get((project, name))
    if involved is None:
        return None
    try:
        return api.get("pods", name_of(involved), namespace_of(involved))
    except ApiError:
        return None
