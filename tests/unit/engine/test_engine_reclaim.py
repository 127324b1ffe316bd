"""Reclaim: owners take back borrowed GPUs, and only down to the borrower's fair share."""

from __future__ import annotations

from simulators.engine import GpuRequest, PodStatus, PoolQuota
from tests.unit.engine.engine_scenes import cluster_with, messages, project, running


def count(cluster: object, proj: str, status: str) -> int:
    return sum(1 for w in cluster.workloads(proj) if w.status == status)  # type: ignore[attr-defined]


def test_reclaim_stops_at_the_victims_fair_share() -> None:
    # 8 GPUs, a and b deserve 4 each. b borrowed all 8; a now wants 6.
    # Fair shares are 4 and 4, so a reclaims exactly 4 and its last 2 jobs wait.
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 4)
    project(cluster, "b", 4)
    for i in range(8):
        running(cluster, f"b{i}", "b", "gpu-node1")
    for i in range(6):
        cluster.submit(f"a{i}", "a")
    result = cluster.run_cycle()
    assert result.fair_share["default"] == {"a": 4, "b": 4}
    assert count(cluster, "b", "Releasing") == 4
    assert count(cluster, "b", "Running") == 4
    assert count(cluster, "a", "Pipelined") == 4
    assert count(cluster, "a", "Pending") == 2


def test_reclaimed_pods_stay_on_their_node_while_releasing_then_requeue() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 4)
    project(cluster, "b", 4)
    for i in range(8):
        running(cluster, f"b{i}", "b", "gpu-node1")
    cluster.submit("a0", "a")
    cluster.run_cycle()
    victim = next(w for w in cluster.workloads("b") if w.status == "Releasing")
    assert victim.pods[0].node == "gpu-node1"
    assert any(m.startswith("Reclaimed by project a") for m in messages(cluster, "b", victim.name))
    cluster.run_cycle()
    assert cluster.workload("a", "a0").status == "Running"
    assert victim.status == "Pending"
    assert victim.evicted_by == "a/a0"


def test_newest_lowest_priority_jobs_are_reclaimed_first() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 4)
    project(cluster, "b", 4)
    for i in range(8):
        running(cluster, f"b{i}", "b", "gpu-node1")
    for i in range(2):
        cluster.submit(f"a{i}", "a")
    cluster.run_cycle()
    releasing = sorted(w.name for w in cluster.workloads("b") if w.status == "Releasing")
    assert releasing == ["b6", "b7"]


def test_a_gang_victim_at_its_minimum_is_taken_whole() -> None:
    # b's distributed job (4 pods x 2 GPUs) runs over b's fair share of 6; a needs 2 GPUs.
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 8)
    project(cluster, "b", 0)
    running(cluster, "dist", "b", "gpu-node1", gpus=2, kind="distributed", pods=4)
    cluster.submit("small", "a", gpu=GpuRequest.whole(2))
    cluster.run_cycle()
    assert [p.status for p in cluster.workload("b", "dist").pods] == [PodStatus.RELEASING] * 4


def test_a_victim_above_its_minimum_loses_its_last_pod_only() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 8)
    project(cluster, "b", 0)
    running(cluster, "elastic", "b", "gpu-node1", gpus=2, pods=4, min_available=1)
    cluster.submit("small", "a", gpu=GpuRequest.whole(2))
    cluster.run_cycle()
    pods = cluster.workload("b", "elastic").pods
    assert [p.status for p in pods] == [PodStatus.RUNNING] * 3 + [PodStatus.RELEASING]


def test_non_preemptible_reclaimers_are_limited_to_deserved() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 2)
    project(cluster, "b", 0)
    for i in range(8):
        running(cluster, f"b{i}", "b", "gpu-node1")
    cluster.submit("ws-big", "a", kind="workspace", gpu=GpuRequest.whole(4))
    cluster.run_cycle()
    assert cluster.workload("a", "ws-big").status == "Pending"
    assert count(cluster, "b", "Running") == 8
    assert cluster.workload("a", "ws-big").reason_message == (
        "Unable to schedule pod: NonPreemptibleOverQuota: "
        "project a would exceed its quota of 2 GPUs"
    )
    cluster.delete_workload("a", "ws-big")
    cluster.submit("ws", "a", kind="workspace", gpu=GpuRequest.whole(2))
    cluster.run_cycle()
    assert cluster.workload("a", "ws").status == "Pipelined"
    assert count(cluster, "b", "Releasing") == 2


def test_non_preemptible_jobs_are_never_victims() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 8)
    project(cluster, "b", 0)
    for i in range(8):
        running(cluster, f"ws{i}", "b", "gpu-node1", kind="workspace")
    cluster.submit("t", "a")
    cluster.run_cycle()
    assert cluster.workload("a", "t").status == "Pending"
    assert count(cluster, "b", "Running") == 8


def test_a_project_at_its_fair_share_does_not_reclaim() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 4)
    project(cluster, "b", 4)
    for i in range(4):
        running(cluster, f"a{i}", "a", "gpu-node1")
        running(cluster, f"b{i}", "b", "gpu-node1")
    cluster.submit("more", "a")
    cluster.run_cycle()
    assert cluster.workload("a", "more").status == "Pending"
    assert count(cluster, "b", "Running") == 4


def test_reclaim_inside_a_department_takes_from_the_sibling_over_its_share() -> None:
    cluster = cluster_with(nodes=1)
    cluster.add_department("research", quotas={"default": PoolQuota(8)})
    project(cluster, "a", 4, department="research")
    project(cluster, "b", 4, department="research")
    for i in range(8):
        running(cluster, f"b{i}", "b", "gpu-node1")
    cluster.submit("a0", "a", gpu=GpuRequest.whole(2))
    cluster.run_cycle()
    assert cluster.workload("a", "a0").status == "Pipelined"
    assert count(cluster, "b", "Releasing") == 2


def test_a_reclaimer_that_cannot_fit_evicts_nobody() -> None:
    # a needs 8 GPUs on one node but b only borrowed 4 of them; the other 4 are a's own.
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 8)
    project(cluster, "b", 0)
    running(cluster, "mine", "a", "gpu-node1", gpus=4, kind="workspace")
    for i in range(4):
        running(cluster, f"b{i}", "b", "gpu-node1")
    cluster.submit("whole-node", "a", gpu=GpuRequest.whole(8))
    cluster.run_cycle()
    assert cluster.workload("a", "whole-node").status == "Pending"
    assert count(cluster, "b", "Running") == 4
