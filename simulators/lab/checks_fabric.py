"""Checks for the fabric ticket (fabric-nccl): NCCL's transport in a distributed training.

Like simulators.lab.checks, each reads the cluster's state (the pods' specs, where they run,
what they logged), never the commands typed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from simulators.cluster.api import ApiError, Obj
from simulators.controllers import fabric
from simulators.controllers.util import items, labels_of, spec, status
from simulators.lab import checks_common
from simulators.lab.world import World

Check = Callable[[World], bool]

PROJECT = "team-llm"
NAMESPACE = "runai-team-llm"
TRAINING = "llm-dist"
STEP = re.compile(r"\| (\d+(?:\.\d+)?) s/step$")
# Kim's old cluster: about a second a step; anything under this is "about 1 s".
FAST_ENOUGH = 1.5


def _pods(world: World) -> list[Obj]:
    return [
        pod
        for pod in items(world.api, "pods", NAMESPACE)
        if labels_of(pod).get("workloadName") == TRAINING
        and not pod["metadata"].get("deletionTimestamp")
    ]


def _running_pods(world: World) -> list[Obj]:
    wl = checks_common.workload(world, PROJECT, TRAINING)
    if not checks_common.running(wl):
        return []
    pods = _pods(world)
    return pods if all(_up(p) for p in pods) else []


def _up(pod: Obj) -> bool:
    """Running with its containers up (a crash-looping pod's phase still says Running)."""
    statuses = status(pod).get("containerStatuses") or []
    ready = bool(statuses) and all(c.get("ready") for c in statuses)
    return status(pod).get("phase") == "Running" and ready


def fabric_gang_runs(world: World) -> bool:
    pods = _running_pods(world)
    nodes = {spec(p).get("nodeName") for p in pods}
    return len(pods) == 2 and len(nodes) == 2


def fabric_nccl_ib(world: World) -> bool:
    pods = _running_pods(world)
    return bool(pods) and all(fabric.transport(pod) == fabric.IB for pod in pods)


def fabric_steps_fast(world: World) -> bool:
    """The master's last step time, as the training prints it."""
    pods = _running_pods(world)
    masters = [p for p in pods if p["metadata"]["name"].endswith("-master-0")]
    if not masters or not fabric_gang_runs(world):
        return False
    try:
        log = world.api.logs(masters[0]["metadata"]["name"], NAMESPACE)
    except ApiError:
        return False
    times = [float(m.group(1)) for m in map(STEP.search, log.splitlines()) if m]
    return bool(times) and times[-1] < FAST_ENOUGH


def fabric_others_kept(world: World) -> bool:
    """vision-train ran all along: running, and started once (never evicted or restarted)."""
    wl = checks_common.workload(world, "team-vision", "vision-train")
    if not checks_common.running(wl) or wl is None:
        return False
    st = status(wl)
    return len(st.get("gangStarts") or []) <= 1 and not st.get("evictions")


CHECKS: dict[str, dict[str, Check]] = {
    "fabric-nccl": {
        "nccl-ib": fabric_nccl_ib,
        "steps-fast": fabric_steps_fast,
        "gang-runs": fabric_gang_runs,
        "others-kept": fabric_others_kept,
    },
}
