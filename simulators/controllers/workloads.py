"""kube-controller-manager's workload controllers: DaemonSet, Deployment, ReplicaSet, Job,
StatefulSet. Each keeps its pods as the real one does, with its events and status.
"""

from __future__ import annotations

import json
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.patches import deep_copy
from simulators.controllers.util import (
    SAFE_ALPHABET,
    controller_of,
    emit,
    is_deleting,
    items,
    matches_node_selector,
    name_of,
    namespace_of,
    owned_by,
    owner_ref,
    spec,
    stable_hash,
    status,
    timestamp,
    uid_of,
    untolerated_taint,
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


_HASHES: dict[str, str] = {}


def template_hash(template: Any, collisions: int = 0, owner: Obj | None = None) -> str:
    """A pod template's hash as Kubernetes renders it: a 32-bit number, safe-encoded digit by
    digit (hence names like ``coredns-7c9f6d8b5``). With `owner`, remembered per generation."""
    key = ""
    if owner is not None:
        meta = owner.get("metadata", {})
        key = f"{meta.get('uid')}/{meta.get('generation')}/{collisions}"
        cached = _HASHES.get(key)
        if cached is not None:
            return cached
    text = json.dumps(template, sort_keys=True, separators=(",", ":"))
    key = key or f"{collisions}|{text}"
    number = stable_hash("template", text, collisions) % (2**32)
    result = "".join(SAFE_ALPHABET[ord(ch) % len(SAFE_ALPHABET)] for ch in str(number))
    if len(_HASHES) > 4096:
        _HASHES.clear()
    _HASHES[key] = result
    return result


def pod_ready(pod: Obj) -> bool:
    for cond in status(pod).get("conditions") or []:
        if cond.get("type") == "Ready":
            return bool(cond.get("status") == "True")
    return False


def active(pod: Obj) -> bool:
    return not is_deleting(pod) and status(pod).get("phase") not in ("Succeeded", "Failed")


def _pod_from_template(
    owner: Obj, template: dict[str, Any], *, name: str = "", generate: str = ""
) -> Obj:
    tmeta = template.get("metadata") or {}
    meta: dict[str, Any] = {
        "namespace": namespace_of(owner),
        "labels": dict(tmeta.get("labels") or {}),
        "ownerReferences": [owner_ref(owner)],
    }
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    if name:
        meta["name"] = name
    else:
        meta["generateName"] = generate
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": deep_copy(template.get("spec") or {}),
    }


def _create_pod(api: ClusterAPI, owner: Obj, pod: Obj, component: str) -> Obj | None:
    try:
        created = api.create("pods", pod, namespace_of(owner))
    except ApiError as exc:
        emit(api, owner, "Warning", "FailedCreate", f"Error creating: {exc.message}", component)
        return None
    emit(api, owner, "Normal", "SuccessfulCreate", f"Created pod: {name_of(created)}", component)
    return created


def _delete_pod(api: ClusterAPI, owner: Obj, pod: Obj, component: str) -> None:
    try:
        api.delete("pods", name_of(pod), namespace_of(pod))
    except ApiError as exc:
        if exc.code == 404:
            return
        raise
    emit(api, owner, "Normal", "SuccessfulDelete", f"Deleted pod: {name_of(pod)}", component)


def _patch_status(api: ClusterAPI, resource: str, obj: Obj, wanted: dict[str, Any]) -> None:
    current = status(obj)
    if all(current.get(k) == v for k, v in wanted.items()):
        return
    try:
        api.patch(
            resource, name_of(obj), {"status": wanted}, namespace_of(obj), subresource="status"
        )
    except ApiError as exc:
        if exc.code != 404:
            raise


def _owned_pods(pods: list[Obj], owner: Obj) -> list[Obj]:
    return [p for p in pods if namespace_of(p) == namespace_of(owner) and owned_by(p, owner)]


def by_owner(objs: list[Obj]) -> dict[str, list[Obj]]:
    """Objects grouped by their controller's uid (one pass instead of one per owner)."""
    out: dict[str, list[Obj]] = {}
    for obj in objs:
        ref = controller_of(obj)
        if ref is not None:
            out.setdefault(str(ref.get("uid", "")), []).append(obj)
    return out


# ---------------------------------------------------------------------------- DaemonSet


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
    pod = _pod_from_template(ds, template, generate=f"{name_of(ds)}-")
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
                    _delete_pod(api, ds, pod, component)
            mine = [p for p in mine if status(p).get("phase") != "Failed"]
            if not mine:
                _create_pod(api, ds, _daemon_pod(ds, node_name, revision), component)
            else:
                scheduled += 1
                for extra in mine[1:]:
                    _delete_pod(api, ds, extra, component)
        else:
            for pod in mine:
                misscheduled += 1
                _delete_pod(api, ds, pod, component)
    _roll_daemonset(api, ds, pods, revision, component)
    fresh = [p for p in pods if active(p)]
    ready = sum(1 for p in fresh if pod_ready(p))
    updated = sum(
        1
        for p in fresh
        if p["metadata"].get("labels", {}).get("controller-revision-hash") == revision
    )
    _patch_status(
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
            _delete_pod(api, ds, pod, component)
    for pod in old:
        if _available(pod) and unavailable < budget:
            _delete_pod(api, ds, pod, component)
            unavailable += 1


# ---------------------------------------------------------------------------- ReplicaSet


def run_replicasets(api: ClusterAPI) -> None:
    owned = by_owner(items(api, "pods"))
    for rs in items(api, "replicasets.apps"):
        if is_deleting(rs):
            continue
        _sync_replicaset(api, rs, owned.get(uid_of(rs), []))


def _delete_order(pod: Obj) -> tuple[int, int, str]:
    # controller.ActivePods ordering, simplified: unscheduled, then not ready, then newest.
    return (
        0 if not spec(pod).get("nodeName") else 1,
        0 if not pod_ready(pod) else 1,
        "".join(chr(255 - ord(c)) for c in str(pod["metadata"].get("creationTimestamp", ""))),
    )


def _sync_replicaset(api: ClusterAPI, rs: Obj, pods: list[Obj]) -> None:
    component = "replicaset-controller"
    want = int(spec(rs).get("replicas", 1))
    live = [p for p in pods if active(p)]
    if len(live) < want:
        template = spec(rs).get("template") or {}
        for _ in range(want - len(live)):
            created = _create_pod(
                api, rs, _pod_from_template(rs, template, generate=f"{name_of(rs)}-"), component
            )
            if created is not None:
                live.append(created)
    elif len(live) > want:
        for pod in sorted(live, key=_delete_order)[: len(live) - want]:
            _delete_pod(api, rs, pod, component)
            live.remove(pod)
    ready = sum(1 for p in live if pod_ready(p))
    _patch_status(
        api,
        "replicasets.apps",
        rs,
        {
            "replicas": len(live),
            "fullyLabeledReplicas": len(live),
            "readyReplicas": ready,
            "availableReplicas": ready,
            "observedGeneration": rs.get("metadata", {}).get("generation", 1),
        },
    )


# ---------------------------------------------------------------------------- Deployment


def run_deployments(api: ClusterAPI) -> None:
    owned = by_owner(items(api, "replicasets.apps"))
    for deploy in items(api, "deployments.apps"):
        if is_deleting(deploy):
            continue
        _sync_deployment(api, deploy, owned.get(uid_of(deploy), []))


def _revision(rs: Obj) -> int:
    try:
        return int(
            rs.get("metadata", {})
            .get("annotations", {})
            .get("deployment.kubernetes.io/revision", "0")
        )
    except ValueError:
        return 0


def _sync_deployment(api: ClusterAPI, deploy: Obj, owned: list[Obj]) -> None:
    component = "deployment-controller"
    dspec = spec(deploy)
    want = int(dspec.get("replicas", 1))
    template = dspec.get("template") or {}
    pth = template_hash(template, int(status(deploy).get("collisionCount", 0)), owner=deploy)
    new_name = f"{name_of(deploy)}-{pth}"
    new = next((r for r in owned if name_of(r) == new_name), None)
    revision = max([_revision(r) for r in owned], default=0)
    if new is None:
        rs_template = deep_copy(template)
        rs_template.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = pth
        selector = deep_copy(dspec.get("selector") or {"matchLabels": {}})
        selector.setdefault("matchLabels", {})["pod-template-hash"] = pth
        rs_obj: Obj = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": new_name,
                "namespace": namespace_of(deploy),
                "labels": dict(rs_template["metadata"]["labels"]),
                "annotations": {
                    "deployment.kubernetes.io/desired-replicas": str(want),
                    "deployment.kubernetes.io/max-replicas": str(want + max(1, want // 4)),
                    "deployment.kubernetes.io/revision": str(revision + 1),
                },
                "ownerReferences": [owner_ref(deploy)],
            },
            "spec": {"replicas": want, "selector": selector, "template": rs_template},
        }
        try:
            new = api.create("replicasets.apps", rs_obj, namespace_of(deploy))
        except ApiError as exc:
            emit(
                api, deploy, "Warning", "FailedCreate", f"Error creating: {exc.message}", component
            )
            return
        emit(
            api,
            deploy,
            "Normal",
            "ScalingReplicaSet",
            f"Scaled up replica set {new_name} to {want} from 0",
            component,
        )
        owned = [*owned, new]
    elif int(spec(new).get("replicas", 0)) != want:
        before = int(spec(new).get("replicas", 0))
        api.patch("replicasets.apps", new_name, {"spec": {"replicas": want}}, namespace_of(deploy))
        verb = "up" if want > before else "down"
        emit(
            api,
            deploy,
            "Normal",
            "ScalingReplicaSet",
            f"Scaled {verb} replica set {new_name} to {want} from {before}",
            component,
        )
    revision_text = str(_revision(new))
    annotations = deploy.get("metadata", {}).get("annotations") or {}
    if annotations.get("deployment.kubernetes.io/revision") != revision_text:
        api.patch(
            "deployments.apps",
            name_of(deploy),
            {"metadata": {"annotations": {"deployment.kubernetes.io/revision": revision_text}}},
            namespace_of(deploy),
        )
    new_available = int(status(new).get("availableReplicas", 0))
    for old in owned:
        if name_of(old) == new_name or int(spec(old).get("replicas", 0)) == 0:
            continue
        if new_available >= want:
            before = int(spec(old).get("replicas", 0))
            api.patch(
                "replicasets.apps", name_of(old), {"spec": {"replicas": 0}}, namespace_of(old)
            )
            emit(
                api,
                deploy,
                "Normal",
                "ScalingReplicaSet",
                f"Scaled down replica set {name_of(old)} to 0 from {before}",
                component,
            )
    total = sum(int(status(r).get("replicas", 0)) for r in owned)
    ready = sum(int(status(r).get("readyReplicas", 0)) for r in owned)
    available = sum(int(status(r).get("availableReplicas", 0)) for r in owned)
    now = timestamp(api)
    conditions = [
        _deploy_condition(
            deploy,
            "Available",
            available >= want,
            "MinimumReplicasAvailable" if available >= want else "MinimumReplicasUnavailable",
            "Deployment has minimum availability."
            if available >= want
            else "Deployment does not have minimum availability.",
            now,
        ),
        _deploy_condition(
            deploy,
            "Progressing",
            True,
            "NewReplicaSetAvailable" if new_available >= want else "ReplicaSetUpdated",
            f'ReplicaSet "{new_name}" has successfully progressed.'
            if new_available >= want
            else f'ReplicaSet "{new_name}" is progressing.',
            now,
        ),
    ]
    wanted: dict[str, Any] = {
        "observedGeneration": deploy.get("metadata", {}).get("generation", 1),
        "replicas": total,
        "updatedReplicas": int(status(new).get("replicas", 0)),
        "readyReplicas": ready,
        "availableReplicas": available,
        "conditions": conditions,
    }
    if total - available > 0:
        wanted["unavailableReplicas"] = total - available
    elif "unavailableReplicas" in status(deploy):
        wanted["unavailableReplicas"] = None
    _patch_status(api, "deployments.apps", deploy, wanted)


def _deploy_condition(
    deploy: Obj, kind: str, value: bool, reason: str, message: str, now: str
) -> dict[str, Any]:
    prior = next((c for c in status(deploy).get("conditions") or [] if c.get("type") == kind), None)
    flag = "True" if value else "False"
    same = prior is not None and prior.get("status") == flag
    unchanged = same and prior is not None and prior.get("reason") == reason
    return {
        "type": kind,
        "status": flag,
        "lastUpdateTime": prior.get("lastUpdateTime", now) if unchanged and prior else now,
        "lastTransitionTime": prior.get("lastTransitionTime", now) if same and prior else now,
        "reason": reason,
        "message": message,
    }


# ---------------------------------------------------------------------------- Job


def run_jobs(api: ClusterAPI) -> None:
    owned = by_owner(items(api, "pods"))
    for job in items(api, "jobs.batch"):
        if is_deleting(job):
            continue
        _sync_job(api, job, owned.get(uid_of(job), []))


def _sync_job(api: ClusterAPI, job: Obj, pods: list[Obj]) -> None:
    component = "job-controller"
    jstatus = status(job)
    complete = any(
        c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
        for c in jstatus.get("conditions") or []
    )
    completions = int(spec(job).get("completions", 1) or 1)
    succeeded = sum(1 for p in pods if status(p).get("phase") == "Succeeded")
    failed = sum(1 for p in pods if status(p).get("phase") == "Failed")
    live = [p for p in pods if active(p)]
    now = timestamp(api)
    wanted: dict[str, Any] = {
        "active": len(live) or None,
        "ready": sum(1 for p in live if pod_ready(p)),
        "succeeded": succeeded or None,
        "failed": failed or None,
        "terminating": sum(1 for p in pods if is_deleting(p)),
        "uncountedTerminatedPods": {},
        "startTime": jstatus.get("startTime") or now,
    }
    if complete:
        return
    if succeeded >= completions:
        wanted["completionTime"] = now
        wanted["conditions"] = [
            {
                "type": "SuccessCriteriaMet",
                "status": "True",
                "lastProbeTime": now,
                "lastTransitionTime": now,
            },
            {"type": "Complete", "status": "True", "lastProbeTime": now, "lastTransitionTime": now},
        ]
        wanted["active"] = None
        emit(api, job, "Normal", "Completed", "Job completed", component)
    elif not live and failed <= int(spec(job).get("backoffLimit", 6)):
        template = deep_copy(spec(job).get("template") or {})
        labels = template.setdefault("metadata", {}).setdefault("labels", {})
        labels.update(
            {
                "batch.kubernetes.io/controller-uid": uid_of(job),
                "batch.kubernetes.io/job-name": name_of(job),
                "controller-uid": uid_of(job),
                "job-name": name_of(job),
            }
        )
        created = _create_pod(
            api, job, _pod_from_template(job, template, generate=f"{name_of(job)}-"), component
        )
        if created is not None:
            wanted["active"] = 1
    _patch_status(api, "jobs.batch", job, wanted)


# ---------------------------------------------------------------------------- StatefulSet


def run_statefulsets(api: ClusterAPI) -> None:
    owned = by_owner(items(api, "pods"))
    for sts in items(api, "statefulsets.apps"):
        if is_deleting(sts):
            continue
        _sync_statefulset(api, sts, owned.get(uid_of(sts), []))


def _sync_statefulset(api: ClusterAPI, sts: Obj, pods: list[Obj]) -> None:
    component = "statefulset-controller"
    want = int(spec(sts).get("replicas", 1))
    revision = f"{name_of(sts)}-{template_hash(spec(sts).get('template'), owner=sts)}"
    by_name = {name_of(p): p for p in pods}
    for ordinal in range(want):
        pod_name = f"{name_of(sts)}-{ordinal}"
        existing = by_name.get(pod_name)
        if existing is not None:
            if not pod_ready(existing):
                break  # OrderedReady: the next ordinal waits for this one
            continue
        template = deep_copy(spec(sts).get("template") or {})
        pod = _pod_from_template(sts, template, name=pod_name)
        labels = pod["metadata"]["labels"]
        labels.update(
            {
                "apps.kubernetes.io/pod-index": str(ordinal),
                "controller-revision-hash": revision,
                "statefulset.kubernetes.io/pod-name": pod_name,
            }
        )
        pod["spec"]["hostname"] = pod_name
        try:
            api.create("pods", pod, namespace_of(sts))
        except ApiError as exc:
            if exc.code == 409:
                break
            raise
        emit(
            api,
            sts,
            "Normal",
            "SuccessfulCreate",
            f"create Pod {pod_name} in StatefulSet {name_of(sts)} successful",
            component,
        )
        break
    live = [p for p in pods if active(p)]
    ready = sum(1 for p in live if pod_ready(p))
    _patch_status(
        api,
        "statefulsets.apps",
        sts,
        {
            "replicas": len(live),
            "readyReplicas": ready,
            "currentReplicas": len(live),
            "updatedReplicas": len(live),
            "availableReplicas": ready,
            "currentRevision": revision,
            "updateRevision": revision,
            "observedGeneration": sts.get("metadata", {}).get("generation", 1),
        },
    )
