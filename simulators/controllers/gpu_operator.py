"""The NVIDIA GPU Operator: ClusterPolicy to DaemonSets, and GPU Feature Discovery's labels.

The operator (its own Deployment in ``gpu-operator``) renders one DaemonSet per component from
the ClusterPolicy, each selecting nodes by its ``nvidia.com/gpu.deploy.<component>=true`` label,
so MIG Manager switches a component off on a node by setting that label to
``paused-for-mig-change``. A change to the policy (the MIG strategy) changes the device plugin's
and GFD's templates, and their DaemonSets roll.

GPU Feature Discovery, on every node where its pod runs, labels the node with what it finds
(``nvidia.com/gpu.product``, ``gpu.count``, ``gpu.memory``, ``mig.strategy``,
``mig-<profile>.count``...), with GFD v0.17.1's rules for each MIG strategy.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.controllers import containerd, gpu_state, hardware
from simulators.controllers.util import (
    dig,
    get_or_none,
    is_deleting,
    items,
    labels_of,
    name_of,
    spec,
    status,
)
from simulators.controllers.workloads import template_hash
from simulators.engine.mig import mig_profile

NAMESPACE = "gpu-operator"
OPERATOR_VERSION = "v24.9.2"
DEPLOY_PREFIX = "nvidia.com/gpu.deploy."
PAUSED = "paused-for-mig-change"
BASE_PRODUCT = "NVIDIA-H100-80GB-HBM3"
DRIVER_VERSION = "550.127.08"

# Memory (MiB) and multiprocessors of each H100 80GB MIG profile, as GFD labels them.
PROFILE_MEMORY_MIB = {
    "1g.10gb": 9856,
    "1g.20gb": 19968,
    "2g.20gb": 19968,
    "3g.40gb": 40192,
    "4g.40gb": 40192,
    "7g.80gb": 80384,
}
PROFILE_SMS = {
    "1g.10gb": 16,
    "1g.20gb": 16,
    "2g.20gb": 32,
    "3g.40gb": 60,
    "4g.40gb": 64,
    "7g.80gb": 132,
}


# (DaemonSet name, container, image, deploy label suffix, ClusterPolicy section)
COMPONENTS: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "gpu-feature-discovery",
        "gpu-feature-discovery",
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
        "gpu-feature-discovery",
        "gfd",
    ),
    (
        "nvidia-container-toolkit-daemonset",
        "nvidia-container-toolkit-ctr",
        "nvcr.io/nvidia/k8s/container-toolkit:v1.17.5-ubuntu20.04",
        "container-toolkit",
        "toolkit",
    ),
    (
        "nvidia-dcgm-exporter",
        "nvidia-dcgm-exporter",
        "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04",
        "dcgm-exporter",
        "dcgmExporter",
    ),
    (
        "nvidia-device-plugin-daemonset",
        "nvidia-device-plugin",
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
        "device-plugin",
        "devicePlugin",
    ),
    (
        "nvidia-driver-daemonset",
        "nvidia-driver-ctr",
        "nvcr.io/nvidia/driver:550.127.08-ubuntu22.04",
        "driver",
        "driver",
    ),
    (
        "nvidia-mig-manager",
        "nvidia-mig-manager",
        "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.10.0-ubuntu20.04",
        "mig-manager",
        "migManager",
    ),
    (
        "nvidia-operator-validator",
        "nvidia-operator-validator",
        "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.9.2",
        "operator-validator",
        "validator",
    ),
)
DEVICE_PLUGIN = "nvidia-device-plugin-daemonset"
GFD = "gpu-feature-discovery"
MIG_MANAGER = "nvidia-mig-manager"
VALIDATOR = "nvidia-operator-validator"
DRIVER = "nvidia-driver-daemonset"

# The labels the operator puts on every GPU node so each component's DaemonSet selects it.
DEPLOY_LABELS = (*(DEPLOY_PREFIX + c[3] for c in COMPONENTS), DEPLOY_PREFIX + "dcgm")
# The MIG manager only goes to nodes whose GPUs can do MIG.
NON_MIG_DEPLOY_LABELS = tuple(k for k in DEPLOY_LABELS if not k.endswith(".mig-manager"))


def default_cluster_policy(strategy: str, config_name: str) -> Obj:
    return {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {
            "name": gpu_state.CLUSTER_POLICY,
            "labels": {"app.kubernetes.io/component": "gpu-operator"},
        },
        "spec": {
            "operator": {"defaultRuntime": "containerd"},
            "daemonsets": {
                "priorityClassName": "system-node-critical",
                "updateStrategy": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": "1"},
                "tolerations": [
                    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
                ],
            },
            "driver": {"enabled": True, "version": DRIVER_VERSION},
            "toolkit": {"enabled": True},
            "devicePlugin": {"enabled": True},
            "dcgmExporter": {"enabled": True},
            "gfd": {"enabled": True},
            "mig": {"strategy": strategy},
            "migManager": {
                "enabled": True,
                "config": {"name": config_name, "default": "all-disabled"},
                "gpuClientsConfig": {"name": "default-gpu-clients"},
                "env": [{"name": "WITH_REBOOT", "value": "false"}],
            },
            "validator": {"plugin": {"env": [{"name": "WITH_WORKLOAD", "value": "false"}]}},
        },
    }


def _enabled(policy: Obj, section: str) -> bool:
    value = dig(policy.get("spec"), section, "enabled")
    return value is not False


def daemonset_for(policy: Obj, component: tuple[str, str, str, str, str]) -> Obj:
    name, container, image, deploy, _section = component
    strategy = str(dig(policy.get("spec"), "mig", "strategy") or "single")
    env: list[dict[str, str]] = []
    volumes: list[dict[str, Any]] = []
    mounts: list[dict[str, Any]] = []
    if name in (DEVICE_PLUGIN, GFD):
        env.append({"name": "MIG_STRATEGY", "value": strategy})
    if name == DEVICE_PLUGIN:
        env += [
            {"name": "PASS_DEVICE_SPECS", "value": "true"},
            {"name": "FAIL_ON_INIT_ERROR", "value": "true"},
            {"name": "DEVICE_LIST_STRATEGY", "value": "envvar"},
            {"name": "DEVICE_ID_STRATEGY", "value": "uuid"},
        ]
    if name == MIG_MANAGER:
        config = str(
            dig(policy.get("spec"), "migManager", "config", "name") or gpu_state.DEFAULT_MIG_CONFIG
        )
        env += [
            {"name": "CONFIG_FILE", "value": "/mig-parted-config/config.yaml"},
            {"name": "GPU_CLIENTS_FILE", "value": "/gpu-clients/clients.yaml"},
            {"name": "WITH_REBOOT", "value": "false"},
        ]
        volumes.append({"name": "mig-parted-config", "configMap": {"name": config}})
        mounts.append({"name": "mig-parted-config", "mountPath": "/mig-parted-config"})
    ctr: dict[str, Any] = {"name": container, "image": image, "imagePullPolicy": "IfNotPresent"}
    if env:
        ctr["env"] = env
    if mounts:
        ctr["volumeMounts"] = mounts
    if name in (DRIVER, MIG_MANAGER, "nvidia-container-toolkit-daemonset"):
        ctr["securityContext"] = {"privileged": True}
    pod_spec: dict[str, Any] = {
        "containers": [ctr],
        "nodeSelector": {DEPLOY_PREFIX + deploy: "true"},
        "priorityClassName": "system-node-critical",
        "serviceAccountName": name.removesuffix("-daemonset"),
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    if volumes:
        pod_spec["volumes"] = volumes
    labels = {
        "app": name,
        "app.kubernetes.io/managed-by": "gpu-operator",
        "helm.sh/chart": f"gpu-operator-{OPERATOR_VERSION}",
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": {"app": name, "app.kubernetes.io/managed-by": "gpu-operator"},
            "annotations": {
                "nvidia.com/last-applied-hash": template_hash({"labels": labels, "spec": pod_spec})
            },
        },
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": labels}, "spec": pod_spec},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "1"}},
        },
    }


def run_operator(api: ClusterAPI) -> None:
    """Reconcile the ClusterPolicy: the component DaemonSets, node labels and the policy status."""
    policy = gpu_state.cluster_policy(api)
    if policy is None or is_deleting(policy):
        return
    try:
        api.get("namespaces", NAMESPACE)
    except ApiError:
        return
    containerd.ensure_runtime_class(api)
    ready = True
    for component in COMPONENTS:
        name = component[0]
        existing = get_or_none(api, "daemonsets.apps", name, NAMESPACE)
        if not _enabled(policy, component[4]):
            if existing is not None:
                api.delete("daemonsets.apps", name, NAMESPACE)
            continue
        wanted = daemonset_for(policy, component)
        if existing is None:
            api.create("daemonsets.apps", wanted, NAMESPACE)
            ready = False
            continue
        want_hash = wanted["metadata"]["annotations"]["nvidia.com/last-applied-hash"]
        if (
            existing.get("metadata", {}).get("annotations", {}).get("nvidia.com/last-applied-hash")
            != want_hash
        ):
            api.patch(
                "daemonsets.apps",
                name,
                {
                    "metadata": {"annotations": {"nvidia.com/last-applied-hash": want_hash}},
                    "spec": {"template": wanted["spec"]["template"]},
                },
                NAMESPACE,
            )
            ready = False
            continue
        ds_status = status(existing)
        if int(ds_status.get("numberReady", 0)) < int(ds_status.get("desiredNumberScheduled", 0)):
            ready = False
    _label_gpu_nodes(api, policy)
    state = "ready" if ready else "notReady"
    if status(policy).get("state") != state:
        api.patch(
            gpu_state.CLUSTER_POLICIES,
            name_of(policy),
            {"status": {"state": state, "namespace": NAMESPACE}},
            subresource="status",
        )


MIG_CONFIG_LABEL = "nvidia.com/mig.config"


def _label_gpu_nodes(api: ClusterAPI, policy: Obj) -> None:
    """The operator's node labels: a component's deploy label where it is missing, and on a
    MIG-capable node without ``nvidia.com/mig.config`` the ClusterPolicy's
    ``migManager.config.default`` (``all-disabled`` unless set otherwise), which MIG Manager then
    applies: removing the label turns MIG off."""
    default = str(dig(spec(policy), "migManager", "config", "default") or "")
    for node in items(api, "nodes"):
        if not hardware.read_layout(node):
            continue
        labels = labels_of(node)
        capable = hardware.gpu_model(node).mig_capable
        wanted = DEPLOY_LABELS if capable else NON_MIG_DEPLOY_LABELS
        missing = {k: "true" for k in wanted if k not in labels}
        if labels.get("nvidia.com/gpu.present") != "true":
            missing["nvidia.com/gpu.present"] = "true"
        if (
            capable
            and default
            and MIG_CONFIG_LABEL not in labels
            and _enabled(policy, "migManager")
        ):
            missing[MIG_CONFIG_LABEL] = default
        if missing:
            api.patch("nodes", name_of(node), {"metadata": {"labels": missing}})


# ---------------------------------------------------------------------------- GFD


def gfd_running(pods: list[Obj], node_name: str) -> bool:
    for pod in pods:
        if labels_of(pod).get("app") != GFD or spec(pod).get("nodeName") != node_name:
            continue
        if is_deleting(pod):
            continue
        if any(
            "running" in (c.get("state") or {}) for c in status(pod).get("containerStatuses") or []
        ):
            return True
    return False


def gfd_labels(node: Obj, strategy: str) -> dict[str, str]:
    """The nvidia.com/* labels GFD v0.17.1 derives for this node."""
    layout = hardware.read_layout(node)
    count = len(layout)
    model = hardware.gpu_model(node)
    labels: dict[str, str] = {
        "nvidia.com/cuda.driver-version.full": DRIVER_VERSION,
        "nvidia.com/cuda.driver-version.major": DRIVER_VERSION.split(".")[0],
        "nvidia.com/cuda.driver-version.minor": DRIVER_VERSION.split(".")[1],
        "nvidia.com/cuda.driver-version.revision": DRIVER_VERSION.split(".")[2],
        "nvidia.com/cuda.driver.major": DRIVER_VERSION.split(".")[0],
        "nvidia.com/cuda.driver.minor": DRIVER_VERSION.split(".")[1],
        "nvidia.com/cuda.driver.rev": DRIVER_VERSION.split(".")[2],
        "nvidia.com/cuda.runtime-version.full": "12.4",
        "nvidia.com/cuda.runtime-version.major": "12",
        "nvidia.com/cuda.runtime-version.minor": "4",
        "nvidia.com/cuda.runtime.major": "12",
        "nvidia.com/cuda.runtime.minor": "4",
        "nvidia.com/gpu.compute.major": str(model.compute[0]),
        "nvidia.com/gpu.compute.minor": str(model.compute[1]),
        "nvidia.com/gpu.family": model.family,
        "nvidia.com/gpu.machine": model.machine,
        "nvidia.com/gpu.mode": "compute",
        "nvidia.com/mig.capable": "true" if model.mig_capable else "false",
        "nvidia.com/mig.strategy": strategy,
        "nvidia.com/mps.capable": "false",
        "nvidia.com/gpu.product": model.label,
        "nvidia.com/gpu.count": str(count),
        "nvidia.com/gpu.memory": str(model.memory_mib),
        "nvidia.com/gpu.replicas": "1",
        "nvidia.com/gpu.sharing-strategy": "none",
    }
    enabled = [p for p in layout if p is not None]
    if strategy == "single" and enabled:
        problem = gpu_state.gfd_single_problem(node)
        if problem:
            labels.update(
                {
                    "nvidia.com/gpu.product": f"{BASE_PRODUCT}-MIG-INVALID",
                    "nvidia.com/gpu.count": "0",
                    "nvidia.com/gpu.replicas": "0",
                    "nvidia.com/gpu.memory": "0",
                    "nvidia.com/gpu.sharing-strategy": "",
                }
            )
            return labels
        profile = next(name for p in enabled for name, n in p.items() if n)
        slices = sum(sum(p.values()) for p in enabled)
        labels.update(_profile_labels("nvidia.com/gpu", profile, slices))
        return labels
    if strategy == "mixed" and enabled:
        totals: dict[str, int] = {}
        for profiles in enabled:
            for name, n in profiles.items():
                totals[name] = totals.get(name, 0) + n
        labels["nvidia.com/gpu.count"] = str(count - len(enabled))
        for name, n in sorted(totals.items()):
            labels.update(_profile_labels(f"nvidia.com/mig-{name}", name, n))
    return labels


def _profile_labels(prefix: str, profile: str, count: int) -> dict[str, str]:
    info = mig_profile(profile)
    return {
        f"{prefix}.count": str(count),
        f"{prefix}.engines.copy": str(max(1, info.compute_slices)),
        f"{prefix}.engines.decoder": str(max(1, info.compute_slices)),
        f"{prefix}.engines.encoder": "0",
        f"{prefix}.engines.jpeg": str(max(1, info.compute_slices)),
        f"{prefix}.engines.ofa": "1" if info.compute_slices == 7 else "0",
        f"{prefix}.memory": str(PROFILE_MEMORY_MIB.get(profile, info.memory_gib * 1024)),
        f"{prefix}.multiprocessors": str(PROFILE_SMS.get(profile, 16)),
        f"{prefix}.product": f"{BASE_PRODUCT}-MIG-{profile}",
        f"{prefix}.replicas": "1",
        f"{prefix}.sharing-strategy": "none",
        f"{prefix}.slices.ci": str(info.compute_slices),
        f"{prefix}.slices.gi": str(info.compute_slices),
    }


def run_gfd(api: ClusterAPI) -> None:
    strategy = gpu_state.mig_strategy(api)
    pods = items(api, "pods", NAMESPACE)
    for node in items(api, "nodes"):
        if not hardware.read_layout(node) or not gfd_running(pods, name_of(node)):
            continue
        labels = labels_of(node)
        wanted = gfd_labels(node, strategy)
        changes: dict[str, str | None] = {k: v for k, v in wanted.items() if labels.get(k) != v}
        for key in labels:
            if key.startswith("nvidia.com/mig-") and key not in wanted:
                changes[key] = None
        if changes:
            api.patch("nodes", name_of(node), {"metadata": {"labels": changes}})
