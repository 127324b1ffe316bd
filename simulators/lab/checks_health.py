"""Checks for the tickets on GPU health (xid-fallen-off, ...).

Like simulators.lab.checks, each reads the cluster's state, never the commands typed.
"""

from __future__ import annotations

from collections.abc import Callable

from simulators.cluster.api import Obj
from simulators.cluster.clock import EPOCH, format_time
from simulators.controllers import gpu_operator, runai
from simulators.controllers.util import controller_of, items, spec, status
from simulators.lab import checks_common
from simulators.lab.world import World

Check = Callable[[World], bool]

XID_NODE = "gpu-node2"
# The datacenter team's runbook (the ticket's story): the taint a node waiting for repair carries.
REPAIR_TAINT = "hardware-repair"
MOVED = ("vision-train", "nb-carol")


def _node(world: World, name: str) -> Obj | None:
    for node in items(world.api, "nodes"):
        if node["metadata"]["name"] == name:
            return node
    return None


def _alive(pod: Obj) -> bool:
    return not pod["metadata"].get("deletionTimestamp") and status(pod).get("phase") not in (
        "Succeeded",
        "Failed",
    )


def _pods_on(world: World, node: str) -> list[Obj]:
    return [p for p in items(world.api, "pods") if spec(p).get("nodeName") == node and _alive(p)]


def _daemon(pod: Obj) -> bool:
    ref = controller_of(pod)
    return ref is not None and ref.get("kind") == "DaemonSet"


def xid_cordoned(world: World) -> bool:
    node = _node(world, XID_NODE)
    return node is not None and bool(spec(node).get("unschedulable"))


def xid_drained(world: World) -> bool:
    if _node(world, XID_NODE) is None:
        return False
    return all(_daemon(pod) for pod in _pods_on(world, XID_NODE))


def _pods_of(world: World, wl: Obj) -> list[Obj]:
    namespace = runai.namespace_for(runai.project_of(wl))
    name = wl["metadata"]["name"]
    return [
        p
        for p in items(world.api, "pods", namespace)
        if _alive(p) and (p["metadata"].get("labels") or {}).get("workloadName") == name
    ]


def xid_workloads_moved(world: World) -> bool:
    for name in MOVED:
        wl = checks_common.workload(world, "team-vision", name)
        if wl is None or not checks_common.running(wl):
            return False
        pods = _pods_of(world, wl)
        if not pods or any(spec(p).get("nodeName") in (None, "", XID_NODE) for p in pods):
            return False
    return True


def xid_repair_marked(world: World) -> bool:
    node = _node(world, XID_NODE)
    if node is None:
        return False
    tainted = any(
        t.get("key") == REPAIR_TAINT and t.get("effect") == "NoSchedule"
        for t in spec(node).get("taints") or []
    )
    operands = [
        p
        for p in _pods_on(world, XID_NODE)
        if p["metadata"].get("namespace") == gpu_operator.NAMESPACE and _daemon(p)
    ]
    running = [p for p in operands if status(p).get("phase") == "Running"]
    return tainted and bool(operands) and len(running) == len(operands)


def xid_others_kept(world: World) -> bool:
    wl = checks_common.workload(world, "team-llm", "llm-pretrain")
    if wl is None or not checks_common.running(wl):
        return False
    if status(wl).get("evictions"):
        return False
    started = format_time(EPOCH)  # the session's start: a pod made since is a restart
    pods = _pods_of(world, wl)
    return bool(pods) and all(
        spec(p).get("nodeName") == "gpu-node1"
        and str(p["metadata"].get("creationTimestamp", "")) < started
        for p in pods
    )


CHECKS: dict[str, dict[str, Check]] = {
    "xid-fallen-off": {
        "cordoned": xid_cordoned,
        "drained": xid_drained,
        "workloads-moved": xid_workloads_moved,
        "repair-marked": xid_repair_marked,
        "others-kept": xid_others_kept,
    },
}
