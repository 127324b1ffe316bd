"""The engine's model of a real cluster, built from what the API serves.

The mock's ``runai-scheduler`` controller (``simulators.controllers.engine``) reads Run:ai
workload custom resources and the mock's GPU annotations. A real cluster has neither for sure, so
this model reads what KAI Scheduler reads:

- pods with ``schedulerName: runai-scheduler`` and the label ``runai/queue: <project>``, grouped
  into one engine workload per PodGroup (the pod's ``pod-group-name`` annotation; the group's
  ``minMember`` makes a gang) or one per pod without a group;
- a pod's GPU request: ``nvidia.com/gpu`` (whole GPUs), ``nvidia.com/mig-<profile>``, or the
  ``gpu-fraction`` / ``gpu-memory`` annotations;
- Queues (``scheduling.run.ai/v2``): ``parentQueue``, ``priority``, ``resources.gpu.{quota,
  limit, overQuotaWeight}``, or the same per node pool under ``nodePools`` (read with
  ``runai.queue_pool_quotas``, as the mock does);
- a gang's node pools: its PodGroup's owning Run:ai workload's ``nodePools`` (else its
  project's defaults), tried in order; a pod without such a workload, its node-pool selector;
- nodes: allocatable ``nvidia.com/gpu`` (or the mock's per-GPU layout annotation when it is
  there), cordons, the node-pool label; GPUs held by pods of other schedulers are taken off.

Which devices a pod holds is kept in the pod's ``lab.kadmin/gpu-devices`` annotation (written
just before binding, as Run:ai's binder annotates the pods it places), so a restarted scheduler
knows them; a bound pod without it gets the node's first free devices.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.clock import parse_time
from simulators.controllers import gpu_state, hardware, runai
from simulators.controllers.engine import kube_gpu_usage
from simulators.controllers.util import (
    RUNAI_SCHEDULER,
    annotations_of,
    gpu_requests,
    is_deleting,
    labels_of,
    name_of,
    namespace_of,
    spec,
    status,
)
from simulators.engine import (
    Cluster,
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
GROUP_ANNOTATION = "pod-group-name"
POOL_LABELS = ("run.ai/node-pool", "runai/node-pool")
PREEMPTIBILITY = "preemptibility"
DEFAULT_POOL = "default"
# Run:ai's priority classes and the workload kind whose rules they carry.
KIND_OF_PRIORITY_CLASS = {
    "train": "training",
    "build": "workspace",
    "interactive-preemptible": "training",
    "inference": "inference",
}
KIND_OF_LABEL = {
    "TrainingWorkload": "training",
    "InteractiveWorkload": "workspace",
    "DistributedWorkload": "distributed",
    "InferenceWorkload": "inference",
}

Device = tuple[int, int | None]
_REF = re.compile(r"runai-[a-z0-9.-]+/[A-Za-z0-9._-]+")
ALL_DISABLED = MigLayout("all-disabled", (MigDeviceConfig(mig_enabled=False),))


@dataclass
class Group:
    """The API's pods of one engine workload (sorted by name: the engine's pod order)."""

    namespace: str
    name: str
    project: str
    pods: list[Obj] = field(default_factory=list)
    podgroup: Obj | None = None


def _quiet_items(api: ClusterAPI, resource: str) -> list[Obj]:
    """A list that is empty when the cluster does not serve the resource (no CRD)."""
    try:
        return list(api.list(resource).get("items") or [])
    except ApiError as error:
        if error.code in (403, 404):
            return []
        raise


def mig_strategy(api: ClusterAPI, nodes: list[Obj]) -> MigStrategy:
    try:
        value = gpu_state.mig_strategy(api)
    except ApiError:
        value = ""
        for node in nodes:
            value = labels_of(node).get("nvidia.com/mig.strategy", value)
    return "mixed" if value == "mixed" else "single"


def gpu_request(pod: Obj) -> GpuRequest | None:
    """The pod's GPU request as the engine counts it (None: no GPU asked for, or nonsense)."""
    try:
        return _gpu_request(pod)
    except (EngineError, ValueError, ArithmeticError):
        return None


def _gpu_request(pod: Obj) -> GpuRequest | None:
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


def _kind(pod: Obj, podgroup: Obj | None) -> str:
    label = labels_of(pod).get("workloadKind", "")
    if label in KIND_OF_LABEL:
        return KIND_OF_LABEL[label]
    priority_class = str(
        spec(podgroup or {}).get("priorityClassName") or spec(pod).get("priorityClassName") or ""
    )
    return KIND_OF_PRIORITY_CLASS.get(priority_class, "training")


def _preemptible(pod: Obj, podgroup: Obj | None) -> bool | None:
    value = str(
        spec(podgroup or {}).get(PREEMPTIBILITY) or labels_of(pod).get(PREEMPTIBILITY) or ""
    )
    if value == "preemptible":
        return True
    if value == "non-preemptible":
        return False
    return None


class PodModel:
    """The engine's ``Cluster`` for one cycle, and the way back to the API's objects."""

    def __init__(self, api: ClusterAPI, now: datetime | None = None) -> None:
        self.api = api
        self.now = now or api.now()
        moment = self.now
        node_list = _quiet_items(api, "nodes")
        self.strategy: MigStrategy = mig_strategy(api, node_list)
        self.cluster = Cluster(clock=lambda: moment, mig_strategy=self.strategy)
        self.nodes = {name_of(n): n for n in node_list}
        self.pods = list(api.list("pods").get("items") or [])
        # node name -> its nvidia.com/gpu devices in the engine's index order
        self.devices: dict[str, list[Device]] = {}
        self.groups: dict[tuple[str, str], Group] = {}
        # Pods on their way out that still hold GPUs (evicted or deleted, not yet stopped).
        self.terminating = [
            p
            for p in self.pods
            if is_deleting(p) and spec(p).get("nodeName") and gpu_request(p) is not None
        ]
        self.api_pods: dict[tuple[str, str], Obj] = {}
        # "runai-<project>/<engine pod>" (how the engine names a pod in its messages) -> the
        # API's "namespace/name"
        self.refs: dict[str, str] = {}
        # The Run:ai workloads that own PodGroups, by uid: a gang's node pools are theirs.
        self.workloads = {
            str(w["metadata"].get("uid")): w
            for resource in runai.WORKLOAD_RESOURCES.values()
            for w in _quiet_items(api, resource)
        }
        self.projects = {name_of(p): p for p in _quiet_items(api, runai.PROJECTS)}
        self._add_nodes()
        self._add_queues()
        self._add_workloads()

    # ------------------------------------------------------------------ nodes
    def _add_nodes(self) -> None:
        held = kube_gpu_usage(self.pods)
        for name, node in sorted(self.nodes.items()):
            # Allocatable, or capacity for what a kubelet has not yet made allocatable (a node
            # whose capacity was just patched to advertise an extended resource).
            allocatable = {
                **(status(node).get("capacity") or {}),
                **(status(node).get("allocatable") or {}),
            }
            advertised = any(
                str(k).startswith("nvidia.com/") and str(v) not in ("0", "")
                for k, v in allocatable.items()
            )
            per_gpu = hardware.read_layout(node)
            if per_gpu:
                devices = hardware.free_devices(node, "nvidia.com/gpu", [], self.strategy)
                layout = hardware.current_layout(node)
                count = len(per_gpu)
            else:
                try:
                    count = int(str(allocatable.get("nvidia.com/gpu", "0")))
                except ValueError:
                    count = 0
                devices = [(index, None) for index in range(count)]
                layout = ALL_DISABLED
            cordoned = bool(spec(node).get("unschedulable"))
            taken = int(held.get(name, 0.0))
            if taken and not layout.uses_mig:
                # GPUs held by pods of other schedulers: the engine must not hand them out.
                count = max(0, count - taken)
                devices = devices[:count]
                layout = ALL_DISABLED
            elif taken:
                cordoned = True
            labels = labels_of(node)
            pool = next((labels[k] for k in POOL_LABELS if labels.get(k)), DEFAULT_POOL)
            try:
                self.cluster.add_node(
                    EngineNode(
                        name,
                        gpus=count,
                        pool=pool,
                        labels=labels,
                        cordoned=cordoned,
                        mig_layout=layout,
                        gpu_operator_healthy=advertised,
                    )
                )
            except EngineError:
                continue  # a node the engine cannot model gets nothing scheduled on it
            self.devices[name] = devices

    # ------------------------------------------------------------------ queues
    def _add_queues(self) -> None:
        queues = _quiet_items(self.api, runai.QUEUES)
        queues.sort(key=lambda q: (str(q["metadata"].get("creationTimestamp", "")), name_of(q)))
        parents = {str(spec(q).get("parentQueue") or "") for q in queues} - {""}
        by_name = {name_of(q): q for q in queues}
        added: set[str] = set()

        def add(name: str, depth: int = 0) -> None:
            if name in added or depth > 10:
                return
            queue = by_name.get(name, {"metadata": {"name": name}, "spec": {}})
            parent = str(spec(queue).get("parentQueue") or "") or None
            if parent is not None:
                add(parent, depth + 1)
            added.add(name)
            try:
                priority = int(spec(queue).get("priority") or 0)
            except (TypeError, ValueError):
                priority = 0
            try:
                # Quotas are per node pool (the queue's spec.nodePools, else all in default).
                quotas = {
                    pool: PoolQuota(deserved=deserved or 0.0, over_quota_weight=weight, limit=limit)
                    for pool, (deserved, weight, limit) in runai.queue_pool_quotas(queue).items()
                }
                for pool in quotas:
                    self.cluster.ensure_node_pool(pool)
                if name in parents:
                    self.cluster.add_department(name, quotas, priority=priority, parent=parent)
                else:
                    self.cluster.add_project(name, parent, quotas, priority=priority)
            except EngineError:
                pass  # a queue the engine refuses (or whose parent it refused): its pods wait

        for name in by_name:
            add(name)

    # ------------------------------------------------------------------ workloads
    def _add_workloads(self) -> None:
        podgroups = {
            (namespace_of(g), name_of(g)): g for g in _quiet_items(self.api, runai.PODGROUPS)
        }
        groups: dict[tuple[str, str], Group] = {}
        for pod in self.pods:
            if spec(pod).get("schedulerName") != RUNAI_SCHEDULER:
                continue
            project = labels_of(pod).get(QUEUE_LABEL, "")
            if status(pod).get("phase") in ("Succeeded", "Failed"):
                continue
            group_name = annotations_of(pod).get(GROUP_ANNOTATION) or ""
            podgroup = podgroups.get((namespace_of(pod), group_name)) if group_name else None
            if podgroup is not None and not project:
                project = str(spec(podgroup).get("queue") or "")
            if not project:
                continue
            key = (namespace_of(pod), group_name or name_of(pod))
            group = groups.setdefault(key, Group(key[0], key[1], project, podgroup=podgroup))
            group.pods.append(pod)
        for group in sorted(groups.values(), key=_created):
            group.pods.sort(key=name_of)
            self._submit(group)

    def _submit(self, group: Group) -> None:
        if group.project not in self.cluster.queues:
            return
        first = group.pods[0]
        bound = [p for p in group.pods if spec(p).get("nodeName")]
        members = len(group.pods)
        try:
            min_member = int(spec(group.podgroup or {}).get("minMember") or 1)
        except (TypeError, ValueError):
            min_member = 1
        if members < min_member and not bound:
            return  # the gang is not all there yet: nothing to place until it is
        try:
            request = gpu_request(first)
            if request is None:
                return
            workload = self.cluster.submit(
                group.name,
                group.project,
                kind=_kind(first, group.podgroup),
                gpu=request,
                pods=members,
                preemptible=_preemptible(first, group.podgroup),
                min_available=max(1, min(min_member, members)),
                node_pool=self._pools(group, first),
                image=str((spec(first).get("containers") or [{}])[0].get("image", "")),
            )
        except EngineError:
            return
        created = first["metadata"].get("creationTimestamp")
        if created:
            workload.created_at = parse_time(str(created))
        self.groups[(group.project, group.name)] = group
        loose: list[tuple[EnginePod, Obj]] = []
        for engine_pod, api_pod in zip(workload.pods, group.pods, strict=True):
            self.api_pods[(group.project, engine_pod.name)] = api_pod
            self.refs[f"{engine_pod.namespace}/{engine_pod.name}"] = (
                f"{namespace_of(api_pod)}/{name_of(api_pod)}"
            )
            if not self._load(engine_pod, api_pod):
                loose.append((engine_pod, api_pod))
        for engine_pod, api_pod in loose:
            self._seat_without_devices(engine_pod, api_pod)

    def _pools(self, group: Group, first: Obj) -> list[str]:
        """The node pools a gang may use, in order: its Run:ai workload's (the PodGroup's
        owner), else the pool its pods select, else default."""
        owners = (group.podgroup or {}).get("metadata", {}).get("ownerReferences") or []
        uids = [str(owner.get("uid")) for owner in owners if isinstance(owner, dict)]
        workload = next((self.workloads[uid] for uid in uids if uid in self.workloads), None)
        if workload is None:
            return [_pool(first, self.cluster.pools)]
        pools = runai.node_pools_of(workload, self.projects.get(runai.project_of(workload)))
        for pool in pools:
            self.cluster.ensure_node_pool(pool)
        return list(dict.fromkeys(pools))

    def _load(self, pod: EnginePod, api_pod: Obj) -> bool:
        """Seat a bound pod; False when its devices are unknown (seated later)."""
        node_name = spec(api_pod).get("nodeName")
        if not node_name:
            return True
        pod.node = str(node_name)
        pod.status = PodStatus.RELEASING if is_deleting(api_pod) else PodStatus.RUNNING
        started = status(api_pod).get("startTime") or api_pod["metadata"].get("creationTimestamp")
        pod.started_at = parse_time(str(started)) if started else None
        request = gpu_request(api_pod)
        pod.portion = 1.0
        if request is not None and request.kind in ("portion", "memory"):
            pod.portion = request.units()
        if request is not None and request.mig_profile is not None and self.strategy == "mixed":
            pod.extended_resource = request.resource_name
            return True
        order = self.devices.get(pod.node, [])
        held = [order.index(d) for d in hardware.pod_devices(api_pod) if d in order]
        if not held:
            return False
        pod.devices = tuple(held)
        return True

    def _seat_without_devices(self, pod: EnginePod, api_pod: Obj) -> None:
        """A bound pod that never said which devices it holds: the first free ones."""
        node = pod.node or ""
        order = self.devices.get(node, [])
        taken = {
            index
            for other in self.cluster.pods()
            if other.node == node and other is not pod
            for index in other.devices
        }
        request = gpu_request(api_pod)
        wanted = max(1, request.whole_gpus if request is not None else 1)
        free = [i for i in range(len(order)) if i not in taken]
        pod.devices = tuple(free[:wanted])

    # ------------------------------------------------------------------ back to the API
    def message(self, text: str) -> str:
        """An engine message with the API's pod names in it."""
        return _REF.sub(lambda m: self.refs.get(m.group(0), m.group(0)), text)

    def devices_of(self, node: str, indexes: tuple[int, ...]) -> list[Device]:
        order = self.devices.get(node, [])
        return [order[i] for i in indexes if i < len(order)]


def _created(group: Group) -> tuple[str, str, str]:
    stamp = min(str(p["metadata"].get("creationTimestamp", "")) for p in group.pods)
    return (stamp, group.namespace, group.name)


def _pool(pod: Obj, pools: Mapping[str, object]) -> str:
    selector = spec(pod).get("nodeSelector") or {}
    for key in POOL_LABELS:
        if selector.get(key) in pools:
            return str(selector[key])
    return DEFAULT_POOL
