"""KubernetesCluster (ClusterAPI over the official client) against the apiserver in process."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client

from simulators.cluster import ApiError
from simulators.cluster.kube import KubernetesCluster
from simulators.cluster.sample import minimal_kubelet, sample_cluster
from simulators.cluster.served import ServedCluster
from simulators.cluster.server import make_server


@pytest.fixture
def world() -> ServedCluster:
    return ServedCluster(sample_cluster(0), step=minimal_kubelet)


@pytest.fixture
def cluster(world: ServedCluster) -> Iterator[KubernetesCluster]:
    server = make_server(world, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    configuration = client.Configuration()
    configuration.host = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield KubernetesCluster(client.ApiClient(configuration))
    finally:
        server.stopping = True
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def pod(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
    }


def test_get_and_list_with_selectors(cluster: KubernetesCluster) -> None:
    node = cluster.get("nodes", "gpu-node2")
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "8"
    pods = cluster.list("pods", field_selector="spec.nodeName=gpu-node1")["items"]
    assert {p["metadata"]["name"] for p in pods} >= {"coredns-7c65d6cfc9-4hx2m"}
    assert all(p["kind"] == "Pod" for p in pods)
    assert cluster.list("nodes", label_selector="nvidia.com/mig.config=x")["items"] == []


def test_errors_come_back_as_api_errors(cluster: KubernetesCluster) -> None:
    with pytest.raises(ApiError) as info:
        cluster.get("pods", "nope", "default")
    assert (info.value.code, info.value.message) == (404, 'pods "nope" not found')


def test_create_patch_update_delete(cluster: KubernetesCluster) -> None:
    created = cluster.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1"}})
    assert created["metadata"]["namespace"] == "default"
    patched = cluster.patch("configmaps", "c", {"data": {"b": "2"}}, "default")
    assert patched["data"] == {"a": "1", "b": "2"}
    removed = cluster.patch(
        "configmaps", "c", [{"op": "remove", "path": "/data/b"}], "default", patch_type="json"
    )
    assert removed["data"] == {"a": "1"}
    patched = cluster.patch(
        "configmaps", "c", {"data": {"b": "2"}}, "default", patch_type="strategic"
    )
    patched["data"]["a"] = "changed"
    updated = cluster.update("configmaps", patched, "default")
    assert updated["data"]["a"] == "changed"
    cluster.delete("configmaps", "c", "default")
    with pytest.raises(ApiError):
        cluster.get("configmaps", "c", "default")


def test_bind_evict_and_watch(cluster: KubernetesCluster) -> None:
    start = cluster.list("pods", "default")["metadata"]["resourceVersion"]
    cluster.create("pods", pod("p"), "default")
    cluster.bind("p", "default", "gpu-node3")
    assert cluster.get("pods", "p", "default")["spec"]["nodeName"] == "gpu-node3"
    cluster.evict("p", "default")
    assert cluster.get("pods", "p", "default")["metadata"]["deletionTimestamp"]
    events = cluster.watch("pods", "default", resource_version=start)
    assert [e.type for e in events][:3] == ["ADDED", "MODIFIED", "MODIFIED"]


def test_logs_and_exec(cluster: KubernetesCluster) -> None:
    assert cluster.logs("coredns-7c65d6cfc9-4hx2m", "kube-system") == (
        "coredns-7c65d6cfc9-4hx2m started\n"
    )
    assert cluster.exec("coredns-7c65d6cfc9-4hx2m", "kube-system", ["echo", "hi"]) == "hi\n"
