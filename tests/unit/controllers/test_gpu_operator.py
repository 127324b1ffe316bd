"""GPU Operator: MIG Manager's state machine and log, the device plugin, GFD's labels."""

from __future__ import annotations

from itertools import pairwise

from simulators.lab.world import World
from tests.unit.controllers.controller_helpers import (
    allocatable,
    labels,
    log_of,
    phase,
    pod_on,
    ticks,
    waiting_reason,
)

STATE = "nvidia.com/mig.config.state"


def _label(world: World, node: str, layout: str) -> None:
    world.api.patch("nodes", node, {"metadata": {"labels": {"nvidia.com/mig.config": layout}}})


def _free(world: World, node: str) -> None:
    world.api.patch("nodes", node, {"spec": {"unschedulable": True}})
    for pod in world.api.list("pods", "default")["items"]:
        if pod["spec"].get("nodeName") == node:
            world.api.evict(pod["metadata"]["name"], "default")


def test_mig_manager_goes_pending_on_the_next_step_then_success_two_later(single: World) -> None:
    _free(single, "gpu-node2")
    _label(single, "gpu-node2", "all-1g.10gb")
    ticks(single, 1)
    assert labels(single, "gpu-node2")[STATE] == "pending"
    assert labels(single, "gpu-node2")["nvidia.com/gpu.deploy.device-plugin"] == (
        "paused-for-mig-change"
    )
    ticks(single, 1)
    assert labels(single, "gpu-node2")[STATE] == "pending"
    ticks(single, 1)
    assert labels(single, "gpu-node2")[STATE] == "success"
    log = log_of(single, pod_on(single, "nvidia-mig-manager", "gpu-node2"))
    assert "Changing the 'nvidia.com/mig.config.state' node label to 'pending'" in log
    assert "MIG configuration applied successfully" in log
    assert log[-5:-2] == [
        "node/gpu-node2 labeled",
        "Changing the 'nvidia.com/mig.config.state' node label to 'success'",
        "node/gpu-node2 labeled",
    ]
    assert log[-1].endswith(
        """level=info msg="Waiting for change to 'nvidia.com/mig.config' label\""""
    )
    ticks(single, 2)
    assert allocatable(single, "gpu-node2")["nvidia.com/gpu"] == "56"
    assert (
        labels(single, "gpu-node2")["nvidia.com/gpu.product"] == "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"
    )
    assert labels(single, "gpu-node2")["nvidia.com/gpu.count"] == "56"


def test_mig_manager_fails_while_a_pod_holds_a_gpu_and_says_in_use(single: World) -> None:
    _label(single, "gpu-node2", "all-1g.10gb")
    ticks(single, 3)
    assert labels(single, "gpu-node2")[STATE] == "failed"
    log = log_of(single, pod_on(single, "nvidia-mig-manager", "gpu-node2"))
    failed = log.index("Changing the 'nvidia.com/mig.config.state' node label to 'failed'")
    cause = [line for line in log[:failed] if "In use by another client" in line]
    assert cause[-1].endswith(
        'level=fatal msg="Error applying MIG configuration with hooks: error setting MIG mode: '
        'error setting Mig mode: In use by another client"'
    )
    # The paused device plugin comes back the step after and advertises whole GPUs again.
    ticks(single, 1)
    assert allocatable(single, "gpu-node2")["nvidia.com/gpu"] == "8"


def test_the_same_value_again_changes_nothing_and_a_new_pod_reapplies(single: World) -> None:
    _label(single, "gpu-node2", "all-1g.10gb")
    ticks(single, 3)
    _free(single, "gpu-node2")
    _label(single, "gpu-node2", "all-1g.10gb")
    ticks(single, 4)
    assert labels(single, "gpu-node2")[STATE] == "failed"
    old = pod_on(single, "nvidia-mig-manager", "gpu-node2")
    single.api.delete("pods", old["metadata"]["name"], "gpu-operator")
    ticks(single, 5)
    assert labels(single, "gpu-node2")[STATE] == "success"
    assert (
        pod_on(single, "nvidia-mig-manager", "gpu-node2")["metadata"]["name"]
        != (old["metadata"]["name"])
    )


def test_a_missing_config_key_fails_with_mig_parteds_read_error(mixed: World) -> None:
    assert labels(mixed, "gpu-node3")[STATE] == "failed"
    log = log_of(mixed, pod_on(mixed, "nvidia-mig-manager", "gpu-node3"))
    assert (
        'level=fatal msg="Error parsing config file: read error: open '
        '/mig-parted-config/config.yaml: no such file or directory"'
    ) in log[
        log.index("Asserting that the requested configuration is present in the configuration file")
        + 1
    ]
    assert "Unable to validate the selected MIG configuration" in log


def test_several_profiles_under_single_crash_loop_the_device_plugin_with_its_real_error(
    single: World,
) -> None:
    _free(single, "gpu-node2")
    _label(single, "gpu-node2", "all-balanced")
    ticks(single, 5)
    assert labels(single, "gpu-node2")[STATE] == "success"
    plugin = pod_on(single, "nvidia-device-plugin-daemonset", "gpu-node2")
    assert waiting_reason(plugin) == "CrashLoopBackOff"
    assert plugin["status"]["containerStatuses"][0]["restartCount"] >= 1
    text = single.api.logs(plugin["metadata"]["name"], "gpu-operator", previous=True)
    assert text.splitlines()[-1].endswith(
        "main.go:173] error starting plugins: error getting plugins: unable to create plugins: "
        "failed to construct resource managers: error building device map: error building device "
        "map from config.resources: invalid MIG configuration: more than one MIG device type "
        "present on node"
    )
    assert allocatable(single, "gpu-node2")["nvidia.com/gpu"] == "0"
    assert (
        labels(single, "gpu-node2")["nvidia.com/gpu.product"] == "NVIDIA-H100-80GB-HBM3-MIG-INVALID"
    )
    single.api.patch(
        "clusterpolicies.nvidia.com", "cluster-policy", {"spec": {"mig": {"strategy": "mixed"}}}
    )
    ticks(single, 4)
    plugin = pod_on(single, "nvidia-device-plugin-daemonset", "gpu-node2")
    assert phase(plugin) == "Running" and not waiting_reason(plugin)
    resources = allocatable(single, "gpu-node2")
    assert (resources["nvidia.com/mig-1g.10gb"], resources["nvidia.com/mig-2g.20gb"]) == ("16", "8")
    assert labels(single, "gpu-node2")["nvidia.com/mig-3g.40gb.count"] == "8"


def test_crash_loop_back_off_doubles_between_restarts(single: World) -> None:
    _free(single, "gpu-node2")
    _label(single, "gpu-node2", "all-balanced")
    restarts = []
    for _ in range(12):
        ticks(single, 1)
        pods = single.api.list(
            "pods", "gpu-operator", label_selector="app=nvidia-device-plugin-daemonset"
        )
        mine = [p for p in pods["items"] if p["spec"].get("nodeName") == "gpu-node2"]
        statuses = mine[0]["status"].get("containerStatuses") if mine else None
        restarts.append(statuses[0]["restartCount"] if statuses else None)
    counted = [r for r in restarts if r is not None]
    # 10s, 20s, 40s back-off: restarts get rarer.
    changes = [i for i in range(1, len(counted)) if counted[i] != counted[i - 1]]
    gaps = [b - a for a, b in pairwise(changes)]
    assert gaps == sorted(gaps) and len(changes) >= 2
