"""The world's facts, its round trip, and what an old saved lab does."""

from __future__ import annotations

import pytest

from simulators.controllers import hardware
from simulators.lab import LabError, LabSession
from simulators.lab.world import World
from tests.unit.controllers.controller_helpers import labels, pods


def test_the_world_is_the_guides_dgx_cluster(single: World) -> None:
    nodes = single.api.list("nodes")["items"]
    assert [n["metadata"]["name"] for n in nodes] == ["gpu-node1", "gpu-node2", "gpu-node3"]
    for node in nodes:
        assert node["status"]["nodeInfo"]["kubeletVersion"] == "v1.31.4"
        assert node["status"]["capacity"]["cpu"] == "224"
        assert node["status"]["capacity"]["memory"] == "2113302Mi"
        gpus = hardware.gpus(node)
        assert len(gpus) == 8 and all(not g.mig_enabled for g in gpus)
        assert "node-role.kubernetes.io/control-plane" not in node["metadata"]["labels"]
    assert labels(single, "gpu-node1")["nvidia.com/mig.config.state"] == "success"


def test_the_stories_job_pod_runs_on_the_node_the_ticket_names(single: World) -> None:
    (pod,) = pods(single, "default", "job-name=train-llm-7")
    assert pod["spec"]["nodeName"] == "gpu-node2"
    assert pod["metadata"]["creationTimestamp"] == "2026-11-10T08:58:00Z"  # 42 minutes ago


def test_a_world_round_trips_through_json_and_keeps_running(single: World) -> None:
    again = World.from_json(single.to_json())
    assert again.to_json() == single.to_json()
    again.tick()
    assert again.state.step == 1


def test_a_lab_saved_by_the_old_model_raises_a_clear_lab_error() -> None:
    with pytest.raises(LabError, match="This lab was saved by an older version and has been reset"):
        LabSession.from_json({"version": 1, "ticket_id": "mig-single", "seed": 0})
    with pytest.raises(LabError, match="unknown format"):
        LabSession.from_json({"version": "x"})


def test_events_expire_an_hour_after_their_last_update(single: World) -> None:
    stamps = [e["lastTimestamp"] for e in single.api.list("events")["items"]]
    assert stamps and min(stamps) >= "2026-11-10T08:40:00Z"
    assert single.api.list("events", "gpu-operator")["items"] == []  # the 31-day-old rollout


def test_every_running_pod_on_a_node_has_its_own_address(single: World) -> None:
    for node in ("gpu-node1", "gpu-node2", "gpu-node3"):
        ips = [
            p["status"]["podIP"]
            for p in pods(single)
            if p["spec"].get("nodeName") == node and not p["spec"].get("hostNetwork")
        ]
        assert len(ips) == len(set(ips))


def test_a_damaged_saved_lab_raises_a_lab_error_not_a_traceback() -> None:
    good = LabSession.new("mig-single", seed=2).to_json()
    broken = {**good, "world": {"cluster": {"format": 1}, "host": good["world"]["host"]}}
    with pytest.raises(LabError, match="damaged"):
        LabSession.from_json(broken)
    with pytest.raises(LabError):
        LabSession.from_json({**good, "world": "nonsense"})
