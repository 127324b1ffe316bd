"""The engine's view of the cluster for one cycle, built from the API's objects, and the way back.

Both users of the engine build their ``Cluster`` here and write its decisions back here: the
mock's ``runai-scheduler`` controller (``simulators.controllers.engine``, which reads Run:ai
workloads) and the real scheduler (``simulators.scheduler``, which reads pods and PodGroups).
They differ only in where a workload comes from; what follows is read the same way by both,
so the same API objects give the engine the same input (tests/unit/controllers/test_snapshot.py
checks it on random API states):

- queues (``scheduling.run.ai/v2``), as KAI reads them: a tree of any depth through
  ``parentQueue``, each with its ``priority`` and its GPU ``quota``, ``limit`` and
  ``overQuotaWeight``, per node pool under ``nodePools`` (``runai.queue_pool_quotas``). A
  queue with children is a parent queue (the engine's department); jobs run only in leaf
  queues. A queue whose parent does not exist, or that is its own ancestor, is left out with
  everything under it, and its jobs wait, as KAI skips jobs whose queue or parent is missing;
- nodes: the mock's per-GPU layout annotation when it is there, else allocatable
  ``nvidia.com/gpu``; cordons; the node-pool label; the GPU model; whether the device plugin
  serves (the operator's device-plugin pod on the node when the cluster runs one, else the
  node advertising an ``nvidia.com/`` resource);
- GPUs held by pods the engine does not account for (pods of other schedulers, and pods of
  queues the engine cannot run jobs in) are taken off their node, so nothing is double-booked;
  a parent queue's own running pods still count in its usage and its ancestors' (``held``);
- bound pods are seated on their node with the devices their ``lab.kadmin/gpu-devices``
  annotation names (a bound pod without it gets the node's first free devices).

Decisions go back through ``write_back``: one loop evicts (``pods/eviction``) and binds
(``pods/binding``, the chosen devices written in the pod's annotations first, as Run:ai's
binder does); each user says through ``Writer`` what it records and when it must stop.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.clock import parse_time
from simulators.controllers import devices as device_plugin
from simulators.controllers import gpu_state, hardware, runai
from simulators.controllers.util import (
    RUNAI_SCHEDULER,
    annotations_of,
    gpu_requests,
    holds_resources,
    is_deleting,
    labels_of,
    name_of,
    spec,
    status,
)
from simulators.engine import (
    Action,
    Cluster,
    CycleResult,
    EngineError,
    GpuRequest,
    MigStrategy,
    PodStatus,
    PoolQuota,
)
from simulators.engine import Node as EngineNode
from simulators.engine import Pod as EnginePod
from simulators.engine.mig import MigDeviceConfig, MigLayout

QUEUE_LABEL = "runai/queue"
Device = tuple[int, int | None]
ALL_DISABLED = MigLayout("all-disabled", (MigDeviceConfig(mig_enabled=False),))


def read_all(api: ClusterAPI, resource: str) -> list[Obj]:
    """The objects of a resource, sorted by namespace and name; empty when the cluster does
    not serve it (no CRD, or no right to list it). On the mock store, read in place."""
    iterate = getattr(api, "iter_objects", None)
    if iterate is not None:
        return list(iterate(resource, None))
    try:
        listed = list(api.list(resource).get("items") or [])
    except ApiError as error:
        if error.code in (403, 404):
            return []
        raise
    listed.sort(key=lambda o: (str(o["metadata"].get("namespace", "")), name_of(o)))
    return listed


def mig_strategy(api: ClusterAPI, nodes: list[Obj]) -> MigStrategy:
    """The cluster's MIG strategy: the ClusterPolicy's, else the nodes' GFD label."""
    try:
        value = gpu_state.mig_strategy(api)
    except ApiError:
        value = ""
        for node in nodes:
            value = labels_of(node).get("nvidia.com/mig.strategy", value)
    return "mixed" if value == "mixed" else "single"


def pod_gpu_request(pod: Obj) -> GpuRequest | None:
    """A pod's GPU request as the engine counts it (None: no GPU asked for, or nonsense):
    ``nvidia.com/mig-<profile>``, the ``gpu-memory`` or ``gpu-fraction`` annotation, or
    whole ``nvidia.com/gpu``."""
    try:
        annotations = annotations_of(pod)
        requests = gpu_requests(pod)
        for resource, amount in sorted(requests.items()):
            if resource.startswith("nvidia.com/mig-") and amount > 0:
                return GpuRequest.mig(resource.removeprefix("nvidia.com/mig-"))
        if annotations.get(runai.MEMORY):
            return GpuRequest.memory(annotations[runai.MEMORY])
        if annotations.get(runai.FRACTION):
            return GpuRequest.portion(float(annotations[runai.FRACTION]))
        whole = int(requests.get("nvidia.com/gpu", 0))
        return GpuRequest.whole(whole) if whole > 0 else None
    except (EngineError, ValueError, ArithmeticError):
        return None


def _int(value: object, default: int = 0) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default


class Snapshot:
    """The engine's ``Cluster`` for one cycle (nodes, pools, queues; no workloads yet), and
    the way back from its pods to the API's. A user adds its workloads with ``cluster.submit``
    and seats their bound pods with ``seat``."""

    def __init__(self, api: ClusterAPI, now: datetime | None = None) -> None:
        self.api = api
        self.now = now or api.now()
        moment = self.now
        node_list = read_all(api, "nodes")
        self.strategy: MigStrategy = mig_strategy(api, node_list)
        self.cluster = Cluster(clock=lambda: moment, mig_strategy=self.strategy)
        self.nodes = {name_of(n): n for n in node_list}
        self.pods = read_all(api, "pods")
        # node name -> how to list its devices (whose, how many, how many the engine sees)
        self._device_plans: dict[str, tuple[list[Device], int | None, int | None]] = {}
        self._orders: dict[str, list[Device]] = {}
        # (project, engine pod name) -> the API's pod
        self.api_pods: dict[tuple[str, str], Obj] = {}
        self._add_queues()
        self._add_nodes()
        self._count_parent_queue_jobs()

    # ------------------------------------------------------------------ queues
    def _add_queues(self) -> None:
        """Every queue KAI would schedule into, parents before children, each level in
        creation order (the engine breaks fair-share ties by that order)."""
        queues = read_all(self.api, runai.QUEUES)
        queues.sort(key=lambda q: (str(q["metadata"].get("creationTimestamp", "")), name_of(q)))
        by_name = {name_of(q): q for q in queues}
        parent_of = {
            name: str(spec(q).get("parentQueue") or "") or None for name, q in by_name.items()
        }
        has_children = {p for p in parent_of.values() if p is not None}
        level = [name for name in by_name if parent_of[name] is None]
        while level:
            added = []
            for name in level:
                if self._add_queue(by_name[name], parent_of[name], name in has_children):
                    added.append(name)
            level = [name for name in by_name if parent_of[name] in added]
        # Leaf queues: where jobs run. A queue with children takes none (KAI skips them).
        self.leaves = {name for name in self.cluster.queues if name not in has_children}

    def _add_queue(self, queue: Obj, parent: str | None, is_parent: bool) -> bool:
        priority = _int(spec(queue).get("priority"))
        quotas = runai.queue_pool_quotas(queue)
        try:
            for pool in quotas:
                self.cluster.ensure_node_pool(pool)
            if is_parent:
                # No quota set on a parent queue: it deserves what its own parent divides.
                self.cluster.add_department(
                    name_of(queue),
                    {
                        pool: PoolQuota(deserved=deserved, over_quota_weight=weight, limit=limit)
                        for pool, (deserved, weight, limit) in quotas.items()
                        if deserved is not None or limit is not None
                    },
                    priority=priority,
                    parent=parent,
                )
            else:
                self.cluster.add_project(
                    name_of(queue),
                    parent,
                    {
                        pool: PoolQuota(
                            deserved=deserved or 0.0, over_quota_weight=weight, limit=limit
                        )
                        for pool, (deserved, weight, limit) in quotas.items()
                    },
                    priority=priority,
                )
        except EngineError:
            return False  # a queue the engine refuses: it and its children's jobs wait
        return True

    # ------------------------------------------------------------------ nodes
    def places(self, pod: Obj) -> bool:
        """Whether the engine accounts for the pod's GPUs: a Run:ai scheduler pod whose queue
        (when it names one) is a leaf queue the engine has."""
        if spec(pod).get("schedulerName") != RUNAI_SCHEDULER:
            return False
        queue = labels_of(pod).get(QUEUE_LABEL)
        return not queue or queue in self.leaves

    def _held_elsewhere(self) -> tuple[dict[str, float], dict[str, list[Device]]]:
        """GPUs (and the devices, where known) held on each node by pods the engine does not
        account for."""
        amounts: dict[str, float] = {}
        held: dict[str, list[Device]] = {}
        for pod in self.pods:
            if not holds_resources(pod) or self.places(pod):
                continue
            amount = float(sum(gpu_requests(pod).values()))
            if not amount:
                continue  # a pod without GPUs holds no devices
            node = str(spec(pod).get("nodeName"))
            amounts[node] = amounts.get(node, 0.0) + amount
            held.setdefault(node, []).extend(hardware.pod_devices(pod))
        return amounts, held

    def _add_nodes(self) -> None:
        amounts, held = self._held_elsewhere()
        plugin_pods = [
            p
            for p in self.pods
            if p["metadata"].get("namespace") == device_plugin.GPU_OPERATOR_NS
            and labels_of(p).get("app") == device_plugin.DEVICE_PLUGIN_APP
        ]
        for name, node in sorted(self.nodes.items()):
            per_gpu = hardware.read_layout(node)
            listed: int | None = None  # the allocatable count, for a node without a layout
            if per_gpu:
                count = len(per_gpu)
                layout = hardware.current_layout(node)
            else:
                count = listed = _int(self._allocatable(node).get("nvidia.com/gpu", "0"))
                layout = ALL_DISABLED
            seen: int | None = None
            lost = gpu_state.unhealthy(node).get("nvidia.com/gpu", 0)
            if per_gpu and lost and not layout.uses_mig:
                # GPUs off the bus: the device plugin no longer offers them.
                count = seen = max(0, count - lost)
                layout = self._trimmed(per_gpu, count)
            cordoned = bool(spec(node).get("unschedulable"))
            taken_gpus = int(amounts.get(name, 0.0))
            if taken_gpus and not layout.uses_mig:
                # Held GPUs are invisible to the engine's model: take them off the node.
                count = seen = max(0, count - taken_gpus)
                layout = self._trimmed(per_gpu, count)
            elif taken_gpus:
                cordoned = True  # MIG devices held by others: place nothing new beside them
            model = hardware.gpu_model(node)
            if plugin_pods:
                healthy = device_plugin.device_plugin_running(
                    plugin_pods, name
                ) and not gpu_state.driver_blocked(self.api, node)
            else:
                healthy = any(
                    str(k).startswith("nvidia.com/") and str(v) not in ("0", "")
                    for k, v in self._allocatable(node).items()
                )
            try:
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
                        gpu_operator_healthy=healthy,
                    )
                )
            except EngineError:
                continue  # a node the engine cannot model gets nothing scheduled on it
            self._device_plans[name] = (held.get(name, []), listed, seen)

    def devices_on(self, name: str) -> list[Device]:
        """The node's ``nvidia.com/gpu`` devices in the engine's index order, but those held by
        pods the engine does not account for (listed once a cycle, when first asked for)."""
        order = self._orders.get(name)
        if order is None:
            plan = self._device_plans.get(name)
            if plan is None:
                order = []  # no such node, or one the engine left out
            else:
                held, listed, seen = plan
                if listed is None:
                    order = hardware.free_devices(
                        self.nodes[name], "nvidia.com/gpu", held, self.strategy
                    )
                else:
                    taken = set(held)
                    order = [(i, None) for i in range(listed) if (i, None) not in taken]
                if seen is not None:
                    order = order[:seen]
            self._orders[name] = order
        return order

    def _count_parent_queue_jobs(self) -> None:
        """What running pods of a parent queue hold counts in that queue's usage and its
        ancestors' (``Queue.held``, per node pool), as KAI's proportion plugin counts every
        job's GPUs up the queue tree though it schedules leaf queues' jobs only."""
        for pod in self.pods:
            if spec(pod).get("schedulerName") != RUNAI_SCHEDULER or not holds_resources(pod):
                continue
            queue = self.cluster.queues.get(labels_of(pod).get(QUEUE_LABEL) or "")
            request = pod_gpu_request(pod)
            if queue is None or queue.name in self.leaves or request is None:
                continue
            node = self.nodes.get(str(spec(pod).get("nodeName")))
            pool = runai.node_pool_of(node) if node is not None else runai.DEFAULT_POOL
            queue.held[pool] = queue.held.get(pool, 0.0) + request.units()

    @staticmethod
    def _allocatable(node: Obj) -> dict[str, object]:
        """Allocatable, or capacity for what a kubelet has not yet made allocatable (a node
        whose capacity was just patched to advertise an extended resource)."""
        return {**(status(node).get("capacity") or {}), **(status(node).get("allocatable") or {})}

    @staticmethod
    def _trimmed(per_gpu: list[dict[str, int] | None], count: int) -> MigLayout:
        if not per_gpu:
            return ALL_DISABLED
        return hardware.current_layout(
            {
                "metadata": {
                    "annotations": {
                        hardware.GPUS_ANNOTATION: hardware.encode_layout(per_gpu[:count])
                    }
                }
            }
        )

    # ------------------------------------------------------------------ pods
    def seat(
        self, project: str, pods: Iterable[tuple[EnginePod, Obj]], request: GpuRequest
    ) -> None:
        """Tie each engine pod to its API pod and seat the bound ones where they run.

        A pod that finished stays finished; a pod without devices it names gets the node's
        first free ones once the others are seated.
        """
        loose: list[tuple[EnginePod, Obj]] = []
        for engine_pod, api_pod in pods:
            self.api_pods[(project, engine_pod.name)] = api_pod
            if not self._seat(engine_pod, api_pod, request):
                loose.append((engine_pod, api_pod))
        for engine_pod, _api_pod in loose:
            self._seat_on_free_devices(engine_pod, request)

    def _seat(self, pod: EnginePod, api_pod: Obj, request: GpuRequest) -> bool:
        """Seat a bound pod; False when the devices it holds are unknown (seated later)."""
        phase = status(api_pod).get("phase")
        if phase == "Succeeded":
            pod.status = PodStatus.SUCCEEDED
            return True
        node_name = spec(api_pod).get("nodeName")
        if not node_name or phase == "Failed":
            return True
        pod.node = str(node_name)
        pod.status = PodStatus.RELEASING if is_deleting(api_pod) else PodStatus.RUNNING
        started = status(api_pod).get("startTime") or api_pod["metadata"].get("creationTimestamp")
        pod.started_at = parse_time(str(started)) if started else None
        pod.portion = request.units() if request.kind in ("portion", "memory") else 1.0
        if request.mig_profile is not None and self.strategy == "mixed":
            pod.extended_resource = request.resource_name
            return True
        order = self.devices_on(pod.node)
        held = tuple(order.index(d) for d in hardware.pod_devices(api_pod) if d in order)
        pod.devices = held
        return bool(held)

    def _seat_on_free_devices(self, pod: EnginePod, request: GpuRequest) -> None:
        node = pod.node or ""
        taken = {
            index
            for other in self.cluster.pods()
            if other.node == node and other is not pod
            for index in other.devices
        }
        free = [i for i in range(len(self.devices_on(node))) if i not in taken]
        pod.devices = tuple(free[: max(1, request.whole_gpus)])

    def devices_of(self, node: str, indexes: tuple[int, ...]) -> list[Device]:
        """The API's devices of the engine's device indexes on a node."""
        order = self.devices_on(node)
        return [order[i] for i in indexes if i < len(order)]


class Writer:
    """What a user of ``write_back`` does around each write (all optional)."""

    # Pipelined pods wait for GPUs still held by pods on their way out. The mock binds them
    # at once (its kubelet starts them when the GPUs are free); a real kubelet would refuse
    # them, so the real scheduler binds them in a later cycle.
    bind_pipelined = False

    def may_write(self) -> bool:
        """False stops the writing (the real scheduler's lost lease)."""
        return True

    def evicted(self, action: Action, pod: Obj) -> None:
        """After a pod was evicted."""

    def bound(self, pod: Obj, node: str) -> None:
        """After a pod was bound."""

    def failed(self, verb: str, pod: Obj, error: ApiError) -> None:
        """After the API refused an eviction or a binding (the next cycle tries again)."""


def write_back(snapshot: Snapshot, result: CycleResult, writer: Writer) -> None:
    """The cycle's decisions through the API: evictions first, then bindings."""
    api = snapshot.api
    for action in result.actions:
        if action.kind not in ("evicted", "moved"):
            continue
        pod = snapshot.api_pods.get((action.project, action.pod))
        if pod is None or not spec(pod).get("nodeName") or is_deleting(pod):
            continue
        if not writer.may_write():
            return
        try:
            api.evict(name_of(pod), str(pod["metadata"].get("namespace", "")))
        except ApiError as error:
            writer.failed("evict", pod, error)
            continue
        writer.evicted(action, pod)
    seated = (
        (PodStatus.RUNNING, PodStatus.PIPELINED) if writer.bind_pipelined else (PodStatus.RUNNING,)
    )
    for workload in snapshot.cluster.workloads():
        for engine_pod in workload.pods:
            if engine_pod.status not in seated or engine_pod.node is None:
                continue
            pod = snapshot.api_pods.get((workload.project, engine_pod.name))
            if pod is None or spec(pod).get("nodeName") or is_deleting(pod):
                continue
            if not writer.may_write():
                return
            _bind(snapshot, writer, pod, engine_pod)


def _bind(snapshot: Snapshot, writer: Writer, pod: Obj, engine_pod: EnginePod) -> None:
    api, node = snapshot.api, str(engine_pod.node)
    name, namespace = name_of(pod), str(pod["metadata"].get("namespace", ""))
    try:
        if engine_pod.devices and engine_pod.extended_resource is None:
            chosen = snapshot.devices_of(node, engine_pod.devices)
            api.patch(
                "pods",
                name,
                {
                    "metadata": {
                        "annotations": {
                            hardware.DEVICES_ANNOTATION: hardware.encode_devices(chosen)
                        }
                    }
                },
                namespace,
            )
        api.bind(name, namespace, node)
    except ApiError as error:
        # 409: bound already (by us before a restart, or by someone else): nothing to do.
        writer.failed("bind", pod, error)
        return
    writer.bound(pod, node)
