"""The Run:ai tickets solved against the apiserver: the lab's runai and kubectl over
KubernetesCluster (the official client), as in real-cluster mode. The MIG tickets are solved
with the real kubectl in test_ticket_over_apiserver.py."""

from __future__ import annotations

import shlex
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from kubernetes import client

from simulators.cluster.kube import KubernetesCluster
from simulators.cluster.served import ServedCluster
from simulators.cluster.server import make_server
from simulators.lab import checks, kubectl, runai, tickets
from simulators.lab.tool import Context
from simulators.lab.world import build_world
from tests.cluster_server import start_cluster_server

# Steps of cluster time a learner lets pass between two commands (the server steps once more
# for each change a command makes).
STEPS_BETWEEN_COMMANDS = 3


@pytest.mark.parametrize(
    "ticket",
    [
        "pending-workspace",
        "validate-runai",
        "image-pull",
        "department-cap",
        "gang-fragmentation",
        "inference-priority",
        "node-pool-quota",
        "scheduler-bypass",
        "idle-allocations",
        "driver-stack",
        "xid-fallen-off",
        "fabric-nccl",
        "toolkit-runtime",
    ],
)
def test_a_runai_ticket_is_solved_through_the_api_server(ticket: str) -> None:
    lab = build_world(ticket, 0)
    definition = tickets.load_ticket(ticket)
    served = ServedCluster(lab.api, step=lambda api: lab.tick())
    server = make_server(served, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        configuration = client.Configuration()
        configuration.host = f"http://127.0.0.1:{server.server_address[1]}"
        api = KubernetesCluster(client.ApiClient(configuration))
        ctx = Context(world=SimpleNamespace(api=api, state=lab.state))  # type: ignore[arg-type]
        tools = {"kubectl": kubectl.run, "runai": runai.run}

        def done() -> dict[str, bool]:
            with served.lock:
                return {i.id: checks.evaluate(ticket, i.id, lab) for i in definition.checklist}

        assert not all(done().values())
        for line in definition.answer_key:
            words = shlex.split(line)
            if words[0] not in tools:
                continue  # `cat` on kadmin: the host's side, not the API's
            output = tools[words[0]](ctx, words[1:])
            assert output.code == 0, f"{line}: {output.text}"
            for _ in range(STEPS_BETWEEN_COMMANDS):
                served.advance()
        for _ in range(30):
            if all(done().values()):
                break
            served.advance()
        assert all(done().values()), done()
    finally:
        server.stopping = True
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_the_image_pull_world_is_served_by_python_m_simulators_apiserver(tmp_path: Path) -> None:
    with start_cluster_server("image-pull", tmp_path, timeout=120) as server:
        core = client.CoreV1Api(server.client())
        pods = core.list_namespaced_pod("runai-team-nlp").items
        assert [p.metadata.name for p in pods] == ["ft-llama-0-0"]
        waiting = pods[0].status.container_statuses[0].state.waiting
        assert pods[0].spec.node_name and waiting.reason in ("ErrImagePull", "ImagePullBackOff")
        assert (server.home / "ngc-api-key.txt").read_text().startswith("nvapi-")


def test_the_department_cap_world_is_served_by_python_m_simulators_apiserver(
    tmp_path: Path,
) -> None:
    with start_cluster_server("department-cap", tmp_path, timeout=120) as server:
        core = client.CoreV1Api(server.client())
        pods = {p.metadata.name: p for p in core.list_namespaced_pod("runai-team-rl").items}
        assert sorted(pods) == ["rl-agent-0-0", "rl-sweep-0-0"]
        assert pods["rl-sweep-0-0"].spec.node_name is None
        assert pods["rl-agent-0-0"].status.phase == "Running"


def test_the_gang_fragmentation_world_is_served_by_python_m_simulators_apiserver(
    tmp_path: Path,
) -> None:
    with start_cluster_server("gang-fragmentation", tmp_path, timeout=120) as server:
        core = client.CoreV1Api(server.client())
        pods = core.list_namespaced_pod("runai-team-llm").items
        assert sorted(p.metadata.name for p in pods) == ["llm-dist-master-0", "llm-dist-worker-0"]
        assert all(p.spec.node_name is None for p in pods)
        vision = {p.metadata.name: p for p in core.list_namespaced_pod("runai-team-vision").items}
        assert vision["nb-old-0-0"].spec.node_name == "gpu-node3"
        assert vision["nb-ana-0-0"].spec.node_name == "gpu-node2"


def test_the_inference_priority_world_is_served_by_python_m_simulators_apiserver(
    tmp_path: Path,
) -> None:
    with start_cluster_server("inference-priority", tmp_path, timeout=120) as server:
        core = client.CoreV1Api(server.client())
        pods = core.list_namespaced_pod("runai-team-train").items
        assert len(pods) == 5 and all(p.status.phase == "Running" for p in pods)
        assert core.list_namespaced_pod("runai-team-serve").items == []


def test_the_node_pool_quota_world_is_served_by_python_m_simulators_apiserver(
    tmp_path: Path,
) -> None:
    with start_cluster_server("node-pool-quota", tmp_path, timeout=120) as server:
        core = client.CoreV1Api(server.client())
        pools = {
            n.metadata.name: n.metadata.labels["run.ai/node-pool"] for n in core.list_node().items
        }
        assert pools == {
            "gpu-node1": "h100",
            "gpu-node2": "h100",
            "gpu-node3": "h100",
            "l40s-node1": "l40s",
            "l40s-node2": "l40s",
        }
        l40s = core.read_node("l40s-node1")
        assert l40s.metadata.labels["nvidia.com/gpu.product"] == "NVIDIA-L40S"
        assert l40s.status.allocatable["nvidia.com/gpu"] == "4"
        notebook = core.read_namespaced_pod("vis-nb-0-0", "runai-team-vision")
        assert notebook.spec.node_name is None
        projects = client.CustomObjectsApi(server.client())
        vision = projects.get_cluster_custom_object("run.ai", "v2", "projects", "team-vision")
        assert vision["spec"]["nodePools"]["l40s"]["deservedGpus"] == 0
