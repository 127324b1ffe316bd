"""default-scheduler's wording, and the engine binding and evicting through the API."""

from __future__ import annotations

from simulators.controllers import runai
from simulators.controllers.kube_scheduler import fit_error
from simulators.lab.world import World
from tests.unit.controllers.controller_helpers import events, phase, pods, ticks


def test_the_failed_scheduling_message_is_kube_schedulers(single: World) -> None:
    single.api.create(
        "pods",
        {
            "metadata": {"name": "big"},
            "spec": {
                "nodeSelector": {"kubernetes.io/hostname": "gpu-node1"},
                "containers": [
                    {
                        "name": "c",
                        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                        "resources": {"limits": {"nvidia.com/gpu": "9"}},
                    }
                ],
            },
        },
        "default",
    )
    ticks(single, 1)
    (event,) = events(single, "default", "big")
    assert event["reason"] == "FailedScheduling"
    assert event["source"] == {"component": "default-scheduler"}
    assert event["message"] == (
        "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's "
        "node affinity/selector. preemption: 0/3 nodes are available: 1 No preemption victims "
        "found for incoming pod, 2 Preemption is not helpful for scheduling."
    )
    ticks(single, 2)
    assert len(events(single, "default", "big")) == 1  # the same verdict is not repeated


def test_a_cordoned_target_node_is_reported_as_unschedulable(mixed: World) -> None:
    (event,) = events(mixed, "default", "triton")
    assert event["message"] == (
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match Pod's "
        "node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not "
        "helpful for scheduling."
    )


def test_fit_error_sorts_its_reasons_as_strings() -> None:
    assert fit_error(
        3, {"node(s) were unschedulable": 1, "Insufficient nvidia.com/gpu": 2}, {}
    ) == ("0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu.")


def _submit(world: World, name: str, project: str, gpus: int) -> None:
    obj = runai.workload_object(
        "training", name, project, "nvcr.io/nvidia/pytorch:24.05-py3", gpu=gpus
    )
    world.api.create(runai.WORKLOAD_RESOURCES["training"], obj, runai.namespace_for(project))


def _phase(world: World, project: str, name: str) -> str:
    wl = world.api.get("trainingworkloads.run.ai", name, runai.namespace_for(project))
    return str(wl["status"].get("phase"))


def test_the_engine_binds_runai_pods_through_the_api_with_its_events(validate: World) -> None:
    _submit(validate, "t1", "team-a", 2)
    ticks(validate, 2)
    (pod,) = pods(validate, "runai-team-a")
    assert pod["spec"]["schedulerName"] == "runai-scheduler"
    assert phase(pod) == "Running"
    assert pod["metadata"]["labels"]["runai/queue"] == "team-a"
    assert len(pod["metadata"]["annotations"]["lab.kadmin/gpu-devices"].split(",")) == 2
    group = validate.api.get("podgroups.scheduling.run.ai", "pg-t1-0", "runai-team-a")
    assert group["spec"]["queue"] == "team-a"
    scheduled = [
        e for e in events(validate, "runai-team-a", "t1-0-0") if e["reason"] == "Scheduled"
    ]
    assert scheduled[0]["source"] == {"component": "runai-scheduler"}


def test_the_engine_evicts_borrowed_gpus_through_the_api_when_the_owner_submits(
    validate: World,
) -> None:
    for name in ("a1", "a2", "a3"):
        _submit(validate, name, "team-a", 8)
    ticks(validate, 2)
    assert [_phase(validate, "team-a", n) for n in ("a1", "a2", "a3")] == ["Running"] * 3
    _submit(validate, "b1", "team-b", 8)
    ticks(validate, 3)
    assert _phase(validate, "team-b", "b1") == "Running"
    assert [_phase(validate, "team-a", n) for n in ("a1", "a2", "a3")] == [
        "Running",
        "Running",
        "Pending",
    ]
    victim = validate.api.get("trainingworkloads.run.ai", "a3", "runai-team-a")
    (record,) = victim["status"]["evictions"]
    assert (record["reason"], record["byProject"], record["byWorkload"]) == (
        "Reclaimed",
        "team-b",
        "b1",
    )
    messages = [e["message"] for e in events(validate, "runai-team-a", "a3-0-0")]
    assert any("team-b" in m for m in messages)


def test_projects_become_queues_under_their_department(validate: World) -> None:
    queue = validate.api.get("queues.scheduling.run.ai", "team-b")
    assert queue["spec"]["parentQueue"] == "validation"
    assert queue["spec"]["resources"]["gpu"]["quota"] == 16
    parent = validate.api.get("queues.scheduling.run.ai", "validation")
    assert parent["status"]["childQueues"] == ["team-a", "team-b"]
    namespace = validate.api.get("namespaces", "runai-team-a")
    assert namespace["metadata"]["labels"]["runai/queue"] == "team-a"


def test_runai_and_default_scheduler_pods_never_share_a_whole_gpu(validate: World) -> None:
    validate.api.create(
        "pods",
        {
            "metadata": {"name": "plain"},
            "spec": {
                "nodeSelector": {"kubernetes.io/hostname": "gpu-node1"},
                "containers": [
                    {
                        "name": "c",
                        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                        "resources": {"limits": {"nvidia.com/gpu": "4"}},
                    }
                ],
            },
        },
        "default",
    )
    ticks(validate, 2)
    _submit(validate, "t4", "team-a", 4)
    ticks(validate, 2)
    held: dict[str, list[str]] = {}
    for pod in pods(validate):
        devices = pod["metadata"].get("annotations", {}).get("lab.kadmin/gpu-devices")
        if devices and pod["spec"].get("nodeName") == "gpu-node1":
            held[pod["metadata"]["name"]] = devices.split(",")
    taken = [d for devices in held.values() for d in devices]
    assert len(taken) == len(set(taken))
    assert "plain" in held


def test_nothing_is_scheduled_while_the_runai_scheduler_pod_is_down(validate: World) -> None:
    (scheduler,) = pods(validate, "runai", "app=runai-scheduler-default")
    node = scheduler["spec"]["nodeName"]
    validate.api.patch("nodes", node, {"spec": {"unschedulable": True}})
    validate.api.evict(scheduler["metadata"]["name"], "runai")
    _submit(validate, "t1", "team-a", 1)
    ticks(validate, 1)
    assert _phase(validate, "team-a", "t1") == "Pending"
    assert not pods(validate, "runai-team-a")[0]["spec"].get("nodeName")
    ticks(validate, 3)
    (back,) = pods(validate, "runai", "app=runai-scheduler-default")
    assert back["spec"]["nodeName"] != node and phase(back) == "Running"
    assert _phase(validate, "team-a", "t1") == "Running"
