"""The node lifecycle controller and the taint eviction controller.

TaintNodesByCondition gives a cordoned node the ``node.kubernetes.io/unschedulable``
NoSchedule taint (and takes it away on uncordon); the taint eviction controller deletes pods
that don't tolerate a node's NoExecute taint, with its ``TaintManagerEviction`` event.
"""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI
from simulators.controllers.util import (
    UNSCHEDULABLE_TAINT,
    emit,
    is_deleting,
    items,
    name_of,
    namespace_of,
    spec,
    timestamp,
    untolerated_taint,
)


def run(api: ClusterAPI) -> None:
    """TaintNodesByCondition: a cordoned node gets the unschedulable NoSchedule taint."""
    for node in items(api, "nodes"):
        taints = list(spec(node).get("taints") or [])
        has = any(t.get("key") == UNSCHEDULABLE_TAINT for t in taints)
        cordoned = bool(spec(node).get("unschedulable"))
        if cordoned and not has:
            taints.append(
                {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule", "timeAdded": timestamp(api)}
            )
        elif not cordoned and has:
            taints = [t for t in taints if t.get("key") != UNSCHEDULABLE_TAINT]
        else:
            continue
        api.patch("nodes", name_of(node), {"spec": {"taints": taints or None}})
    _evict_for_no_execute(api)


def _evict_for_no_execute(api: ClusterAPI) -> None:
    """The taint eviction controller: pods that do not tolerate a NoExecute taint are deleted."""
    tainted = {
        name_of(n): n
        for n in items(api, "nodes")
        if any(t.get("effect") == "NoExecute" for t in spec(n).get("taints") or [])
    }
    if not tainted:
        return
    for pod in items(api, "pods"):
        node = tainted.get(str(spec(pod).get("nodeName") or ""))
        if node is None or is_deleting(pod):
            continue
        tolerations = list(spec(pod).get("tolerations") or [])
        if untolerated_taint(node, tolerations, ("NoExecute",)) is None:
            continue
        emit(
            api,
            pod,
            "Normal",
            "TaintManagerEviction",
            f"Marking for deletion Pod {namespace_of(pod)}/{name_of(pod)}",
            "taint-eviction-controller",
        )
        try:
            api.delete("pods", name_of(pod), namespace_of(pod))
        except ApiError as exc:
            if exc.code != 404:
                raise
