"""kube-scheduler (``default-scheduler``); the node lifecycle is `node_lifecycle.py`.

The scheduler places pods whose ``schedulerName`` is ``default-scheduler`` through the
``binding`` subresource. Filters run in the default profile's order (NodeUnschedulable,
TaintToleration, NodeAffinity, NodeResourcesFit) and a node fails at its first failing filter,
so the ``FailedScheduling`` message counts one reason per node (several for resources), sorted,
as ``FitError.Error()`` writes it, followed by the preemption post-filter's verdict.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.controllers.util import (
    DEFAULT_SCHEDULER,
    UNSCHEDULABLE_TAINT,
    emit,
    holds_resources,
    is_deleting,
    items,
    matches_node_selector,
    name_of,
    namespace_of,
    node_allocatable,
    node_usage,
    pod_requests,
    spec,
    stable_hash,
    status,
    timestamp,
    tolerates,
    uid_of,
    untolerated_taint,
)

# kube-scheduler's defaults for pods that request nothing, used only to score.
DEFAULT_MILLI_CPU = Decimal("0.1")
DEFAULT_MEMORY = Decimal(200 * 1024 * 1024)

UNRESOLVABLE = "unresolvable"
RESOLVABLE = "resolvable"


# ---------------------------------------------------------------------------- scheduling


def wants_default_scheduler(pod: Obj) -> bool:
    return str(spec(pod).get("schedulerName") or DEFAULT_SCHEDULER) == DEFAULT_SCHEDULER


def run(api: ClusterAPI) -> None:
    nodes = items(api, "nodes")
    pods = items(api, "pods")
    pending = [
        p
        for p in pods
        if wants_default_scheduler(p)
        and not spec(p).get("nodeName")
        and not is_deleting(p)
        and status(p).get("phase", "Pending") == "Pending"
    ]
    # The active queue's order: higher priority first, then the older pod.
    pending.sort(
        key=lambda p: (
            -int(spec(p).get("priority", 0) or 0),
            str(p["metadata"].get("creationTimestamp", "")),
            name_of(p),
        )
    )
    for pod in pending:
        node = schedule_one(api, pod, nodes, pods)
        if node is not None:
            bound = dict(pod)
            bound["spec"] = {**spec(pod), "nodeName": node}
            bound["status"] = {**status(pod), "phase": "Pending"}
            uid = uid_of(pod)
            pods = [bound if uid_of(p) == uid else p for p in pods]


def filter_node(pod: Obj, node: Obj, pods: list[Obj]) -> tuple[list[str], str]:
    """The reasons a node does not fit (empty when it does), and whether preemption could help."""
    pod_spec = spec(pod)
    tolerations = list(pod_spec.get("tolerations") or [])
    if spec(node).get("unschedulable") and not tolerates(
        tolerations, {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}
    ):
        return ["node(s) were unschedulable"], UNRESOLVABLE
    taint = untolerated_taint(node, tolerations)
    if taint is not None:
        value = taint.get("value", "")
        return [f"node(s) had untolerated taint {{{taint.get('key')}: {value}}}"], UNRESOLVABLE
    if not matches_node_selector(pod_spec, node):
        return ["node(s) didn't match Pod's node affinity/selector"], UNRESOLVABLE
    allocatable = node_allocatable(node)
    used, count = node_usage(pods, name_of(node))
    reasons = []
    if count + 1 > int(allocatable.get("pods", Decimal(110))):
        reasons.append("Too many pods")
    for resource, amount in sorted(pod_requests(pod).items()):
        if amount <= 0:
            continue
        free = allocatable.get(resource, Decimal(0)) - used.get(resource, Decimal(0))
        if amount > free:
            reasons.append(f"Insufficient {resource}")
    return reasons, RESOLVABLE


def _score(pod: Obj, node: Obj, pods: list[Obj]) -> tuple[float, int]:
    """NodeResourcesFit LeastAllocated over cpu and memory, ties broken as by chance."""
    allocatable = node_allocatable(node)
    requests = pod_requests(pod)
    node_name = name_of(node)
    held = [
        pod_requests(other)
        for other in pods
        if spec(other).get("nodeName") == node_name and holds_resources(other)
    ]
    total = 0.0
    for resource, default in (("cpu", DEFAULT_MILLI_CPU), ("memory", DEFAULT_MEMORY)):
        cap = allocatable.get(resource, Decimal(0))
        if cap <= 0:
            continue
        # NonZeroRequested: a pod without a request counts as the default, here too.
        used = sum((asked.get(resource) or default for asked in held), Decimal(0))
        want = requests.get(resource) or default
        total += float((cap - used - want) / cap)
    return total, stable_hash("tie", uid_of(pod), name_of(node)) % 1000


def schedule_one(api: ClusterAPI, pod: Obj, nodes: list[Obj], pods: list[Obj]) -> str | None:
    histogram: dict[str, int] = {}
    preemption: dict[str, int] = {}
    fits: list[tuple[tuple[float, int], str]] = []
    # Filter and score read only a node's own pods: gather them in one pass, not two per node.
    by_node: dict[str, list[Obj]] = {}
    for other in pods:
        node_name = spec(other).get("nodeName")
        if isinstance(node_name, str):
            by_node.setdefault(node_name, []).append(other)
    for node in nodes:
        here = by_node.get(name_of(node), [])
        reasons, kind = filter_node(pod, node, here)
        if not reasons:
            fits.append((_score(pod, node, here), name_of(node)))
            continue
        for reason in reasons:
            histogram[reason] = histogram.get(reason, 0) + 1
        verdict = (
            "Preemption is not helpful for scheduling"
            if kind == UNRESOLVABLE
            else "No preemption victims found for incoming pod"
        )
        preemption[verdict] = preemption.get(verdict, 0) + 1
    if fits:
        fits.sort(key=lambda f: (-f[0][0], f[0][1], f[1]))
        target = fits[0][1]
        try:
            api.bind(name_of(pod), namespace_of(pod), target)
        except ApiError:
            return None
        emit(
            api,
            pod,
            "Normal",
            "Scheduled",
            f"Successfully assigned {namespace_of(pod)}/{name_of(pod)} to {target}",
            DEFAULT_SCHEDULER,
        )
        return target
    _report_failure(api, pod, fit_error(len(nodes), histogram, preemption))
    return None


def fit_error(total: int, histogram: dict[str, int], preemption: dict[str, int]) -> str:
    """FitError.Error(): reasons as "<count> <reason>", sorted as strings."""
    message = f"0/{total} nodes are available"
    if total == 0:
        return "no nodes available to schedule pods"
    reasons = sorted(f"{count} {reason}" for reason, count in histogram.items())
    if reasons:
        message += ": " + ", ".join(reasons) + "."
    if preemption:
        verdicts = sorted(f"{count} {reason}" for reason, count in preemption.items())
        message += f" preemption: 0/{total} nodes are available: " + ", ".join(verdicts) + "."
    return message


def _report_failure(api: ClusterAPI, pod: Obj, message: str) -> None:
    """Set PodScheduled=False and record FailedScheduling when the verdict changes.

    The real scheduler retries on every relevant cluster change and repeats the event; the
    lab retries every step but only speaks up when the answer is new, so a count stays honest.
    """
    conditions = list(status(pod).get("conditions") or [])
    prior = next((c for c in conditions if c.get("type") == "PodScheduled"), None)
    if prior is not None and prior.get("message") == message:
        return
    now = timestamp(api)
    condition: dict[str, Any] = {
        "type": "PodScheduled",
        "status": "False",
        "lastProbeTime": None,
        "lastTransitionTime": prior.get("lastTransitionTime", now)
        if prior and prior.get("status") == "False"
        else now,
        "reason": "Unschedulable",
        "message": message,
    }
    others = [c for c in conditions if c.get("type") != "PodScheduled"]
    try:
        api.patch(
            "pods",
            name_of(pod),
            {"status": {"conditions": [*others, condition]}},
            namespace_of(pod),
            subresource="status",
        )
    except ApiError as exc:
        if exc.code == 404:
            return
        raise
    emit(api, pod, "Warning", "FailedScheduling", message, DEFAULT_SCHEDULER)
