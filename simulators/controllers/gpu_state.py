"""What the GPU Operator's node agents conclude from a node's GPUs and the ClusterPolicy.

The device plugin's and GPU Feature Discovery's verdicts use the exact strings of NVIDIA's
k8s-device-plugin v0.17.1 (``internal/rm/device_map.go``, ``internal/lm/mig-strategy.go``).
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ClusterAPI, Obj
from simulators.controllers import hardware
from simulators.controllers.util import dig, get_or_none, items
from simulators.engine.mig import mig_advertisement

CLUSTER_POLICY = "cluster-policy"
CLUSTER_POLICIES = "clusterpolicies.nvidia.com"
DEFAULT_MIG_CONFIG = "default-mig-parted-config"
# A node whose host already loaded an NVIDIA driver (its version), outside the operator's reach.
HOST_DRIVER_ANNOTATION = "lab.kadmin/host-driver"
DEPLOY_DRIVER_LABEL = "nvidia.com/gpu.deploy.driver"


def cluster_policy(api: ClusterAPI) -> Obj | None:
    policy = get_or_none(api, CLUSTER_POLICIES, CLUSTER_POLICY)
    if policy is not None:
        return policy
    found = items(api, CLUSTER_POLICIES)
    return found[0] if found else None


def policy_value(api: ClusterAPI, *keys: str) -> Any:
    policy = cluster_policy(api)
    return dig(policy.get("spec"), *keys) if policy else None


def mig_strategy(api: ClusterAPI) -> str:
    value = policy_value(api, "mig", "strategy")
    return value if value in ("single", "mixed", "none") else "single"


def mig_config_name(api: ClusterAPI) -> str:
    value = policy_value(api, "migManager", "config", "name")
    return value if isinstance(value, str) and value else DEFAULT_MIG_CONFIG


def host_driver(node: Obj) -> str:
    """The version of the driver the host itself loaded ("" when only the operator's runs)."""
    return str((node.get("metadata", {}).get("annotations") or {}).get(HOST_DRIVER_ANNOTATION, ""))


def driver_blocked(api: ClusterAPI, node: Obj) -> bool:
    """The operator still deploys its driver container where the host's driver is in use.

    The container can't unload the host's modules, so it crash-loops and the node's
    validations wait for it. ``nvidia.com/gpu.deploy.driver=false`` on the node (or the
    driver disabled in the ClusterPolicy) leaves the host's driver as the node's driver.
    """
    if not host_driver(node):
        return False
    if policy_value(api, "driver", "enabled") is False:
        return False
    labels = node.get("metadata", {}).get("labels") or {}
    return labels.get(DEPLOY_DRIVER_LABEL) == "true"


def device_plugin_error(node: Obj, strategy: str) -> str:
    """Why the device plugin cannot build its device map on this node ("" when it can)."""
    layout = hardware.read_layout(node)
    if strategy != "single" or not layout:
        return ""
    enabled = [p for p in layout if p is not None]
    if not enabled:
        return ""
    for index, profiles in enumerate(layout):
        if profiles is not None and not any(profiles.values()):
            return (
                "invalid MIG configuration: at least one device with migEnabled=true was not "
                f"configured correctly: device {index} has no MIG devices configured"
            )
    kinds = {name for p in enabled for name, count in p.items() if count}
    if len(kinds) > 1:
        return "invalid MIG configuration: more than one MIG device type present on node"
    if len(enabled) != len(layout):
        return "all devices on the node must be configured with the same migEnabled value"
    return ""


def gfd_single_problem(node: Obj) -> str:
    """GFD's reason for the mig-strategy-invalid labels under ``single`` ("" when valid)."""
    layout = hardware.read_layout(node)
    enabled = [p for p in layout if p is not None]
    if not enabled:
        return ""
    if any(not any(p.values()) for p in enabled):
        return "at least one MIG device is enabled but empty"
    if len(enabled) != len(layout):
        return "devices with MIG enabled and disable detected"
    kinds = {name for p in enabled for name, count in p.items() if count}
    if len(kinds) != 1:
        return "more than one MIG device type present on node"
    return ""


def advertised(
    api: ClusterAPI, node: Obj, strategy: str, *, plugin_running: bool
) -> dict[str, int]:
    """The extended resources a healthy device plugin registers with the kubelet."""
    if not plugin_running or driver_blocked(api, node):
        return {}
    layout = hardware.read_layout(node)
    if not layout or device_plugin_error(node, strategy):
        return {}
    advert = mig_advertisement(
        len(layout),
        hardware.current_layout(node),
        "mixed" if strategy == "mixed" else "single",
    )
    if advert.crash_loop:
        return {}
    resources = dict(advert.resources)
    for resource, count in unhealthy(node).items():
        if resource in resources:
            resources[resource] = max(0, resources[resource] - count)
    return resources


def unhealthy(node: Obj) -> dict[str, int]:
    """Devices the device plugin marked unhealthy (GPUs that fell off the bus), per resource.

    The kubelet keeps them in the node's capacity and leaves them out of its allocatable
    (capacity 8, allocatable 7), as its device manager does with unhealthy devices.
    """
    layout = hardware.read_layout(node)
    lost = [i for i in hardware.lost_gpus(node) if i < len(layout) and layout[i] is None]
    return {"nvidia.com/gpu": len(lost)} if lost else {}
