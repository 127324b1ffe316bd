"""One snapshot of the API for the engine: the mock's controller and the real scheduler read
nodes, devices and queues the same way, and a queue tree KAI accepts never breaks a lab."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.cluster.store import MockCluster
from simulators.controllers import hardware
from simulators.controllers.engine import Model
from simulators.controllers.snapshot import Snapshot
from simulators.lab import LabSession
from simulators.scheduler.model import PodModel

QUEUES = "queues.scheduling.run.ai"

SUB_QUEUE = """apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: llm-sub
spec:
  parentQueue: team-llm
  priority: 5
  resources:
    gpu:
      quota: 2
"""


def test_a_queue_under_a_project_queue_is_applied_and_the_lab_keeps_working() -> None:
    lab = LabSession.new("department-cap", seed=0)
    lab.world.state.files["sub.yaml"] = SUB_QUEUE
    assert lab.run("kubectl apply -f sub.yaml").output == "queue.scheduling.run.ai/llm-sub created"
    for command in ("kubectl get queues", "runai list jobs -A", "kubectl get pods -A"):
        out = lab.run(command).output
        assert "internal error" not in out, out
    queues = lab.run("kubectl get queues").output.split("\n")
    assert any(line.split()[:3] == ["llm-sub", "5", "team-llm"] for line in queues)
    # team-llm is a parent queue now: its running job keeps its GPUs, nothing lands on them.
    jobs = {
        line.split()[0]: line.split()
        for line in lab.run("runai list jobs -A").output.split("\n")[2:]
    }
    assert jobs["llm-sft"][1] == "Running"
    snapshot = Snapshot(lab.world.api)
    assert snapshot.cluster.queues["team-llm"].is_department
    assert snapshot.cluster.queues["llm-sub"].parent == "team-llm"
    assert "team-llm" not in snapshot.leaves and "llm-sub" in snapshot.leaves
    # llm-sft's four GPUs on gpu-node2 are off the engine's node: nothing is placed on them.
    assert jobs["llm-sft"][3] == "gpu-node2"
    assert snapshot.cluster.nodes["gpu-node2"].gpus == 4
    assert len(snapshot.devices_on("gpu-node2")) == 4
    # ... and they still count in team-llm's and research's usage, as KAI counts them: the
    # department's cap still holds rl-sweep back.
    assert snapshot.cluster.queues["team-llm"].held == {"default": 4.0}
    assert jobs["rl-sweep"][1] == "Pending"


def _queue(name: str, parent: str | None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = dict(spec)
    if parent is not None:
        body["parentQueue"] = parent
    return {"metadata": {"name": name}, "spec": body}


def test_queues_of_any_depth_keep_their_priority_and_a_missing_parent_leaves_a_queue_out() -> None:
    api = MockCluster(seed=0)
    api.create(QUEUES, _queue("org", None, priority=3))
    api.create(QUEUES, _queue("dept", "org", resources={"gpu": {"quota": 8, "limit": 12}}))
    api.create(QUEUES, _queue("team", "dept", priority=7, resources={"gpu": {"quota": 4}}))
    api.create(QUEUES, _queue("orphan", "gone"))
    api.create(QUEUES, _queue("loop-a", "loop-b"))
    api.create(QUEUES, _queue("loop-b", "loop-a"))
    queues = Snapshot(api).cluster.queues
    assert set(queues) == {"org", "dept", "team"}
    assert (queues["org"].priority, queues["team"].priority) == (3, 7)
    assert queues["team"].parent == "dept" and queues["dept"].parent == "org"
    assert queues["dept"].quotas["default"].limit == 12
    assert queues["team"].quotas["default"].deserved == 4


# ---------------------------------------------------------------- the same engine input

names = st.sampled_from(["a", "b", "c", "d", "e", "f"])


@st.composite
def api_states(draw: st.DrawFn) -> MockCluster:
    """Nodes (a mock layout or only allocatable GPUs, pools, cordons, models), a queue forest
    (parents that may be missing, priorities, quotas per pool) and bound pods holding GPUs (of
    other schedulers, or Run:ai pods of any queue)."""
    api = MockCluster(seed=0)
    node_names = draw(st.lists(st.sampled_from(["n1", "n2", "n3"]), unique=True, max_size=3))
    for name in node_names:
        gpus = draw(st.integers(0, 8))
        labels: dict[str, str] = {}
        if draw(st.booleans()):
            labels["run.ai/node-pool"] = draw(st.sampled_from(["default", "pool-a"]))
        annotations: dict[str, str] = {}
        if draw(st.booleans()):
            layout: list[dict[str, int] | None] = [
                draw(st.sampled_from([None, {"1g.10gb": 7}, {"3g.40gb": 2}])) for _ in range(gpus)
            ]
            annotations[hardware.GPUS_ANNOTATION] = hardware.encode_layout(layout)
            annotations[hardware.MODEL_ANNOTATION] = draw(st.sampled_from(["H100", "A100"]))
        api.create(
            "nodes",
            {
                "metadata": {"name": name, "labels": labels, "annotations": annotations},
                "spec": {"unschedulable": draw(st.booleans())},
                "status": {"allocatable": {"nvidia.com/gpu": str(gpus)}},
            },
        )
    for name in draw(st.lists(names, unique=True, max_size=6)):
        spec: dict[str, Any] = {"priority": draw(st.integers(0, 10))}
        parent = draw(st.one_of(st.none(), names, st.just("missing")))
        if parent is not None and parent != name:
            spec["parentQueue"] = parent
        if draw(st.booleans()):
            spec["resources"] = {
                "gpu": {
                    "quota": draw(st.sampled_from([-1, 0, 2, 8])),
                    "limit": draw(st.sampled_from([-1, 4, 16])),
                    "overQuotaWeight": draw(st.sampled_from([1, 2])),
                }
            }
        api.create(QUEUES, {"metadata": {"name": name}, "spec": spec})
    holders = st.lists(st.sampled_from(node_names), max_size=3) if node_names else st.just([])
    for index, node in enumerate(draw(holders)):
        name = f"other-{index}"
        # Another scheduler's pod, or a Run:ai pod of a queue that may be a parent or missing.
        scheduler = draw(st.sampled_from(["default-scheduler", "runai-scheduler"]))
        api.create(
            "pods",
            {
                "metadata": {"name": name, "labels": {"runai/queue": draw(names)}},
                "spec": {
                    "schedulerName": scheduler,
                    "containers": [
                        {
                            "name": "c",
                            "image": "x",
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    ],
                },
            },
            "default",
        )
        api.bind(name, "default", node)
    return api


def engine_input(snapshot: Snapshot) -> dict[str, Any]:
    cluster = snapshot.cluster
    return {
        "strategy": snapshot.strategy,
        "pools": sorted(cluster.pools),
        "nodes": {name: vars(node) for name, node in cluster.nodes.items()},
        "devices": {name: snapshot.devices_on(name) for name in ("n1", "n2", "n3")},
        "queues": {
            name: (q.parent, q.priority, q.is_department, q.quotas, q.creation_rank, q.held)
            for name, q in cluster.queues.items()
        },
        "leaves": snapshot.leaves,
    }


@settings(max_examples=40, deadline=None)
@given(api_states())
def test_the_mock_controller_and_the_real_scheduler_give_the_engine_the_same_input(
    api: MockCluster,
) -> None:
    assert engine_input(Model(api)) == engine_input(PodModel(api))
