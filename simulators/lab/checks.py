"""Checklist checks: predicates on the world state, never on the commands typed.

Keyed by (ticket id, checklist item id). Any order of commands that reaches
the state passes; a check that needs history (a training completed, a reclaim
happened) reads facts the world recorded (workload statuses, eviction records).
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.backends.base import Node
from simulators.engine.mig import NAMED_LAYOUTS
from simulators.lab import gpu_operator, mig
from simulators.lab.state import RunaiWorkload
from simulators.lab.world import World

Check = Callable[[World], bool]


def _node(world: World, name: str) -> Node | None:
    return world.backend.get_node(name)


def _layout_applied(world: World, node_name: str, layout_name: str) -> bool:
    node = _node(world, node_name)
    if node is None:
        return False
    if node.labels.get(mig.CONFIG_LABEL) != layout_name:
        return False
    if node.labels.get(mig.STATE_LABEL) != "success":
        return False
    layouts = mig.available_layouts(world.backend) or dict(NAMED_LAYOUTS)
    layout = layouts.get(layout_name)
    return layout is not None and mig.gpus_match(layout, world.backend.node_gpus(node_name))


def _plugin_running(world: World, node_name: str) -> bool:
    pod = gpu_operator.find_ds_pod(world.backend, node_name, gpu_operator.DEVICE_PLUGIN)
    return pod is not None and pod.phase == "Running" and pod.reason == ""


# ---------------------------------------------------------------------------- mig-single


def single_layout(world: World) -> bool:
    return _layout_applied(world, "gpu-node2", "all-1g.10gb")


def single_advertises_56(world: World) -> bool:
    node = _node(world, "gpu-node2")
    return (
        node is not None
        and node.allocatable.get("nvidia.com/gpu") == "56"
        and _plugin_running(world, "gpu-node2")
    )


def single_schedulable(world: World) -> bool:
    # "Again": it only counts once the new layout is in place, not at the start.
    node = _node(world, "gpu-node2")
    return node is not None and not node.unschedulable and single_layout(world)


def single_others_untouched(world: World) -> bool:
    # Judged once the work is done, so that an untouched start does not tick it.
    if not single_layout(world):
        return False
    for name in ("gpu-node1", "gpu-node3"):
        node = _node(world, name)
        if node is None or node.unschedulable:
            return False
        if not _layout_applied(world, name, "all-disabled"):
            return False
        if node.allocatable.get("nvidia.com/gpu") != "8":
            return False
    return True


# ---------------------------------------------------------------------------- mig-mixed

MIXED_LAYOUT = "triton-mixed"


def mixed_layout(world: World) -> bool:
    return _layout_applied(world, "gpu-node3", MIXED_LAYOUT)


def mixed_strategy(world: World) -> bool:
    if gpu_operator.strategy(world.backend) != "mixed":
        return False
    return all(_plugin_running(world, n.name) for n in world.backend.list_nodes())


def mixed_triton(world: World) -> bool:
    pod = world.backend.get_pod("default", "triton")
    if pod is None or pod.phase != "Running" or pod.node_name != "gpu-node3":
        return False
    resources = pod.gpu_resources()
    return resources.get("nvidia.com/mig-1g.10gb") == 1 and "nvidia.com/gpu" not in resources


# ---------------------------------------------------------------------------- pending-workspace


def _workload(world: World, project: str, name: str) -> RunaiWorkload | None:
    return next(
        (w for w in world.state.runai.workloads if w.project == project and w.name == name),
        None,
    )


def _running(world: World, project: str, name: str) -> bool:
    wl = _workload(world, project, name)
    return wl is not None and wl.status == "Running" and wl.running_pods == wl.pod_count


def pending_new_runs(world: World) -> bool:
    wl = _workload(world, "team-vision", "nb-carol")
    if wl is None or wl.kind != "workspace" or not _running(world, "team-vision", "nb-carol"):
        return False
    project = next((p for p in world.state.runai.projects if p.name == "team-vision"), None)
    if project is None:
        return False
    non_preemptible = sum(
        w.gpus_allocated
        for w in world.state.runai.workloads
        if w.project == "team-vision" and not w.preemptible
    )
    return non_preemptible <= project.quota + 1e-9


def pending_idle_stopped(world: World) -> bool:
    wl = _workload(world, "team-vision", "nb-alice")
    return wl is None or wl.final_status == "Suspended"


def pending_active_kept(world: World) -> bool:
    # Judged once the new workspace runs, so that the start does not tick it.
    return pending_new_runs(world) and all(
        _running(world, project, name)
        for project, name in (
            ("team-vision", "nb-bob"),
            ("team-llm", "llm-pretrain"),
            ("team-llm", "llm-eval"),
        )
    )


# ---------------------------------------------------------------------------- validate-runai


def validate_training(world: World) -> bool:
    return any(
        w.kind == "training"
        and w.pod_count == 1
        and w.gpus == 1
        and not w.gpu_memory
        and not w.mig_profile
        and w.final_status == "Completed"
        for w in world.state.runai.workloads
    )


def validate_fractions(world: World) -> bool:
    seats: dict[tuple[str, int], int] = {}
    for w in world.state.runai.workloads:
        if w.kind != "workspace" or w.status != "Running":
            continue
        fractional = bool(w.gpu_memory) or 0 < w.gpus < 1
        if not fractional:
            continue
        for pod in w.pods:
            if pod.status == "Running" and pod.node and len(pod.devices) == 1:
                key = (pod.node, pod.devices[0])
                seats[key] = seats.get(key, 0) + 1
    return any(count >= 2 for count in seats.values())


def validate_gang(world: World) -> bool:
    return any(
        w.kind == "distributed" and w.pod_count >= 2 and w.gang_starts
        for w in world.state.runai.workloads
    )


def validate_reclaim(world: World) -> bool:
    runai = world.state.runai
    quotas = {p.name: p.quota for p in runai.projects}
    for victim in runai.workloads:
        for record in victim.evictions:
            _time, reason, by_project, by_workload = record.split("|", 3)
            if reason != "Reclaimed" or not by_project or by_project == victim.project:
                continue
            reclaimer = _workload(world, by_project, by_workload)
            if reclaimer is None or reclaimer.status != "Running":
                continue
            # The reclaimer stayed within its own quota ...
            if reclaimer.gpus_allocated > quotas.get(by_project, 0) + 1e-9:
                continue
            # ... and the victim's project kept its quota's worth of work.
            kept = sum(w.gpus_allocated for w in runai.workloads if w.project == victim.project)
            if kept + 1e-9 >= quotas.get(victim.project, 0):
                return True
    return False


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
}


def has_check(ticket_id: str, item_id: str) -> bool:
    return item_id in CHECKS.get(ticket_id, {})


def evaluate(ticket_id: str, item_id: str, world: World) -> bool:
    return CHECKS[ticket_id][item_id](world)
