"""Defaults of the kinds every cluster has beside workloads, as the API server's defaulting and
the controllers that act at once leave them (called from ``admission.apply_defaults``).

- PriorityClass: ``preemptionPolicy: PreemptLowerPriority``.
- StorageClass: ``reclaimPolicy: Delete``, ``volumeBindingMode: Immediate``.
- CronJob: ``concurrencyPolicy: Allow``, ``suspend: false``, history limits 3 and 1, and the
  pod template's defaults.
- PersistentVolume: ``status.phase: Available`` (the PV controller's first word).
- ResourceQuota: ``status.hard`` and ``status.used`` as the quota controller writes them on
  create. Object counts (``pods``, ``services``, ``count/<resource>``, ...) are counted in the
  namespace; compute quantities start at ``0``.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.cluster.api import ApiError, ClusterAPI, Obj

# Quota names that count objects of a resource (core/v1's short forms).
_COUNTED = {
    "pods": "pods",
    "services": "services",
    "secrets": "secrets",
    "configmaps": "configmaps",
    "persistentvolumeclaims": "persistentvolumeclaims",
    "replicationcontrollers": "",
    "resourcequotas": "resourcequotas",
}


def _count(cluster: ClusterAPI, resource: str, namespace: str) -> int:
    try:
        items = cluster.list(resource, namespace)["items"]
    except ApiError:
        return 0
    if resource == "pods":
        items = [p for p in items if (p.get("status") or {}).get("phase") not in _DONE]
    return len(items)


_DONE = ("Succeeded", "Failed")


def quota_status(cluster: ClusterAPI, obj: Obj) -> Obj:
    """What the quota controller writes: each hard limit and how much of it is used."""
    hard = dict((obj.get("spec") or {}).get("hard") or {})
    namespace = str(obj["metadata"].get("namespace") or "default")
    used: dict[str, str] = {}
    for name in hard:
        resource = name[len("count/") :] if name.startswith("count/") else _COUNTED.get(name)
        if not resource:
            used[name] = "0"
            continue
        count = _count(cluster, resource, namespace)
        if resource == "resourcequotas":
            count += 1  # the quota itself, not yet stored when its defaults are set
        used[name] = str(count)
    return {"hard": hard, "used": used}


def _priority_class(obj: Obj, cluster: ClusterAPI) -> None:
    del cluster
    obj.setdefault("preemptionPolicy", "PreemptLowerPriority")


def _storage_class(obj: Obj, cluster: ClusterAPI) -> None:
    del cluster
    obj.setdefault("reclaimPolicy", "Delete")
    obj.setdefault("volumeBindingMode", "Immediate")


def _persistent_volume(obj: Obj, cluster: ClusterAPI) -> None:
    del cluster
    if not (obj.get("status") or {}).get("phase"):
        obj["status"] = {"phase": "Available"}
    obj.setdefault("spec", {}).setdefault("persistentVolumeReclaimPolicy", "Retain")
    obj["spec"].setdefault("volumeMode", "Filesystem")


def _quota(obj: Obj, cluster: ClusterAPI) -> None:
    if not obj.get("status"):
        obj["status"] = quota_status(cluster, obj)


DEFAULTS: dict[str, Callable[[Obj, ClusterAPI], None]] = {
    "PriorityClass": _priority_class,
    "StorageClass": _storage_class,
    "PersistentVolume": _persistent_volume,
    "ResourceQuota": _quota,
}


def cronjob_defaults(spec: Obj) -> Obj:
    """SetDefaults_CronJob; returns the pod spec of its job template for the pod defaults."""
    spec.setdefault("concurrencyPolicy", "Allow")
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    job = spec.setdefault("jobTemplate", {}).setdefault("spec", {})
    pod_spec: Obj = job.setdefault("template", {}).setdefault("spec", {})
    return pod_spec


def pod_priority(cluster: ClusterAPI, spec: Obj) -> None:
    """The Priority admission plugin on a pod's create: ``spec.priority`` and
    ``preemptionPolicy`` from its PriorityClass (or the global default class). A class that does
    not exist is left alone here (the real plugin refuses the pod): stores built without the
    seeded classes still take pods that name them."""
    name = spec.get("priorityClassName")
    try:
        classes = cluster.list("priorityclasses.scheduling.k8s.io")["items"]
    except ApiError:
        return
    chosen = next(
        (
            pc
            for pc in classes
            if (pc["metadata"]["name"] == name if name else pc.get("globalDefault"))
        ),
        None,
    )
    if chosen is None:
        return
    spec["priority"] = int(chosen.get("value") or 0)
    spec["preemptionPolicy"] = chosen.get("preemptionPolicy") or "PreemptLowerPriority"


def pod_runtime_class(cluster: ClusterAPI, pod: Obj) -> None:
    """The RuntimeClass admission plugin on a pod's create: a pod naming a RuntimeClass that
    does not exist is refused, word for word (plugin/pkg/admission/runtimeclass)."""
    name = (pod.get("spec") or {}).get("runtimeClassName")
    if not name:
        return
    try:
        found = cluster.get("runtimeclasses.node.k8s.io", str(name))
    except ApiError:
        found = None
    if found is None or (found.get("metadata") or {}).get("deletionTimestamp"):
        pod_name = str((pod.get("metadata") or {}).get("name", ""))
        raise ApiError(
            403,
            "Forbidden",
            f'pods "{pod_name}" is forbidden: pod rejected: RuntimeClass "{name}" not found',
            {"name": pod_name, "kind": "pods"},
        )
