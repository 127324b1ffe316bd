"""The plain messages of scheduling decisions, worded as in the guide (sections 8, 9, 20)."""

from __future__ import annotations

import enum
from functools import lru_cache


class Reason(enum.StrEnum):
    """Why a workload is where it is; each maps to a row of the guide's Pending table."""

    SCHEDULED = "Scheduled"
    NON_PREEMPTIBLE_OVER_QUOTA = "NonPreemptibleOverQuota"
    OVER_LIMIT = "OverLimit"
    INSUFFICIENT_GPUS = "InsufficientGpus"
    REQUEST_TOO_BIG = "RequestBiggerThanAnyNode"
    FRAGMENTATION = "Fragmentation"
    GANG_CANNOT_FIT = "GangCannotFit"
    OVER_QUOTA_NO_FREE_GPUS = "OverQuotaNoFreeGpus"
    NO_QUOTA_IN_POOL = "NoQuotaInNodePool"
    NO_NODES_IN_POOL = "NoNodesInNodePool"
    NODES_ADVERTISE_NO_GPUS = "NodesAdvertiseNoGpus"
    RECLAIMED = "Reclaimed"
    PREEMPTED = "Preempted"
    PIPELINED = "Pipelined"
    CONSOLIDATED = "Consolidated"


PREFIX = "Unable to schedule pod: "

# The pending reasons are worded once per distinct set of numbers: a cycle leaves the same
# message on thousands of waiting jobs of one project (every message is a pure function).
_reworded = lru_cache(maxsize=1024)


def gpus(value: float) -> str:
    """2 → "2", 0.5 → "0.5": numbers as a person writes them."""
    rounded = round(value, 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"


def plural(value: float, word: str = "GPU") -> str:
    return f"{gpus(value)} {word}" + ("" if value == 1 else "s")


def non_preemptible_over_quota(kind: str, queue: str, quota: float) -> str:
    return (
        f"{PREFIX}NonPreemptibleOverQuota: {kind} {queue} would exceed its quota of {plural(quota)}"
    )


def over_limit(kind: str, queue: str, limit: float) -> str:
    return f"{PREFIX}OverLimit: {kind} {queue} would exceed its limit of {plural(limit)}"


def node_summary(total_nodes: int, counts: dict[str, int]) -> str:
    """The kube-scheduler style line: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu."""
    parts = [f"{n} {text}" for text, n in sorted(counts.items(), key=lambda item: item[0]) if n]
    detail = ", ".join(parts)
    return (
        f"0/{total_nodes} nodes are available: {detail}."
        if detail
        else (f"0/{total_nodes} nodes are available.")
    )


def insufficient(summary: str) -> str:
    return PREFIX + summary


def no_nodes_in_pool(pool: str) -> str:
    return f"{PREFIX}node pool {pool} has no nodes; choose a node pool that has GPUs"


def nodes_advertise_no_gpus(total_nodes: int, resource: str, pool: str) -> str:
    return (
        f"{PREFIX}0/{total_nodes} nodes are available: {total_nodes} Insufficient {resource}. "
        f"Every node in node pool {pool} advertises 0 {resource} (Allocatable 0): "
        "check the GPU Operator's device plugin and driver pods"
    )


def request_too_big(resource: str, per_pod: float, largest: int, pool: str) -> str:
    return (
        f"{PREFIX}no node in node pool {pool} has enough GPUs: the pod requests "
        f"{gpus(per_pod)} {resource} and the largest node has {largest}; "
        "use a distributed workload instead"
    )


@_reworded
def fragmentation(summary: str, free: float, per_pod: float, pool: str) -> str:
    return (
        f"{PREFIX}{summary} Fragmentation: {plural(free)} are free in node pool {pool}, "
        f"but no single node has {plural(per_pod)} free"
    )


def gang_cannot_fit(workload: str, pods: int, per_pod: float, placed: int, pool: str) -> str:
    total = pods * per_pod
    return (
        f"Unable to schedule pod group: gang scheduling: {workload} waits for {pods} pods x "
        f"{plural(per_pod)} = {plural(total)} at once in node pool {pool}; "
        f"only {placed} of its pods fit now"
    )


@_reworded
def over_quota_no_free(project: str, quota: float, allocated: float, free: float, pool: str) -> str:
    return (
        f"{PREFIX}project {project} is at or above its quota of {plural(quota)} "
        f"({gpus(allocated)} allocated) and node pool {pool} has "
        + ("no free GPUs to borrow" if free <= 0 else f"only {plural(free)} free")
    )


@_reworded
def no_quota_in_pool(project: str, pool: str, free: float) -> str:
    return f"{PREFIX}project {project} has no quota in node pool {pool}, so it can only borrow " + (
        "idle GPUs, and there are none"
        if free <= 0
        else f"idle GPUs, and only {plural(free)} are free"
    )


def scheduled(namespace: str, pod: str, node: str) -> str:
    return f"Successfully assigned {namespace}/{pod} to {node}"


def pipelined(node: str) -> str:
    return f"Pod pipelined to {node}: it starts as soon as the GPUs being released there are free"


def reclaimed(
    by_project: str, by_workload: str, victim_queue: str, allocated: float, share: float, pool: str
) -> str:
    return (
        f"Reclaimed by project {by_project} (workload {by_workload}): {victim_queue} was using "
        f"{plural(allocated)} in node pool {pool}, above its fair share of {gpus(share)}; "
        "over-quota GPUs are borrowed and can be called back"
    )


def preempted(by_workload: str, by_priority: int, priority: int) -> str:
    return (
        f"Preempted by a higher-priority job: {by_workload} (priority {by_priority}) needs the "
        f"GPUs; this job has priority {priority}"
    )


def consolidated(from_node: str, to_node: str, for_workload: str) -> str:
    return f"Moved from {from_node} to {to_node} by consolidation to make room for {for_workload}"
