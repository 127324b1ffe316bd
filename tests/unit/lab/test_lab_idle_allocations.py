"""idle-allocations: every GPU is allocated, half of them to notebooks nobody touches."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, wait

QUERY = "nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv"


@pytest.fixture
def idle() -> LabSession:
    return LabSession.new("idle-allocations", seed=0)


def _operator_pod(session: LabSession, node: str) -> str:
    listing = session.run("kubectl get pods -n gpu-operator -o wide").output
    return next(
        line.split()[0]
        for line in listing.splitlines()
        if line.startswith("nvidia-driver-daemonset-") and f" {node} " in line
    )


def _utilization(session: LabSession, node: str) -> list[int]:
    pod = _operator_pod(session, node)
    rows = session.run(f"kubectl exec -n gpu-operator {pod} -- {QUERY}").output.splitlines()
    assert rows[0] == "index, utilization.gpu [%], memory.used [MiB]"
    return [int(row.split(", ")[1].removesuffix(" %")) for row in rows[1:]]


def test_at_the_start_every_gpu_is_allocated_and_the_finetune_waits(idle: LabSession) -> None:
    described = idle.run("runai training describe llm-finetune -p team-llm").output
    assert "Status:           Pending" in described
    assert "node pool default has no free GPUs to borrow" in described
    workspaces = idle.run("runai workspace list -A").output
    assert [line.split()[2] for line in workspaces.splitlines()[2:]] == ["Running"] * 3
    assert done(idle) == {"finetune-runs": False, "idle-suspended": False, "active-kept": True}


def test_nvidia_smi_shows_the_trainings_busy_and_the_notebooks_near_zero(
    idle: LabSession,
) -> None:
    assert all(u >= 80 for u in _utilization(idle, "gpu-node1"))  # llm-pretrain
    node2 = _utilization(idle, "gpu-node2")  # llm-eval on four GPUs, nb-bob on four
    assert sorted(u >= 80 for u in node2) == [False] * 4 + [True] * 4
    assert all(u <= 3 for u in _utilization(idle, "gpu-node3"))  # nb-alice and nb-frank


def test_last_activity_tells_the_idle_notebooks_from_the_one_in_use(idle: LabSession) -> None:
    def activity(name: str) -> str:
        described = idle.run(f"runai workspace describe {name} -p team-vision").output
        return next(line for line in described.splitlines() if "Last activity:" in line)

    assert activity("nb-alice").endswith("14d ago (GPU utilization 0% since)")
    assert activity("nb-frank").endswith("4d ago (GPU utilization 0% since)")
    assert activity("nb-bob").endswith("active now")


def test_the_answer_key_in_another_order_suspends_frank_first(idle: LabSession) -> None:
    run_all(
        idle,
        [
            "runai workspace suspend nb-frank -p team-vision",
            "runai workspace list -p team-vision",
            "runai workspace suspend nb-alice -p team-vision",
        ],
    )
    wait(idle, 3)
    assert idle.is_complete()
    listing = idle.run("runai workspace list -p team-vision").output
    assert "nb-alice  Workspace  Suspended" in listing


def test_suspending_one_idle_notebook_frees_too_few_gpus_on_one_node(idle: LabSession) -> None:
    idle.run("runai workspace suspend nb-alice -p team-vision")
    wait(idle, 3)
    assert done(idle) == {"finetune-runs": False, "idle-suspended": False, "active-kept": True}


def test_deleting_the_idle_notebooks_starts_the_finetune_but_breaks_the_policy(
    idle: LabSession,
) -> None:
    run_all(
        idle,
        [
            "runai workspace delete nb-alice -p team-vision",
            "runai workspace delete nb-frank -p team-vision",
        ],
    )
    wait(idle, 3)
    assert done(idle) == {"finetune-runs": True, "idle-suspended": False, "active-kept": True}
    assert not idle.is_complete()


def test_suspending_the_notebook_in_use_for_its_low_utilization_is_not_a_fix(
    idle: LabSession,
) -> None:
    idle.run("runai workspace suspend nb-bob -p team-vision")
    wait(idle, 3)
    # four GPUs on gpu-node2 are not the eight on one node the fine-tune needs
    assert done(idle) == {"finetune-runs": False, "idle-suspended": False, "active-kept": False}


def test_stopping_a_production_training_is_not_a_fix(idle: LabSession) -> None:
    idle.run("runai training delete llm-pretrain -p team-llm")
    wait(idle, 3)
    assert done(idle)["finetune-runs"] is True  # it took llm-pretrain's node
    assert done(idle)["active-kept"] is False
    assert not idle.is_complete()
