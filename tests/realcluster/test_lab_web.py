"""The lab's pages and websocket in real-cluster mode (LAB_BACKEND=kubernetes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from simulators.cluster.kube import KubernetesCluster
from simulators.lab import list_tickets
from studysite.lab import cluster
from tests.cluster_server import RunningServer, start_cluster_server

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    path: Path = tmp_path_factory.mktemp("kube-web")
    with start_cluster_server("sample", path, args=("--scheduler", "external")) as running:
        yield running


@pytest.fixture
def real_mode(settings: Any, server: RunningServer) -> Iterator[RunningServer]:
    settings.LAB_BACKEND = "kubernetes"
    settings.LAB_KUBECONFIG = str(server.kubeconfig)
    settings.LAB_ALLOW_WRITES = False
    settings.LAB_NAMESPACES = []
    cluster._client.cache_clear()
    yield server
    cluster._client.cache_clear()


def _secrets(server: RunningServer) -> list[str]:
    return [server.url.split("//", 1)[1], str(server.kubeconfig), "127.0.0.1:"]


def test_the_index_says_the_lab_runs_on_a_simulated_cluster_by_default(client: Client) -> None:
    body = client.get("/lab/").content.decode()
    assert "Mode: simulated cluster." in body
    assert client.get("/lab/explore/").status_code == 404


def test_the_index_and_the_page_say_real_cluster_read_only(
    client: Client, real_mode: RunningServer
) -> None:
    index = client.get("/lab/").content.decode()
    assert "Mode: real cluster" in index
    assert "(read-only)" in index
    assert 'href="/lab/explore/"' in index
    assert "Simulated cluster only" in index
    page = client.get("/lab/explore/").content.decode()
    assert "Mode: real cluster, read-only" in page
    ticket = client.get("/lab/mig-single/").content.decode()
    assert "Mode: simulated cluster" in ticket


def test_commands_run_on_the_cluster_and_writes_are_refused(
    client: Client, real_mode: RunningServer
) -> None:
    client.get("/lab/explore/")
    client.post("/lab/explore/command", {"line": "kubectl get nodes"})
    client.post("/lab/explore/command", {"line": "kubectl cordon gpu-node1"})
    body = client.get("/lab/explore/").content.decode()
    assert "gpu-node3" in body
    assert (
        "Error from server (Forbidden): nodes &quot;gpu-node1&quot; is forbidden: "
        "User &quot;lab-learner&quot; cannot patch resource" in body
    )
    for secret in _secrets(real_mode):
        assert secret not in body


@database_sync_to_async
def _session_key() -> str:
    store = SessionStore()
    store["lab"] = True
    store.create()
    return str(store.session_key)


async def test_no_frame_carries_the_clusters_address(real_mode: RunningServer) -> None:
    from studysite.asgi import application

    key = await _session_key()
    comm = WebsocketCommunicator(
        application,
        "/ws/lab/explore/",
        headers=[
            (b"origin", b"http://127.0.0.1:8000"),
            (b"host", b"127.0.0.1:8000"),
            (b"cookie", f"sessionid={key}".encode()),
        ],
    )
    connected, _ = await comm.connect(timeout=10)
    assert connected
    frames = [await comm.receive_from(timeout=10)]
    for line in ("kubectl get pods -A", "kubectl config view", "kubectl get nosuch"):
        await comm.send_to(text_data=json.dumps({"type": "line", "data": line}))
        frames.append(await comm.receive_from(timeout=10))
    await comm.disconnect()
    text = "\n".join(frames)
    assert "coredns-" in text
    for secret in _secrets(real_mode):
        assert secret not in text


def test_a_learner_gets_a_namespace_of_their_own_to_change(
    client: Client, real_mode: RunningServer, settings: Any
) -> None:
    settings.LAB_ALLOW_WRITES = True
    settings.LAB_LEARNER_NAMESPACE_PREFIX = "lab-"
    client.get("/lab/explore/")
    own = cluster.learner_namespace(client.session.session_key)
    assert own is not None and own.startswith("lab-")
    client.post("/lab/explore/command", {"line": "kubectl get namespaces"})
    admin = KubernetesCluster(real_mode.client())
    for namespace in (own, "default"):
        admin.create(
            "pods",
            {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
            namespace,
        )
    client.post("/lab/explore/command", {"line": f"kubectl label pod p -n {own} team=me"})
    client.post("/lab/explore/command", {"line": "kubectl label pod p -n default team=me"})
    body = client.get("/lab/explore/").content.decode()
    assert "Mode: real cluster, changes allowed in your namespaces only" in body
    assert own in body  # created on first use: kubectl get namespaces lists it
    assert "pod/p labeled" in body
    assert (
        "Error from server (Forbidden): pods &quot;p&quot; is forbidden: User "
        "&quot;lab-learner&quot; cannot get resource &quot;pods&quot; in API group "
        "&quot;&quot; in the namespace &quot;default&quot;" in body
    )


def test_an_exploration_is_no_ticket_progress_and_survives_a_switch_back_to_mock(
    client: Client, real_mode: RunningServer, settings: Any
) -> None:
    client.get("/lab/explore/")
    client.post("/lab/explore/command", {"line": "kubectl get nodes"})
    exported = client.get("/progress/export")
    assert exported.status_code == 200
    assert '"explore"' not in exported.content.decode()
    solved = f"0 of {len(list_tickets())} lab tickets solved"
    assert solved in client.get("/progress/").content.decode()
    settings.LAB_BACKEND = "mock"
    cluster._client.cache_clear()
    index = client.get("/lab/")
    assert index.status_code == 200
    assert "Mode: simulated cluster." in index.content.decode()
    assert client.get("/lab/explore/").status_code == 404


def test_an_exploration_saves_each_command_as_a_snapshot_and_is_never_kept_or_annexed(
    client: Client, real_mode: RunningServer
) -> None:
    from studysite.lab import annex, kinds, store
    from studysite.lab.models import LoggedCommand, SavedLab

    client.get("/lab/explore/")
    client.post("/lab/explore/command", {"line": "kubectl get nodes"})
    key = client.session.session_key
    saved = SavedLab.objects.get(session_key=key, ticket="explore")
    # Its commands really happened: never logged for a replay.
    assert not LoggedCommand.objects.filter(lab=saved).exists()
    assert saved.next_position == 1
    opened = store.open_lab(key, "explore")
    assert store.open_lab(key, "explore") is not opened  # never kept: read from the row
    assert [entry.line for entry in opened.lab.transcript] == ["kubectl get nodes"]
    assert not annex.serves(opened)
    assert opened.lab.world.to_json()["cluster"] is None
    assert kinds.find("explore") is not None and kinds.kind_of("explore").real_cluster
