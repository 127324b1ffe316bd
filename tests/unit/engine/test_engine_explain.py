"""Explanations: why a workload is Pending, Running or was evicted."""

from __future__ import annotations

from simulators.engine import explain
from tests.unit.engine.engine_scenes import cluster_with, project, running


def test_a_pending_workspace_is_explained_with_its_quota_and_the_fair_share_table() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "team-llm", 2)
    project(cluster, "team-vision", 6)
    running(cluster, "ws0", "team-llm", "gpu-node1", gpus=2, kind="workspace")
    cluster.submit("ws1", "team-llm", kind="workspace")
    cluster.run_cycle()
    why = explain(cluster, "team-llm", "ws1")
    assert why.status == "Pending"
    assert why.reason_code == "NonPreemptibleOverQuota"
    assert why.summary.startswith("Pending: Unable to schedule pod: NonPreemptibleOverQuota")
    row = why.project_row
    assert row is not None
    assert (row.deserved, row.allocated, row.request) == (2, 2, 3)
    assert [r.queue for r in why.fair_share] == ["team-llm", "team-vision"]
    text = why.to_text()
    assert "Fair share in node pool default" in text
    assert "NonPreemptibleOverQuota" in text
    assert why.as_dict()["reason_code"] == "NonPreemptibleOverQuota"


def test_a_running_job_over_quota_is_told_it_may_be_reclaimed() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 2)
    for i in range(4):
        cluster.submit(f"t{i}", "a")
    cluster.run_cycle()
    why = explain(cluster, "a", "t3")
    assert why.summary == "Running on gpu-node1."
    assert any("may be reclaimed" in d for d in why.details)


def test_an_evicted_job_says_who_reclaimed_it() -> None:
    cluster = cluster_with(nodes=1)
    project(cluster, "a", 8)
    project(cluster, "b", 0)
    for i in range(8):
        running(cluster, f"b{i}", "b", "gpu-node1")
    cluster.submit("t", "a")
    cluster.run_cycle()
    releasing = explain(cluster, "b", "b7")
    assert releasing.status == "Releasing"
    assert "Reclaimed by project a" in releasing.summary
    cluster.run_cycle()
    later = explain(cluster, "b", "b7")
    assert later.status == "Pending"
    assert any("Reclaimed by project a" in d for d in later.details)
