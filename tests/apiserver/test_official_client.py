"""The official ``kubernetes`` Python client against ``python -m simulators apiserver``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client, watch

from tests.cluster_server import RunningServer


@pytest.fixture
def core(fresh_server: RunningServer) -> Any:
    return client.CoreV1Api(fresh_server.client())


def make_pod(core: Any, name: str) -> None:
    core.create_namespaced_pod(
        "default",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]},
        },
    )


def test_list_pods_in_every_namespace(core: Any) -> None:
    pods = core.list_pod_for_all_namespaces()
    names = {(p.metadata.namespace, p.metadata.name) for p in pods.items}
    assert ("runai", "runai-scheduler-7d4b9c6f58-x2k9p") in names
    assert len(names) == 5
    nodes = core.list_node(label_selector="nvidia.com/mig.config=all-disabled")
    assert [n.metadata.name for n in nodes.items] == ["gpu-node1", "gpu-node2", "gpu-node3"]


def test_patch_a_node_label(core: Any) -> None:
    node = core.patch_node("gpu-node2", {"metadata": {"labels": {"nvidia.com/mig.config": "x"}}})
    assert node.metadata.labels["nvidia.com/mig.config"] == "x"


def test_a_missing_object_is_an_api_exception_with_a_status(core: Any) -> None:
    with pytest.raises(client.ApiException) as info:
        core.read_namespaced_pod("nope", "default")
    assert info.value.status == 404
    assert json.loads(info.value.body)["message"] == 'pods "nope" not found'


def test_watch_streams_added_and_modified_events(core: Any) -> None:
    listed = core.list_namespaced_pod("default")
    make_pod(core, "watched")
    core.patch_namespaced_pod("watched", "default", {"metadata": {"labels": {"seen": "yes"}}})
    stream = watch.Watch().stream(
        core.list_namespaced_pod,
        "default",
        resource_version=listed.metadata.resource_version,
        timeout_seconds=2,
    )
    events = [(e["type"], e["object"].metadata.name) for e in stream]
    assert events[:2] == [("ADDED", "watched"), ("MODIFIED", "watched")]


def test_bind_a_pod_to_a_node(core: Any) -> None:
    make_pod(core, "to-bind")
    body = client.V1Binding(
        metadata=client.V1ObjectMeta(name="to-bind"),
        target=client.V1ObjectReference(api_version="v1", kind="Node", name="gpu-node3"),
    )
    # The API server answers a binding with a Status, which this client cannot read back as a
    # V1Binding: real schedulers written with it skip the response, as here.
    response = core.create_namespaced_binding("default", body, _preload_content=False)
    assert response.status == 201
    assert core.read_namespaced_pod("to-bind", "default").spec.node_name == "gpu-node3"
    with pytest.raises(client.ApiException) as info:
        core.create_namespaced_binding("default", body, _preload_content=False)
    assert info.value.status == 409


def test_evict_a_pod(core: Any) -> None:
    make_pod(core, "to-evict")
    core.create_namespaced_binding(
        "default",
        client.V1Binding(
            metadata=client.V1ObjectMeta(name="to-evict"),
            target=client.V1ObjectReference(api_version="v1", kind="Node", name="gpu-node3"),
        ),
        _preload_content=False,
    )
    eviction = client.V1Eviction(metadata=client.V1ObjectMeta(name="to-evict", namespace="default"))
    core.create_namespaced_pod_eviction("to-evict", "default", eviction)
    pod = core.read_namespaced_pod("to-evict", "default")
    assert pod.metadata.deletion_timestamp is not None


def test_server_side_tables_through_the_client(fresh_server: RunningServer) -> None:
    core = client.CoreV1Api(fresh_server.client())
    response = core.list_pod_for_all_namespaces(
        _headers={"Accept": "application/json;as=Table;g=meta.k8s.io;v=v1"},
        _preload_content=False,
    )
    table = json.loads(response.data)
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"][:5]] == [
        "Name", "Ready", "Status", "Restarts", "Age",
    ]  # fmt: skip
    assert len(table["rows"]) == 5
