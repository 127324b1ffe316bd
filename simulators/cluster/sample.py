"""A small sample cluster built through the API alone (the ``sample`` world of the apiserver).

Three DGX H100 nodes, the GPU Operator's ClusterPolicy and a device-plugin DaemonSet with its
pods, a Run:ai deployment with its ReplicaSet and pod, kube-system's DNS: enough to exercise
kubectl against the API server without the lab's controllers. Its stepper is a minimal kubelet:
pods whose grace period ran out are removed, so drain and delete finish.
"""

from __future__ import annotations

from typing import Any

from simulators.cluster import versions
from simulators.cluster.api import Obj
from simulators.cluster.clock import StepClock, parse_time
from simulators.cluster.seed import seed_defaults
from simulators.cluster.store import MockCluster

NODES = ("gpu-node1", "gpu-node2", "gpu-node3")
_GPU_LABELS = {
    "nvidia.com/gpu.present": "true",
    "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
    "nvidia.com/gpu.count": "8",
    "nvidia.com/gpu.memory": "81559",
    "nvidia.com/mig.capable": "true",
    "nvidia.com/mig.config": "all-disabled",
    "nvidia.com/mig.config.state": "success",
    "nvidia.com/mig.strategy": "single",
}


def _owner(obj: Obj) -> dict[str, Any]:
    return {
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"],
        "name": obj["metadata"]["name"],
        "uid": obj["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _running_status(api: MockCluster, pod: Obj, ip: str) -> Obj:
    now = api.clock.timestamp()
    return {
        "phase": "Running",
        "hostIP": "",
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "startTime": now,
        "conditions": [
            {"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
            for t in (
                "PodReadyToStartContainers",
                "Initialized",
                "Ready",
                "ContainersReady",
                "PodScheduled",
            )
        ],
        "containerStatuses": [
            {
                "name": c["name"],
                "image": c["image"],
                "imageID": "",
                "containerID": f"containerd://{api.random_suffix(12)}",
                "ready": True,
                "started": True,
                "restartCount": 0,
                "state": {"running": {"startedAt": now}},
                "lastState": {},
            }
            for c in pod["spec"]["containers"]
        ],
    }


def _run_pod(api: MockCluster, body: Obj, node: str, ip: str) -> Obj:
    pod = api.create("pods", body)
    name, ns = pod["metadata"]["name"], pod["metadata"]["namespace"]
    api.bind(name, ns, node)
    pod = api.get("pods", name, ns)
    status = _running_status(api, pod, ip)
    status["hostIP"] = f"10.0.0.{11 + NODES.index(node)}" if node in NODES else ""
    api.append_log(ns, name, pod["spec"]["containers"][0]["name"], [f"{name} started"])
    return api.patch("pods", name, {"status": status}, ns, subresource="status")


def sample_cluster(seed: int = 0) -> MockCluster:
    # Built 27 minutes before the clock's zero, so that ages look like a settled cluster.
    api = MockCluster(seed=seed, clock=StepClock(-27 * 60))
    seed_defaults(api)
    for ns in ("gpu-operator", "runai"):
        api.create("namespaces", {"metadata": {"name": ns}})
    for index, name in enumerate(NODES):
        api.create(
            "nodes",
            {
                "metadata": {
                    "name": name,
                    "labels": {
                        "kubernetes.io/hostname": name,
                        "kubernetes.io/os": "linux",
                        "kubernetes.io/arch": "amd64",
                        **_GPU_LABELS,
                    },
                    "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
                },
                "spec": {"podCIDR": f"10.244.{index + 1}.0/24"},
                "status": {
                    "capacity": {
                        "cpu": "224",
                        "memory": "2113302Mi",
                        "nvidia.com/gpu": "8",
                        "pods": "110",
                    },
                    "allocatable": {
                        "cpu": "224",
                        "memory": "2113302Mi",
                        "nvidia.com/gpu": "8",
                        "pods": "110",
                    },
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "True",
                            "reason": "KubeletReady",
                            "message": "kubelet is posting ready status",
                            "lastHeartbeatTime": api.clock.timestamp(),
                            "lastTransitionTime": api.clock.timestamp(),
                        }
                    ],
                    "addresses": [
                        {"type": "InternalIP", "address": f"10.0.0.{11 + index}"},
                        {"type": "Hostname", "address": name},
                    ],
                    "nodeInfo": {
                        "kubeletVersion": versions.GIT_VERSION,
                        "kubeProxyVersion": versions.GIT_VERSION,
                        "osImage": "Ubuntu 22.04.4 LTS",
                        "kernelVersion": "5.15.0-1053-nvidia",
                        "containerRuntimeVersion": "containerd://1.7.24",
                        "operatingSystem": "linux",
                        "architecture": "amd64",
                        "machineID": f"{index + 1:032x}",
                        "systemUUID": f"4c4c4544-0000-0000-0000-{index + 1:012x}",
                        "bootID": f"b0000000-0000-0000-0000-{index + 1:012x}",
                    },
                },
            },
        )
    api.create(
        "clusterpolicies.nvidia.com",
        {
            "metadata": {"name": "cluster-policy"},
            "spec": {"mig": {"strategy": "single"}, "migManager": {"enabled": True}},
        },
    )
    api.patch(
        "clusterpolicies.nvidia.com",
        "cluster-policy",
        {"status": {"state": "ready", "namespace": "gpu-operator"}},
        subresource="status",
    )
    labels = {"app": "nvidia-device-plugin-daemonset"}
    template: Obj = {
        "metadata": {"labels": labels},
        "spec": {
            "nodeSelector": {"nvidia.com/gpu.deploy.device-plugin": "true"},
            "containers": [
                {
                    "name": "nvidia-device-plugin",
                    "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
                }
            ],
        },
    }
    ds = api.create(
        "daemonsets.apps",
        {
            "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-operator"},
            "spec": {"selector": {"matchLabels": labels}, "template": template},
        },
    )
    for index, node in enumerate(NODES):
        _run_pod(
            api,
            {
                "metadata": {
                    "generateName": "nvidia-device-plugin-daemonset-",
                    "namespace": "gpu-operator",
                    "labels": labels,
                    "ownerReferences": [_owner(ds)],
                },
                "spec": dict(template["spec"]),
            },
            node,
            f"10.244.{index + 1}.5",
        )
    api.patch(
        "daemonsets.apps",
        ds["metadata"]["name"],
        {
            "status": {
                "desiredNumberScheduled": 3,
                "currentNumberScheduled": 3,
                "numberReady": 3,
                "updatedNumberScheduled": 3,
                "numberAvailable": 3,
                "numberMisscheduled": 0,
                "observedGeneration": 1,
            }
        },
        "gpu-operator",
        subresource="status",
    )
    runai_labels = {"app": "runai-scheduler"}
    deploy = api.create(
        "deployments.apps",
        {
            "metadata": {"name": "runai-scheduler", "namespace": "runai"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": runai_labels},
                "template": {
                    "metadata": {"labels": runai_labels},
                    "spec": {
                        "containers": [{"name": "scheduler", "image": "runai/scheduler:2.19.0"}]
                    },
                },
            },
        },
    )
    rs = api.create(
        "replicasets.apps",
        {
            "metadata": {
                "name": "runai-scheduler-7d4b9c6f58",
                "namespace": "runai",
                "labels": {**runai_labels, "pod-template-hash": "7d4b9c6f58"},
                "ownerReferences": [_owner(deploy)],
            },
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {**runai_labels, "pod-template-hash": "7d4b9c6f58"}},
                "template": deploy["spec"]["template"],
            },
        },
    )
    _run_pod(
        api,
        {
            "metadata": {
                "name": "runai-scheduler-7d4b9c6f58-x2k9p",
                "namespace": "runai",
                "labels": {**runai_labels, "pod-template-hash": "7d4b9c6f58"},
                "ownerReferences": [_owner(rs)],
            },
            "spec": deploy["spec"]["template"]["spec"],
        },
        "gpu-node1",
        "10.244.1.9",
    )
    for kind, name, ns in (
        ("replicasets.apps", rs["metadata"]["name"], "runai"),
        ("deployments.apps", "runai-scheduler", "runai"),
    ):
        status: Obj = {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}
        if kind == "deployments.apps":
            status["updatedReplicas"] = 1
        api.patch(kind, name, {"status": status}, ns, subresource="status")
    _run_pod(
        api,
        {
            "metadata": {
                "name": "coredns-7c65d6cfc9-4hx2m",
                "namespace": "kube-system",
                "labels": {"k8s-app": "kube-dns"},
            },
            "spec": {
                "containers": [
                    {"name": "coredns", "image": "registry.k8s.io/coredns/coredns:v1.11.3"}
                ]
            },
        },
        "gpu-node1",
        "10.244.1.2",
    )
    api.create(
        "configmaps",
        {
            "metadata": {"name": "custom-mig-config", "namespace": "gpu-operator"},
            "data": {
                "config.yaml": "version: v1\nmig-configs:\n  all-disabled:\n"
                "    - devices: all\n      mig-enabled: false\n"
            },
        },
    )
    api.clock.seconds = 0
    api.add_exec_handler(shell_basics)
    return api


def shell_basics(api: MockCluster, pod: Obj, container: str, argv: list[str]) -> str | None:
    """``echo`` and ``hostname`` in every container of the sample cluster."""
    del api, container
    if argv[:1] == ["echo"]:
        return " ".join(argv[1:]) + "\n"
    if argv == ["hostname"]:
        return str(pod["metadata"]["name"]) + "\n"
    return None


def minimal_kubelet(api: MockCluster) -> None:
    """Advance one step and remove pods whose termination grace period has run out."""
    api.clock.advance()
    now = api.now()
    for pod in list(api.iter_objects("pods")):
        meta = pod["metadata"]
        stamp = meta.get("deletionTimestamp")
        if stamp and parse_time(str(stamp)) <= now:
            api.delete("pods", meta["name"], meta.get("namespace"), grace_period=0)
