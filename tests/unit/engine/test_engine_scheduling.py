"""Allocate, placement, fractions, gangs, consolidation and preemption."""

from __future__ import annotations

from simulators.engine import Cluster, GpuRequest, Node, PodStatus, PoolQuota
from tests.unit.engine.engine_scenes import cluster_with, messages, project, running, statuses


def test_new_training_runs_on_idle_gpus_and_records_where() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "team-a", 4)
    cluster.submit("t1", "team-a")
    cluster.run_cycle()
    pod = cluster.workload("team-a", "t1").pods[0]
    assert (pod.name, pod.status, pod.node) == ("t1-0-0", PodStatus.RUNNING, "gpu-node1")
    assert "Successfully assigned runai-team-a/t1-0-0 to gpu-node1" in messages(
        cluster, "team-a", "t1"
    )


def test_workload_defaults_follow_run_ai() -> None:
    cluster = cluster_with()
    project(cluster, "p", 8)
    kinds = {
        "inference": (125, False),
        "workspace": (100, False),
        "training": (50, True),
        "distributed": (50, True),
    }
    for kind, expected in kinds.items():
        workload = cluster.submit(kind, "p", kind=kind)
        assert (workload.priority, workload.preemptible) == expected
    assert cluster.submit("low-ws", "p", kind="workspace", priority=75).preemptible is True


def test_bin_pack_puts_a_job_on_the_fullest_node_that_fits() -> None:
    cluster = cluster_with(nodes=2)
    project(cluster, "p", 16)
    running(cluster, "big", "p", "gpu-node1", gpus=6)
    running(cluster, "small", "p", "gpu-node2", gpus=2)
    cluster.submit("two", "p", gpu=GpuRequest.whole(2))
    cluster.run_cycle()
    assert cluster.workload("p", "two").pods[0].node == "gpu-node1"


def test_spread_puts_a_job_on_the_emptiest_node() -> None:
    cluster = cluster_with(nodes=2, placement="spread")
    project(cluster, "p", 16)
    running(cluster, "big", "p", "gpu-node1", gpus=6)
    running(cluster, "small", "p", "gpu-node2", gpus=2)
    cluster.submit("two", "p", gpu=GpuRequest.whole(2))
    cluster.run_cycle()
    assert cluster.workload("p", "two").pods[0].node == "gpu-node2"


def test_two_half_gpu_workspaces_share_one_gpu() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "p", 8)
    for name in ("nb1", "nb2", "nb3"):
        cluster.submit(name, "p", kind="workspace", gpu=GpuRequest.portion(0.5))
    cluster.run_cycle()
    pods = {w.name: w.pods[0] for w in cluster.workloads()}
    assert pods["nb1"].devices == pods["nb2"].devices
    assert pods["nb3"].devices != pods["nb1"].devices
    assert cluster.workload("p", "nb1").gpus_allocated == 0.5


def test_spread_gives_each_fraction_its_own_gpu() -> None:
    cluster = cluster_with(nodes=1, placement="spread")
    project(cluster, "p", 8)
    for name in ("nb1", "nb2"):
        cluster.submit(name, "p", kind="workspace", gpu=GpuRequest.portion(0.5))
    cluster.run_cycle()
    first, second = (w.pods[0].devices for w in cluster.workloads())
    assert first != second


def test_memory_requests_split_a_gpu_by_memory() -> None:
    cluster = cluster_with(nodes=1, gpus=1)
    project(cluster, "p", 1)
    for name in ("m1", "m2", "m3"):
        cluster.submit(name, "p", kind="workspace", gpu=GpuRequest.memory("40G"))
    cluster.run_cycle()
    assert statuses(cluster) == {"m1": "Running", "m2": "Running", "m3": "Pending"}


def test_a_gang_starts_all_its_pods_or_none() -> None:
    cluster = cluster_with(nodes=2)
    project(cluster, "p", 16)
    running(cluster, "holder", "p", "gpu-node1", gpus=4)
    cluster.submit("llm-ft", "p", kind="distributed", gpu=GpuRequest.whole(8), pods=2)
    cluster.run_cycle()
    pods = cluster.workload("p", "llm-ft").pods
    assert [p.name for p in pods] == ["llm-ft-master-0", "llm-ft-worker-0"]
    assert all(p.status == PodStatus.PENDING and p.node is None for p in pods)


def test_a_gang_that_fits_starts_every_worker_together() -> None:
    cluster = cluster_with(nodes=2)
    project(cluster, "p", 16)
    cluster.submit("llm-ft", "p", kind="distributed", gpu=GpuRequest.whole(8), pods=2)
    cluster.run_cycle()
    assert {p.node for p in cluster.workload("p", "llm-ft").pods} == {"gpu-node1", "gpu-node2"}


def test_consolidation_moves_small_jobs_so_a_fragmented_job_fits() -> None:
    cluster = cluster_with(nodes=2)
    project(cluster, "p", 16)
    for i in range(6):
        running(cluster, f"a{i}", "p", "gpu-node1")
        running(cluster, f"b{i}", "p", "gpu-node2")
    cluster.submit("four", "p", gpu=GpuRequest.whole(4))
    result = cluster.run_cycle()
    four = cluster.workload("p", "four").pods[0]
    moved = [a for a in result.actions if a.kind == "moved"]
    assert four.status == PodStatus.PIPELINED
    assert len(moved) == 2
    assert all(a.node != four.node for a in moved)
    cluster.run_cycle()
    assert cluster.workload("p", "four").status == "Running"
    assert sum(1 for w in cluster.workloads() if w.status == "Running") == 13


def test_spread_pools_are_not_consolidated() -> None:
    cluster = cluster_with(nodes=2, placement="spread")
    project(cluster, "p", 16)
    for i in range(6):
        running(cluster, f"a{i}", "p", "gpu-node1")
        running(cluster, f"b{i}", "p", "gpu-node2")
    cluster.submit("four", "p", gpu=GpuRequest.whole(4))
    result = cluster.run_cycle()
    assert cluster.workload("p", "four").status == "Pending"
    assert not [a for a in result.actions if a.kind == "moved"]


def test_a_workspace_preempts_the_newest_lower_priority_training_in_its_project() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "p", 8)
    for i in range(8):
        running(cluster, f"t{i}", "p", "gpu-node1")
    cluster.submit("ws", "p", kind="workspace")
    cluster.run_cycle()
    assert cluster.workload("p", "ws").status == "Pipelined"
    assert cluster.workload("p", "t7").status == "Releasing"
    assert [w.name for w in cluster.workloads() if w.status == "Releasing"] == ["t7"]
    assert any(
        m.startswith("Preempted by a higher-priority job") for m in messages(cluster, "p", "t7")
    )
    cluster.run_cycle()
    assert cluster.workload("p", "ws").status == "Running"
    assert cluster.workload("p", "t7").status == "Pending"


def test_equal_priority_jobs_never_preempt_each_other() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "p", 8)
    for i in range(8):
        running(cluster, f"t{i}", "p", "gpu-node1")
    cluster.submit("late", "p")
    cluster.run_cycle()
    assert cluster.workload("p", "late").status == "Pending"
    assert all(cluster.workload("p", f"t{i}").status == "Running" for i in range(8))


def test_a_limit_stops_a_project_even_when_gpus_are_idle() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "p", 2, limit=3)
    for i in range(4):
        cluster.submit(f"t{i}", "p")
    cluster.run_cycle()
    assert statuses(cluster) == {"t0": "Running", "t1": "Running", "t2": "Running", "t3": "Pending"}
    assert "would exceed its limit of 3 GPUs" in cluster.workload("p", "t3").reason_message


def test_allocate_serves_the_queue_below_its_fair_share_first() -> None:
    # 4 GPUs, a and b deserve 2 each; a submitted 4 jobs first, b 2 jobs later.
    cluster = cluster_with(nodes=1, gpus=4)
    project(cluster, "a", 2)
    project(cluster, "b", 2)
    for i in range(4):
        cluster.submit(f"a{i}", "a")
    for i in range(2):
        cluster.submit(f"b{i}", "b")
    cluster.run_cycle()
    running_by_project = {
        p: sum(1 for w in cluster.workloads(p) if w.status == "Running") for p in ("a", "b")
    }
    assert running_by_project == {"a": 2, "b": 2}


def test_a_cordoned_node_gets_no_new_pods() -> None:
    cluster = cluster_with(nodes=2)
    project(cluster, "p", 16)
    cluster.node("gpu-node1").cordoned = True
    cluster.submit("t", "p", gpu=GpuRequest.whole(8))
    cluster.run_cycle()
    assert cluster.workload("p", "t").pods[0].node == "gpu-node2"


def test_completed_training_frees_its_gpus() -> None:
    cluster = cluster_with(nodes=1, gpus=1)
    project(cluster, "p", 1)
    cluster.submit("first", "p")
    cluster.submit("second", "p")
    cluster.run_cycle()
    cluster.complete_workload("p", "first")
    cluster.run_cycle()
    assert statuses(cluster) == {"first": "Succeeded", "second": "Running"}


def test_gpus_a_parent_queues_own_jobs_hold_count_against_its_limit() -> None:
    # KAI places jobs of leaf queues only, but counts a parent queue's own running jobs in
    # its usage: a child may not take what would put the parent over its limit.
    cluster = Cluster()
    cluster.add_node(Node("gpu-node1", gpus=8))
    department = cluster.add_department("research", {"default": PoolQuota(None, limit=4)})
    cluster.add_project("team-rl", "research", {"default": PoolQuota(deserved=4)})
    cluster.submit("sweep", "team-rl", gpu=GpuRequest.whole(2))
    department.held["default"] = 3.0
    cluster.run_cycle()
    assert cluster.workload("team-rl", "sweep").status == "Pending"
    department.held.clear()
    cluster.run_cycle()
    assert cluster.workload("team-rl", "sweep").status == "Running"
