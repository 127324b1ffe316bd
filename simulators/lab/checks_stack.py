"""Checks for the tickets on the stack under Run:ai (scheduler-bypass, idle-allocations,
driver-stack, ...).

Like simulators.lab.checks, each reads the cluster's state, never the commands typed.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.cluster.api import Obj
from simulators.controllers import gpu_operator, gpu_state, runai
from simulators.controllers.util import (
    DEFAULT_SCHEDULER,
    RUNAI_SCHEDULER,
    gpu_requests,
    items,
    spec,
    status,
)
from simulators.lab import checks_common
from simulators.lab.world import World

Check = Callable[[World], bool]


def _project_namespaces(world: World) -> set[str]:
    return {
        runai.namespace_for(str(p["metadata"]["name"])) for p in items(world.api, runai.PROJECTS)
    }


def _live(pod: Obj) -> bool:
    return not pod["metadata"].get("deletionTimestamp") and status(pod).get("phase") in (
        "Pending",
        "Running",
        None,
    )


_workload = checks_common.workload
_running = checks_common.running


def bypass_gone(world: World) -> bool:
    namespaces = _project_namespaces(world)
    for pod in items(world.api, "pods"):
        if pod["metadata"].get("namespace") not in namespaces or not _live(pod):
            continue
        scheduler = str(spec(pod).get("schedulerName") or DEFAULT_SCHEDULER)
        if scheduler != RUNAI_SCHEDULER and any(
            key.startswith("nvidia.com/") for key in gpu_requests(pod)
        ):
            return False
    return True


def bypass_guaranteed_runs(world: World) -> bool:
    return _running(_workload(world, "team-vision", "vision-train"))


def bypass_sweeps_queued(world: World) -> bool:
    sweeps = [
        wl
        for wl in runai.all_workloads(world.api)
        if runai.project_of(wl) == "team-nlp"
        and wl["metadata"]["name"] != "nlp-baseline"
        and not wl["metadata"].get("deletionTimestamp")
        and status(wl).get("phase") not in ("Failed", "Succeeded", "Completed")
    ]
    return len(sweeps) >= 2


def bypass_baseline_kept(world: World) -> bool:
    wl = _workload(world, "team-nlp", "nlp-baseline")
    restarts = int(status(wl).get("evictions", 0) or 0) if wl else 0
    return _running(wl) and restarts == 0


def idle_finetune_runs(world: World) -> bool:
    return _running(_workload(world, "team-llm", "llm-finetune"))


IDLE_WORKSPACES = ("nb-alice", "nb-frank")
IN_USE = (("team-vision", "nb-bob"), ("team-llm", "llm-pretrain"), ("team-llm", "llm-eval"))


def idle_suspended(world: World) -> bool:
    """Suspended, not deleted: the policy keeps an idle workspace for its owner to resume."""
    for name in IDLE_WORKSPACES:
        wl = _workload(world, "team-vision", name)
        if wl is None or wl["metadata"].get("deletionTimestamp") or runai.active_of(wl):
            return False
    return True


def idle_active_kept(world: World) -> bool:
    def untouched(project: str, name: str) -> bool:
        wl = _workload(world, project, name)
        return _running(wl) and int(status(wl).get("evictions", 0) or 0) == 0 if wl else False

    return all(untouched(project, name) for project, name in IN_USE)


BROKEN_NODE = "gpu-node3"
OTHER_NODES = ("gpu-node1", "gpu-node2")


def _operator_pods(world: World, node: str, app: str | None = None) -> list[Obj]:
    return [
        pod
        for pod in items(world.api, "pods", gpu_operator.NAMESPACE)
        if spec(pod).get("nodeName") == node
        and not pod["metadata"].get("deletionTimestamp")
        and (app is None or (pod["metadata"].get("labels") or {}).get("app") == app)
    ]


def _waiting(pod: Obj) -> bool:
    return any(
        (c.get("state") or {}).get("waiting", {}).get("reason") == "CrashLoopBackOff"
        for c in status(pod).get("containerStatuses") or []
    )


def _ready(pod: Obj) -> bool:
    statuses = status(pod).get("containerStatuses") or []
    return bool(statuses) and all(c.get("ready") for c in statuses)


def driver_settled(world: World) -> bool:
    return not any(_waiting(pod) for pod in _operator_pods(world, BROKEN_NODE))


def driver_validated(world: World) -> bool:
    validators = _operator_pods(world, BROKEN_NODE, gpu_operator.VALIDATOR)
    return bool(validators) and all(_ready(pod) for pod in validators)


def driver_gpus_advertised(world: World) -> bool:
    node = world.api.get("nodes", BROKEN_NODE)
    return str(status(node).get("allocatable", {}).get("nvidia.com/gpu", "0")) == "8"


def driver_training_runs(world: World) -> bool:
    return _running(_workload(world, "team-llm", "llm-finetune"))


def driver_operator_elsewhere(world: World) -> bool:
    if gpu_state.policy_value(world.api, "driver", "enabled") is False:
        return False
    for name in OTHER_NODES:
        labels = world.api.get("nodes", name)["metadata"].get("labels") or {}
        drivers = _operator_pods(world, name, gpu_operator.DRIVER)
        if labels.get(gpu_state.DEPLOY_DRIVER_LABEL) != "true" or not drivers:
            return False
        if not all(_ready(pod) for pod in drivers):
            return False
    return True


CHECKS: dict[str, dict[str, Check]] = {
    "scheduler-bypass": {
        "no-bypass": bypass_gone,
        "guaranteed-runs": bypass_guaranteed_runs,
        "sweeps-queued": bypass_sweeps_queued,
        "baseline-kept": bypass_baseline_kept,
    },
    "idle-allocations": {
        "finetune-runs": idle_finetune_runs,
        "idle-suspended": idle_suspended,
        "active-kept": idle_active_kept,
    },
    "driver-stack": {
        "driver-settled": driver_settled,
        "validated": driver_validated,
        "gpus-advertised": driver_gpus_advertised,
        "training-runs": driver_training_runs,
        "operator-elsewhere": driver_operator_elsewhere,
    },
}
