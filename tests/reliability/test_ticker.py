"""Issue 33, finding 3: no request stops the API server's clock.

The ticker steps the world (every controller) on its own thread; a step that fails is logged
and tried again. Each hostile request of the report is sent to a server whose world runs the
real controllers, then the world must still move. `replicas: "x"` is refused before it is
stored, with kube-apiserver's 422.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from simulators.cluster.served import ServedCluster
from simulators.cluster.server import ClusterServer, make_server, start_ticker
from simulators.controllers.manager import step
from simulators.lab.world import build_world
from tests.reliability.test_documents import COPIES, alias_bomb

pytestmark = [pytest.mark.reliability]

TICK = 0.05
DEPLOY = "/apis/apps/v1/namespaces/kube-system/deployments/coredns"
MERGE = "application/merge-patch+json"


@pytest.fixture
def served() -> Iterator[tuple[ServedCluster, ClusterServer, int]]:
    world = ServedCluster(build_world("mig-single", 1).api, step=step)
    server = make_server(world, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield world, server, int(server.server_address[1])
    finally:
        server.stopping = True
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def send(port: int, method: str, path: str, body: bytes, kind: str = MERGE) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=body, headers={"Content-Type": kind})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def moves(
    world: ServedCluster, ticker: threading.Thread, steps: int = 3, within: float = 10.0
) -> bool:
    """Whether the ticker stays alive and steps the world `steps` more times."""
    start = world.steps
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if world.steps >= start + steps:
            return ticker.is_alive()
        time.sleep(TICK)
    return False


def test_a_string_for_replicas_is_refused_with_kube_apiservers_422(
    served: tuple[ServedCluster, ClusterServer, int],
) -> None:
    world, _, port = served
    code, status = send(port, "PATCH", DEPLOY, b'{"spec":{"replicas":"x"}}')
    assert (code, status["reason"]) == (422, "Invalid"), status
    assert status["message"].startswith(' "" is invalid: patch: Invalid value: "{')
    assert status["message"].endswith(
        ": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas"
        " of type int32"
    )
    assert world.api.get("deployments.apps", "coredns", "kube-system")["spec"]["replicas"] == 2


HOSTILE = [
    ("replicas-x", "PATCH", DEPLOY, b'{"spec":{"replicas":"x"}}', MERGE),
    ("a-million-replicas", "PATCH", DEPLOY, b'{"spec":{"replicas":1000000}}', MERGE),
    ("alias-bomb", "PATCH", "/api/v1/nodes/gpu-node1", alias_bomb().encode(), MERGE),
    (
        "copy-doubling",
        "PATCH",
        "/api/v1/nodes/gpu-node1",
        json.dumps(COPIES).encode(),
        "application/json-patch+json",
    ),
    ("deep-json", "PATCH", "/api/v1/nodes/gpu-node1", b"[" * 50_000 + b"]" * 50_000, MERGE),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "kind"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE]
)
def test_the_world_keeps_moving_after_a_hostile_request(
    served: tuple[ServedCluster, ClusterServer, int], method: str, path: str, body: bytes, kind: str
) -> None:
    world, server, port = served
    ticker = start_ticker(world, server, seconds=TICK)
    assert moves(world, ticker)
    code, _ = send(port, method, path, body, kind)
    assert code < 500
    assert moves(world, ticker), "the cluster's clock stopped"


def test_a_step_that_fails_is_logged_and_tried_again(
    served: tuple[ServedCluster, ClusterServer, int], caplog: pytest.LogCaptureFixture
) -> None:
    world, server, _ = served
    failures = {"left": 2}

    def flaky(api: Any) -> None:
        if failures["left"]:
            failures["left"] -= 1
            raise ValueError("invalid literal for int() with base 10: 'x'")
        step(api)

    world.step = flaky
    ticker = start_ticker(world, server, seconds=TICK)
    assert moves(world, ticker)
    assert failures["left"] == 0
    assert "cluster step failed" in caplog.text


def test_a_write_whose_step_fails_is_still_answered_as_applied(
    served: tuple[ServedCluster, ClusterServer, int], caplog: pytest.LogCaptureFixture
) -> None:
    world, _, port = served

    def broken(api: Any) -> None:
        raise ValueError("invalid literal for int() with base 10: 'x'")

    world.step = broken
    code, node = send(
        port, "PATCH", "/api/v1/nodes/gpu-node1", b'{"metadata":{"labels":{"a":"b"}}}'
    )
    assert code == 200 and node["metadata"]["labels"]["a"] == "b"
    assert "cluster step failed" in caplog.text
