"""The engine's model of a real cluster: the workloads, read from pods as KAI reads them.

Nodes, devices and queues are read by ``simulators.controllers.snapshot``, as for the mock's
``runai-scheduler`` controller; what differs is where a workload comes from. The mock reads Run:ai
workload custom resources, which a real cluster may not have, so this model reads what KAI
Scheduler reads:

- pods with ``schedulerName: runai-scheduler`` and the label ``runai/queue: <project>``, grouped
  into one engine workload per PodGroup (the pod's ``pod-group-name`` annotation; the group's
  ``minMember`` makes a gang) or one per pod without a group; only pods of leaf queues;
- a pod's GPU request: ``nvidia.com/gpu`` (whole GPUs), ``nvidia.com/mig-<profile>``, or the
  ``gpu-fraction`` / ``gpu-memory`` annotations (``snapshot.pod_gpu_request``);
- a gang's node pools: its PodGroup's owning Run:ai workload's ``nodePools`` (else its
  project's defaults), tried in order; a pod without such a workload, its node-pool selector.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from simulators.cluster.api import ClusterAPI, Obj
from simulators.cluster.clock import parse_time
from simulators.controllers import runai
from simulators.controllers.snapshot import (
    QUEUE_LABEL,
    Snapshot,
    pod_gpu_request,
    read_all,
)
from simulators.controllers.util import (
    RUNAI_SCHEDULER,
    annotations_of,
    is_deleting,
    labels_of,
    name_of,
    namespace_of,
    spec,
    status,
)
from simulators.engine import EngineError

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

_REF = re.compile(r"runai-[a-z0-9.-]+/[A-Za-z0-9._-]+")


@dataclass
class Group:
    """The API's pods of one engine workload (sorted by name: the engine's pod order)."""

    namespace: str
    name: str
    project: str
    pods: list[Obj] = field(default_factory=list)
    podgroup: Obj | None = None


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


class PodModel(Snapshot):
    """The engine's ``Cluster`` for one cycle (``Snapshot``), with the pods' workloads."""

    def __init__(self, api: ClusterAPI, now: datetime | None = None) -> None:
        super().__init__(api, now)
        self.groups: dict[tuple[str, str], Group] = {}
        # Pods on their way out that still hold GPUs (evicted or deleted, not yet stopped).
        self.terminating = [
            p
            for p in self.pods
            if is_deleting(p) and spec(p).get("nodeName") and pod_gpu_request(p) is not None
        ]
        # "runai-<project>/<engine pod>" (how the engine names a pod in its messages) -> the
        # API's "namespace/name"
        self.refs: dict[str, str] = {}
        # The Run:ai workloads that own PodGroups, by uid: a gang's node pools are theirs.
        self.owners = {
            str(w["metadata"].get("uid")): w
            for resource in runai.WORKLOAD_RESOURCES.values()
            for w in read_all(api, resource)
        }
        self.projects = {name_of(p): p for p in read_all(api, runai.PROJECTS)}
        self._add_workloads()

    def _add_workloads(self) -> None:
        podgroups = {(namespace_of(g), name_of(g)): g for g in read_all(self.api, runai.PODGROUPS)}
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
        if group.project not in self.leaves:
            return  # KAI schedules jobs of leaf queues only
        first = group.pods[0]
        bound = [p for p in group.pods if spec(p).get("nodeName")]
        members = len(group.pods)
        try:
            min_member = int(spec(group.podgroup or {}).get("minMember") or 1)
        except (TypeError, ValueError):
            min_member = 1
        if members < min_member and not bound:
            return  # the gang is not all there yet: nothing to place until it is
        request = pod_gpu_request(first)
        if request is None:
            return
        try:
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
        pairs = list(zip(workload.pods, group.pods, strict=True))
        for engine_pod, api_pod in pairs:
            self.refs[f"{engine_pod.namespace}/{engine_pod.name}"] = (
                f"{namespace_of(api_pod)}/{name_of(api_pod)}"
            )
        self.seat(group.project, pairs, workload.gpu)

    def _pools(self, group: Group, first: Obj) -> list[str]:
        """The node pools a gang may use, in order: its Run:ai workload's (the PodGroup's
        owner), else the pool its pods select, else default."""
        owners = (group.podgroup or {}).get("metadata", {}).get("ownerReferences") or []
        uids = [str(owner.get("uid")) for owner in owners if isinstance(owner, dict)]
        workload = next((self.owners[uid] for uid in uids if uid in self.owners), None)
        if workload is None:
            return [_pool(first, self.cluster.pools)]
        pools = runai.node_pools_of(workload, self.projects.get(runai.project_of(workload)))
        for pool in pools:
            self.cluster.ensure_node_pool(pool)
        return list(dict.fromkeys(pools))

    # ------------------------------------------------------------------ back to the API
    def message(self, text: str) -> str:
        """An engine message with the API's pod names in it."""
        return _REF.sub(lambda m: self.refs.get(m.group(0), m.group(0)), text)


def _created(group: Group) -> tuple[str, str, str]:
    stamp = min(str(p["metadata"].get("creationTimestamp", "")) for p in group.pods)
    return (stamp, group.namespace, group.name)


def _pool(pod: Obj, pools: Mapping[str, object]) -> str:
    selector = spec(pod).get("nodeSelector") or {}
    for key in POOL_LABELS:
        if selector.get(key) in pools:
            return str(selector[key])
    return DEFAULT_POOL
