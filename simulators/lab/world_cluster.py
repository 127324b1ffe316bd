"""The cluster every ticket starts from, created through the API: three DGX H100 nodes (and a
ticket's extra nodes, such as L40S servers in their own node pool), kube-system with coredns
and kube-proxy, the GPU Operator with its ClusterPolicy, and Run:ai's components as
Deployments, so that draining a node never leaves them dead.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster import versions
from simulators.cluster.api import Obj
from simulators.cluster.store import MockCluster
from simulators.controllers import gpu_operator, gpu_state, hardware, mig_manager, runai
from simulators.lab.errors import LabError

NODE_NAMES = ("gpu-node1", "gpu-node2", "gpu-node3")

GPUS_PER_NODE = 8

CLUSTER_NAME = "dgx-cluster"

KUBERNETES_VERSION = versions.GIT_VERSION

DAY = 86400

CLUSTER_AGE = 31 * DAY + 3600  # so objects made in its first minutes still read 31d

# The Run:ai release the lab's cluster runs, one number everywhere (the control plane's image,
# the helm chart, `runai version`). 2.20 or newer because the lab's CLI is v2 (which needs 2.18+)
# and its tickets use `runai training pytorch submit`: 2.18 and 2.19 had distributed training
# as `runai distributed submit --framework PyTorch`; 2.20 folded it into `runai training`.
RUNAI_VERSION = "2.20.22"

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


def base_cluster(api: MockCluster, spec: dict[str, Any]) -> None:
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
