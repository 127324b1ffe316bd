"""The lab's tools on the kube backend (real-cluster mode), against the apiserver."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from simulators.cluster.api import ApiError
from simulators.cluster.kube import KubeCluster
from simulators.lab.session import LabSession
from tests.cluster_server import RunningServer, start_cluster_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    path: Path = tmp_path_factory.mktemp("kube-lab")
    with start_cluster_server("sample", path, args=("--scheduler", "external")) as running:
        yield running


def _lab(server: RunningServer, **options: object) -> LabSession:
    return LabSession.on_cluster(KubeCluster(server.client(), **options))  # type: ignore[arg-type]


def _pod(server: RunningServer, name: str, namespace: str) -> None:
    api = KubeCluster(server.client(), allow_writes=True)
    api.create(
        "pods",
        {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
        namespace,
    )


def test_the_lab_reads_the_cluster_through_the_official_client(server: RunningServer) -> None:
    lab = _lab(server)
    result = lab.run("kubectl get nodes")
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.output.splitlines()] == [
        "NAME",
        "gpu-node1",
        "gpu-node2",
        "gpu-node3",
    ]
    pods = lab.run("kubectl get pods -n gpu-operator")
    assert "nvidia-device-plugin-daemonset-" in pods.output


def test_read_only_refuses_writes_with_kubectls_forbidden_wording(server: RunningServer) -> None:
    lab = _lab(server)
    result = lab.run("kubectl cordon gpu-node2")
    assert result.exit_code == 1
    assert result.output == (
        'Error from server (Forbidden): nodes "gpu-node2" is forbidden: User "lab-learner" '
        'cannot patch resource "nodes" in API group "" at the cluster scope'
    )
    deleted = lab.run("kubectl delete pod coredns -n kube-system")
    assert deleted.output.startswith(
        'Error from server (Forbidden): pods "coredns" is forbidden: User "lab-learner" cannot '
        'delete resource "pods" in API group "" in the namespace "kube-system"'
    )
    nodes = KubeCluster(server.client(), allow_writes=True).get("nodes", "gpu-node2")
    assert not nodes["spec"].get("unschedulable")


def test_writes_are_allowed_only_in_the_allowed_namespaces(server: RunningServer) -> None:
    lab = _lab(server, allow_writes=True, namespaces=("lab-ana",))
    assert lab.run("kubectl create namespace lab-ana").output == "namespace/lab-ana created"
    other = lab.run("kubectl create namespace lab-bob")
    assert other.output.startswith('Error from server (Forbidden): namespaces "lab-bob"')
    _pod(server, "mine", "lab-ana")
    _pod(server, "theirs", "default")
    assert lab.run("kubectl label pod mine -n lab-ana tier=gpu").output == "pod/mine labeled"
    refused = lab.run("kubectl label pod theirs -n default tier=gpu")
    assert refused.output == (
        'Error from server (Forbidden): pods "theirs" is forbidden: User "lab-learner" cannot '
        'get resource "pods" in API group "" in the namespace "default"'
    )
    listed = lab.run("kubectl get pods -A")
    assert 'cannot list resource "pods" in API group "" at the cluster scope' in listed.output
    # Cluster-scoped objects are shared: readable, never changed by a learner.
    assert lab.run("kubectl get nodes").exit_code == 0
    assert "Forbidden" in lab.run("kubectl label node gpu-node1 team=ana").output


def test_no_kubeconfig_content_reaches_the_transcript(server: RunningServer) -> None:
    kubeconfig = server.kubeconfig.read_text()
    secrets = [server.url, server.url.split("//", 1)[1], str(server.kubeconfig)]
    lab = _lab(server)
    for line in (
        "kubectl get nodes",
        "kubectl config view",
        "kubectl cluster-info",
        "kubectl get pods -n nowhere",
        "kubectl get nosuchthing",
        "kubectl version",
    ):
        lab.run(line)
    saved = json.dumps(lab.to_json()) + lab.replay()
    for secret in secrets:
        assert secret not in saved
    assert "127.0.0.1" not in saved
    assert kubeconfig not in saved


def test_an_unreachable_cluster_is_an_api_error_without_its_address(
    server: RunningServer,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = server.client()
    client.configuration.host = f"http://127.0.0.1:{port}"
    api = KubeCluster(client, timeout=5)
    with pytest.raises(ApiError) as raised:
        api.list("nodes")
    assert raised.value.code == 503
    assert str(port) not in raised.value.message
    lab = LabSession.on_cluster(api)
    output = lab.run("kubectl get pods").output
    assert output == (
        "Error from server (ServiceUnavailable): the server is currently unable to handle "
        "the request"
    )


def test_a_saved_exploration_comes_back_with_its_transcript_not_a_cluster(
    server: RunningServer,
) -> None:
    lab = _lab(server)
    lab.run("kubectl get nodes")
    data = lab.to_json()
    assert data["world"]["cluster"] is None
    again = LabSession.on_cluster(KubeCluster(server.client()), data)
    assert again.history == ["kubectl get nodes"]
    assert again.ticket.id == "explore"
    assert again.checklist() == []
