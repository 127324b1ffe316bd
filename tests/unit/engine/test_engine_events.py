"""Every row of the guide's "why is it Pending?" table, with its message."""

from __future__ import annotations

from simulators.engine import Cluster, GpuRequest, Node, PoolQuota, Reason, TickingClock
from simulators.engine.scheduler.records import Note
from tests.unit.engine.engine_scenes import cluster_with, project, running


def pending_reason(cluster: Cluster, proj: str, name: str) -> tuple[str, str]:
    workload = cluster.workload(proj, name)
    assert workload.status == "Pending"
    return workload.reason_code, workload.reason_message


def test_non_preemptible_over_quota_reads_as_in_the_guide() -> None:
    cluster = cluster_with(nodes=5)
    project(cluster, "team-llm", 32)
    for i in range(4):
        running(cluster, f"ws{i}", "team-llm", f"gpu-node{i + 1}", gpus=8, kind="workspace")
    cluster.submit("t1", "team-llm", kind="workspace")
    cluster.run_cycle()
    code, message = pending_reason(cluster, "team-llm", "t1")
    assert code == Reason.NON_PREEMPTIBLE_OVER_QUOTA
    assert message == (
        "Unable to schedule pod: NonPreemptibleOverQuota: project team-llm would exceed its "
        "quota of 32 GPUs"
    )
    events = cluster.events_for("team-llm", "t1")
    assert (events[0].type, events[0].reason) == ("Warning", "Unschedulable")
    pod_events = cluster.events_for("team-llm", "t1-0-0", kind="Pod")
    assert pod_events[0].message == message


def test_insufficient_gpus_when_the_project_is_under_quota_but_nothing_is_free() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 4)
    project(cluster, "b", 4)
    for i in range(8):
        running(cluster, f"ws{i}", "b", "gpu-node1", kind="workspace")
    cluster.submit("t", "a")
    cluster.run_cycle()
    code, message = pending_reason(cluster, "a", "t")
    assert code == Reason.INSUFFICIENT_GPUS
    assert (
        message == "Unable to schedule pod: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
    )


def test_a_pod_bigger_than_any_node_says_no_node_has_enough_gpus() -> None:
    cluster = cluster_with(nodes=3)
    project(cluster, "p", 32)
    cluster.submit("huge", "p", gpu=GpuRequest.whole(16))
    cluster.run_cycle()
    code, message = pending_reason(cluster, "p", "huge")
    assert code == Reason.REQUEST_TOO_BIG
    assert "no node in node pool default has enough GPUs" in message
    assert "requests 16 nvidia.com/gpu and the largest node has 8" in message


def test_fragmentation_names_the_free_gpus_spread_over_nodes() -> None:
    cluster = cluster_with(nodes=2, placement="spread")
    project(cluster, "p", 16)
    for node in ("gpu-node1", "gpu-node2"):
        running(cluster, f"ws-{node}", "p", node, gpus=6, kind="workspace")
    cluster.submit("four", "p", gpu=GpuRequest.whole(4))
    cluster.run_cycle()
    code, message = pending_reason(cluster, "p", "four")
    assert code == Reason.FRAGMENTATION
    assert "4 GPUs are free in node pool default, but no single node has 4 GPUs free" in message


def test_a_gang_waits_for_all_its_gpus_at_once() -> None:
    cluster = cluster_with(nodes=2)
    project(cluster, "p", 16)
    running(cluster, "ws", "p", "gpu-node1", gpus=4, kind="workspace")
    cluster.submit("llm-ft", "p", kind="distributed", gpu=GpuRequest.whole(8), pods=2)
    cluster.run_cycle()
    code, message = pending_reason(cluster, "p", "llm-ft")
    assert code == Reason.GANG_CANNOT_FIT
    assert "waits for 2 pods x 8 GPUs = 16 GPUs at once" in message
    assert "only 1 of its pods fit now" in message


def test_no_quota_in_the_requested_node_pool() -> None:
    cluster = Cluster(clock=TickingClock())
    cluster.add_node_pool("l40s-pool")
    cluster.add_node(Node("l40s-1", gpus=4, pool="l40s-pool"))
    cluster.add_project("owner", quotas={"l40s-pool": PoolQuota(4)})
    cluster.add_project("team-vision", quotas={"default": PoolQuota(8)})
    for i in range(4):
        cluster.submit(f"inf{i}", "owner", kind="inference", node_pool="l40s-pool")
    cluster.run_cycle()
    cluster.submit("t", "team-vision", node_pool="l40s-pool")
    cluster.run_cycle()
    code, message = pending_reason(cluster, "team-vision", "t")
    assert code == Reason.NO_QUOTA_IN_POOL
    assert "project team-vision has no quota in node pool l40s-pool" in message


def test_a_project_at_its_quota_with_no_free_gpus() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 2)
    project(cluster, "b", 6)
    running(cluster, "a0", "a", "gpu-node1", gpus=2)
    running(cluster, "b0", "b", "gpu-node1", gpus=6)
    cluster.submit("a1", "a")
    cluster.run_cycle()
    code, message = pending_reason(cluster, "a", "a1")
    assert code == Reason.OVER_QUOTA_NO_FREE_GPUS
    assert message == (
        "Unable to schedule pod: project a is at or above its quota of 2 GPUs (2 allocated) "
        "and node pool default has no free GPUs to borrow"
    )


def test_nodes_that_advertise_zero_gpus_are_called_out() -> None:
    cluster = cluster_with(nodes=2)
    project(cluster, "p", 8)
    for node in ("gpu-node1", "gpu-node2"):
        cluster.set_gpu_operator_healthy(node, False)
    cluster.submit("t", "p")
    cluster.run_cycle()
    code, message = pending_reason(cluster, "p", "t")
    assert code == Reason.NODES_ADVERTISE_NO_GPUS
    assert "0/2 nodes are available: 2 Insufficient nvidia.com/gpu" in message
    assert "advertises 0 nvidia.com/gpu" in message
    assert cluster.node_usage("gpu-node1").allocatable == {}


def test_reclaim_and_preemption_events_name_who_took_the_gpus() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "team-llm", 8)
    project(cluster, "team-vision", 0)
    for i in range(8):
        running(cluster, f"v{i}", "team-vision", "gpu-node1")
    cluster.submit("t", "team-llm")
    cluster.run_cycle()
    events = cluster.events_for("team-vision", "v7")
    assert events[-1].reason == "Evicted"
    assert events[-1].message.startswith("Reclaimed by project team-llm (workload t)")


def test_repeated_decisions_fold_into_one_event_with_a_count() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "p", 32)
    cluster.submit("huge", "p", gpu=GpuRequest.whole(16))
    for _ in range(3):
        cluster.run_cycle()
    events = cluster.events_for("p", "huge")
    assert len(events) == 1
    assert events[0].count == 3


def test_a_cycle_lists_each_event_once_even_when_it_folds_repeats_into_it() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "p", 32)
    cluster.submit("huge", "p", gpu=GpuRequest.whole(16))
    earlier = cluster.run_cycle().events
    workload = cluster.workload("p", "huge")
    old = Note(workload, None, "Warning", "Unschedulable", earlier[0].message, Reason.OVER_LIMIT)
    new = Note(workload, None, "Warning", "Unschedulable", "another", Reason.OVER_LIMIT)
    # The old event twice, then a new one twice: each is listed once, with every repeat counted.
    listed = cluster._leave_events(earlier[0].time, [old, old, new, new, new])
    assert [(e.message, e.count) for e in listed] == [(earlier[0].message, 3), ("another", 3)]
    assert listed[0] is earlier[0]
