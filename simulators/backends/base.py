"""The cluster backend interface the lab terminal calls.

kubectl, runai and nvidia-smi in the lab only talk to a :class:`ClusterBackend`:
read nodes, pods, ConfigMaps, the GPU Operator's ClusterPolicy and events; label,
cordon, create, delete and evict. The mock backend keeps these objects in memory
(and the lab's simulated controllers drive it); a kubernetes-client backend can
implement the same methods against a real cluster later.

The resource classes are deliberately small views of the Kubernetes objects:
only the fields the lab prints or reasons about. Times are simulated seconds
relative to the start of a lab session (negative for objects that existed
before it), never the wall clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

GPU_OPERATOR_NS = "gpu-operator"
RUNAI_NS = "runai"
DEFAULT_SCHEDULER = "default-scheduler"
RUNAI_SCHEDULER = "runai-scheduler"


@dataclass
class Container:
    name: str
    image: str
    requests: dict[str, str] = field(default_factory=dict)
    limits: dict[str, str] = field(default_factory=dict)
    command: list[str] = field(default_factory=list)


@dataclass
class Pod:
    name: str
    namespace: str
    containers: list[Container]
    labels: dict[str, str] = field(default_factory=dict)
    # The controller that recreates the pod: "DaemonSet", "ReplicaSet", "StatefulSet",
    # "Job", "RunaiWorkload" or "" for a bare pod (drain refuses those without --force).
    owner_kind: str = ""
    owner_name: str = ""
    node_name: str | None = None
    node_selector: dict[str, str] = field(default_factory=dict)
    scheduler_name: str = DEFAULT_SCHEDULER
    # Pending, Running, Succeeded, Failed
    phase: str = "Pending"
    # What STATUS shows instead of the phase: CrashLoopBackOff, Completed, Terminating...
    reason: str = ""
    restarts: int = 0
    created: int = 0
    started: int | None = None
    ip: str | None = None
    priority: int = 0
    priority_class: str = ""
    service_account: str = "default"
    logs: list[str] = field(default_factory=list)
    # The manifest as last applied from a file, so `kubectl apply` can tell an
    # unchanged pod from one whose (immutable) spec changed.
    applied_manifest: dict[str, Any] | None = None

    def gpu_resources(self) -> dict[str, float]:
        """Extended GPU resources (nvidia.com/...) the pod's containers ask for."""
        out: dict[str, float] = {}
        for c in self.containers:
            source = c.limits or c.requests
            for key, value in source.items():
                if key.startswith("nvidia.com/"):
                    out[key] = out.get(key, 0.0) + parse_quantity(value)
        return out

    @property
    def ready_count(self) -> int:
        if self.phase == "Running" and self.reason in ("", "Running"):
            return len(self.containers)
        return 0


@dataclass
class Gpu:
    """One physical GPU as the driver sees it (nvidia-smi -L)."""

    index: int
    uuid: str
    name: str = "NVIDIA H100 80GB HBM3"
    mig_enabled: bool = False
    mig_devices: list[MigDevice] = field(default_factory=list)


@dataclass
class MigDevice:
    profile: str
    uuid: str


@dataclass
class Node:
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    unschedulable: bool = False
    capacity: dict[str, str] = field(default_factory=dict)
    allocatable: dict[str, str] = field(default_factory=dict)
    created: int = 0
    kubelet_version: str = "v1.31.4"
    internal_ip: str = ""
    os_image: str = "Ubuntu 22.04.5 LTS"
    kernel_version: str = "5.15.0-1063-nvidia"
    container_runtime: str = "containerd://1.7.24"

    @property
    def roles(self) -> str:
        roles = sorted(
            k.removeprefix("node-role.kubernetes.io/")
            for k in self.labels
            if k.startswith("node-role.kubernetes.io/")
        )
        return ",".join(roles) or "<none>"

    @property
    def status(self) -> str:
        return "Ready,SchedulingDisabled" if self.unschedulable else "Ready"


@dataclass
class ConfigMap:
    name: str
    namespace: str
    data: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    created: int = 0
    applied_manifest: dict[str, Any] | None = None


@dataclass
class ClusterPolicy:
    """The GPU Operator's cluster-wide custom resource (clusterpolicies.nvidia.com)."""

    name: str
    spec: dict[str, Any] = field(default_factory=dict)
    created: int = 0
    state: str = "ready"


@dataclass
class Event:
    namespace: str
    kind: str
    name: str
    type: str
    reason: str
    message: str
    source: str
    first_seen: int
    last_seen: int
    count: int = 1


class ClusterBackend(Protocol):
    """What the lab's tools need from a cluster, real or simulated."""

    def now(self) -> int:
        """Seconds on the cluster's clock (simulated in the mock)."""
        ...

    def list_namespaces(self) -> list[str]: ...

    def ensure_namespace(self, name: str) -> None:
        """Create the namespace unless it exists (helm --create-namespace, runai projects)."""
        ...

    def list_nodes(self) -> list[Node]: ...

    def get_node(self, name: str) -> Node | None: ...

    def set_node_labels(self, name: str, changes: dict[str, str | None]) -> None:
        """Set (value) or remove (None) labels on a node."""
        ...

    def set_unschedulable(self, name: str, unschedulable: bool) -> None: ...

    def node_gpus(self, name: str) -> list[Gpu]:
        """The node's GPUs as the driver sees them (what nvidia-smi -L prints)."""
        ...

    def list_pods(self, namespace: str | None = None) -> list[Pod]:
        """Pods in one namespace, or in all of them for None."""
        ...

    def get_pod(self, namespace: str, name: str) -> Pod | None: ...

    def create_pod(self, pod: Pod) -> None: ...

    def delete_pod(self, namespace: str, name: str) -> None: ...

    def evict_pod(self, namespace: str, name: str) -> None:
        """Evict through the eviction API (what drain does); the owner recreates it."""
        ...

    def pod_logs(self, namespace: str, name: str) -> list[str]: ...

    def set_pod_labels(self, namespace: str, name: str, changes: dict[str, str | None]) -> None: ...

    def list_configmaps(self, namespace: str | None = None) -> list[ConfigMap]: ...

    def get_configmap(self, namespace: str, name: str) -> ConfigMap | None: ...

    def put_configmap(self, configmap: ConfigMap) -> None:
        """Create or replace a ConfigMap."""
        ...

    def delete_configmap(self, namespace: str, name: str) -> None: ...

    def list_cluster_policies(self) -> list[ClusterPolicy]: ...

    def get_cluster_policy(self, name: str) -> ClusterPolicy | None: ...

    def set_cluster_policy_spec(self, name: str, spec: dict[str, Any]) -> None: ...

    def list_events(self, namespace: str | None = None) -> list[Event]: ...

    def record_event(self, event: Event) -> None: ...


_SUFFIXES = {
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "k": 1000,
    "M": 1000**2,
    "G": 1000**3,
    "T": 1000**4,
    "m": 0.001,
}


def parse_quantity(value: str) -> float:
    """A Kubernetes quantity ("1", "500m", "10Gi") as a number; garbage counts as 0."""
    text = str(value).strip()
    for suffix, factor in _SUFFIXES.items():
        if text.endswith(suffix):
            number = text[: -len(suffix)]
            try:
                return float(number) * factor
            except ValueError:
                return 0.0
    try:
        return float(text)
    except ValueError:
        return 0.0


def is_valid_quantity(value: str) -> bool:
    text = str(value).strip()
    for suffix in _SUFFIXES:
        if text.endswith(suffix):
            text = text[: -len(suffix)]
            break
    try:
        float(text)
    except ValueError:
        return False
    return text != "" and not text.lower().startswith(("nan", "inf", "-inf", "+inf"))
