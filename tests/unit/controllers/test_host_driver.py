"""A host that loaded its own NVIDIA driver: the operator's driver container can't replace it."""

from __future__ import annotations

import pytest

from simulators.cluster.api import Obj
from simulators.controllers import gpu_state
from simulators.lab.world import World, build_world
from tests.unit.controllers.controller_helpers import (
    allocatable,
    log_of,
    pod_on,
    pods,
    ticks,
    waiting_reason,
)

NODE = "gpu-node3"
# nvidia-driver (NVIDIA/gpu-driver-container, ubuntu22.04): _unload_driver's message.
IN_USE = "Could not unload NVIDIA driver kernel modules, driver is in use"


@pytest.fixture
def host() -> World:
    return build_world({"strategy": "single", "nodes": {NODE: {"host_driver": "550.127.08"}}}, 3)


def _ready(pod: Obj) -> bool:
    statuses = pod["status"].get("containerStatuses") or []
    return bool(statuses) and all(s.get("ready") for s in statuses)


def _deploy_driver(world: World, value: str) -> None:
    world.api.patch("nodes", NODE, {"metadata": {"labels": {gpu_state.DEPLOY_DRIVER_LABEL: value}}})


def test_the_driver_container_crash_loops_where_the_host_driver_is_in_use(host: World) -> None:
    driver = pod_on(host, "nvidia-driver-daemonset", NODE)
    assert waiting_reason(driver) == "CrashLoopBackOff"
    log = log_of(host, driver)
    assert log[:7] == [
        "DRIVER_ARCH is x86_64",
        "Creating directory NVIDIA-Linux-x86_64-550.127.08",
        "",
        "========== NVIDIA Software Installer ==========",
        "",
        "Starting installation of NVIDIA driver version 550.127.08 for Linux kernel version "
        "5.15.0-1063-nvidia",
        "",
    ]
    assert log[7:9] == [
        "Stopping NVIDIA persistence daemon...",
        "Unloading NVIDIA driver kernel modules...",
    ]
    assert log.count(IN_USE) == 2 and log[-1] == IN_USE  # _unload_driver, then the EXIT trap's
    assert waiting_reason(pod_on(host, "nvidia-driver-daemonset", "gpu-node1")) == ""


def test_the_node_advertises_no_gpus_and_its_validator_waits_for_the_driver(host: World) -> None:
    assert allocatable(host, NODE)["nvidia.com/gpu"] == "0"
    assert allocatable(host, "gpu-node2")["nvidia.com/gpu"] == "8"
    validator = pod_on(host, "nvidia-operator-validator", NODE)
    assert validator["status"]["phase"] == "Running" and not _ready(validator)
    assert log_of(host, validator)[:2] == [
        "running command /bin/sh with args [-c stat /run/nvidia/validations/.driver-ctr-ready]",
        "stat: cannot stat '/run/nvidia/validations/.driver-ctr-ready': No such file or directory",
    ]
    policy = host.api.get(gpu_state.CLUSTER_POLICIES, gpu_state.CLUSTER_POLICY)
    assert policy["status"]["state"] == "notReady"


def test_deploy_driver_false_leaves_the_host_driver_and_the_node_validates(host: World) -> None:
    _deploy_driver(host, "false")
    ticks(host, 3)
    assert [
        p
        for p in pods(host, "gpu-operator", "app=nvidia-driver-daemonset")
        if p["spec"].get("nodeName") == NODE
    ] == []
    validator = pod_on(host, "nvidia-operator-validator", NODE)
    assert _ready(validator)
    tail = log_of(host, validator)[-3:]
    assert tail[0].endswith('msg="Attempting to validate a pre-installed driver on the host"')
    assert tail[1].endswith('msg="Detected a pre-installed driver on the host"')
    assert tail[2] == "all validations are successful"
    assert allocatable(host, NODE)["nvidia.com/gpu"] == "8"
    policy = host.api.get(gpu_state.CLUSTER_POLICIES, gpu_state.CLUSTER_POLICY)
    assert policy["status"]["state"] == "ready"
    assert pod_on(host, "nvidia-driver-daemonset", "gpu-node1")  # the other nodes keep theirs


def test_the_operator_keeps_a_deploy_label_an_admin_set_to_false(host: World) -> None:
    _deploy_driver(host, "false")
    ticks(host, 5)
    labels = host.api.get("nodes", NODE)["metadata"]["labels"]
    assert labels[gpu_state.DEPLOY_DRIVER_LABEL] == "false"


def test_a_node_without_a_host_driver_is_not_blocked_by_its_deploy_label(host: World) -> None:
    assert not gpu_state.driver_blocked(host.api, host.api.get("nodes", "gpu-node1"))
    assert gpu_state.driver_blocked(host.api, host.api.get("nodes", NODE))
