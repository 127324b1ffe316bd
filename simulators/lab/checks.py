"""Checklist checks: predicates over the cluster API, never over the commands typed.

Keyed by (ticket id, checklist item id). Any order of commands that reaches the state passes;
a check that needs history (a training completed, a reclaim happened) reads what the cluster
recorded (a workload's phase, its ``status.evictions`` and ``status.gangStarts``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.clock import EPOCH, parse_time
from simulators.controllers import (
    devices,
    gpu_state,
    hardware,
    image_pull,
    mig_manager,
    runai,
)
from simulators.controllers.util import gpu_requests, items, labels_of, spec, status
from simulators.engine.mig import NAMED_LAYOUTS
from simulators.lab import (
    checks_access,
    checks_common,
    checks_fabric,
    checks_files,
    checks_health,
    checks_runtime,
    checks_stack,
)
from simulators.lab.world import World

Check = Callable[[World], bool]


def _node(api: ClusterAPI, name: str) -> Obj | None:
    try:
        return api.get("nodes", name)
    except ApiError:
        return None


def _layout_applied(api: ClusterAPI, node_name: str, layout_name: str) -> bool:
    node = _node(api, node_name)
    if node is None:
        return False
    labels = labels_of(node)
    if labels.get(mig_manager.CONFIG_LABEL) != layout_name:
        return False
    if labels.get(mig_manager.STATE_LABEL) != "success":
        return False
    layouts = mig_manager.available_layouts(api) or dict(NAMED_LAYOUTS)
    layout = layouts.get(layout_name) or NAMED_LAYOUTS.get(layout_name)
    return layout is not None and hardware.layout_matches(layout, node)


def _plugin_running(api: ClusterAPI, node_name: str) -> bool:
    pods = items(
        api, "pods", devices.GPU_OPERATOR_NS, label_selector=f"app={devices.DEVICE_PLUGIN_APP}"
    )
    for pod in pods:
        if spec(pod).get("nodeName") != node_name or pod["metadata"].get("deletionTimestamp"):
            continue
        statuses = status(pod).get("containerStatuses") or []
        if statuses and all(
            c.get("ready") and "running" in (c.get("state") or {}) for c in statuses
        ):
            return True
    return False


def _allocatable(api: ClusterAPI, node_name: str, resource: str) -> str | None:
    node = _node(api, node_name)
    if node is None:
        return None
    value = (status(node).get("allocatable") or {}).get(resource)
    return None if value is None else str(value)


# ---------------------------------------------------------------------------- mig-single


def single_layout(world: World) -> bool:
    return _layout_applied(world.api, "gpu-node2", "all-1g.10gb")


def single_advertises_56(world: World) -> bool:
    return _allocatable(world.api, "gpu-node2", "nvidia.com/gpu") == "56" and _plugin_running(
        world.api, "gpu-node2"
    )


def single_schedulable(world: World) -> bool:
    # "Again": it only counts once the new layout is in place, not at the start.
    node = _node(world.api, "gpu-node2")
    return node is not None and not spec(node).get("unschedulable") and single_layout(world)


def single_others_untouched(world: World) -> bool:
    # Judged once the work is done, so that an untouched start does not tick it.
    if not single_layout(world):
        return False
    for name in ("gpu-node1", "gpu-node3"):
        node = _node(world.api, name)
        if node is None or spec(node).get("unschedulable"):
            return False
        if not _layout_applied(world.api, name, "all-disabled"):
            return False
        if _allocatable(world.api, name, "nvidia.com/gpu") != "8":
            return False
    return True


# ---------------------------------------------------------------------------- mig-mixed

MIXED_LAYOUT = "triton-mixed"


def mixed_layout(world: World) -> bool:
    return _layout_applied(world.api, "gpu-node3", MIXED_LAYOUT)


def mixed_strategy(world: World) -> bool:
    if gpu_state.mig_strategy(world.api) != "mixed":
        return False
    return all(_plugin_running(world.api, n["metadata"]["name"]) for n in items(world.api, "nodes"))


def mixed_triton(world: World) -> bool:
    try:
        pod = world.api.get("pods", "triton", "default")
    except ApiError:
        return False
    if status(pod).get("phase") != "Running" or spec(pod).get("nodeName") != "gpu-node3":
        return False
    resources = gpu_requests(pod)
    return resources.get("nvidia.com/mig-1g.10gb") == 1 and "nvidia.com/gpu" not in resources


# ---------------------------------------------------------------------------- Run:ai


def _workloads(world: World) -> list[Obj]:
    return runai.all_workloads(world.api)


_workload = checks_common.workload
_running = checks_common.running


def _quota(world: World, project: str) -> float:
    try:
        queue = world.api.get(runai.QUEUES, project)
    except ApiError:
        return 0.0
    deserved, _weight, _limit = runai.queue_quota(queue)
    return deserved or 0.0


def _allocated(wl: Obj) -> float:
    return float(status(wl).get("allocatedGpus", 0) or 0)


def pending_new_runs(world: World) -> bool:
    wl = _workload(world, "team-vision", "nb-carol")
    if wl is None or runai.kind_of(wl) != "workspace" or not _running(wl):
        return False
    non_preemptible = sum(
        _allocated(w)
        for w in _workloads(world)
        if runai.project_of(w) == "team-vision" and not runai.preemptible_of(w)
    )
    return non_preemptible <= _quota(world, "team-vision") + 1e-9


def pending_idle_stopped(world: World) -> bool:
    wl = _workload(world, "team-vision", "nb-alice")
    return wl is None or status(wl).get("phase") == "Suspended" or not runai.active_of(wl)


def pending_active_kept(world: World) -> bool:
    # Judged once the new workspace runs, so that the start does not tick it.
    return pending_new_runs(world) and all(
        _running(_workload(world, project, name))
        for project, name in (
            ("team-vision", "nb-bob"),
            ("team-llm", "llm-pretrain"),
            ("team-llm", "llm-eval"),
        )
    )


def validate_training(world: World) -> bool:
    for wl in _workloads(world):
        if runai.kind_of(wl) != "training" or status(wl).get("phase") != "Completed":
            continue
        if (
            runai.value(wl, "gpuFraction")
            or runai.value(wl, "gpuMemory")
            or runai.value(wl, "migProfile")
        ):
            continue
        if str(runai.value(wl, "gpu", "")) in ("1", "1.0"):
            return True
    return False


def validate_fractions(world: World) -> bool:
    seats: dict[tuple[str, tuple[int, int | None]], int] = {}
    fractional = {
        (wl["metadata"]["namespace"], wl["metadata"]["name"])
        for wl in _workloads(world)
        if runai.kind_of(wl) == "workspace"
        and (runai.value(wl, "gpuFraction") or runai.value(wl, "gpuMemory"))
        and status(wl).get("phase") == "Running"
    }
    for pod in items(world.api, "pods"):
        key = (pod["metadata"].get("namespace", ""), labels_of(pod).get("workloadName", ""))
        if key not in fractional or status(pod).get("phase") != "Running":
            continue
        devices = hardware.pod_devices(pod)
        if len(devices) != 1:
            continue
        seat = (str(spec(pod).get("nodeName")), devices[0])
        seats[seat] = seats.get(seat, 0) + 1
    return any(count >= 2 for count in seats.values())


def validate_gang(world: World) -> bool:
    return any(
        runai.kind_of(wl) == "distributed"
        and runai.workers_of(wl) >= 2  # "a 2-worker job": the master pod comes on top
        and bool(status(wl).get("gangStarts"))
        for wl in _workloads(world)
    )


def validate_reclaim(world: World) -> bool:
    workloads = _workloads(world)
    for victim in workloads:
        victim_project = runai.project_of(victim)
        for record in status(victim).get("evictions") or []:
            if not isinstance(record, dict):
                continue
            by_project = str(record.get("byProject", ""))
            if (
                record.get("reason") != "Reclaimed"
                or not by_project
                or by_project == victim_project
            ):
                continue
            reclaimer = _workload(world, by_project, str(record.get("byWorkload", "")))
            if not _running(reclaimer) or reclaimer is None:
                continue
            # The reclaimer stayed within its own quota ...
            if _allocated(reclaimer) > _quota(world, by_project) + 1e-9:
                continue
            # ... and the victim's project kept its quota's worth of work.
            kept = sum(_allocated(w) for w in workloads if runai.project_of(w) == victim_project)
            if kept + 1e-9 >= _quota(world, victim_project):
                return True
    return False


# ---------------------------------------------------------------------------- image-pull

NLP_NAMESPACE = runai.namespace_for("team-nlp")


def _ngc_secrets(world: World) -> set[str]:
    return {
        secret["metadata"]["name"]
        for secret in items(world.api, "secrets", NLP_NAMESPACE)
        if image_pull.authorizes_ngc(secret)
    }


def pull_credentials_stored(world: World) -> bool:
    return bool(_ngc_secrets(world))


def pull_credentials_used(world: World) -> bool:
    good = _ngc_secrets(world)
    try:
        account = world.api.get("serviceaccounts", "default", NLP_NAMESPACE)
    except ApiError:
        account = {}
    named = {str(ref.get("name")) for ref in account.get("imagePullSecrets") or []}
    if named & good:
        return True
    # Or the training's own pods name a working secret.
    pods = [
        p
        for p in items(world.api, "pods", NLP_NAMESPACE)
        if labels_of(p).get("workloadName") == "ft-llama"
    ]
    return bool(pods) and all(set(image_pull.pull_secret_names(p)) & good for p in pods)


def pull_training_runs(world: World) -> bool:
    return _running(_workload(world, "team-nlp", "ft-llama"))


# ---------------------------------------------------------------------------- department-cap


def dept_room(world: World) -> bool:
    try:
        queue = world.api.get(runai.QUEUES, "research")
    except ApiError:
        return False
    _deserved, _weight, limit = runai.queue_quota(queue)
    return limit is None or limit >= 12 - 1e-9


def dept_sweep_runs(world: World) -> bool:
    return _running(_workload(world, "team-rl", "rl-sweep"))


def dept_work_kept(world: World) -> bool:
    # Judged once the sweep runs, so that the start does not tick it.
    if not dept_sweep_runs(world):
        return False
    for project, name in (
        ("team-llm", "llm-sft"),
        ("team-rl", "rl-agent"),
        ("team-prod", "prod-train"),
    ):
        wl = _workload(world, project, name)
        if wl is None or not _running(wl) or status(wl).get("evictions"):
            return False
    return True


# ---------------------------------------------------------------------------- gang-fragmentation


def gang_started(world: World) -> bool:
    wl = _workload(world, "team-llm", "llm-dist")
    return (
        wl is not None
        and runai.pod_count(wl) == 2
        and bool(status(wl).get("gangStarts"))
        and _running(wl)
    )


def gang_whole_nodes(world: World) -> bool:
    """Each of llm-dist's workers runs on a node of its own: 8 GPUs of one node each."""
    if not gang_started(world):
        return False
    pods = [
        p
        for p in items(world.api, "pods", runai.namespace_for("team-llm"))
        if labels_of(p).get("workloadName") == "llm-dist" and status(p).get("phase") == "Running"
    ]
    nodes = {spec(p).get("nodeName") for p in pods}
    return len(pods) == 2 and len(nodes) == 2


def gang_active_kept(world: World) -> bool:
    # Judged once the gang runs, so that the start does not tick it; a notebook whose pod was
    # restarted lost its kernel, so it has to be the pod that ran before the session.
    wl = _workload(world, "team-vision", "nb-ana")
    if not gang_started(world) or not _running(wl) or status(wl or {}).get("evictions"):
        return False
    pods = [
        p
        for p in items(world.api, "pods", runai.namespace_for("team-vision"))
        if labels_of(p).get("workloadName") == "nb-ana"
    ]
    return bool(pods) and all(
        parse_time(str(p["metadata"]["creationTimestamp"])) < EPOCH for p in pods
    )


# ---------------------------------------------------------------------------- inference-priority


def _chat_api(world: World) -> Obj | None:
    wl = _workload(world, "team-serve", "chat-api")
    return wl if wl is not None and runai.kind_of(wl) == "inference" else None


def inference_runs(world: World) -> bool:
    wl = _chat_api(world)
    return wl is not None and _running(wl) and not runai.preemptible_of(wl)


def inference_within_quota(world: World) -> bool:
    # Judged once the server runs, so that the start does not tick it.
    if not inference_runs(world):
        return False
    held = sum(
        _allocated(w)
        for w in _workloads(world)
        if runai.project_of(w) == "team-serve" and not runai.preemptible_of(w)
    )
    return held <= _quota(world, "team-serve") + 1e-9


def inference_borrowed_returned(world: World) -> bool:
    if not inference_runs(world):
        return False
    records = [
        record
        for w in _workloads(world)
        for record in status(w).get("evictions") or []
        if isinstance(record, dict)
    ]
    # Nobody anywhere was preempted within their own project; team-serve reclaimed something.
    if any(r.get("reason") == "Preempted" for r in records):
        return False
    if not any(
        r.get("reason") == "Reclaimed" and r.get("byProject") == "team-serve" for r in records
    ):
        return False
    kept = sum(_allocated(w) for w in _workloads(world) if runai.project_of(w) == "team-train")
    return kept + 1e-9 >= _quota(world, "team-train")


# ---------------------------------------------------------------------------- node-pool-quota

# The work within quota that the story says must keep running: (project, workload).
POOL_GUARDED = (
    ("team-llm", "llm-pretrain"),
    ("team-vision", "vis-train"),
    ("team-render", "render-a"),
    ("team-render", "render-b"),
)


def _pool_deserved(world: World, project: str, pool: str) -> float:
    """A project's GPU quota in one node pool, as its queue gives it to the scheduler."""
    try:
        queue = world.api.get(runai.QUEUES, project)
    except ApiError:
        return 0.0
    deserved, _weight, _limit = runai.queue_pool_quotas(queue).get(pool, (0.0, 1.0, None))
    return deserved or 0.0


def _running_pools(world: World, wl: Obj) -> dict[str, float]:
    """GPUs a workload's running pods hold, by the node pool of their node."""
    nodes = {str(n["metadata"]["name"]): n for n in items(world.api, "nodes")}
    out: dict[str, float] = {}
    for pod in items(world.api, "pods", str(wl["metadata"]["namespace"])):
        if labels_of(pod).get("workloadName") != wl["metadata"]["name"]:
            continue
        node = nodes.get(str(spec(pod).get("nodeName") or ""))
        if node is None or status(pod).get("phase") != "Running":
            continue
        pool = runai.node_pool_of(node)
        out[pool] = out.get(pool, 0.0) + runai.gpu_units(wl)
    return out


def _vis_nb(world: World) -> Obj | None:
    wl = _workload(world, "team-vision", "vis-nb")
    return wl if wl is not None and runai.kind_of(wl) == "workspace" else None


def pool_notebook_runs(world: World) -> bool:
    wl = _vis_nb(world)
    return wl is not None and _running(wl) and not runai.preemptible_of(wl)


def pool_within_quota(world: World) -> bool:
    # Judged once the notebook runs, so that the start does not tick it.
    wl = _vis_nb(world)
    if wl is None or not pool_notebook_runs(world):
        return False
    for pool in _running_pools(world, wl):
        held = sum(
            _running_pools(world, w).get(pool, 0.0)
            for w in _workloads(world)
            if runai.project_of(w) == "team-vision" and not runai.preemptible_of(w)
        )
        if held > _pool_deserved(world, "team-vision", pool) + 1e-9:
            return False
    return True


def pool_guaranteed_kept(world: World) -> bool:
    # Judged once the notebook runs, so that the start does not tick it.
    if not pool_notebook_runs(world):
        return False
    held: dict[tuple[str, str], float] = {}
    for project, name in POOL_GUARDED:
        wl = _workload(world, project, name)
        if wl is None or not _running(wl) or status(wl).get("evictions"):
            return False
        for pool, gpus in _running_pools(world, wl).items():
            held[(project, pool)] = held.get((project, pool), 0.0) + gpus
    return all(
        gpus <= _pool_deserved(world, project, pool) + 1e-9
        for (project, pool), gpus in held.items()
    )


CHECKS: dict[str, dict[str, Check]] = {
    "mig-single": {
        "layout-applied": single_layout,
        "advertises-56": single_advertises_56,
        "schedulable-again": single_schedulable,
        "others-untouched": single_others_untouched,
    },
    "mig-mixed": {
        "layout-applied": mixed_layout,
        "strategy-mixed": mixed_strategy,
        "triton-on-slice": mixed_triton,
    },
    "pending-workspace": {
        "idle-stopped": pending_idle_stopped,
        "new-workspace-runs": pending_new_runs,
        "active-work-kept": pending_active_kept,
    },
    "validate-runai": {
        "training-completes": validate_training,
        "fractions-share": validate_fractions,
        "gang-starts": validate_gang,
        "reclaim-works": validate_reclaim,
    },
    "image-pull": {
        "credentials-stored": pull_credentials_stored,
        "credentials-used": pull_credentials_used,
        "training-runs": pull_training_runs,
    },
    "department-cap": {
        "department-room": dept_room,
        "sweep-runs": dept_sweep_runs,
        "work-kept": dept_work_kept,
    },
    "gang-fragmentation": {
        "gang-started": gang_started,
        "gang-whole-nodes": gang_whole_nodes,
        "active-kept": gang_active_kept,
    },
    "inference-priority": {
        "inference-runs": inference_runs,
        "within-quota": inference_within_quota,
        "borrowed-returned": inference_borrowed_returned,
    },
    "node-pool-quota": {
        "notebook-runs": pool_notebook_runs,
        "within-pool-quota": pool_within_quota,
        "guaranteed-kept": pool_guaranteed_kept,
    },
}


CHECKS.update(checks_stack.CHECKS)
CHECKS.update(checks_access.CHECKS)
CHECKS.update(checks_health.CHECKS)
CHECKS.update(checks_fabric.CHECKS)
CHECKS.update(checks_runtime.CHECKS)
CHECKS.update(checks_files.CHECKS)


def has_check(ticket_id: str, item_id: str) -> bool:
    return item_id in CHECKS.get(ticket_id, {})


def evaluate(ticket_id: str, item_id: str, world: World) -> bool:
    return CHECKS[ticket_id][item_id](world)


def evaluate_all(ticket_id: str, world: World) -> dict[str, Any]:
    return {item: check(world) for item, check in CHECKS.get(ticket_id, {}).items()}
