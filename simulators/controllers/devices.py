"""The kubelet's device manager: it hands a pod the GPUs (or MIG devices) it asks for, refuses
a pod whose devices are gone (UnexpectedAdmissionError, as the kubelet does), and registers what
the node's device plugin advertises in the node's capacity and allocatable.
"""

from __future__ import annotations

from simulators.cluster.api import ClusterAPI, Obj
from simulators.controllers import gpu_state, hardware
from simulators.controllers.util import (
    annotations_of,
    emit,
    gpu_requests,
    holds_resources,
    is_deleting,
    items,
    labels_of,
    name_of,
    namespace_of,
    spec,
    status,
    timestamp,
    uid_of,
)

GPU_OPERATOR_NS = "gpu-operator"
DEVICE_PLUGIN_APP = "nvidia-device-plugin-daemonset"


def _held(pods: list[Obj], node_name: str, exclude: str) -> list[tuple[int, int | None]]:
    held: list[tuple[int, int | None]] = []
    for other in pods:
        if uid_of(other) == exclude or spec(other).get("nodeName") != node_name:
            continue
        if not holds_resources(other):
            continue
        held.extend(hardware.pod_devices(other))
    return held


def allocate_devices(api: ClusterAPI, pod: Obj, node: Obj, pods: list[Obj]) -> bool:
    """The device manager's Allocate: pick the GPUs or MIG devices a pod asks for."""
    wanted = gpu_requests(pod)
    if not wanted or hardware.DEVICES_ANNOTATION in annotations_of(pod):
        return True
    strategy = gpu_state.mig_strategy(api)
    held = _held(pods, name_of(node), uid_of(pod))
    chosen: list[tuple[int, int | None]] = []
    for resource, amount in sorted(wanted.items()):
        count = int(amount)
        free = hardware.free_devices(node, resource, held + chosen, strategy)
        if len(free) < count:
            _admission_failure(api, pod, node, resource, count, len(free))
            return False
        chosen.extend(free[:count])
    api.patch(
        "pods",
        name_of(pod),
        {
            "metadata": {
                "annotations": {hardware.DEVICES_ANNOTATION: hardware.encode_devices(chosen)}
            }
        },
        namespace_of(pod),
    )
    return True


def _admission_failure(
    api: ClusterAPI, pod: Obj, node: Obj, resource: str, count: int, free: int
) -> None:
    message = (
        f"Allocate failed due to requested number of devices unavailable for {resource}. "
        f"Requested: {count}, Available: {free}, which is unexpected"
    )
    emit(api, pod, "Warning", "UnexpectedAdmissionError", message, "kubelet", host=name_of(node))
    api.patch(
        "pods",
        name_of(pod),
        {
            "status": {
                "phase": "Failed",
                "reason": "UnexpectedAdmissionError",
                "message": f"Pod was rejected: {message}",
                "startTime": timestamp(api),
            }
        },
        namespace_of(pod),
        subresource="status",
    )


def device_plugin_running(pods: list[Obj], node_name: str) -> bool:
    for pod in pods:
        if namespace_of(pod) != GPU_OPERATOR_NS or spec(pod).get("nodeName") != node_name:
            continue
        if labels_of(pod).get("app") != DEVICE_PLUGIN_APP or is_deleting(pod):
            continue
        for cstatus in status(pod).get("containerStatuses") or []:
            if "running" in (cstatus.get("state") or {}):
                return True
    return False


def register_devices(api: ClusterAPI) -> None:
    """What each node's device plugin registered, in the node's capacity and allocatable.

    A resource the plugin no longer serves stays on the node at 0 until the kubelet restarts,
    which is why a node moved to ``mixed`` still lists ``nvidia.com/gpu: 0``.
    """
    strategy = gpu_state.mig_strategy(api)
    pods = items(api, "pods", GPU_OPERATOR_NS)
    for node in items(api, "nodes"):
        if not hardware.read_layout(node):
            continue
        node_status = status(node)
        running = device_plugin_running(pods, name_of(node))
        resources = gpu_state.advertised(api, node, strategy, plugin_running=running)
        capacity = dict(node_status.get("capacity") or {})
        allocatable = dict(node_status.get("allocatable") or {})
        wanted_cap = dict(capacity)
        wanted_alloc = dict(allocatable)
        for key in list(capacity):
            if key.startswith("nvidia.com/") and key not in resources:
                wanted_cap[key] = "0"
                wanted_alloc[key] = "0"
        sick = gpu_state.unhealthy(node) if resources else {}
        for key, value in resources.items():
            wanted_cap[key] = str(value + sick.get(key, 0))
            wanted_alloc[key] = str(value)
        if wanted_cap != capacity or wanted_alloc != allocatable:
            api.patch(
                "nodes",
                name_of(node),
                {"status": {"capacity": wanted_cap, "allocatable": wanted_alloc}},
                subresource="status",
            )
