"""A workload may name several node pools in order of preference (as Run:ai allows)."""

from __future__ import annotations

import pytest

from simulators.engine import (
    Cluster,
    EngineError,
    GpuRequest,
    Node,
    PoolQuota,
    TickingClock,
    explain,
)


def two_pools() -> Cluster:
    cluster = Cluster(clock=TickingClock())
    cluster.add_node_pool("h100")
    cluster.add_node_pool("l40s")
    cluster.add_node(Node("h100-node1", gpus=8, pool="h100"))
    cluster.add_node(Node("l40s-node1", gpus=4, pool="l40s"))
    cluster.add_project(
        "team-a", quotas={"h100": PoolQuota(deserved=8), "l40s": PoolQuota(deserved=4)}
    )
    return cluster


def test_a_workload_runs_in_its_first_pool_when_it_fits_there() -> None:
    cluster = two_pools()
    cluster.submit("train", "team-a", gpu=GpuRequest.whole(2), node_pool=["h100", "l40s"])
    cluster.run_cycle()
    workload = cluster.workload("team-a", "train")
    assert workload.status == "Running"
    assert workload.node_pool == "h100"
    assert workload.pods[0].node == "h100-node1"


def test_a_workload_falls_back_to_its_next_pool_in_the_same_cycle() -> None:
    cluster = two_pools()
    cluster.submit("big", "team-a", gpu=GpuRequest.whole(8), node_pool="h100")
    cluster.run_cycle()
    cluster.submit("small", "team-a", gpu=GpuRequest.whole(2), node_pool=["h100", "l40s"])
    cluster.run_cycle()
    workload = cluster.workload("team-a", "small")
    assert workload.status == "Running"
    assert workload.node_pool == "l40s"
    assert workload.pods[0].node == "l40s-node1"


def test_the_explanation_says_which_pool_it_landed_in_and_why_not_the_others() -> None:
    cluster = two_pools()
    cluster.submit("big", "team-a", gpu=GpuRequest.whole(8), node_pool="h100")
    cluster.run_cycle()
    cluster.submit("small", "team-a", gpu=GpuRequest.whole(2), node_pool=["h100", "l40s"])
    cluster.run_cycle()
    text = explain(cluster, "team-a", "small").to_text()
    assert "Node pools in order of preference: h100, l40s." in text
    assert "Not node pool h100: " in text
    assert "It landed in node pool l40s." in text


def test_a_workload_that_fits_nowhere_waits_in_its_last_pool_with_every_reason() -> None:
    cluster = two_pools()
    cluster.submit("huge", "team-a", gpu=GpuRequest.whole(16), node_pool=["l40s", "h100"])
    cluster.run_cycle()
    workload = cluster.workload("team-a", "huge")
    assert workload.status == "Pending"
    assert workload.node_pool == "h100"
    assert set(workload.pool_reasons) == {"l40s"}
    assert "It is waiting in node pool h100." in explain(cluster, "team-a", "huge").to_text()


def test_a_pool_listed_twice_is_refused() -> None:
    cluster = two_pools()
    with pytest.raises(EngineError, match="listed twice"):
        cluster.submit("x", "team-a", node_pool=["h100", "h100"])
