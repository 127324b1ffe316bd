"""The NVIDIA GPU Operator as a simulated controller.

Per GPU node it keeps the operator's DaemonSet pods alive (a deleted pod comes
back under a new name), pauses the device plugin, GPU Feature Discovery and the
DCGM exporter while MIG Manager reconfigures the node, and sets what the node
advertises. What a node advertises under each MIG strategy, and when the device
plugin crash-loops, comes from the scheduler engine's MIG helper so the lab and
the engine never disagree about `nvidia.com/gpu: 56`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simulators.backends.base import GPU_OPERATOR_NS, Container, Gpu, Node, Pod
from simulators.backends.mock import MockBackend
from simulators.engine.mig import (
    GPU_RESOURCE,
    MIG_RESOURCE_PREFIX,
    MigAdvertisement,
    MigDeviceConfig,
    MigLayout,
    MigStrategy,
    gpu_product_label,
    mig_advertisement,
)
from simulators.lab.state import CLUSTER_BIRTH, WorldState, name_suffix

CLUSTER_POLICY = "cluster-policy"
DEFAULT_MIG_CONFIG = "default-mig-parted-config"
BASE_PRODUCT = "NVIDIA-H100-80GB-HBM3"
PAUSED = "paused-for-mig-change"


@dataclass(frozen=True)
class Component:
    name: str
    container: str
    image: str
    # The node label MIG Manager flips to shut the component down during a change.
    deploy_label: str | None = None


COMPONENTS: tuple[Component, ...] = (
    Component(
        "gpu-feature-discovery",
        "gpu-feature-discovery",
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
        "nvidia.com/gpu.deploy.gpu-feature-discovery",
    ),
    Component(
        "nvidia-container-toolkit-daemonset",
        "nvidia-container-toolkit-ctr",
        "nvcr.io/nvidia/k8s/container-toolkit:v1.17.5-ubuntu20.04",
    ),
    Component(
        "nvidia-dcgm-exporter",
        "nvidia-dcgm-exporter",
        "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04",
        "nvidia.com/gpu.deploy.dcgm-exporter",
    ),
    Component(
        "nvidia-device-plugin-daemonset",
        "nvidia-device-plugin",
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
        "nvidia.com/gpu.deploy.device-plugin",
    ),
    Component(
        "nvidia-driver-daemonset",
        "nvidia-driver-ctr",
        "nvcr.io/nvidia/driver:550.127.08-ubuntu22.04",
    ),
    Component(
        "nvidia-mig-manager",
        "nvidia-mig-manager",
        "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.10.0-ubuntu20.04",
    ),
    Component(
        "nvidia-operator-validator",
        "nvidia-operator-validator",
        "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.9.2",
    ),
)
COMPONENT_BY_NAME = {c.name: c for c in COMPONENTS}
DEVICE_PLUGIN = "nvidia-device-plugin-daemonset"
MIG_MANAGER = "nvidia-mig-manager"
DRIVER = "nvidia-driver-daemonset"
VALIDATOR = "nvidia-operator-validator"


def strategy(backend: MockBackend) -> str:
    policy = backend.get_cluster_policy(CLUSTER_POLICY)
    if policy is None:
        return "single"
    value = _dig(policy.spec, "mig", "strategy")
    return value if value in ("single", "mixed") else "single"


def mig_config_name(backend: MockBackend) -> str:
    policy = backend.get_cluster_policy(CLUSTER_POLICY)
    if policy is None:
        return DEFAULT_MIG_CONFIG
    value = _dig(policy.spec, "migManager", "config", "name")
    return value if isinstance(value, str) and value else DEFAULT_MIG_CONFIG


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def default_cluster_policy_spec(strategy_name: str, config_name: str) -> dict[str, Any]:
    return {
        "operator": {"defaultRuntime": "containerd"},
        "driver": {"enabled": True, "version": "550.127.08"},
        "toolkit": {"enabled": True},
        "devicePlugin": {"enabled": True},
        "dcgmExporter": {"enabled": True},
        "gfd": {"enabled": True},
        "mig": {"strategy": strategy_name},
        "migManager": {
            "enabled": True,
            "config": {"name": config_name, "default": "all-disabled"},
            "env": [{"name": "WITH_REBOOT", "value": "false"}],
        },
        "validator": {"plugin": {"env": [{"name": "WITH_WORKLOAD", "value": "false"}]}},
    }


def ds_pod_name(state: WorldState, node: str, component: str) -> str:
    generation = state.ds_generations.get(f"{node}/{component}", 0)
    # The first generation shares one suffix per node, as in the guide's samples,
    # so a learner can spot all of a node's operator pods at a glance.
    if generation == 0:
        sfx = name_suffix(state.seed, "node", node)
    else:
        sfx = name_suffix(state.seed, "ds", node, component, generation)
    return f"{component}-{sfx}"


def find_ds_pod(backend: MockBackend, node: str, component: str) -> Pod | None:
    for pod in backend.list_pods(GPU_OPERATOR_NS):
        if pod.labels.get("app") == component and pod.node_name == node:
            return pod
    return None


def pod_ip(seed: int, *parts: object) -> str:
    digest = name_suffix(seed, "ip", *parts, length=2)
    return f"10.244.{(ord(digest[0]) % 200) + 1}.{(ord(digest[1]) * 7) % 250 + 2}"


def create_ds_pod(state: WorldState, backend: MockBackend, node: str, component: str) -> Pod:
    comp = COMPONENT_BY_NAME[component]
    now = backend.now()
    key = f"{node}/{component}"
    if find_ds_pod(backend, node, component) is None and key in state.ds_generations:
        state.ds_generations[key] += 1
    state.ds_generations.setdefault(key, 0)
    created = CLUSTER_BIRTH if now <= 0 and state.ds_generations[key] == 0 else now
    pod = Pod(
        name=ds_pod_name(state, node, component),
        namespace=GPU_OPERATOR_NS,
        containers=[Container(name=comp.container, image=comp.image)],
        labels={"app": component, "app.kubernetes.io/part-of": "gpu-operator"},
        owner_kind="DaemonSet",
        owner_name=component,
        node_name=node,
        phase="Running",
        created=created,
        started=created,
        ip=pod_ip(state.seed, node, component, state.ds_generations[key]),
        priority=2000001000,
        priority_class="system-node-critical",
        service_account=component.removesuffix("-daemonset"),
        logs=_startup_logs(component),
    )
    backend.create_pod(pod)
    return pod


def _startup_logs(component: str) -> list[str]:
    if component == MIG_MANAGER:
        return ["Waiting for change to 'nvidia.com/mig.config' label"]
    if component == DEVICE_PLUGIN:
        return [
            "I1110 09:40:02.181735       1 main.go:317] Retrieving plugins.",
            "I1110 09:40:02.812904       1 server.go:195] Starting GRPC server for "
            "'nvidia.com/gpu'",
            "I1110 09:40:02.813642       1 server.go:139] Starting to serve 'nvidia.com/gpu' on "
            "/var/lib/kubelet/device-plugins/nvidia-gpu.sock",
            "I1110 09:40:02.817420       1 server.go:146] Registered device plugin for "
            "'nvidia.com/gpu' with Kubelet",
        ]
    if component == DRIVER:
        return [
            "Loading NVIDIA driver kernel modules...",
            "+ modprobe nvidia",
            "+ modprobe nvidia-uvm",
            "+ modprobe nvidia-modeset",
            "Starting NVIDIA persistence daemon...",
            "Mounting NVIDIA driver rootfs...",
            "Done, now waiting for signal",
        ]
    if component == VALIDATOR:
        return ["all validations are successful"]
    return []


def current_layout(gpus: list[Gpu]) -> MigLayout:
    """The node's GPUs as a layout the engine's MIG helper understands."""
    devices: list[MigDeviceConfig] = []
    for gpu in gpus:
        profiles: dict[str, int] = {}
        for dev in gpu.mig_devices:
            profiles[dev.profile] = profiles.get(dev.profile, 0) + 1
        devices.append(
            MigDeviceConfig(mig_enabled=gpu.mig_enabled, profiles=profiles, gpus=(gpu.index,))
        )
    return MigLayout("current", tuple(devices))


def advertisement(backend: MockBackend, node: str) -> MigAdvertisement:
    gpus = backend.node_gpus(node)
    strat: MigStrategy = "mixed" if strategy(backend) == "mixed" else "single"
    return mig_advertisement(len(gpus), current_layout(gpus), strat)


def reconcile(state: WorldState, backend: MockBackend) -> None:
    """One reconcile pass of the operator over every GPU node."""
    strat = strategy(backend)
    if strat != state.strategy_seen:
        # A ClusterPolicy change rolls the device plugin and GFD on every node.
        for node in backend.list_nodes():
            for component in (DEVICE_PLUGIN, "gpu-feature-discovery"):
                pod = find_ds_pod(backend, node.name, component)
                if pod is not None:
                    backend.delete_pod(pod.namespace, pod.name)
        state.strategy_seen = strat
    for node in backend.list_nodes():
        if not backend.node_gpus(node.name):
            continue
        for comp in COMPONENTS:
            if comp.name == MIG_MANAGER:
                continue  # MIG Manager's own restart logic lives in lab.mig
            wanted = comp.deploy_label is None or node.labels.get(comp.deploy_label) != PAUSED
            pod = find_ds_pod(backend, node.name, comp.name)
            if wanted and pod is None:
                create_ds_pod(state, backend, node.name, comp.name)
            elif not wanted and pod is not None:
                backend.delete_pod(pod.namespace, pod.name)
        _advertise(state, backend, node)


def _advertise(state: WorldState, backend: MockBackend, node: Node) -> None:
    advert = advertisement(backend, node.name)
    plugin = find_ds_pod(backend, node.name, DEVICE_PLUGIN)
    resources: dict[str, int] = {}
    if plugin is not None and advert.crash_loop:
        plugin.reason = "CrashLoopBackOff"
        plugin.restarts += 1
        message = (
            "E1110 main.go:132] error starting plugins: error creating plugin manager: "
            "unable to create plugin manager: invalid MIG configuration for the 'single' "
            "strategy: all MIG devices on a node must have the same profile and every GPU "
            "must have MIG enabled"
        )
        if not plugin.logs or plugin.logs[-1] != message:
            plugin.logs.append(message)
    elif plugin is not None:
        plugin.reason = ""
        resources = dict(advert.resources)
    # Once advertised, an extended resource stays on the node (at 0) until the kubelet
    # restarts, which is why a mixed node still shows nvidia.com/gpu: 0.
    for key in list(node.allocatable):
        if key.startswith("nvidia.com/") and key not in resources:
            resources[key] = 0
    for key, value in resources.items():
        node.allocatable[key] = str(value)
        node.capacity[key] = str(value)
    _feature_labels(backend, node, advert, plugin is not None and not advert.crash_loop)


def _feature_labels(
    backend: MockBackend, node: Node, advert: MigAdvertisement, healthy: bool
) -> None:
    gpus = backend.node_gpus(node.name)
    changes: dict[str, str | None] = {
        "nvidia.com/gpu.present": "true",
        "nvidia.com/mig.capable": "true",
        "nvidia.com/mig.strategy": strategy(backend),
        "nvidia.com/gpu.product": gpu_product_label(BASE_PRODUCT, advert),
        "nvidia.com/gpu.memory": "81559",
    }
    if healthy:
        changes["nvidia.com/gpu.count"] = str(advert.resources.get(GPU_RESOURCE, 0))
    for key in list(node.labels):
        if key.startswith(MIG_RESOURCE_PREFIX) and key.endswith(".count"):
            changes[key] = None
    if strategy(backend) == "mixed":
        for resource, count in advert.resources.items():
            if resource.startswith(MIG_RESOURCE_PREFIX):
                changes[f"{resource}.count"] = str(count)
    if not gpus:
        return
    backend.set_node_labels(node.name, changes)


def cluster_gpu_resource_names(backend: MockBackend) -> list[str]:
    names = {GPU_RESOURCE}
    for node in backend.list_nodes():
        names.update(k for k in node.allocatable if k.startswith("nvidia.com/"))
    return sorted(names)
