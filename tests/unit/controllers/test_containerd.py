"""containerd's runtime handlers on a GPU node, as the GPU Operator's container toolkit sets."""

from __future__ import annotations

import pytest

from simulators.cluster.api import ApiError, Obj
from simulators.controllers import containerd
from simulators.lab.world import World, build_world
from tests.unit.controllers.controller_helpers import events, phase, ticks

NODE = "gpu-node1"


def _world(toolkit: dict[str, object]) -> World:
    return build_world({"strategy": "single", "cluster_policy": {"toolkit": toolkit}}, 3)


@pytest.fixture
def without_toolkit() -> World:
    return _world({"enabled": False})


def _smi_pod(world: World, name: str, runtime_class: str | None) -> Obj:
    spec: dict[str, object] = {
        "nodeName": NODE,
        "restartPolicy": "Never",
        "containers": [
            {
                "name": "smi",
                "image": "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
                "command": ["nvidia-smi", "-L"],
                "resources": {"limits": {"nvidia.com/gpu": "1"}},
            }
        ],
    }
    if runtime_class:
        spec["runtimeClassName"] = runtime_class
    return world.api.create("pods", {"metadata": {"name": name}, "spec": spec}, "default")


def _node(world: World) -> Obj:
    return world.api.get("nodes", NODE)


def test_a_node_has_the_nvidia_runtime_only_while_the_toolkit_runs_there() -> None:
    enabled = _world({"enabled": True})
    assert containerd.handlers(enabled.api, _node(enabled)) == {"runc", "nvidia"}
    assert containerd.default_handler(enabled.api, _node(enabled)) == "nvidia"
    disabled = _world({"enabled": False})
    assert containerd.handlers(disabled.api, _node(disabled)) == {"runc"}
    assert containerd.default_handler(disabled.api, _node(disabled)) == "runc"


def test_containerd_set_as_default_false_keeps_runc_the_default() -> None:
    world = _world(
        {"enabled": True, "env": [{"name": "CONTAINERD_SET_AS_DEFAULT", "value": "false"}]}
    )
    assert containerd.handlers(world.api, _node(world)) == {"runc", "nvidia"}
    assert containerd.default_handler(world.api, _node(world)) == "runc"


def test_the_operator_names_its_runtime_class_after_operator_runtime_class() -> None:
    world = build_world(
        {"strategy": "single", "cluster_policy": {"operator": {"runtimeClass": "nvidia-cdi"}}}, 3
    )
    made = world.api.get(containerd.RUNTIME_CLASSES, "nvidia-cdi")
    assert made["handler"] == "nvidia-cdi"
    assert containerd.handlers(world.api, _node(world)) == {"runc", "nvidia-cdi"}


def test_a_pod_whose_handler_containerd_lacks_gets_no_sandbox(without_toolkit: World) -> None:
    _smi_pod(without_toolkit, "smi", "nvidia")
    ticks(without_toolkit, 3)
    stored = without_toolkit.api.get("pods", "smi", "default")
    assert phase(stored) == "Pending"
    sandbox = [
        e
        for e in events(without_toolkit, "default", "smi")
        if e["reason"] == "FailedCreatePodSandBox"
    ]
    assert sandbox and sandbox[0]["type"] == "Warning"
    assert sandbox[0]["source"]["component"] == "kubelet"
    assert sandbox[0]["message"] == (
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox "
        'runtime: no runtime for "nvidia" is configured'
    )


def test_a_runtime_class_deleted_after_admission_is_what_the_kubelet_reports(
    without_toolkit: World,
) -> None:
    _smi_pod(without_toolkit, "smi", "nvidia")
    without_toolkit.api.delete(containerd.RUNTIME_CLASSES, "nvidia")
    pod = without_toolkit.api.get("pods", "smi", "default")
    assert containerd.sandbox_error(without_toolkit.api, pod, _node(without_toolkit)) == (
        'Failed to create pod sandbox: runtimeclass.node.k8s.io "nvidia" not found'
    )


def test_the_admission_refuses_a_pod_naming_a_missing_runtime_class(
    without_toolkit: World,
) -> None:
    with pytest.raises(ApiError) as refused:
        _smi_pod(without_toolkit, "smi", "gpu")
    assert refused.value.code == 403
    assert refused.value.message == (
        'pods "smi" is forbidden: pod rejected: RuntimeClass "gpu" not found'
    )


def test_nvidia_smi_as_a_containers_program_logs_its_gpu_and_exits_zero() -> None:
    world = _world({"enabled": True})
    _smi_pod(world, "smi", "nvidia")
    ticks(world, 3)
    pod = world.api.get("pods", "smi", "default")
    assert phase(pod) == "Succeeded"
    log = world.api.logs("smi", "default").splitlines()
    assert len(log) == 1 and log[0].startswith("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-")
