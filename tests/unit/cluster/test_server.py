"""The HTTP API server in process (the real kubectl against it is in tests/apiserver)."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from simulators.cluster.sample import minimal_kubelet, sample_cluster
from simulators.cluster.served import ServedCluster
from simulators.cluster.server import kubeconfig, make_server, start_ticker


@pytest.fixture
def world() -> ServedCluster:
    return ServedCluster(
        sample_cluster(0),
        step=minimal_kubelet,
        checklist=lambda api: [{"id": "a", "text": "A thing", "done": False}],
    )


@pytest.fixture
def port(world: ServedCluster) -> Iterator[int]:
    server = make_server(world, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.stopping = True
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def call(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    data = None if body is None else json.dumps(body)
    connection.request(method, path, body=data, headers=headers or {})
    response = connection.getresponse()
    raw = response.read()
    connection.close()
    kind = response.getheader("Content-Type") or ""
    return response.status, json.loads(raw) if "json" in kind else raw.decode()


def test_version_and_discovery(port: int) -> None:
    assert call(port, "GET", "/version")[1]["gitVersion"] == "v1.31.4"
    assert call(port, "GET", "/api")[1]["versions"] == ["v1"]
    groups = {g["name"]: g for g in call(port, "GET", "/apis")[1]["groups"]}
    assert groups["scheduling.run.ai"]["preferredVersion"]["version"] == "v2"
    assert [v["version"] for v in groups["run.ai"]["versions"]] == ["v2", "v1", "v2alpha1"]
    core = {r["name"]: r for r in call(port, "GET", "/api/v1")[1]["resources"]}
    assert core["pods"]["shortNames"] == ["po"]
    assert core["pods/eviction"]["kind"] == "Eviction"
    assert core["pods/exec"]["verbs"] == ["create", "get"]
    apps = {r["name"]: r for r in call(port, "GET", "/apis/apps/v1")[1]["resources"]}
    assert apps["deployments/scale"]["group"] == "autoscaling"


def test_an_unknown_path_is_a_not_found_status(port: int) -> None:
    code, body = call(port, "GET", "/apis/widgets.example.com/v1/widgets")
    assert code == 404 and body["kind"] == "Status" and body["reason"] == "NotFound"


def test_get_list_create_patch_delete(port: int, world: ServedCluster) -> None:
    code, created = call(
        port,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}},
    )
    assert code == 201 and created["metadata"]["namespace"] == "default"
    code, patched = call(
        port,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/c",
        {"data": {"b": "2"}},
        {"Content-Type": "application/merge-patch+json"},
    )
    assert code == 200 and patched["data"] == {"a": "1", "b": "2"}
    code, listed = call(port, "GET", "/api/v1/namespaces/default/configmaps")
    assert listed["kind"] == "ConfigMapList"
    assert [c["metadata"]["name"] for c in listed["items"]] == ["c", "kube-root-ca.crt"]
    code, _ = call(port, "DELETE", "/api/v1/namespaces/default/configmaps/c")
    assert code == 200
    assert call(port, "GET", "/api/v1/namespaces/default/configmaps/c")[0] == 404
    assert world.steps == 3  # one step per change


def test_an_unknown_patch_type_is_unsupported(port: int) -> None:
    code, body = call(
        port,
        "PATCH",
        "/api/v1/nodes/gpu-node1",
        {"metadata": {}},
        {"Content-Type": "application/apply-patch+yaml"},
    )
    assert code == 415 and body["reason"] == "UnsupportedMediaType"


def test_a_malformed_body_or_parameter_is_a_bad_request(port: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/api/v1/namespaces/default/configmaps", body="{not json: [")
    response = connection.getresponse()
    assert response.status == 400 and json.loads(response.read())["reason"] == "BadRequest"
    path = "/api/v1/namespaces/kube-system/pods/coredns-7c65d6cfc9-4hx2m/log?tailLines=many"
    code, body = call(port, "GET", path)
    assert code == 400 and "tailLines" in body["message"]


def test_tables_for_lists_and_single_objects(port: int) -> None:
    table = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}
    code, body = call(port, "GET", "/api/v1/nodes", headers=table)
    assert code == 200 and body["kind"] == "Table" and len(body["rows"]) == 3
    assert body["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    _code, one = call(port, "GET", "/api/v1/nodes/gpu-node1?includeObject=Object", headers=table)
    assert one["rows"][0]["cells"][:2] == ["gpu-node1", "Ready"]
    assert one["rows"][0]["object"]["kind"] == "Node"


def test_logs_come_back_as_text(port: int) -> None:
    code, text = call(
        port, "GET", "/api/v1/namespaces/kube-system/pods/coredns-7c65d6cfc9-4hx2m/log"
    )
    assert (code, text) == (200, "coredns-7c65d6cfc9-4hx2m started\n")


def test_binding_and_eviction_answer_with_a_status(port: int) -> None:
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    call(port, "POST", "/api/v1/namespaces/default/pods", pod)
    binding = {"metadata": {"name": "p"}, "target": {"kind": "Node", "name": "gpu-node2"}}
    code, body = call(port, "POST", "/api/v1/namespaces/default/pods/p/binding", binding)
    assert (code, body["status"]) == (201, "Success")
    code, body = call(port, "POST", "/api/v1/namespaces/default/bindings", binding)
    assert code == 409 and body["reason"] == "Conflict"
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"}}
    code, body = call(port, "POST", "/api/v1/namespaces/default/pods/p/eviction", eviction)
    assert code == 201
    pod_now = call(port, "GET", "/api/v1/namespaces/default/pods/p")[1]
    assert pod_now["metadata"]["deletionTimestamp"]


def test_scale_reads_and_writes_replicas(port: int) -> None:
    path = "/apis/apps/v1/namespaces/runai/deployments/runai-scheduler/scale"
    code, scale = call(port, "GET", path)
    assert scale["kind"] == "Scale" and scale["spec"]["replicas"] == 1
    assert scale["status"]["selector"] == "app=runai-scheduler"
    patch = {"Content-Type": "application/merge-patch+json"}
    code, scale = call(port, "PATCH", path, {"spec": {"replicas": 3}}, patch)
    assert scale["spec"]["replicas"] == 3
    code, _body = call(port, "PATCH", path, {"spec": {"replicas": -1}}, patch)
    assert code == 422


def test_a_dry_run_of_the_scale_subresource_answers_and_changes_nothing(port: int) -> None:
    path = "/apis/apps/v1/namespaces/runai/deployments/runai-scheduler/scale"
    patch = {"Content-Type": "application/merge-patch+json"}
    code, scale = call(port, "PATCH", path + "?dryRun=All", {"spec": {"replicas": 4}}, patch)
    assert (code, scale["spec"]["replicas"]) == (200, 4)
    assert call(port, "GET", path)[1]["spec"]["replicas"] == 1


def test_the_status_and_scale_subresources_answer_tables_of_their_own(port: int) -> None:
    """KEP-2590: the status subresource's table is the object's; the scale subresource's has
    printers.go's scale columns."""
    table = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}
    base = "/apis/apps/v1/namespaces/runai/deployments/runai-scheduler"
    _code, status = call(port, "GET", base + "/status", headers=table)
    _code, whole = call(port, "GET", base, headers=table)
    assert status["columnDefinitions"] == whole["columnDefinitions"]
    assert status["rows"][0]["cells"] == whole["rows"][0]["cells"]
    _code, scale = call(port, "GET", base + "/scale", headers=table)
    names = [column["name"] for column in scale["columnDefinitions"]]
    assert names == ["Name", "Desired", "Available", "Age"]
    assert scale["rows"][0]["cells"][:2] == ["runai-scheduler", 1]


def test_watch_streams_changes_then_ends_at_its_timeout(port: int) -> None:
    listed = call(port, "GET", "/api/v1/namespaces/default/configmaps")[1]
    since = listed["metadata"]["resourceVersion"]
    call(port, "POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "w"}})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(
        "GET",
        f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={since}&timeoutSeconds=1",
    )
    response = connection.getresponse()
    events = [json.loads(line) for line in response.read().decode().splitlines()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "w")]


def test_a_watch_from_too_long_ago_gets_an_expired_error_event(
    port: int, world: ServedCluster
) -> None:
    for index in range(2100):
        world.api.create("configmaps", {"metadata": {"name": f"c{index}"}})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/api/v1/configmaps?watch=true&resourceVersion=2&timeoutSeconds=1")
    events = [json.loads(line) for line in connection.getresponse().read().decode().splitlines()]
    assert events[0]["type"] == "ERROR" and events[0]["object"]["code"] == 410


def test_exec_over_a_websocket(port: int) -> None:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            "GET /api/v1/namespaces/kube-system/pods/coredns-7c65d6cfc9-4hx2m/exec"
            "?command=echo&command=hi&stdout=true HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
            f"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n"
        ).encode()
    )
    data = b""
    while not data.endswith(b"\x88\x02\x03\xe8"):
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, frames = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    expected = base64.b64encode(
        hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()
    )
    assert b"Sec-WebSocket-Accept: " + expected in head
    assert frames[:2] == b"\x82\x04" and frames[2:6] == b"\x01hi\n"
    assert b'"status": "Success"' in frames


def test_the_checklist_endpoint(port: int) -> None:
    assert call(port, "GET", "/lab/v1/checklist")[1] == {
        "items": [{"id": "a", "text": "A thing", "done": False}]
    }


def test_the_kubeconfig_points_at_the_server_without_credentials() -> None:
    text = kubeconfig("http://127.0.0.1:8080")
    assert "server: http://127.0.0.1:8080" in text
    assert "current-context: dgx-cluster" in text
    assert "name: kubernetes-admin\n  user: {}" in text


def test_a_watch_list_sends_the_objects_then_a_bookmark(port: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(
        "GET",
        "/api/v1/nodes?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
        "&allowWatchBookmarks=true&timeoutSeconds=1",
    )
    events = [json.loads(line) for line in connection.getresponse().read().decode().splitlines()]
    assert [e["type"] for e in events] == ["ADDED", "ADDED", "ADDED", "BOOKMARK"]
    annotations = events[-1]["object"]["metadata"]["annotations"]
    assert annotations == {"k8s.io/initial-events-end": "true"}


def test_a_server_side_dry_run_changes_nothing(port: int, world: ServedCluster) -> None:
    code, answer = call(
        port,
        "PATCH",
        "/api/v1/nodes/gpu-node1?dryRun=All",
        {"metadata": {"labels": {"dry": "run"}}},
        {"Content-Type": "application/merge-patch+json"},
    )
    assert code == 200 and answer["metadata"]["labels"]["dry"] == "run"
    assert "dry" not in world.api.get("nodes", "gpu-node1")["metadata"]["labels"]
    assert world.steps == 0


def test_a_dry_run_answers_as_the_apiserver_with_the_stored_version_or_none(
    port: int, world: ServedCluster
) -> None:
    stored = world.api.get("nodes", "gpu-node1")["metadata"]["resourceVersion"]
    _, patched = call(
        port,
        "PATCH",
        "/api/v1/nodes/gpu-node1?dryRun=All",
        {"metadata": {"labels": {"dry": "run"}}},
        {"Content-Type": "application/merge-patch+json"},
    )
    code, created = call(
        port,
        "POST",
        "/api/v1/namespaces/default/configmaps?dryRun=All",
        {"metadata": {"name": "fresh"}, "data": {"a": "1"}},
    )
    assert patched["metadata"]["resourceVersion"] == stored
    assert code == 201 and created["metadata"]["uid"]
    assert "resourceVersion" not in created["metadata"]


def test_following_a_log_streams_new_lines_until_the_pod_goes(
    port: int, world: ServedCluster
) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(
        "GET", "/api/v1/namespaces/kube-system/pods/coredns-7c65d6cfc9-4hx2m/log?follow=true"
    )
    response = connection.getresponse()
    first = response.readline()
    with world.lock:
        world.api.append_log("kube-system", "coredns-7c65d6cfc9-4hx2m", "coredns", ["next"])
    second = response.readline()
    with world.lock:
        world.api.delete("pods", "coredns-7c65d6cfc9-4hx2m", "kube-system", grace_period=0)
    assert (first, second, response.read()) == (
        b"coredns-7c65d6cfc9-4hx2m started\n",
        b"next\n",
        b"",
    )


def test_access_reviews_say_the_admin_may(port: int) -> None:
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": "create", "resource": "pods"}},
    }
    code, body = call(
        port, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review
    )
    assert code == 201 and body["status"]["allowed"] is True
    code, me = call(port, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {})
    assert me["status"]["userInfo"]["username"] == "kubernetes-admin"
    code, _ = call(port, "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
    assert code == 405


def test_an_error_before_the_body_is_read_leaves_the_connection_usable(port: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/apis/nowhere.example.com/v1/things", body=b"k8s\x00" + b"x" * 40)
    first = connection.getresponse()
    first.read()
    connection.request("GET", "/version")
    second = connection.getresponse()
    assert (first.status, second.status) == (404, 200)
    assert json.loads(second.read())["gitVersion"] == "v1.31.4"


def test_the_ticker_steps_a_quiet_world(world: ServedCluster) -> None:
    server = make_server(world, 0)
    start_ticker(world, server, seconds=0.01)
    try:
        for _ in range(500):
            if world.steps >= 3:
                break
            threading.Event().wait(0.01)
    finally:
        server.stopping = True
        server.server_close()
    assert world.steps >= 3
