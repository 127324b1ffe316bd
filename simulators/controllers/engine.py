"""The scheduler engine as ``runai-scheduler``: one cycle per step, through the cluster API.

The engine's cluster (nodes, queues, devices) is the one ``simulators.controllers.snapshot``
builds for the real scheduler too; this module adds the Run:ai workloads (their custom
resources, one engine workload each, their pods seated where they run), runs one cycle
(allocate, consolidate, reclaim, preempt), writes its bindings and evictions back through the
snapshot's ``write_back`` (keeping each eviction in the workload's status), and records the
engine's events with its reasons and messages. Nothing about scheduling is decided here.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.changes import Changes, QuietRun
from simulators.cluster.clock import parse_time
from simulators.controllers import runai
from simulators.controllers.snapshot import Snapshot, Writer, write_back
from simulators.controllers.util import (
    RUNAI_SCHEDULER,
    emit,
    get_or_none,
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
from simulators.engine import Action, CycleResult, EngineError, GpuRequest

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


class Model(Snapshot):
    """The engine's cluster built from the API (``Snapshot``), with the Run:ai workloads."""

    def __init__(self, api: ClusterAPI) -> None:
        super().__init__(api)
        # (project, workload name) -> the Run:ai workload
        self.workloads: dict[tuple[str, str], Obj] = {}
        self._add_workloads()

    def _add_workloads(self) -> None:
        runai_pods = [p for p in self.pods if spec(p).get("schedulerName") == RUNAI_SCHEDULER]
        projects = {name_of(p): p for p in items(self.api, runai.PROJECTS)}
        for workload in runai.all_workloads(self.api):
            project = runai.project_of(workload)
            if is_deleting(workload) or project not in self.leaves:
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
            self.seat(
                project,
                [(pod, mine[pod.name]) for pod in engine_wl.pods if pod.name in mine],
                engine_wl.gpu,
            )


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


class _Recorder(Writer):
    """The mock's writes: pipelined pods are bound at once (its kubelet starts them when the
    GPUs are free), and each eviction is kept in the workload's status, as Run:ai shows it."""

    bind_pipelined = True

    def __init__(self, model: Model) -> None:
        self.model = model
        self.now = timestamp(model.api)

    def evicted(self, action: Action, pod: Obj) -> None:
        workload = self.model.workloads.get((action.project, action.workload))
        if workload is None or action.kind != "evicted":
            return
        api = self.model.api
        record = {
            "time": self.now,
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


def _bind_and_evict(api: ClusterAPI, model: Model, result: CycleResult) -> None:
    write_back(model, result, _Recorder(model))


def _record_events(
    api: ClusterAPI, model: Model, result: CycleResult
) -> tuple[tuple[Obj, str, str, str], ...]:
    """Record the cycle's events; returns those recorded, each with what an event says of the
    object it is about (its reference's fields: what a quiet cycle keeps to record it again,
    not the whole object, which a lab's packed store would otherwise hold twice)."""
    recorded = []
    for event in result.events:
        involved = _involved(api, model, event.object_kind, event.object_name, event.project)
        if involved is None:
            continue
        type_ = "Warning" if event.type == "Warning" else "Normal"
        emit(api, involved, type_, event.reason, event.message, SOURCE)
        recorded.append((_referenced(involved), type_, event.reason, event.message))
    return tuple(recorded)


def _referenced(obj: Obj) -> Obj:
    """The fields of ``obj`` an event's reference to it reads (events.object_reference)."""
    meta = obj.get("metadata", {})
    fields = ("name", "namespace", "uid", "resourceVersion")
    kept = {key: meta[key] for key in fields if key in meta}
    return {"kind": obj.get("kind", ""), "apiVersion": obj.get("apiVersion", ""), "metadata": kept}


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
