"""Real-cluster mode end to end: the lab's kubectl over KubernetesCluster (the official client)
against the apiserver, which stands in for a real cluster."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from kubernetes import client

from simulators.cluster.kube import KubernetesCluster
from simulators.cluster.server import make_server
from simulators.lab import kubectl
from simulators.lab.apiserver import build_world
from simulators.lab.tool import Context
from simulators.lab.world import HostState


@pytest.fixture(scope="module")
def ctx() -> Iterator[Context]:
    world = build_world("mig-single", 0)
    server = make_server(world, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    configuration = client.Configuration()
    configuration.host = f"http://127.0.0.1:{server.server_address[1]}"
    api = KubernetesCluster(client.ApiClient(configuration))
    host = HostState.holding(dict(world.files))
    try:
        yield Context(world=SimpleNamespace(api=api, state=host))  # type: ignore[arg-type]
    finally:
        server.stopping = True
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_get_nodes_over_the_official_client(ctx: Context) -> None:
    output = kubectl.run(ctx, ["get", "nodes"])
    assert output.code == 0
    assert [line.split()[:2] for line in output.text.splitlines()] == [
        ["NAME", "STATUS"],
        ["gpu-node1", "Ready"],
        ["gpu-node2", "Ready"],
        ["gpu-node3", "Ready"],
    ]


def test_label_refuses_without_overwrite_over_the_official_client(ctx: Context) -> None:
    output = kubectl.run(ctx, ["label", "node", "gpu-node2", "nvidia.com/mig.config=all-1g.10gb"])
    assert output.code == 1
    assert output.text == (
        "error: 'nvidia.com/mig.config' already has a value (all-disabled), "
        "and --overwrite is false"
    )


def test_exec_nvidia_smi_over_the_official_client(ctx: Context) -> None:
    pods = kubectl.run(
        ctx,
        ["get", "pods", "-n", "gpu-operator", "-l", "app=nvidia-driver-daemonset", "-o", "name"],
    )
    pod = pods.text.splitlines()[0].split("/", 1)[1]
    output = kubectl.run(ctx, ["exec", "-n", "gpu-operator", pod, "--", "nvidia-smi", "-L"])
    assert output.code == 0
    assert output.text.startswith("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-")
