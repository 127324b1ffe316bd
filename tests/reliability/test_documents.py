"""Issue 33, finding 2: a short document must not multiply, in the lab or the API server.

A YAML alias bomb and a JSON patch that copies a map into itself are refused before they are
built, with the words go-yaml and kube-apiserver use, and the process's memory stays put
(tracemalloc counts every allocation of every thread, the server's included).
"""

from __future__ import annotations

import http.client
import itertools
import json
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from simulators.cluster.sample import minimal_kubelet, sample_cluster
from simulators.cluster.served import ServedCluster
from simulators.cluster.server import make_server
from simulators.lab import LabSession

pytestmark = [pytest.mark.reliability]

MiB = 1024 * 1024


def alias_bomb(levels: int = 9) -> str:
    """The 313-byte document of the report: nine anchors, each nine aliases of the last."""
    names = "abcdefghi"[:levels]
    parts = [f"{names[0]}: &{names[0]} [x,x,x,x,x,x,x,x,x]"]
    for prev, name in itertools.pairwise(names):
        parts.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "{" + ", ".join(parts) + "}"


COPIES = [
    {"op": "copy", "from": "/metadata/labels", "path": f"/metadata/labels/copy{i}"}
    for i in range(16)
]


def peak_growth[T](work: Callable[[], T]) -> tuple[T, float]:
    """What `work` returns, and the most memory it held at once, in MiB."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = work()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, (peak - before) / MiB


def test_the_alias_bomb_is_refused_by_kubectl_patch_in_go_yamls_words() -> None:
    assert len(alias_bomb()) < 320
    lab = LabSession.new("mig-single", seed=1)
    before = lab.world.api.get("nodes", "gpu-node1")["metadata"]["labels"]
    line = f"kubectl patch node gpu-node1 -p '{alias_bomb()}'"
    result, grown = peak_growth(lambda: lab.run(line))
    assert result.output == (
        f'error: unable to parse "{alias_bomb()}": yaml: document contains excessive aliasing'
    )
    assert grown < 50, f"memory grew {grown:.0f} MiB"
    assert lab.world.api.get("nodes", "gpu-node1")["metadata"]["labels"] == before


def test_a_smaller_alias_bomb_is_refused_too_before_it_is_stored() -> None:
    lab = LabSession.new("mig-single", seed=1)
    result = lab.run(f"kubectl patch node gpu-node1 -p '{alias_bomb(5)}'")
    assert result.output.endswith("yaml: document contains excessive aliasing")
    assert "a" not in lab.world.api.get("nodes", "gpu-node1")


def test_anchors_used_a_few_times_still_work() -> None:
    lab = LabSession.new("mig-single", seed=1)
    patch = "{metadata: {labels: &l {team: ml}, annotations: *l}}"
    assert lab.run(f"kubectl patch node gpu-node1 -p '{patch}'").exit_code == 0
    node = lab.world.api.get("nodes", "gpu-node1")["metadata"]
    assert node["labels"]["team"] == "ml" and node["annotations"]["team"] == "ml"


def test_copying_the_labels_into_themselves_stops_at_the_copy_limit() -> None:
    lab = LabSession.new("mig-single", seed=1)
    before = lab.world.api.get("nodes", "gpu-node1")["metadata"]["labels"]
    line = f"kubectl patch node gpu-node1 --type=json -p '{json.dumps(COPIES)}'"
    result, grown = peak_growth(lambda: lab.run(line))
    # Refused at kube-apiserver's copy limit, or, on a slow machine, stopped first by the
    # command's budget (the copies cost CPU as they double): either way one line, nothing stored.
    copy_limit = result.output.startswith(
        "The request is invalid: the server rejected our request due to an error in our "
        "request: Unable to complete the copy, the accumulated size increase of copy is "
    ) and result.output.endswith(", exceeding the limit 3145728")
    assert copy_limit or result.output == (
        "bash: command stopped: it used more than 250 ms of CPU time"
    ), result.output
    assert grown < 50, f"memory grew {grown:.0f} MiB"
    assert lab.world.api.get("nodes", "gpu-node1")["metadata"]["labels"] == before


# ---------------------------------------------------------------- the HTTP API server


@pytest.fixture
def port() -> Iterator[int]:
    world = ServedCluster(sample_cluster(0), step=minimal_kubelet)
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


def send(port: int, method: str, path: str, body: bytes, kind: str) -> tuple[int, Any, int]:
    """Status, decoded answer and the answer's size in bytes."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers={"Content-Type": kind})
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    return response.status, json.loads(raw), len(raw)


NODE = "/api/v1/nodes/gpu-node1"
MERGE = "application/merge-patch+json"


def test_the_api_server_refuses_the_alias_bomb_without_growing(port: int) -> None:
    body = alias_bomb().encode()
    (code, status, size), grown = peak_growth(lambda: send(port, "PATCH", NODE, body, MERGE))
    assert (code, status["reason"], status["message"]) == (
        400,
        "BadRequest",
        "yaml: document contains excessive aliasing",
    )
    assert grown < 50, f"memory grew {grown:.0f} MiB"
    code, node, size = send(port, "GET", NODE, b"", MERGE)
    assert code == 200 and "a" not in node and size < 64 * 1024


def test_the_api_server_refuses_the_copy_doubling_patch_in_a_small_answer(port: int) -> None:
    body = json.dumps(COPIES).encode()
    kind = "application/json-patch+json"
    (code, status, size), grown = peak_growth(lambda: send(port, "PATCH", NODE, body, kind))
    assert code == 422 and status["reason"] == "Invalid"
    assert "Unable to complete the copy" in status["message"]
    assert size < 4096 and grown < 50, (size, grown)


def test_the_api_server_refuses_a_body_over_three_mebibytes_unread(port: int) -> None:
    body = b'{"metadata": {"labels": {"a": "' + b"x" * (3 * MiB) + b'"}}}'
    code, status, _ = send(port, "PATCH", NODE, body, MERGE)
    assert (code, status["reason"], status["message"]) == (
        413,
        "RequestEntityTooLarge",
        "Request entity too large: limit is 3145728",
    )
    assert send(port, "GET", NODE, b"", MERGE)[0] == 200


def test_the_api_server_refuses_json_nested_fifty_thousand_deep(port: int) -> None:
    body = b'{"metadata": {"labels": ' + b"[" * 50_000 + b"]" * 50_000 + b"}}"
    code, status, _ = send(port, "PATCH", NODE, body, MERGE)
    assert (code, status["reason"], status["message"]) == (
        400,
        "BadRequest",
        "exceeded max depth",
    )


def test_a_manifest_nested_seven_hundred_deep_is_refused_in_one_line_and_stores_nothing() -> None:
    lab = LabSession.new("mig-single", seed=1)
    lab.run("cat <<EOF > deep.yaml")
    for line in ["apiVersion: scheduling.run.ai/v2", "kind: Queue", "metadata:", "  name: deep"]:
        lab.run(line)
    lab.run("spec:")
    lab.run("  x:")
    for _ in range(700):
        lab.run("    [")
    lab.run("    " + "]" * 700)
    lab.run("EOF")
    for verb in ("apply", "create"):
        assert lab.run(f"kubectl {verb} -f deep.yaml").output == (
            "error: error parsing deep.yaml: error converting YAML to JSON: "
            "yaml: exceeded max depth of 200"
        )
    assert "deep" not in lab.run("kubectl get queues -o name").output


def test_a_string_for_replicas_is_refused_before_it_is_stored() -> None:
    lab = LabSession.new("mig-single", seed=1)
    line = (
        'kubectl patch deploy coredns -n kube-system --type=merge -p \'{"spec":{"replicas":"x"}}\''
    )
    result = lab.run(line)
    assert result.exit_code == 1
    assert result.output.startswith('The request is invalid: patch: Invalid value: "{')
    assert result.output.endswith(
        ": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas"
        " of type int32"
    )
    assert lab.run("kubectl get deploy coredns -n kube-system -o name").output == (
        "deployment.apps/coredns"
    )
    spec = lab.world.api.get("deployments.apps", "coredns", "kube-system")["spec"]
    assert spec["replicas"] == 2


def test_a_string_for_a_queues_priority_is_refused_by_its_crds_schema() -> None:
    lab = LabSession.new("department-cap", seed=1)
    patch = json.dumps({"spec": {"priority": "high"}})
    result = lab.run(f"kubectl patch queue production --type=merge -p '{patch}'")
    assert result.output == (
        'The Queue "production" is invalid: spec.priority: Invalid value: "string": '
        'spec.priority in body must be of type integer: "string"'
    )
    later = lab.run("kubectl get queues")
    assert later.exit_code == 0 and "internal error" not in later.output
