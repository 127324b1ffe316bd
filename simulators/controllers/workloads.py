"""kube-controller-manager's workload controllers: Deployment, ReplicaSet, Job, StatefulSet,
and (from ``daemonset``) DaemonSet. Each keeps its pods as the real one does, with its events and
status; what they share is in ``workload_pods``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.patches import deep_copy
from simulators.controllers.daemonset import run_daemonsets
from simulators.controllers.revisions import ensure_revision
from simulators.controllers.util import (
    emit,
    is_deleting,
    items,
    name_of,
    namespace_of,
    owner_ref,
    spec,
    status,
    timestamp,
    uid_of,
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

__all__ = [
    "run_daemonsets",
    "run_deployments",
    "run_jobs",
    "run_replicasets",
    "run_statefulsets",
    "template_hash",
]


# ---------------------------------------------------------------------------- ReplicaSet

# kube-controller-manager's replicaset.BurstReplicas: the most pods one sync creates or deletes.
BURST_REPLICAS = 500


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
        # manageReplicas: at most BurstReplicas per sync, and slowStartBatch gives up on the
        # first refused create (a quota, say) instead of trying every other one.
        for _ in range(min(want - len(live), BURST_REPLICAS)):
            created = create_pod(
                api, rs, pod_from_template(rs, template, generate=f"{name_of(rs)}-"), component
            )
            if created is None:
                break
            live.append(created)
    elif len(live) > want:
        for pod in sorted(live, key=_delete_order)[: min(len(live) - want, BURST_REPLICAS)]:
            delete_pod(api, rs, pod, component)
            live.remove(pod)
    ready = sum(1 for p in live if pod_ready(p))
    patch_status(
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
    # A condition takes the time only when it changes: a settled Deployment never reads it.
    now = functools.partial(timestamp, api)
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
    patch_status(api, "deployments.apps", deploy, wanted)


def _deploy_condition(
    deploy: Obj, kind: str, value: bool, reason: str, message: str, now: Callable[[], str]
) -> dict[str, Any]:
    prior = next((c for c in status(deploy).get("conditions") or [] if c.get("type") == kind), None)
    flag = "True" if value else "False"
    same = prior is not None and prior.get("status") == flag
    unchanged = same and prior is not None and prior.get("reason") == reason
    return {
        "type": kind,
        "status": flag,
        "lastUpdateTime": prior["lastUpdateTime"]
        if unchanged and prior and "lastUpdateTime" in prior
        else now(),
        "lastTransitionTime": prior["lastTransitionTime"]
        if same and prior and "lastTransitionTime" in prior
        else now(),
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
    wanted: dict[str, Any] = {
        "active": len(live) or None,
        "ready": sum(1 for p in live if pod_ready(p)),
        "succeeded": succeeded or None,
        "failed": failed or None,
        "terminating": sum(1 for p in pods if is_deleting(p)),
        "uncountedTerminatedPods": {},
        "startTime": jstatus.get("startTime") or timestamp(api),
    }
    if complete:
        return
    if succeeded >= completions:
        now = timestamp(api)
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
        created = create_pod(
            api, job, pod_from_template(job, template, generate=f"{name_of(job)}-"), component
        )
        if created is not None:
            wanted["active"] = 1
    patch_status(api, "jobs.batch", job, wanted)


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
    hash_ = template_hash(spec(sts).get("template"), owner=sts)
    revision = f"{name_of(sts)}-{hash_}"
    ensure_revision(api, sts, "StatefulSet", hash_)
    by_name = {name_of(p): p for p in pods}
    for ordinal in range(want):
        pod_name = f"{name_of(sts)}-{ordinal}"
        existing = by_name.get(pod_name)
        if existing is not None:
            if not pod_ready(existing):
                break  # OrderedReady: the next ordinal waits for this one
            continue
        template = deep_copy(spec(sts).get("template") or {})
        pod = pod_from_template(sts, template, name=pod_name)
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
    patch_status(
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
