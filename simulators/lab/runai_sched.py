"""Run:ai workloads in the lab, scheduled by the scheduler engine.

The lab keeps Run:ai projects and workloads (with each pod's status, node and
GPU devices) in its JSON-serialisable state. Every step it builds an engine
`Cluster` from that state and the cluster backend (nodes, cordons, MIG layout,
MIG strategy, device plugin health), runs one engine cycle, and copies the
result back: pod statuses and placements, events, reclaims. Then it mirrors
the pods into the backend (namespaces `runai-<project>`, scheduler
`runai-scheduler`) so kubectl sees them, drain evicts them and MIG Manager
finds them holding GPUs. Nothing about Run:ai scheduling is decided here; the
adapter only translates.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from simulators.backends.base import (
    RUNAI_SCHEDULER,
    Container,
    Event,
    Pod,
)
from simulators.backends.mock import MockBackend
from simulators.engine import (
    DEFAULT_PRIORITY,
    Cluster,
    CycleResult,
    EngineError,
    GpuRequest,
    MigStrategy,
    PodStatus,
    PoolQuota,
    WorkloadKind,
)
from simulators.engine import Node as EngineNode
from simulators.engine import Workload as EngineWorkload
from simulators.lab import gpu_operator
from simulators.lab.state import (
    RunaiEvent,
    RunaiPod,
    RunaiWorkload,
    WorldState,
    sim_datetime,
)

# Quickstart images finish on their own (Run:ai's quickstart trains for a minute);
# any other training runs until stopped, so reclaim scenarios can be staged.
QUICKSTART_STEPS = 4
HOLDING = ("Running", "Pipelined", "Releasing")


def pod_names(name: str, kind: str, pods: int) -> list[str]:
    """The engine's pod naming: llm-ft-master-0, llm-ft-worker-0; t1-0-0 otherwise."""
    if kind == WorkloadKind.DISTRIBUTED.value:
        return [f"{name}-master-0" if i == 0 else f"{name}-worker-{i - 1}" for i in range(pods)]
    return [f"{name}-0-{i}" for i in range(pods)]


def new_workload(
    state: WorldState,
    *,
    name: str,
    project: str,
    kind: str,
    image: str,
    pod_count: int = 1,
    gpus: float = 1.0,
    gpu_memory: str | None = None,
    mig_profile: str | None = None,
    created: int = 0,
    user: str = "admin",
    cli: str = "v2",
    priority: int | None = None,
    preemptible: bool | None = None,
) -> RunaiWorkload:
    """A workload as `runai submit` makes it; raises EngineError for a bad request."""
    wk = WorkloadKind(kind)
    request = gpu_request(gpus, gpu_memory, mig_profile)
    chosen = DEFAULT_PRIORITY[wk] if priority is None else priority
    state.runai.next_rank += 1
    duration = (
        QUICKSTART_STEPS
        if "quickstart" in image and wk in (WorkloadKind.TRAINING, WorkloadKind.DISTRIBUTED)
        else None
    )
    del request
    return RunaiWorkload(
        name=name,
        project=project,
        kind=wk.value,
        image=image,
        pod_count=pod_count,
        gpus=gpus,
        gpu_memory=gpu_memory,
        mig_profile=mig_profile,
        priority=chosen,
        preemptible=chosen < 100 if preemptible is None else preemptible,
        created=created,
        creation_rank=state.runai.next_rank,
        user=user,
        duration=duration,
        cli=cli,
        pods=[RunaiPod(name=n) for n in pod_names(name, wk.value, pod_count)],
        events=[
            RunaiEvent(
                time=created,
                type="Normal",
                reason="PodGroupCreated",
                message=f"Pod group pg-{name}-0 created",
                source="pod-grouper",
            )
        ],
    )


def gpu_request(gpus: float, gpu_memory: str | None, mig: str | None) -> GpuRequest:
    if mig:
        return GpuRequest.mig(mig)
    if gpu_memory:
        return GpuRequest.memory(gpu_memory)
    if gpus < 1:
        return GpuRequest.portion(gpus)
    if gpus != int(gpus):
        raise EngineError("gpu.gpus: above 1 GPU, a request must be a whole number")
    return GpuRequest.whole(int(gpus))


def add_workload(state: WorldState, backend: MockBackend, workload: RunaiWorkload) -> None:
    state.runai.workloads.append(workload)
    _mirror(state, backend)


def remove_workload(state: WorldState, backend: MockBackend, workload: RunaiWorkload) -> None:
    state.runai.workloads = [w for w in state.runai.workloads if w is not workload]
    _mirror(state, backend)


def live(state: WorldState) -> list[RunaiWorkload]:
    return [w for w in state.runai.workloads if not w.final_status]


# ---------------------------------------------------------------------------- the engine


def build_cluster(
    state: WorldState, backend: MockBackend
) -> tuple[Cluster, dict[tuple[str, str], EngineWorkload]]:
    """An engine cluster mirroring the lab state right now."""
    now = backend.now()
    clock: Callable[[], datetime] = lambda: sim_datetime(now)  # noqa: E731
    strategy: MigStrategy = "mixed" if gpu_operator.strategy(backend) == "mixed" else "single"
    cluster = Cluster(clock=clock, mig_strategy=strategy)
    kube_used = _kube_gpu_usage(backend)
    for node in backend.list_nodes():
        gpus = backend.node_gpus(node.name)
        layout = gpu_operator.current_layout(gpus)
        plugin = gpu_operator.find_ds_pod(backend, node.name, gpu_operator.DEVICE_PLUGIN)
        healthy = plugin is not None and plugin.reason != "CrashLoopBackOff"
        used = kube_used.get(node.name, 0.0)
        count = len(gpus)
        cordoned = node.unschedulable
        if used and not layout.uses_mig:
            # GPUs held by default-scheduler pods are invisible to Run:ai's scheduler
            # in this model; take them off the node so nothing is double-booked.
            count = max(0, count - int(used))
            layout = gpu_operator.current_layout(gpus[:count])
        elif used:
            cordoned = True
        cluster.add_node(
            EngineNode(
                node.name,
                gpus=count,
                labels=dict(node.labels),
                cordoned=cordoned,
                mig_layout=layout,
                gpu_operator_healthy=healthy,
            )
        )
    departments = sorted({p.department for p in state.runai.projects})
    for dept in departments:
        cluster.add_department(dept)
    for project in sorted(state.runai.projects, key=lambda p: p.created):
        cluster.add_project(
            project.name,
            department=project.department,
            quotas={
                "default": PoolQuota(
                    deserved=project.quota,
                    over_quota_weight=project.over_quota_weight,
                    limit=project.limit,
                )
            },
        )
    mapping: dict[tuple[str, str], EngineWorkload] = {}
    for wl in sorted(live(state), key=lambda w: w.creation_rank):
        engine_wl = cluster.submit(
            wl.name,
            wl.project,
            kind=wl.kind,
            gpu=gpu_request(wl.gpus, wl.gpu_memory, wl.mig_profile),
            pods=wl.pod_count,
            priority=wl.priority,
            preemptible=wl.preemptible,
            image=wl.image,
        )
        engine_wl.created_at = sim_datetime(wl.created)
        for lab_pod, pod in zip(wl.pods, engine_wl.pods, strict=True):
            pod.status = PodStatus(lab_pod.status)
            pod.node = lab_pod.node
            pod.devices = tuple(lab_pod.devices)
            pod.portion = lab_pod.portion
            pod.extended_resource = lab_pod.extended_resource
            pod.started_at = sim_datetime(lab_pod.started) if lab_pod.started is not None else None
        mapping[(wl.project, wl.name)] = engine_wl
    return cluster, mapping


def _kube_gpu_usage(backend: MockBackend) -> dict[str, float]:
    used: dict[str, float] = {}
    for pod in backend.list_pods():
        if pod.scheduler_name == RUNAI_SCHEDULER or not pod.node_name:
            continue
        if pod.phase in ("Succeeded", "Failed"):
            continue
        amount = sum(pod.gpu_resources().values())
        if amount:
            used[pod.node_name] = used.get(pod.node_name, 0.0) + amount
    return used


def reconcile(state: WorldState, backend: MockBackend) -> None:
    """One Run:ai step: notice deleted pods, finish quickstarts, run the engine, mirror."""
    if not state.runai.workloads:
        return
    now = backend.now()
    for wl in live(state):
        for pod in wl.pods:
            if pod.status in HOLDING and backend.get_pod(wl.namespace, pod.name) is None:
                # Deleted or evicted (kubectl delete, drain): the workload controller
                # recreates the pod and it waits for the scheduler again.
                reset_pod(pod)
    _finish_quickstarts(state, now)
    cluster, mapping = build_cluster(state, backend)
    try:
        result = cluster.run_cycle()
    except EngineError:
        # A state the engine refuses (should not happen) must not break the terminal.
        _mirror(state, backend)
        return
    _copy_back(state, backend, mapping, result, now)
    _mirror(state, backend)


def reset_pod(pod: RunaiPod) -> None:
    pod.status = "Pending"
    pod.node = None
    pod.devices = []
    pod.portion = 0.0
    pod.extended_resource = None
    pod.started = None
    pod.run_steps = 0


def _finish_quickstarts(state: WorldState, now: int) -> None:
    for wl in live(state):
        if wl.duration is None:
            continue
        if any(p.status != "Running" for p in wl.pods):
            continue
        for pod in wl.pods:
            pod.run_steps += 1
        if all(p.run_steps >= wl.duration for p in wl.pods):
            wl.final_status = "Completed"
            for pod in wl.pods:
                pod.status = "Succeeded"
            wl.events.append(
                RunaiEvent(
                    time=now,
                    type="Normal",
                    reason="Completed",
                    message="All pods completed successfully",
                    source="workload-controller",
                )
            )


def _copy_back(
    state: WorldState,
    backend: MockBackend,
    mapping: dict[tuple[str, str], EngineWorkload],
    result: CycleResult,
    now: int,
) -> None:
    by_key = {(w.project, w.name): w for w in live(state)}
    for key, engine_wl in mapping.items():
        wl = by_key[key]
        before_running = wl.running_pods
        for lab_pod, pod in zip(wl.pods, engine_wl.pods, strict=True):
            lab_pod.status = pod.status.value
            lab_pod.node = pod.node
            lab_pod.devices = list(pod.devices)
            lab_pod.portion = pod.portion
            lab_pod.extended_resource = pod.extended_resource
            if pod.status == PodStatus.RUNNING and lab_pod.started is None:
                lab_pod.started = now
            if pod.status == PodStatus.PENDING:
                lab_pod.started = None
                lab_pod.run_steps = 0
        # A gang start: every pod went to Running in this one cycle.
        if wl.running_pods == wl.pod_count and before_running == 0:
            wl.gang_starts.append(now)
    for event in result.events:
        owner = by_key.get((event.project, _workload_of(event.object_name, mapping, event.project)))
        if owner is None:
            continue
        pod_name = event.object_name if event.object_kind == "Pod" else ""
        _add_event(owner, RunaiEvent(now, event.type, event.reason, event.message, pod_name))
        if event.object_kind == "Pod":
            backend.record_event(
                Event(
                    namespace=owner.namespace,
                    kind="Pod",
                    name=event.object_name,
                    type=event.type,
                    reason=event.reason,
                    message=event.message,
                    source="runai-scheduler",
                    first_seen=now,
                    last_seen=now,
                )
            )
    for action in result.actions:
        if action.kind == "evicted":
            victim = by_key.get((action.project, action.workload))
            if victim is not None:
                victim.evictions.append(
                    f"{now}|{action.reason.value}|{action.by_project}|{action.by_workload}"
                )


def _workload_of(
    object_name: str, mapping: dict[tuple[str, str], EngineWorkload], project: str
) -> str:
    for (proj, name), engine_wl in mapping.items():
        if proj != project:
            continue
        if name == object_name or any(p.name == object_name for p in engine_wl.pods):
            return name
    return object_name


def _add_event(wl: RunaiWorkload, event: RunaiEvent) -> None:
    for existing in reversed(wl.events):
        if existing.pod == event.pod:
            if existing.reason == event.reason and existing.message == event.message:
                existing.count += 1
                existing.time = event.time
                return
            break
    wl.events.append(event)
    if len(wl.events) > 60:
        wl.events = wl.events[-60:]


# ---------------------------------------------------------------------------- mirroring


def _pod_phase(status: str) -> tuple[str, str]:
    return {
        "Running": ("Running", ""),
        "Pipelined": ("Pending", "ContainerCreating"),
        "Releasing": ("Running", "Terminating"),
        "Succeeded": ("Succeeded", "Completed"),
        "Pending": ("Pending", ""),
    }.get(status, ("Pending", ""))


def sync(state: WorldState, backend: MockBackend) -> None:
    """Mirror the workloads into the backend now (after a submit, delete or suspend)."""
    _mirror(state, backend)


def _mirror(state: WorldState, backend: MockBackend) -> None:
    """Make the backend's runai-<project> pods match the lab's workloads."""
    wanted: dict[tuple[str, str], tuple[RunaiWorkload, RunaiPod]] = {}
    for wl in state.runai.workloads:
        if wl.final_status == "Suspended":
            continue
        for lab_pod in wl.pods:
            wanted[(wl.namespace, lab_pod.name)] = (wl, lab_pod)
    for pod in backend.list_pods():
        if pod.scheduler_name == RUNAI_SCHEDULER and (pod.namespace, pod.name) not in wanted:
            backend.delete_pod(pod.namespace, pod.name)
    for (namespace, name), (wl, lab_pod) in wanted.items():
        existing = backend.get_pod(namespace, name)
        phase, reason = _pod_phase(lab_pod.status)
        if existing is None:
            existing = Pod(
                name=name,
                namespace=namespace,
                containers=[_container(wl)],
                labels={
                    "project": wl.project,
                    "runai/queue": wl.project,
                    "workloadKind": _kind_label(wl),
                    "workloadName": wl.name,
                    "user": wl.user,
                },
                owner_kind="RunaiWorkload",
                owner_name=wl.name,
                scheduler_name=RUNAI_SCHEDULER,
                created=wl.created if lab_pod.started is None else lab_pod.started,
                priority=0,
            )
            backend.create_pod(existing)
        existing.phase = phase
        existing.reason = reason
        existing.node_name = lab_pod.node
        existing.started = lab_pod.started
        existing.ip = gpu_operator.pod_ip(state.seed, namespace, name) if lab_pod.node else None
        if phase == "Running" and not existing.logs:
            existing.logs = _logs(wl)


def _kind_label(wl: RunaiWorkload) -> str:
    return {
        "workspace": "InteractiveWorkload",
        "training": "TrainingWorkload",
        "distributed": "DistributedWorkload",
        "inference": "InferenceWorkload",
    }[wl.kind]


def _container(wl: RunaiWorkload) -> Container:
    limits: dict[str, str] = {}
    if wl.mig_profile:
        limits[f"nvidia.com/mig-{wl.mig_profile}"] = "1"
    elif not wl.gpu_memory and wl.gpus >= 1:
        limits["nvidia.com/gpu"] = str(int(wl.gpus))
    # Fractions are not a Kubernetes resource: Run:ai's scheduler tracks them itself
    # (gpu-fraction annotation), which is why kubectl shows no nvidia.com/gpu limit.
    return Container(name=wl.name, image=wl.image, limits=limits, requests=dict(limits))


def _logs(wl: RunaiWorkload) -> list[str]:
    if "quickstart" in wl.image:
        return [
            "Epoch 1/2",
            "1875/1875 [==============================] - 9s 4ms/step - loss: 0.2150 - acc: 0.9364",
            "Epoch 2/2",
            "1875/1875 [==============================] - 8s 4ms/step - loss: 0.0885 - acc: 0.9731",
            "Training complete.",
        ]
    if wl.kind == "workspace":
        return [
            "[I 09:38:12.441 ServerApp] Jupyter Server 2.14.2 is running at:",
            f"[I 09:38:12.441 ServerApp] http://{wl.name}-0-0:8888/lab",
        ]
    return [
        "[rank0]: NCCL INFO Using network IB",
        "[rank0]: epoch 1 step 100 loss 2.913",
    ]


def engine_view(state: WorldState, backend: MockBackend) -> Cluster:
    """An engine cluster for read-only questions (explain) about the current state."""
    cluster, _ = build_cluster(state, backend)
    return cluster
