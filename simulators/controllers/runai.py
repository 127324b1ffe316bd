"""Run:ai's cluster controllers: projects and departments to Queues, workloads to pods.

- ``departments.run.ai`` and ``projects.run.ai`` become KAI ``Queue`` objects and each project
  its namespace ``runai-<project>`` (``simulators.controllers.runai_queues``).
- A workload (``trainingworkloads.run.ai``, ``interactiveworkloads``, ``distributedworkloads``,
  ``inferenceworkloads``, all ``run.ai/v2alpha1``) becomes a ``PodGroup``
  (``scheduling.run.ai/v2alpha2``, ``pg-<name>-0``, minMember = its pod count) and its pods,
  named as Run:ai names them (``t1-0-0``; ``dist-master-0``, ``dist-worker-0``, ...), with
  ``schedulerName: runai-scheduler``, the project's labels and, for a fraction, the
  ``gpu-fraction`` (or ``gpu-memory``) annotation. A deleted or evicted pod comes back Pending;
  a finished workload is Completed; a suspended one (``spec.active.value: false``) has no pods.

Workload spec (Run:ai's ``{"value": ...}`` wrapped fields): ``name``, ``image``, ``gpu`` (whole
GPUs per pod, a string), ``gpuFraction`` ("0.5"), ``gpuMemory`` ("10G"), ``migProfile``
("1g.10gb"), ``workers`` (distributed: worker pods), ``noMaster`` (distributed, bool: no separate
master pod), ``priority`` (int), ``preemptible`` (bool),
``active`` (bool, default true), ``cpuCoreRequest``/``cpuCoreLimit`` ("0.5") and
``cpuMemoryRequest``/``cpuMemoryLimit`` ("1G") (the pods' CPU and memory), ``servingPort``
(inference: "8000", the container port), ``extendedResources`` (a list,
``["rdma/rdma_shared_device_a=1"]``, ``--extended-resource``: each pod's requests and limits),
``capabilities`` (``["IPC_LOCK"]``, ``--capability``: ``securityContext.capabilities.add``),
``environment`` (``["NCCL_DEBUG=INFO"]``, ``-e``: the container's ``env``), ``nodePools``
("l40s,h100": the node pools to try, in order; without it, the project's
``defaultNodePools``, else ``default``). The lab's facts (for checks and ``runai describe``)
go in ``status``: ``phase``, ``runningPods``, ``pendingPods``, ``allocatedGpus``,
``requestedGpus``, ``startTime``, ``completionTime``, ``gangStarts`` (times all pods started
together), ``evictions`` (``{"time", "reason", "byProject", "byWorkload"}``),
``lastActivityTime``.

A distributed workload is a master pod plus ``workers`` worker pods unless ``noMaster`` is set,
as ``runai training pytorch submit --workers 2`` makes ``<name>-master-0``, ``<name>-worker-0``
and ``<name>-worker-1`` and ``--no-master`` ("Do not create a separate pod for the master")
only the workers. The master requests what a worker requests (Run:ai's API calls this
``masterSpecSameAsWorker``; the CLI's ``--master-gpu-devices-request`` and friends change it,
which the lab does not model), so ``--workers 2 -g 8`` asks for 24 GPUs, and the gang (the
PodGroup's ``minMember``) counts the master.
"""

from __future__ import annotations

import contextlib
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.controllers import runai_queues
from simulators.controllers.util import (
    RUNAI_SCHEDULER,
    emit,
    is_deleting,
    items,
    labels_of,
    name_of,
    namespace_of,
    owned_by,
    owner_ref,
    spec,
    status,
    timestamp,
)
from simulators.engine import DEFAULT_PRIORITY, WorkloadKind

# The queue side lives in runai_queues; its names stay reachable here, where callers look.
DEFAULT_POOL = runai_queues.DEFAULT_POOL
DEPARTMENTS = runai_queues.DEPARTMENTS
PROJECTS = runai_queues.PROJECTS
QUEUES = runai_queues.QUEUES
deserved_total = runai_queues.deserved_total
namespace_for = runai_queues.namespace_for
node_pool_resources = runai_queues.node_pool_resources
queue_pool_quotas = runai_queues.queue_pool_quotas
queue_quota = runai_queues.queue_quota
run_queues = runai_queues.run_queues

WORKLOAD_RESOURCES: dict[str, str] = {
    "training": "trainingworkloads.run.ai",
    "workspace": "interactiveworkloads.run.ai",
    "distributed": "distributedworkloads.run.ai",
    "inference": "inferenceworkloads.run.ai",
}
KIND_OF_RESOURCE = {v: k for k, v in WORKLOAD_RESOURCES.items()}
WORKLOAD_KINDS = {
    "training": "TrainingWorkload",
    "workspace": "InteractiveWorkload",
    "distributed": "DistributedWorkload",
    "inference": "InferenceWorkload",
}
PRIORITY_CLASSES = {
    "training": "train",
    "distributed": "train",
    "workspace": "build",
    "inference": "inference",
}
PODGROUPS = "podgroups.scheduling.run.ai"
FRACTION = "gpu-fraction"
MEMORY = "gpu-memory"
COMPONENT = "workload-controller"


def value(obj: Obj, field: str, default: Any = None) -> Any:
    """A Run:ai spec field: ``spec.<field>.value``."""
    raw = spec(obj).get(field)
    if isinstance(raw, dict):
        return raw.get("value", default)
    return default if raw is None else raw


def pod_names(name: str, kind: str, pods: int, master: bool = True) -> list[str]:
    """Run:ai's pod names (the engine's too): llm-ft-master-0, llm-ft-worker-0, ... for a
    distributed workload (only workers without a master); t1-0-0 otherwise."""
    if kind == "distributed" and not master:
        return [f"{name}-worker-{i}" for i in range(pods)]
    if kind == "distributed":
        return [f"{name}-master-0" if i == 0 else f"{name}-worker-{i - 1}" for i in range(pods)]
    return [f"{name}-0-{i}" for i in range(pods)]


def workload_pod_names(workload: Obj) -> list[str]:
    """The pods a workload runs, in order (the master first)."""
    name, kind = name_of(workload), kind_of(workload)
    return pod_names(name, kind, pod_count(workload), has_master(workload))


def workload_object(
    kind: str,
    name: str,
    project: str,
    image: str,
    *,
    gpu: float = 1.0,
    gpu_memory: str | None = None,
    mig_profile: str | None = None,
    workers: int = 1,
    no_master: bool = False,
    priority: int | None = None,
    preemptible: bool | None = None,
    user: str = "admin",
    node_pools: list[str] | None = None,
) -> Obj:
    """A Run:ai workload custom resource as ``runai ... submit`` creates it."""
    wk = WorkloadKind(kind)
    body: dict[str, Any] = {"name": {"value": name}, "image": {"value": image}}
    if mig_profile:
        body["migProfile"] = {"value": mig_profile}
    elif gpu_memory:
        body["gpuMemory"] = {"value": gpu_memory}
    elif 0 < gpu < 1:
        body["gpuFraction"] = {"value": f"{gpu:g}"}
    else:
        body["gpu"] = {"value": f"{int(gpu)}"}
    if wk == WorkloadKind.DISTRIBUTED:
        body["workers"] = {"value": workers}
        if no_master:
            body["noMaster"] = {"value": True}
    if priority is not None:
        body["priority"] = {"value": priority}
    if preemptible is not None:
        body["preemptible"] = {"value": preemptible}
    if node_pools:
        body["nodePools"] = {"value": ",".join(node_pools)}
    return {
        "apiVersion": "run.ai/v2alpha1",
        "kind": WORKLOAD_KINDS[wk.value],
        "metadata": {
            "name": name,
            "namespace": namespace_for(project),
            "labels": {"project": project, "user": user},
        },
        "spec": body,
    }


def kind_of(workload: Obj) -> str:
    for kind, k8s_kind in WORKLOAD_KINDS.items():
        if workload.get("kind") == k8s_kind:
            return kind
    return "training"


def project_of(workload: Obj) -> str:
    project = labels_of(workload).get("project")
    if project:
        return project
    return namespace_of(workload).removeprefix("runai-")


def workers_of(workload: Obj) -> int:
    """A distributed workload's worker pods (``--workers``); 1 for any other workload."""
    if kind_of(workload) != "distributed":
        return 1
    try:
        return max(1, int(value(workload, "workers", 1)))
    except (TypeError, ValueError):
        return 1


def has_master(workload: Obj) -> bool:
    """Whether a distributed workload has its separate master pod (unless ``--no-master``)."""
    return kind_of(workload) == "distributed" and value(workload, "noMaster") is not True


def pod_count(workload: Obj) -> int:
    """The pods a workload runs, all in its gang: the workers plus the master."""
    return workers_of(workload) + (1 if has_master(workload) else 0)


def priority_of(workload: Obj) -> int:
    raw = value(workload, "priority")
    if raw is not None:
        try:
            return int(raw)
        except (TypeError, ValueError):
            pass
    return int(DEFAULT_PRIORITY[WorkloadKind(kind_of(workload))])


def preemptible_of(workload: Obj) -> bool:
    raw = value(workload, "preemptible")
    if isinstance(raw, bool):
        return raw
    return priority_of(workload) < 100


def gpu_units(workload: Obj) -> float:
    """GPUs a pod counts for in quotas (a MIG slice by its share of compute)."""
    from simulators.engine.mig import mig_profile
    from simulators.engine.model import GpuRequest

    if value(workload, "migProfile"):
        return mig_profile(str(value(workload, "migProfile"))).gpu_fraction
    if value(workload, "gpuMemory"):
        return GpuRequest.memory(str(value(workload, "gpuMemory"))).units()
    if value(workload, "gpuFraction"):
        return float(value(workload, "gpuFraction"))
    try:
        return float(value(workload, "gpu", 1) or 0)
    except (TypeError, ValueError):
        return 0.0


def active_of(workload: Obj) -> bool:
    return value(workload, "active", True) is not False


POOL_LABEL = "run.ai/node-pool"


def node_pool_of(node: Obj) -> str:
    """The node pool a node belongs to: its ``run.ai/node-pool`` label, else ``default``."""
    labels = labels_of(node)
    return str(labels.get(POOL_LABEL) or labels.get("runai/node-pool") or DEFAULT_POOL)


def node_pools_of(workload: Obj, project: Obj | None = None) -> list[str]:
    """The node pools a workload may run in, in order of preference."""
    raw = value(workload, "nodePools")
    if isinstance(raw, str) and raw.strip():
        return [p.strip() for p in raw.split(",") if p.strip()]
    defaults = spec(project).get("defaultNodePools") if project is not None else None
    if isinstance(defaults, list) and defaults:
        return [str(p) for p in defaults]
    return [DEFAULT_POOL]


# ---------------------------------------------------------------------------- workloads


def all_workloads(api: ClusterAPI) -> list[Obj]:
    out: list[Obj] = []
    for resource in WORKLOAD_RESOURCES.values():
        out.extend(items(api, resource))
    out.sort(
        key=lambda w: (str(w["metadata"].get("creationTimestamp", "")), namespace_of(w), name_of(w))
    )
    return out


def resource_of(workload: Obj) -> str:
    return WORKLOAD_RESOURCES[kind_of(workload)]


def run_workloads(api: ClusterAPI) -> None:
    pods = [p for p in items(api, "pods") if spec(p).get("schedulerName") == RUNAI_SCHEDULER]
    groups = items(api, PODGROUPS)
    for workload in all_workloads(api):
        if is_deleting(workload):
            continue
        mine = [
            p for p in pods if namespace_of(p) == namespace_of(workload) and owned_by(p, workload)
        ]
        _sync_workload(api, workload, mine, groups)


def _podgroup_name(workload: Obj) -> str:
    return f"pg-{name_of(workload)}-0"


def _sync_workload(api: ClusterAPI, workload: Obj, pods: list[Obj], groups: list[Obj]) -> None:
    wstatus = status(workload)
    phase = str(wstatus.get("phase") or "")
    names = workload_pod_names(workload)
    now = timestamp(api)
    if phase in ("Completed", "Failed"):
        return
    if not active_of(workload):
        for pod in pods:
            if not is_deleting(pod):
                api.delete("pods", name_of(pod), namespace_of(pod))
        _set_status(
            api,
            workload,
            {"phase": "Suspended", "runningPods": 0, "pendingPods": 0, "allocatedGpus": 0},
        )
        return
    group = next(
        (
            g
            for g in groups
            if namespace_of(g) == namespace_of(workload) and name_of(g) == _podgroup_name(workload)
        ),
        None,
    )
    if group is None:
        group = _create_podgroup(api, workload, len(names))
    by_name = {name_of(p): p for p in pods}
    succeeded = [n for n in names if status(by_name.get(n, {})).get("phase") == "Succeeded"]
    if len(succeeded) == len(names):
        _set_status(
            api,
            workload,
            {
                "phase": "Completed",
                "runningPods": 0,
                "pendingPods": 0,
                "allocatedGpus": 0,
                "completionTime": now,
            },
        )
        emit(api, workload, "Normal", "Completed", "All pods completed successfully", COMPONENT)
        return
    for index, pod_name in enumerate(names):
        existing = by_name.get(pod_name)
        if existing is None or status(existing).get("phase") == "Failed":
            if existing is not None:
                with contextlib.suppress(ApiError):
                    api.delete("pods", pod_name, namespace_of(workload), grace_period=0)
            _create_pod(api, workload, group, pod_name, index)
    running = [p for p in pods if status(p).get("phase") == "Running" and not is_deleting(p)]
    before = int(wstatus.get("runningPods", 0) or 0)
    update: dict[str, Any] = {
        "phase": _phase(pods, names),
        "runningPods": len(running),
        "pendingPods": len(names) - len(running),
        "requestedGpus": round(gpu_units(workload) * len(names), 4),
        "allocatedGpus": round(gpu_units(workload) * len(running), 4),
    }
    if running and not wstatus.get("startTime"):
        update["startTime"] = now
    if len(running) == len(names) and before == 0:
        update["gangStarts"] = [*list(wstatus.get("gangStarts") or []), now]
    _set_status(api, workload, update)


def _phase(pods: list[Obj], names: list[str]) -> str:
    by_name = {name_of(p): p for p in pods}
    phases = []
    for pod_name in names:
        pod = by_name.get(pod_name)
        if pod is None:
            phases.append("Pending")
        elif is_deleting(pod):
            phases.append("Releasing")
        elif status(pod).get("phase") == "Running":
            phases.append("Running")
        elif spec(pod).get("nodeName"):
            phases.append(
                "Pending"
                if status(pod).get("phase") == "Pending"
                else str(status(pod).get("phase"))
            )
        else:
            phases.append("Pending")
    if len(set(phases)) == 1:
        return phases[0]
    for candidate in ("Running", "Releasing", "Pending"):
        if candidate in phases:
            return candidate
    return "Pending"


def _set_status(api: ClusterAPI, workload: Obj, update: dict[str, Any]) -> None:
    current = status(workload)
    if all(current.get(k) == v for k, v in update.items()):
        return
    try:
        api.patch(
            resource_of(workload),
            name_of(workload),
            {"status": update},
            namespace_of(workload),
            subresource="status",
        )
    except ApiError as exc:
        if exc.code != 404:
            raise


def _create_podgroup(api: ClusterAPI, workload: Obj, members: int) -> Obj:
    kind = kind_of(workload)
    group: Obj = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {
            "name": _podgroup_name(workload),
            "namespace": namespace_of(workload),
            "labels": {"project": project_of(workload), "runai/queue": project_of(workload)},
            "ownerReferences": [owner_ref(workload)],
        },
        "spec": {
            "minMember": members,
            "queue": project_of(workload),
            "priorityClassName": PRIORITY_CLASSES[kind],
            "preemptibility": "preemptible" if preemptible_of(workload) else "non-preemptible",
        },
    }
    created = api.create(PODGROUPS, group, namespace_of(workload))
    emit(
        api,
        workload,
        "Normal",
        "PodGroupCreated",
        f"Pod group {name_of(created)} created",
        "pod-grouper",
    )
    return created


def _create_pod(api: ClusterAPI, workload: Obj, group: Obj, pod_name: str, index: int) -> None:
    kind = kind_of(workload)
    project = project_of(workload)
    limits: dict[str, str] = {}
    annotations = {
        "pod-group-name": name_of(group),
        "user": labels_of(workload).get("user", "admin"),
    }
    mig = value(workload, "migProfile")
    if mig:
        limits[f"nvidia.com/mig-{mig}"] = "1"
    elif value(workload, "gpuMemory"):
        annotations[MEMORY] = str(value(workload, "gpuMemory"))
    elif value(workload, "gpuFraction"):
        annotations[FRACTION] = str(value(workload, "gpuFraction"))
    else:
        gpus = int(float(value(workload, "gpu", 1) or 0))
        if gpus:
            limits["nvidia.com/gpu"] = str(gpus)
    container: dict[str, Any] = {
        "name": name_of(workload),
        "image": str(value(workload, "image", "")),
    }
    requests = dict(limits)
    # --cpu-core-request and friends: CPU and memory as the pod asks for them.
    for field, key, into in (
        ("cpuCoreRequest", "cpu", requests),
        ("cpuMemoryRequest", "memory", requests),
        ("cpuCoreLimit", "cpu", limits),
        ("cpuMemoryLimit", "memory", limits),
    ):
        if value(workload, field) is not None:
            into[key] = str(value(workload, field))
    for entry in _listed(workload, "extendedResources"):
        resource, _, quantity = entry.partition("=")
        requests[resource] = limits[resource] = quantity or "1"
    if limits or requests:
        container["resources"] = {
            key: body for key, body in (("limits", limits), ("requests", requests)) if body
        }
    capabilities = _listed(workload, "capabilities")
    if capabilities:
        container["securityContext"] = {"capabilities": {"add": capabilities}}
    env = [entry.partition("=") for entry in _listed(workload, "environment")]
    if env:
        container["env"] = [{"name": name, "value": val} for name, _, val in env]
    port = value(workload, "servingPort")
    if port is not None:
        container["ports"] = [{"containerPort": int(port), "protocol": "TCP"}]
    labels = {
        "project": project,
        "runai/queue": project,
        "workloadKind": WORKLOAD_KINDS[kind],
        "workloadName": name_of(workload),
        "user": labels_of(workload).get("user", "admin"),
    }
    if kind == "distributed":
        first = index == 0 and has_master(workload)
        labels["training.kubeflow.org/replica-type"] = "master" if first else "worker"
    pod: Obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": pod_name,
            "namespace": namespace_of(workload),
            "labels": labels,
            "annotations": annotations,
            "ownerReferences": [owner_ref(workload)],
        },
        "spec": {
            "schedulerName": RUNAI_SCHEDULER,
            "restartPolicy": "Never" if kind in ("training", "distributed") else "Always",
            "containers": [container],
        },
    }
    try:
        api.create("pods", pod, namespace_of(workload))
    except ApiError as exc:
        if exc.code == 409:
            return
        # A spec the API refuses stays the workload's problem, not every other workload's.
        emit(api, workload, "Warning", "FailedCreate", f"Error creating: {exc.message}", COMPONENT)


def _listed(workload: Obj, field: str) -> list[str]:
    """A list field of the spec (``{"value": [...]}``); a comma-separated string works too."""
    raw = value(workload, field)
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, list):
        return []
    return [str(item).strip() for item in raw if str(item).strip()]
