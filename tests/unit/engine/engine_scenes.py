"""Small cluster builders shared by the engine tests."""

from __future__ import annotations

from simulators.engine import Cluster, GpuRequest, Node, PoolQuota, TickingClock, Workload


def cluster_with(
    nodes: int = 1, gpus: int = 8, placement: str = "binpack", pool: str = "default"
) -> Cluster:
    cluster = Cluster(clock=TickingClock())
    cluster.add_node_pool(pool, placement=placement)  # type: ignore[arg-type]
    for index in range(1, nodes + 1):
        cluster.add_node(Node(f"gpu-node{index}", gpus=gpus, pool=pool))
    return cluster


def project(
    cluster: Cluster, name: str, deserved: float, pool: str = "default", **extra: object
) -> None:
    limit = extra.get("limit")
    weight = extra.get("over_quota_weight", 1.0)
    cluster.add_project(
        name,
        department=extra.get("department"),  # type: ignore[arg-type]
        quotas={pool: PoolQuota(deserved, float(weight), None if limit is None else float(limit))},  # type: ignore[arg-type]
    )


def running(
    cluster: Cluster, name: str, proj: str, node: str, gpus: int = 1, **extra: object
) -> Workload:
    """A workload already Running on `node` (all its pods there)."""
    workload = cluster.submit(name, proj, gpu=GpuRequest.whole(gpus), **extra)  # type: ignore[arg-type]
    cluster.place_running(proj, name, [node] * workload.pod_count)
    return workload


def statuses(cluster: Cluster) -> dict[str, str]:
    return {w.name: w.status for w in cluster.workloads()}


def messages(cluster: Cluster, proj: str, name: str) -> list[str]:
    return [e.message for e in cluster.events_for(proj, name)]
