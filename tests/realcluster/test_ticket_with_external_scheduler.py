"""A lab ticket served with --scheduler external and solved with runai-scheduler as a client."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

from simulators.cluster.kube import KubernetesCluster
from simulators.lab.session import LabSession
from simulators.scheduler.lease import LeaderElector
from simulators.scheduler.runner import Scheduler
from tests.cluster_server import start_cluster_server
from tests.realcluster.conftest import wait_for

NS = "runai-team-vision"


def _carol_event(api: KubernetesCluster) -> list[dict[str, object]]:
    return [
        e
        for e in api.list("events", NS, field_selector="involvedObject.name=nb-carol-0-0")["items"]
        if e["reason"] == "Unschedulable"
    ]


def test_pending_workspace_is_solved_with_the_external_scheduler(tmp_path: Path) -> None:
    with start_cluster_server(
        "pending-workspace", tmp_path, args=("--scheduler", "external"), timeout=120
    ) as server:
        api = KubernetesCluster(server.client())
        before = _carol_event(api)
        assert len(before) == 1  # left by the engine while the ticket's world was built
        leader = LeaderElector(
            api, namespace="runai", name="runai-scheduler", identity="t", monotonic=time.monotonic
        )
        assert leader.try_acquire_or_renew()
        scheduler = Scheduler(api, leader, log=lambda line: None)
        assert scheduler.cycle().bound == []
        after = _carol_event(api)
        # The same event as the mock's engine wrote (reason, message, source): its count goes up.
        assert [e["metadata"]["name"] for e in after] == [before[0]["metadata"]["name"]]
        assert after[0]["count"] == int(before[0]["count"]) + 1  # type: ignore[call-overload]
        assert after[0]["message"] == (
            "Unable to schedule pod: NonPreemptibleOverQuota: project team-vision would exceed "
            "its quota of 8 GPUs"
        )
        lab = LabSession.on_cluster(api)
        deleted = lab.run("runai workspace delete nb-alice -p team-vision")
        assert deleted.output == "Successfully deleted workspace nb-alice"
        wait_for(
            "nb-carol to be bound",
            lambda: scheduler.cycle().bound == [f"{NS}/nb-carol-0-0"] or None,
        )
        with urllib.request.urlopen(server.url + "/lab/v1/checklist") as response:
            items = json.loads(response.read())["items"]

        def done() -> bool:
            with urllib.request.urlopen(server.url + "/lab/v1/checklist") as response:
                return all(i["done"] for i in json.loads(response.read())["items"])

        assert len(items) == 3
        wait_for("the checklist", done)


def test_node_pool_quotas_hold_with_the_external_scheduler(tmp_path: Path) -> None:
    with start_cluster_server(
        "node-pool-quota", tmp_path, args=("--scheduler", "external"), timeout=120
    ) as server:
        api = KubernetesCluster(server.client())
        leader = LeaderElector(
            api, namespace="runai", name="runai-scheduler", identity="t", monotonic=time.monotonic
        )
        assert leader.try_acquire_or_renew()
        scheduler = Scheduler(api, leader, log=lambda line: None)
        # team-vision has no L40S quota: its non-preemptible notebook may not borrow the idle
        # L40S GPUs, whatever its quota in the h100 pool.
        assert scheduler.cycle().bound == []
        lab = LabSession.on_cluster(api)
        patched = lab.run(
            "kubectl patch projects.run.ai team-vision --type merge "
            '-p \'{"spec":{"nodePools":{"l40s":{"deservedGpus":2}}}}\''
        )
        assert "patched" in patched.output
        wait_for(
            "vis-nb to be bound on an L40S node",
            lambda: scheduler.cycle().bound == [f"{NS}/vis-nb-0-0"] or None,
        )
        pod = api.get("pods", "vis-nb-0-0", NS)
        assert pod["spec"]["nodeName"].startswith("l40s-node")
