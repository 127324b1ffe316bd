"""The lab's world: a ticket's cluster as objects in the mock API, and kadmin's home folder.

`build_cluster(ticket, seed)` builds the cluster the guide describes (``dgx-cluster``,
Kubernetes v1.31.4, three DGX H100 worker nodes ``gpu-node1..3`` with 8x H100 80GB HBM3, 224
CPUs and 2113302Mi each; kube-system, the GPU Operator, Run:ai) by creating objects through the
API and letting the controllers bring it up, then stages the ticket's story at the times it
says (a colleague's change yesterday, a Job 42 minutes old, a workspace submitted an hour ago)
and warms up for a few steps, so every initial state (a failed MIG apply, a Pending pod and its
events, ages) comes from the same rules as everything the learner does.

The control plane: the guide's samples show the nodes with ROLES ``<none>`` and kube-scheduler's
"0/3 nodes are available", so the three GPU nodes are the only nodes; the control plane runs
outside the node list (as on a hosted or separately managed control plane), which is why
kube-system has coredns and kube-proxy but no etcd or kube-apiserver mirror pods.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from simulators.cluster.api import ApiError, Obj
from simulators.cluster.clock import EPOCH, STEP_SECONDS, format_time
from simulators.cluster.store import MockCluster
from simulators.controllers import gpu_operator, gpu_state, hardware, mig_manager, runai
from simulators.controllers.manager import run_controllers
from simulators.engine.mig import NAMED_LAYOUTS
from simulators.lab.errors import LabError

NODE_NAMES = ("gpu-node1", "gpu-node2", "gpu-node3")
GPUS_PER_NODE = 8
CLUSTER_NAME = "dgx-cluster"
KUBERNETES_VERSION = "v1.31.4"
# Steps the world runs just before the learner's first command.
WARMUP_STEPS = 6
DAY = 86400
CLUSTER_AGE = 31 * DAY + 3600  # so objects made in its first minutes still read 31d
# Steps the cluster runs after each staged change, so it settles before the clock jumps on.
SETTLE_STEPS = 3
RUNAI_VERSION = "2.17.42"
RUNAI_IMAGE = f"gcr.io/run-ai-prod/runai:{RUNAI_VERSION}"
# Run:ai's cluster components (Deployments, so a drained node never leaves Run:ai dead).
RUNAI_COMPONENTS = (
    "accessrule-controller",
    "cluster-api",
    "cluster-sync",
    "metrics-exporter",
    "nodepool-controller",
    "pod-grouper",
    "queue-controller",
    "researcher-service",
    "runai-admission-controller",
    "runai-agent",
    "runai-operator",
    "runai-scheduler-default",
    "status-updater",
    "workload-controller",
)
COREFILE = """.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30
    loop
    reload
    loadbalance
}
"""
RELOADER_IMAGE = "quay.io/prometheus-operator/prometheus-config-reloader:v0.76.0"
TICKETS_DIR = Path(__file__).resolve().parents[2] / "content" / "tickets"


# ---------------------------------------------------------------------------- kadmin


@dataclass
class RunaiCli:
    """The runai CLI's own configuration on kadmin (~/.runai), not cluster state."""

    installed: bool = True
    logged_in: bool = True
    default_project: str = ""
    cluster: str = CLUSTER_NAME


@dataclass
class HelmRelease:
    name: str
    namespace: str
    chart: str
    revision: int
    deployed: int
    values: dict[str, str] = field(default_factory=dict)


@dataclass
class HostState:
    """The admin host's side of a lab: home folder, CLI configs, the step counter."""

    seed: int
    step: int = 0
    files: dict[str, str] = field(default_factory=dict)
    runai: RunaiCli = field(default_factory=RunaiCli)
    helm: list[HelmRelease] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> HostState:
        if not isinstance(data, dict):
            raise LabError("saved lab state is damaged: host is not an object")
        try:
            return cls(
                seed=int(data["seed"]),
                step=int(data.get("step", 0)),
                files={str(k): str(v) for k, v in (data.get("files") or {}).items()},
                runai=RunaiCli(**(data.get("runai") or {})),
                helm=[HelmRelease(**h) for h in data.get("helm") or []],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise LabError(f"saved lab state is damaged: {exc}") from None


class World:
    """The cluster (through its API) plus kadmin; `tick()` is one step of simulated time."""

    def __init__(self, api: MockCluster, state: HostState) -> None:
        self.api = api
        self.state = state

    @property
    def now(self) -> int:
        """Seconds on the cluster clock since the session started (negative before)."""
        return int(self.api.clock.seconds)

    def tick(self) -> None:
        self.state.step += 1
        self.api.clock.advance()
        run_controllers(self.api)

    def to_json(self) -> dict[str, Any]:
        """The whole world. The watch history is compacted first: a saved lab has no watchers."""
        self.api.compact_watch_log()
        return {"cluster": self.api.to_json(), "host": self.state.to_json()}

    @classmethod
    def from_json(cls, data: Any) -> World:
        if not isinstance(data, dict) or "cluster" not in data or "host" not in data:
            raise LabError("saved lab state is damaged: no cluster")
        try:
            api = MockCluster.from_json(data["cluster"])
        except (ApiError, KeyError, TypeError, ValueError) as exc:
            raise LabError(f"saved lab state is damaged: {exc}") from None
        return cls(api, HostState.from_json(data["host"]))


# ---------------------------------------------------------------------------- building


def load_world_spec(ticket_id: str) -> dict[str, Any]:
    path = TICKETS_DIR / f"{ticket_id}.yaml"
    if not ticket_id.replace("-", "").isalnum() or not path.is_file():
        raise LabError(f"unknown ticket {ticket_id!r}")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    world = data.get("world") or {}
    if not isinstance(world, dict):
        raise LabError(f"ticket {ticket_id}: world must be a mapping")
    return world


def build_cluster(ticket: str | dict[str, Any], seed: int = 0) -> MockCluster:
    """A ticket's cluster (by id or by its `world:` mapping), warmed up to the session's start."""
    return build_world(ticket, seed).api


def build_world(ticket: str | dict[str, Any], seed: int = 0) -> World:
    spec = load_world_spec(ticket) if isinstance(ticket, str) else dict(ticket)
    api = MockCluster(seed=seed)
    api.clock.seconds = -CLUSTER_AGE
    world = World(api, HostState(seed=seed))
    world.state.files = {str(k): str(v) for k, v in (spec.get("files") or {}).items()}
    runai_spec = spec.get("runai") or {}
    world.state.runai = RunaiCli(
        installed=bool(runai_spec.get("installed", True)),
        logged_in=bool(runai_spec.get("logged_in", True)),
        default_project=str(runai_spec.get("default_project", "") or ""),
    )
    world.state.helm = [
        HelmRelease("gpu-operator", "gpu-operator", "gpu-operator-v24.9.2", 1, -CLUSTER_AGE),
        HelmRelease("runai-cluster", "runai", f"runai-cluster-{RUNAI_VERSION}", 1, -CLUSTER_AGE),
    ]
    _base_cluster(api, spec)
    _settle(api, SETTLE_STEPS)
    for when, action in _story(spec, world):
        if when > api.clock.seconds:
            api.clock.seconds = when
        action()
        _settle(api, SETTLE_STEPS)
    api.clock.seconds = max(api.clock.seconds, -WARMUP_STEPS * STEP_SECONDS)
    while api.clock.seconds < 0:
        _settle(api, 1)
    api.clock.seconds = 0
    # Nobody watched the build: keep the saved state small.
    api.compact_watch_log()
    return world


def _settle(api: MockCluster, steps: int) -> None:
    for _ in range(steps):
        api.clock.advance()
        run_controllers(api)


def _node(
    name: str, index: int, labels: dict[str, str], layout: list[dict[str, int] | None]
) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": labels,
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                hardware.GPUS_ANNOTATION: hardware.encode_layout(layout),
            },
        },
        "spec": {"podCIDR": f"10.244.{index}.0/24", "podCIDRs": [f"10.244.{index}.0/24"]},
    }


# CPUs and memory of each server (a DGX H100; a PowerEdge R760xa with 2x 32-core Xeons).
SERVER_RESOURCES = {"H100": ("224", "2113302Mi"), "L40S": ("128", "1056583Mi")}


def _node_status(index: int, name: str, stamp: str, model: str = "H100") -> dict[str, Any]:
    cpu, memory = SERVER_RESOURCES.get(model, SERVER_RESOURCES["H100"])
    resources = {
        "cpu": cpu,
        "ephemeral-storage": "1699505060Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": memory,
        "pods": "110",
    }
    conditions = [
        (
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
        ),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    return {
        "capacity": dict(resources),
        "allocatable": dict(resources),
        "conditions": [
            {
                "type": kind,
                "status": value,
                "lastHeartbeatTime": stamp,
                "lastTransitionTime": stamp,
                "reason": reason,
                "message": message,
            }
            for kind, value, reason, message in conditions
        ],
        "addresses": [
            {"type": "InternalIP", "address": f"10.10.0.{10 + index}"},
            {"type": "Hostname", "address": name},
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "machineID": f"{hardware._uuid('machine', name).replace('-', '')}",
            "systemUUID": hardware._uuid("system", name),
            "bootID": hardware._uuid("boot", name),
            "kernelVersion": "5.15.0-1063-nvidia",
            "osImage": "Ubuntu 22.04.5 LTS",
            "containerRuntimeVersion": "containerd://1.7.24",
            "kubeletVersion": KUBERNETES_VERSION,
            "kubeProxyVersion": "",
            "operatingSystem": "linux",
            "architecture": "amd64",
        },
    }


def _node_specs(spec: dict[str, Any]) -> list[tuple[str, str, int, str]]:
    """(name, GPU model, GPUs, node pool) of every node: the three DGX H100s (in the pool the
    world's ``pool`` names, else ``default``), then the world's ``extra_nodes``."""
    pool = str(spec.get("pool") or runai.DEFAULT_POOL)
    out = [(name, "H100", GPUS_PER_NODE, pool) for name in NODE_NAMES]
    for extra in spec.get("extra_nodes") or []:
        model = str(extra.get("model", "H100"))
        if model not in hardware.GPU_MODELS:
            raise LabError(f"world: unknown GPU model {model!r} for {extra.get('name')}")
        out.append(
            (
                str(extra["name"]),
                model,
                int(extra.get("gpus", GPUS_PER_NODE)),
                str(extra.get("pool") or runai.DEFAULT_POOL),
            )
        )
    return out


def _base_cluster(api: MockCluster, spec: dict[str, Any]) -> None:
    stamp = api.clock.timestamp()
    for ns in ("gpu-operator", "runai"):
        api.create("namespaces", {"metadata": {"name": ns}})
    for index, (name, model_key, count, pool) in enumerate(_node_specs(spec), start=1):
        model = hardware.GPU_MODELS[model_key]
        labels = {
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": model.instance_type,
            "nvidia.com/gpu.machine": model.machine,
            "nvidia.com/gpu.present": "true",
            runai.POOL_LABEL: pool,
            **({mig_manager.CONFIG_LABEL: "all-disabled"} if model.mig_capable else {}),
            **dict.fromkeys(
                gpu_operator.DEPLOY_LABELS
                if model.mig_capable
                else gpu_operator.NON_MIG_DEPLOY_LABELS,
                "true",
            ),
        }
        node = _node(name, index, labels, [None] * count)
        if model_key != "H100":
            node["metadata"]["annotations"][hardware.MODEL_ANNOTATION] = model_key
        api.create("nodes", node)
        status = _node_status(index, name, stamp, model_key)
        api.patch("nodes", name, {"status": status}, subresource="status")
    _kube_system(api)
    policy = gpu_operator.default_cluster_policy(
        str(spec.get("strategy", "single")), gpu_state.DEFAULT_MIG_CONFIG
    )
    api.create("clusterpolicies.nvidia.com", policy)
    api.create(
        "configmaps",
        {
            "metadata": {
                "name": "default-mig-parted-config",
                "namespace": "gpu-operator",
                "labels": {"app.kubernetes.io/part-of": "gpu-operator"},
            },
            "data": {mig_manager.CONFIG_KEY: mig_manager.DEFAULT_CONFIG_TEXT},
        },
    )
    api.create(
        "configmaps",
        {
            "metadata": {"name": "default-gpu-clients", "namespace": "gpu-operator"},
            "data": {
                "clients.yaml": "version: v1\nsystemd-services:\n  - nvsm.service\n"
                "  - nvsm-mqtt.service\n  - nvsm-core.service\n  - nvsm-api-gateway.service\n"
                "  - nvsm-notifier.service\n  - nv_peer_mem.service\n"
                "  - nvidia-dcgm.service\n  - dcgm.service\n  - dcgm-exporter.service\n"
            },
        },
    )
    _deployment(
        api,
        "gpu-operator",
        "gpu-operator",
        {"app": "gpu-operator", "app.kubernetes.io/component": "gpu-operator"},
        [{"name": "gpu-operator", "image": "nvcr.io/nvidia/gpu-operator:v24.9.2"}],
        service_account="gpu-operator",
        priority_class="system-node-critical",
    )
    _runai(api)


def _deployment(
    api: MockCluster,
    namespace: str,
    name: str,
    labels: dict[str, str],
    containers: list[dict[str, Any]],
    *,
    replicas: int = 1,
    service_account: str = "",
    priority_class: str = "",
) -> None:
    pod_spec: dict[str, Any] = {"containers": containers}
    if service_account:
        pod_spec["serviceAccountName"] = service_account
    if priority_class:
        pod_spec["priorityClassName"] = priority_class
    api.create(
        "deployments.apps",
        {
            "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": dict(labels)},
                "template": {"metadata": {"labels": dict(labels)}, "spec": pod_spec},
            },
        },
        namespace,
    )


def _kube_system(api: MockCluster) -> None:
    api.create(
        "services",
        {
            "metadata": {
                "name": "kubernetes",
                "namespace": "default",
                "labels": {"component": "apiserver", "provider": "kubernetes"},
            },
            "spec": {
                "clusterIP": "10.96.0.1",
                "clusterIPs": ["10.96.0.1"],
                "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}],
                "type": "ClusterIP",
            },
        },
        "default",
    )
    api.create(
        "services",
        {
            "metadata": {
                "name": "kube-dns",
                "namespace": "kube-system",
                "labels": {"k8s-app": "kube-dns", "kubernetes.io/name": "CoreDNS"},
            },
            "spec": {
                "clusterIP": "10.96.0.10",
                "clusterIPs": ["10.96.0.10"],
                "selector": {"k8s-app": "kube-dns"},
                "ports": [
                    {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                    {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
                    {"name": "metrics", "port": 9153, "protocol": "TCP", "targetPort": 9153},
                ],
                "type": "ClusterIP",
            },
        },
        "kube-system",
    )
    api.create(
        "configmaps",
        {
            "metadata": {"name": "coredns", "namespace": "kube-system"},
            "data": {"Corefile": COREFILE},
        },
        "kube-system",
    )
    api.create(
        "deployments.apps",
        {
            "metadata": {
                "name": "coredns",
                "namespace": "kube-system",
                "labels": {"k8s-app": "kube-dns"},
            },
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"k8s-app": "kube-dns"}},
                "template": {
                    "metadata": {"labels": {"k8s-app": "kube-dns"}},
                    "spec": {
                        "priorityClassName": "system-cluster-critical",
                        "serviceAccountName": "coredns",
                        "containers": [
                            {
                                "name": "coredns",
                                "image": "registry.k8s.io/coredns/coredns:v1.11.3",
                                "args": ["-conf", "/etc/coredns/Corefile"],
                                "resources": {
                                    "limits": {"memory": "170Mi"},
                                    "requests": {"cpu": "100m", "memory": "70Mi"},
                                },
                            }
                        ],
                        "tolerations": [
                            {"key": "CriticalAddonsOnly", "operator": "Exists"},
                            {
                                "key": "node-role.kubernetes.io/control-plane",
                                "effect": "NoSchedule",
                            },
                        ],
                    },
                },
            },
        },
        "kube-system",
    )
    api.create(
        "daemonsets.apps",
        {
            "metadata": {
                "name": "kube-proxy",
                "namespace": "kube-system",
                "labels": {"k8s-app": "kube-proxy"},
            },
            "spec": {
                "selector": {"matchLabels": {"k8s-app": "kube-proxy"}},
                "template": {
                    "metadata": {"labels": {"k8s-app": "kube-proxy"}},
                    "spec": {
                        "hostNetwork": True,
                        "priorityClassName": "system-node-critical",
                        "serviceAccountName": "kube-proxy",
                        "nodeSelector": {"kubernetes.io/os": "linux"},
                        "containers": [
                            {
                                "name": "kube-proxy",
                                "image": f"registry.k8s.io/kube-proxy:{KUBERNETES_VERSION}",
                                "command": [
                                    "/usr/local/bin/kube-proxy",
                                    "--config=/var/lib/kube-proxy/config.conf",
                                    "--hostname-override=$(NODE_NAME)",
                                ],
                                "securityContext": {"privileged": True},
                            }
                        ],
                        "tolerations": [{"operator": "Exists"}],
                    },
                },
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            },
        },
        "kube-system",
    )


def _runai(api: MockCluster) -> None:
    for name in RUNAI_COMPONENTS:
        _deployment(
            api,
            "runai",
            name,
            {"app": name},
            [{"name": name, "image": RUNAI_IMAGE}],
            service_account=name,
        )
    api.create(
        "statefulsets.apps",
        {
            "metadata": {
                "name": "prometheus-runai",
                "namespace": "runai",
                "labels": {"app": "prometheus"},
            },
            "spec": {
                "replicas": 1,
                "serviceName": "prometheus-operated",
                "selector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}},
                "template": {
                    "metadata": {
                        "labels": {"app.kubernetes.io/name": "prometheus", "prometheus": "runai"}
                    },
                    "spec": {
                        "containers": [
                            {
                                "name": "prometheus",
                                "image": "quay.io/prometheus/prometheus:v2.54.1",
                            },
                            {
                                "name": "config-reloader",
                                "image": RELOADER_IMAGE,
                            },
                        ]
                    },
                },
            },
        },
        "runai",
    )


# ---------------------------------------------------------------------------- the story


def _story(spec: dict[str, Any], world: World) -> list[tuple[int, Any]]:
    """The ticket's changes as (time, action), applied in time order."""
    api = world.api
    actions: list[tuple[int, Any]] = []
    # Projects and departments exist from early on (the install was validated a month ago).
    runai_spec = spec.get("runai") or {}
    projects = list(runai_spec.get("projects") or [])
    departments = {str(d["name"]): d for d in runai_spec.get("departments") or []}
    if projects:
        actions.append((-30 * DAY, lambda: _projects(api, projects, departments)))
    node_specs = spec.get("nodes") or {}
    if node_specs or spec.get("configmaps") or spec.get("mig_config_name"):
        actions.append((-DAY, lambda: _yesterday(api, spec, world)))
    for job in spec.get("jobs") or []:
        age = int(job.get("age_minutes", 42)) * 60
        actions.append((-age, lambda job=job: _job(api, job)))
    if spec.get("apply_files"):
        actions.append((-25 * 60, lambda: _apply_files(api, world, list(spec["apply_files"]))))
    for wl in runai_spec.get("workloads") or []:
        age = int(wl.get("age_minutes", 30)) * 60
        actions.append((-age, lambda wl=wl: _workload(api, wl)))
    actions.sort(key=lambda a: a[0])
    return actions


def _yesterday(api: MockCluster, spec: dict[str, Any], world: World) -> None:
    """A colleague's changes: node labels and cordons, ConfigMaps, the MIG config's name."""
    for extra in spec.get("configmaps") or []:
        api.create(
            "configmaps",
            {
                "metadata": {
                    "name": str(extra["name"]),
                    "namespace": str(extra.get("namespace", "gpu-operator")),
                },
                "data": {str(k): str(v) for k, v in (extra.get("data") or {}).items()},
            },
        )
    for filename in spec.get("apply_files") or []:
        docs = _documents(world, str(filename))
        for doc in docs:
            if doc.get("kind") == "ConfigMap":
                _apply_doc(api, doc)
    name = spec.get("mig_config_name")
    if name:
        api.patch(
            "clusterpolicies.nvidia.com",
            "cluster-policy",
            {"spec": {"migManager": {"config": {"name": str(name)}}}},
        )
    for node_name, overrides in (spec.get("nodes") or {}).items():
        overrides = overrides or {}
        layout_name = overrides.get("applied_layout")
        if layout_name:
            if layout_name not in NAMED_LAYOUTS:
                raise LabError(f"world: unknown applied_layout {layout_name!r} for {node_name}")
            per_gpu = NAMED_LAYOUTS[layout_name].profiles_per_gpu(GPUS_PER_NODE)
            api.patch(
                "nodes",
                str(node_name),
                {
                    "metadata": {
                        "annotations": {hardware.GPUS_ANNOTATION: hardware.encode_layout(per_gpu)}
                    }
                },
            )
        if overrides.get("unschedulable"):
            api.patch("nodes", str(node_name), {"spec": {"unschedulable": True}})
        labels = {str(k): str(v) for k, v in (overrides.get("labels") or {}).items()}
        if labels:
            api.patch("nodes", str(node_name), {"metadata": {"labels": labels}})


def _documents(world: World, filename: str) -> list[dict[str, Any]]:
    text = world.state.files.get(filename)
    if text is None:
        raise LabError(f"world: apply_files names {filename!r}, which is not in files")
    return [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]


def _apply_doc(api: MockCluster, doc: dict[str, Any]) -> None:
    """`kubectl apply -f` of one document, with the last-applied annotation kubectl writes."""
    from simulators.lab.kubectl.apply import LAST_APPLIED, go_json

    info = api.registry.by_kind(str(doc.get("apiVersion", "v1")), str(doc.get("kind", "")))
    obj = json.loads(json.dumps(doc))
    meta = obj.setdefault("metadata", {})
    namespace = str(meta.get("namespace") or "default") if info.namespaced else None
    if namespace is not None:
        meta["namespace"] = namespace
    annotations = meta.setdefault("annotations", {})
    annotations[LAST_APPLIED] = go_json(obj) + "\n"
    api.create(info.key, obj, namespace)


def _apply_files(api: MockCluster, world: World, files: list[str]) -> None:
    for filename in files:
        for doc in _documents(world, str(filename)):
            if doc.get("kind") == "ConfigMap":
                continue  # applied yesterday with the node changes
            _apply_doc(api, doc)


def _job(api: MockCluster, job: dict[str, Any]) -> None:
    """A Kubernetes Job whose pod the scheduler put on the node the story names."""
    name = str(job["name"])
    namespace = str(job.get("namespace", "default"))
    gpus = str(int(job.get("gpus", 4)))
    image = str(job.get("image", "nvcr.io/nvidia/pytorch:24.05-py3"))
    created = api.create(
        "jobs.batch",
        {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "backoffLimit": 6,
                "completions": 1,
                "parallelism": 1,
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [
                            {
                                "name": "train",
                                "image": image,
                                "command": ["torchrun", "--nproc-per-node", gpus, "train.py"],
                                "resources": {
                                    "limits": {"nvidia.com/gpu": gpus},
                                    "requests": {"nvidia.com/gpu": gpus},
                                },
                            }
                        ],
                    }
                },
            },
        },
        namespace,
    )
    node = job.get("node")
    if not node:
        return
    # Stage the placement: the Job controller makes the pod, the scheduler chose this node.
    from simulators.controllers import workloads
    from simulators.controllers.util import DEFAULT_SCHEDULER

    workloads.run_jobs(api)
    pods = [
        p
        for p in api.list("pods", namespace, label_selector=f"job-name={name}")["items"]
        if p["metadata"].get("ownerReferences", [{}])[0].get("uid") == created["metadata"]["uid"]
    ]
    for pod in pods:
        if not pod["spec"].get("nodeName"):
            api.bind(pod["metadata"]["name"], namespace, str(node))
            from simulators.controllers.util import emit

            emit(
                api,
                api.get("pods", pod["metadata"]["name"], namespace),
                "Normal",
                "Scheduled",
                f"Successfully assigned {namespace}/{pod['metadata']['name']} to {node}",
                DEFAULT_SCHEDULER,
            )


def _limit(spec: dict[str, Any]) -> float:
    return -1 if spec.get("limit") is None else float(spec["limit"])


def _projects(
    api: MockCluster, projects: list[dict[str, Any]], departments: dict[str, dict[str, Any]]
) -> None:
    names = sorted({str(p.get("department", "default")) for p in projects} | set(departments))
    for dept in names:
        # A department without quota or limit in the story has none (-1): its projects' own.
        given = departments.get(dept, {})
        quota: dict[str, Any] = {
            "deservedGpus": float(given["quota"]) if given.get("quota") is not None else -1
        }
        if given.get("limit") is not None:
            quota["maxAllowedGpus"] = _limit(given)
        api.create("departments.run.ai", {"metadata": {"name": dept}, "spec": quota})
    for project in projects:
        name = str(project["name"])
        given = project.get("quota", 0)
        per_pool: dict[str, Any] = dict(given) if isinstance(given, dict) else {}
        total = sum(float(g) for g in per_pool.values()) if per_pool else float(given or 0)
        body: dict[str, Any] = {
            "department": str(project.get("department", "default")),
            "deservedGpus": total,
            "maxAllowedGpus": _limit(project),
            "gpuOverQuotaWeight": float(project.get("over_quota_weight", 1)),
            "namespace": runai.namespace_for(name),
        }
        if per_pool:
            # Run:ai's per-pool resources; new workloads go to the pools with quota first.
            body["nodePools"] = {
                str(pool): {
                    "deservedGpus": float(gpus),
                    "maxAllowedGpus": -1,
                    "gpuOverQuotaWeight": float(project.get("over_quota_weight", 1)),
                }
                for pool, gpus in per_pool.items()
            }
            body["defaultNodePools"] = [str(p) for p, gpus in per_pool.items() if float(gpus) > 0]
        api.create("projects.run.ai", {"metadata": {"name": name}, "spec": body})
    runai.run_queues(api)


def _workload(api: MockCluster, spec: dict[str, Any]) -> None:
    kind = str(spec.get("kind", "training"))
    obj = runai.workload_object(
        kind,
        str(spec["name"]),
        str(spec["project"]),
        str(spec.get("image", "nvcr.io/nvidia/pytorch:24.05-py3")),
        gpu=float(spec.get("gpus", 1)),
        gpu_memory=spec.get("gpu_memory"),
        workers=int(spec.get("pods", 1)),
        user=str(spec.get("user", "admin")),
        node_pools=[str(p) for p in spec.get("node_pools") or []] or None,
    )
    created = api.create(runai.WORKLOAD_RESOURCES[kind], obj, obj["metadata"]["namespace"])
    if spec.get("node"):
        _place_runai_pods(api, created, str(spec["node"]))
    # Last activity is told relative to the session's start (EPOCH): "idle for 21 days".
    idle = int(spec.get("idle_minutes") or 0)
    stamp = format_time(EPOCH - timedelta(minutes=idle))
    api.patch(
        runai.WORKLOAD_RESOURCES[kind],
        created["metadata"]["name"],
        {"status": {"lastActivityTime": stamp, "phase": "Pending"}},
        obj["metadata"]["namespace"],
        subresource="status",
    )


def _place_runai_pods(api: MockCluster, workload: Obj, node: str) -> None:
    """Stage where the scheduler put a workload's pods back then (on a fuller cluster)."""
    from simulators.controllers.util import RUNAI_SCHEDULER, emit

    runai.run_workloads(api)
    namespace = str(workload["metadata"]["namespace"])
    name = str(workload["metadata"]["name"])
    for pod in api.list("pods", namespace, label_selector=f"workloadName={name}")["items"]:
        if pod["spec"].get("nodeName"):
            continue
        pod_name = str(pod["metadata"]["name"])
        api.bind(pod_name, namespace, node)
        emit(
            api,
            api.get("pods", pod_name, namespace),
            "Normal",
            "Scheduled",
            f"Successfully assigned {namespace}/{pod_name} to {node}",
            RUNAI_SCHEDULER,
        )


def describe_world(world: World) -> dict[str, Any]:
    """A small summary, handy in tests and debugging."""
    out: dict[str, Any] = {"step": world.state.step, "nodes": {}, "workloads": {}}
    for node in world.api.list("nodes")["items"]:
        labels = node["metadata"].get("labels", {})
        out["nodes"][node["metadata"]["name"]] = {
            "mig.config": labels.get(mig_manager.CONFIG_LABEL),
            "state": labels.get(mig_manager.STATE_LABEL),
            "unschedulable": bool(node["spec"].get("unschedulable")),
        }
    for wl in runai.all_workloads(world.api):
        out["workloads"][wl["metadata"]["name"]] = wl.get("status", {}).get("phase")
    return out


__all__ = ["HostState", "RunaiCli", "World", "build_cluster", "build_world", "describe_world"]
