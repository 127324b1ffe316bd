"""kube-controller-manager's DaemonSet controller: one pod per eligible node, placed by node
affinity, with the tolerations every daemon pod gets, rolled out maxUnavailable at a time.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ClusterAPI, Obj
from simulators.cluster.patches import deep_copy
from simulators.controllers.revisions import ensure_revision
from simulators.controllers.util import (
    emit,
    is_deleting,
    items,
    matches_node_selector,
    name_of,
    namespace_of,
    spec,
    status,
    uid_of,
    untolerated_taint,
)
from simulators.controllers.workload_pods import (
    active,
    by_owner,
    create_pod,
    delete_pod,
    patch_status,
    pod_from_template,
    pod_ready,
    template_hash,
)

# What the DaemonSet controller adds to every daemon pod (pkg/controller/daemon/util).
DAEMON_TOLERATIONS: tuple[dict[str, Any], ...] = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)


def node_should_run(ds: Obj, node: Obj) -> tuple[bool, bool]:
    """(should a daemon pod be placed here, may a running one stay), as nodeShouldRunDaemonPod.

    A NoSchedule taint only stops new pods; a NoExecute one (or a selector that no longer
    matches) removes the running pod too.
    """
    pod_spec = dict(spec(ds).get("template", {}).get("spec") or {})
    if not matches_node_selector(pod_spec, node):
        return False, False
    tolerations = list(pod_spec.get("tolerations") or []) + list(DAEMON_TOLERATIONS)
    if untolerated_taint(node, tolerations, ("NoExecute",)) is not None:
        return False, False
    return untolerated_taint(node, tolerations) is None, True


def _daemon_pod(ds: Obj, node: str, revision: str) -> Obj:
    template = deep_copy(spec(ds).get("template") or {})
    pod = pod_from_template(ds, template, generate=f"{name_of(ds)}-")
    labels = pod["metadata"]["labels"]
    labels["controller-revision-hash"] = revision
    labels["pod-template-generation"] = str(ds.get("metadata", {}).get("generation", 1))
    pod_spec = pod["spec"]
    pod_spec["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                ]
            }
        }
    }
    tolerations = list(pod_spec.get("tolerations") or [])
    for tol in DAEMON_TOLERATIONS:
        if tol not in tolerations:
            tolerations.append(dict(tol))
    pod_spec["tolerations"] = tolerations
    return pod


def pod_node(pod: Obj) -> str:
    """The node a daemon pod is for: where it runs, or the node its affinity names."""
    node = spec(pod).get("nodeName")
    if node:
        return str(node)
    terms = (
        spec(pod)
        .get("affinity", {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution", {})
        .get("nodeSelectorTerms", [])
    )
    for term in terms:
        for expr in term.get("matchFields") or []:
            if expr.get("key") == "metadata.name" and expr.get("values"):
                return str(expr["values"][0])
    return ""


def _available(pod: Obj) -> bool:
    return active(pod) and pod_ready(pod)


def run_daemonsets(api: ClusterAPI) -> None:
    nodes = items(api, "nodes")
    owned = by_owner(items(api, "pods"))
    for ds in items(api, "daemonsets.apps"):
        if is_deleting(ds):
            continue
        _sync_daemonset(api, ds, nodes, owned.get(uid_of(ds), []))


def _sync_daemonset(api: ClusterAPI, ds: Obj, nodes: list[Obj], pods: list[Obj]) -> None:
    component = "daemonset-controller"
    revision = template_hash(spec(ds).get("template"), owner=ds)
    ensure_revision(api, ds, "DaemonSet", revision)
    by_node: dict[str, list[Obj]] = {}
    for pod in pods:
        by_node.setdefault(pod_node(pod), []).append(pod)
    desired = 0
    scheduled = 0
    misscheduled = 0
    for node in nodes:
        node_name = name_of(node)
        mine = [p for p in by_node.get(node_name, []) if not is_deleting(p)]
        should, may_stay = node_should_run(ds, node)
        if should or (may_stay and mine):
            desired += 1
            for pod in mine:
                if status(pod).get("phase") == "Failed":
                    emit(
                        api,
                        ds,
                        "Warning",
                        "FailedDaemonPod",
                        f"Found failed daemon pod {namespace_of(pod)}/{name_of(pod)} on node "
                        f"{node_name}, will try to kill it",
                        component,
                    )
                    delete_pod(api, ds, pod, component)
            mine = [p for p in mine if status(p).get("phase") != "Failed"]
            if not mine:
                create_pod(api, ds, _daemon_pod(ds, node_name, revision), component)
            else:
                scheduled += 1
                for extra in mine[1:]:
                    delete_pod(api, ds, extra, component)
        else:
            for pod in mine:
                misscheduled += 1
                delete_pod(api, ds, pod, component)
    _roll_daemonset(api, ds, pods, revision, component)
    fresh = [p for p in pods if active(p)]
    ready = sum(1 for p in fresh if pod_ready(p))
    updated = sum(
        1
        for p in fresh
        if p["metadata"].get("labels", {}).get("controller-revision-hash") == revision
    )
    patch_status(
        api,
        "daemonsets.apps",
        ds,
        {
            "currentNumberScheduled": scheduled,
            "desiredNumberScheduled": desired,
            "numberMisscheduled": misscheduled,
            "numberReady": ready,
            "numberAvailable": ready,
            "numberUnavailable": max(0, desired - ready),
            "updatedNumberScheduled": updated,
            "observedGeneration": ds.get("metadata", {}).get("generation", 1),
        },
    )


def _roll_daemonset(
    api: ClusterAPI, ds: Obj, pods: list[Obj], revision: str, component: str
) -> None:
    """RollingUpdate: old unavailable pods go at once, available ones maxUnavailable at a time."""
    strategy = spec(ds).get("updateStrategy") or {}
    if strategy.get("type") == "OnDelete":
        return
    max_unavailable = (strategy.get("rollingUpdate") or {}).get("maxUnavailable", 1)
    try:
        budget = int(str(max_unavailable).rstrip("%")) if "%" not in str(max_unavailable) else 1
    except ValueError:
        budget = 1
    live = [p for p in pods if active(p)]
    old = [
        p
        for p in live
        if p["metadata"].get("labels", {}).get("controller-revision-hash") != revision
    ]
    unavailable = sum(1 for p in live if not _available(p))
    for pod in old:
        if not _available(pod):
            delete_pod(api, ds, pod, component)
    for pod in old:
        if _available(pod) and unavailable < budget:
            delete_pod(api, ds, pod, component)
            unavailable += 1
