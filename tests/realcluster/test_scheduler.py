"""The engine as runai-scheduler, a process of its own, against the apiserver's cluster."""

from __future__ import annotations

import threading
import time
from typing import Any

from simulators.cluster.kube import KubeCluster
from simulators.scheduler.lease import LeaderElector
from simulators.scheduler.runner import Scheduler
from tests.realcluster.conftest import Cluster, wait_for


def _research(cluster: Cluster, **teams: float) -> None:
    cluster.queue("research", sum(teams.values()))
    for team, quota in teams.items():
        cluster.queue(team, quota, parent="research")


def _reasons(events: list[Any]) -> list[str]:
    return [str(e.reason) for e in events]


def test_the_scheduler_binds_a_pod_within_its_projects_quota(cluster: Cluster) -> None:
    _research(cluster, **{"team-a": 8})
    cluster.pod("train-1", "team-a", 2)
    scheduler = cluster.start_scheduler("s1")
    node = wait_for("train-1 to be bound", lambda: cluster.node_of("train-1"))
    assert node.startswith("gpu-node")
    scheduled = wait_for(
        "the Scheduled event",
        lambda: [e for e in cluster.events("train-1") if e.reason == "Scheduled"],
    )
    assert scheduled[0].message == f"Successfully assigned default/train-1 to {node}"
    assert scheduled[0].source.component == "runai-scheduler"
    assert scheduler.bound() == ["default/train-1"]


def test_a_gang_binds_all_or_nothing(cluster: Cluster) -> None:
    _research(cluster, **{"team-a": 40})
    # Four pods of 8 GPUs on three nodes of 8: never all at once, so none.
    cluster.podgroup("too-big", "team-a", 4)
    for index in range(4):
        cluster.pod(f"too-big-{index}", "team-a", 8, group="too-big")
    cluster.start_scheduler("s1")
    wait_for(
        "the gang's Unschedulable events",
        lambda: all("Unschedulable" in _reasons(cluster.events(f"too-big-{i}")) for i in range(4)),
    )
    assert [cluster.node_of(f"too-big-{i}") for i in range(4)] == [None] * 4
    # Three of 8 fit: all three, on three nodes.
    cluster.podgroup("fits", "team-a", 3)
    for index in range(3):
        cluster.pod(f"fits-{index}", "team-a", 8, group="fits")
    nodes = wait_for(
        "the second gang to be bound",
        lambda: (lambda n: n if all(n) else None)([cluster.node_of(f"fits-{i}") for i in range(3)]),
    )
    assert sorted(nodes) == ["gpu-node1", "gpu-node2", "gpu-node3"]
    assert [cluster.node_of(f"too-big-{i}") for i in range(4)] == [None] * 4


def test_a_non_preemptible_pod_over_quota_stays_pending_with_the_engines_reason(
    cluster: Cluster,
) -> None:
    _research(cluster, **{"team-a": 2})
    cluster.podgroup("notebook", "team-a", 1, preemptible=False)
    cluster.pod("notebook-0", "team-a", 4, group="notebook")
    cluster.start_scheduler("s1")
    events = wait_for(
        "the NonPreemptibleOverQuota event",
        lambda: [e for e in cluster.events("notebook-0") if "NonPreemptibleOverQuota" in e.message],
    )
    assert events[0].reason == "Unschedulable"
    assert events[0].type == "Warning"
    assert events[0].message == (
        "Unable to schedule pod: NonPreemptibleOverQuota: project team-a would exceed its "
        "quota of 2 GPUs"
    )
    assert cluster.node_of("notebook-0") is None


def test_a_reclaim_evicts_only_the_borrowed_gpus_when_the_owner_submits(
    cluster: Cluster,
) -> None:
    _research(cluster, **{"team-a": 12, "team-b": 12})
    # team-a borrows: 24 GPUs in three pods of 8, 12 of them team-b's.
    for index in range(3):
        cluster.pod(f"a-{index}", "team-a", 8)
    cluster.start_scheduler("s1")
    wait_for("team-a's pods to run", lambda: all(cluster.node_of(f"a-{i}") for i in range(3)))
    cluster.pod("b-0", "team-b", 8)
    wait_for("team-b's pod to be bound", lambda: cluster.node_of("b-0"), timeout=90)
    remaining = [i for i in range(3) if cluster.node_of(f"a-{i}")]
    # One pod of 8 goes back: team-a keeps 16 GPUs, more than its 12 deserved.
    assert len(remaining) == 2
    gone = next(f"a-{i}" for i in range(3) if i not in remaining)
    evicted = [e for e in cluster.events(gone) if e.reason == "Evicted"]
    assert evicted[0].type == "Warning"
    assert evicted[0].message.startswith("Reclaimed by project team-b (workload b-0): team-a")


def test_two_schedulers_never_both_bind(cluster: Cluster) -> None:
    _research(cluster, **{"team-a": 24})
    first = cluster.start_scheduler("first")
    wait_for("the first scheduler to lead", lambda: "leading as first" in first.log())
    second = cluster.start_scheduler("second")
    wait_for("the second scheduler to wait", lambda: "waiting for the lease" in second.log())
    for index in range(3):
        cluster.pod(f"p-{index}", "team-a", 2)
    wait_for("three pods bound", lambda: all(cluster.node_of(f"p-{i}") for i in range(3)))
    assert sorted(first.bound()) == ["default/p-0", "default/p-1", "default/p-2"]
    assert second.bound() == []
    # The leader stops and gives the Lease up; the other takes over.
    first.stop()
    wait_for("the second scheduler to lead", lambda: "leading as second" in second.log())
    cluster.pod("p-3", "team-a", 2)
    wait_for("p-3 bound", lambda: cluster.node_of("p-3"))
    assert second.bound() == ["default/p-3"]
    assert "default/p-3" not in first.bound()


def test_a_scheduler_killed_mid_cycle_binds_nothing_twice_after_a_restart(
    cluster: Cluster,
) -> None:
    _research(cluster, **{"team-a": 24})
    cluster.podgroup("gang", "team-a", 3)
    for index in range(3):
        cluster.pod(f"gang-{index}", "team-a", 8, group="gang")
    crashed = cluster.start_scheduler("crashing", "--crash-after-binds", "1")
    assert crashed.process.wait(timeout=60) == 3
    assert len(crashed.bound()) == 1
    restarted = cluster.start_scheduler("restarted")
    nodes = wait_for(
        "the rest of the gang to be bound",
        lambda: (lambda n: n if all(n) else None)([cluster.node_of(f"gang-{i}") for i in range(3)]),
    )
    # Three pods of 8 on three nodes of 8: the pod bound before the crash kept its node and
    # its GPUs were counted, or two pods would share a node.
    assert sorted(nodes) == ["gpu-node1", "gpu-node2", "gpu-node3"]
    assert sorted(crashed.bound() + restarted.bound()) == [
        "default/gang-0",
        "default/gang-1",
        "default/gang-2",
    ]
    assert "already" not in restarted.log()


def test_a_watch_that_expires_is_relisted(cluster: Cluster) -> None:
    api = KubeCluster(cluster.client, allow_writes=True)
    api.create("configmaps", {"metadata": {"name": "churn"}, "data": {"n": "0"}}, "default")
    # More writes than the server's watch log keeps: resourceVersion 1 is then too old.
    for n in range(2050):
        api.patch("configmaps", "churn", {"data": {"n": str(n)}}, "default")
    _research(cluster, **{"team-a": 8})
    lines: list[str] = []
    elector = LeaderElector(
        api, namespace="runai", name="runai-scheduler", identity="t", monotonic=time.monotonic
    )
    scheduler = Scheduler(api, elector, log=lines.append)
    watcher = threading.Thread(
        target=scheduler.watch_pods, kwargs={"since": "1", "timeout_seconds": 5}, daemon=True
    )
    watcher.start()
    try:
        wait_for("the relist", lambda: scheduler.relists)
        scheduler.wake.clear()
        cluster.pod("after-relist", "team-a", 1)
        # The watch goes on from the relisted version: the new pod wakes the scheduler.
        wait_for("the watch to see the new pod", scheduler.wake.is_set)
    finally:
        scheduler.stop.set()
        watcher.join(timeout=10)
    assert "watch expired (410 Gone): relisting pods" in lines
    assert elector.try_acquire_or_renew()
    scheduler.cycle()
    assert cluster.node_of("after-relist")


def test_the_real_kubectl_shows_the_bound_pods_and_the_schedulers_events(
    cluster: Cluster,
) -> None:
    _research(cluster, **{"team-a": 8})
    cluster.pod("train-1", "team-a", 4)
    cluster.start_scheduler("s1")
    node = wait_for("train-1 to be bound", lambda: cluster.node_of("train-1"))
    wait_for("the event", lambda: "Scheduled" in _reasons(cluster.events("train-1")))
    pods = cluster.server.kubectl("get", "pods", "-o", "wide")
    assert pods.returncode == 0, pods.stderr
    row = next(line for line in pods.stdout.splitlines() if line.startswith("train-1 "))
    assert node in row.split()
    events = cluster.server.kubectl(
        "get", "events", "--field-selector", "involvedObject.name=train-1"
    )
    assert events.returncode == 0, events.stderr
    line = next(line for line in events.stdout.splitlines() if "Scheduled" in line)
    assert f"Successfully assigned default/train-1 to {node}" in line
    # Stamped with the cluster's clock (its Date header), not the scheduler machine's.
    assert "<invalid>" not in line
    described = cluster.server.kubectl("describe", "pod", "train-1")
    assert "runai-scheduler" in described.stdout


def test_manage_py_runscheduler_is_the_same_scheduler(cluster: Cluster) -> None:
    import subprocess
    import sys

    from tests.cluster_server import REPO_ROOT

    _research(cluster, **{"team-a": 8})
    cluster.pod("train-1", "team-a", 1)
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "runscheduler",
            "--kubeconfig",
            str(cluster.server.kubeconfig),
            "--identity",
            "manage",
            "--once",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "manage: bound default/train-1 to gpu-node1" in result.stdout
    assert "manage: cycle: 1 bound, 0 evicted" in result.stdout
    assert cluster.node_of("train-1") == "gpu-node1"
