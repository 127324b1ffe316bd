"""A small cluster in the mock API store for kubectl's unit tests (no controllers run)."""

from __future__ import annotations

import shlex
from types import SimpleNamespace
from typing import Any

import yaml

from simulators.cluster.store import MockCluster
from simulators.lab import kubeconfig, kubectl, nvidia_smi
from simulators.lab.tool import Context, Output
from simulators.lab.world import HostState

NODE_STATUS: dict[str, Any] = {
    "capacity": {"cpu": "224", "memory": "2113302Mi", "nvidia.com/gpu": "8", "pods": "110"},
    "allocatable": {"cpu": "224", "memory": "2113302Mi", "nvidia.com/gpu": "8", "pods": "110"},
    "conditions": [
        {
            "type": "Ready",
            "status": "True",
            "reason": "KubeletReady",
            "message": "kubelet is posting ready status",
        }
    ],
    "nodeInfo": {"kubeletVersion": "v1.31.4", "osImage": "Ubuntu 22.04.4 LTS"},
    "addresses": [{"type": "InternalIP", "address": "10.0.0.11"}],
}

TEMPLATE: dict[str, Any] = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
}


class Lab:
    """kubectl against a MockCluster, as the shell would call it."""

    def __init__(self) -> None:
        self.api = MockCluster(seed=3)
        self.api.add_exec_handler(nvidia_smi.exec_nvidia_smi)  # as the lab world adds it
        # The admin host's kubeconfig, as every lab starts with it.
        self.files: dict[str, str] = {kubeconfig.NAME: kubeconfig.starting_text()}
        world = SimpleNamespace(api=self.api, state=HostState.holding(self.files))
        self.ctx = Context(world=world)  # type: ignore[arg-type]

    def run(self, line: str) -> Output:
        words = shlex.split(line)
        assert words[0] == "kubectl"
        return kubectl.run(self.ctx, words[1:])

    def out(self, line: str) -> str:
        return self.run(line).text

    def yaml(self, line: str) -> dict[str, Any]:
        """The line's output read as one YAML document (the line must succeed)."""
        result = self.run(line)
        assert result.code == 0, result.text
        loaded = yaml.safe_load(result.text)
        assert isinstance(loaded, dict)
        return loaded


def build() -> Lab:
    lab = Lab()
    api = lab.api
    api.create(
        "nodes",
        {
            "metadata": {
                "name": "gpu-node1",
                "labels": {"nvidia.com/mig.config": "all-disabled", "kubernetes.io/os": "linux"},
            },
            "status": NODE_STATUS,
        },
    )
    api.create("namespaces", {"metadata": {"name": "gpu-operator"}})
    ds = api.create(
        "daemonsets.apps",
        {
            "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-operator"},
            "spec": {
                "selector": {"matchLabels": {"app": "nvidia-device-plugin-daemonset"}},
                "template": {
                    "metadata": {"labels": {"app": "nvidia-device-plugin-daemonset"}},
                    "spec": {"containers": [{"name": "plugin", "image": "nvcr.io/dp:v0.17.1"}]},
                },
            },
        },
        "gpu-operator",
    )
    api.create(
        "pods",
        {
            "metadata": {
                "name": "nvidia-device-plugin-daemonset-x7k2p",
                "namespace": "gpu-operator",
                "labels": {"app": "nvidia-device-plugin-daemonset"},
                "ownerReferences": [
                    {
                        "apiVersion": "apps/v1",
                        "kind": "DaemonSet",
                        "name": ds["metadata"]["name"],
                        "uid": ds["metadata"]["uid"],
                        "controller": True,
                    }
                ],
            },
            "spec": {
                "nodeName": "gpu-node1",
                "containers": [{"name": "plugin", "image": "nvcr.io/dp:v0.17.1"}],
            },
        },
        "gpu-operator",
    )
    deploy = api.create(
        "deployments.apps",
        {
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "web"}},
                "template": TEMPLATE,
            },
        },
        "default",
    )
    pod = api.create(
        "pods",
        {
            "metadata": {
                "name": "web-5d8f7c9b6-abcde",
                "namespace": "default",
                "labels": {"app": "web"},
                "ownerReferences": [
                    {
                        "apiVersion": "apps/v1",
                        "kind": "ReplicaSet",
                        "name": "web-5d8f7c9b6",
                        "uid": deploy["metadata"]["uid"],
                        "controller": True,
                    }
                ],
            },
            "spec": {
                "nodeName": "gpu-node1",
                "containers": [{"name": "web", "image": "nginx:1.27"}],
            },
        },
        "default",
    )
    api.update(
        "pods",
        {**pod, "status": {"phase": "Running", "podIP": "10.244.1.5"}},
        "default",
        subresource="status",
    )
    api.append_log("default", "web-5d8f7c9b6-abcde", "web", ["listening on :80"])
    api.create(
        "pods",
        {
            "metadata": {"name": "train", "namespace": "default"},
            "spec": {
                "containers": [
                    {
                        "name": "train",
                        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                        "args": ["python", "train.py"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
        "default",
    )
    return lab
