"""The department-cap ticket: a department's limit, not the project or the cluster, holds work."""

from __future__ import annotations

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, wait

RAISE_LIMIT = (
    "kubectl patch departments.run.ai research --type merge "
    """-p '{"spec":{"maxAllowedGpus":16}}'"""
)
QUEUE_LIMIT = (
    "kubectl get queues.scheduling.run.ai research -o jsonpath='{.spec.resources.gpu.limit}'"
)


def sweep_status(session: LabSession) -> str:
    return session.run("runai training describe rl-sweep -p team-rl").output


def test_the_sweep_waits_on_the_departments_limit_while_gpus_are_idle(dept: LabSession) -> None:
    out = sweep_status(dept)
    assert "Status:           Pending" in out
    assert (
        "Unable to schedule pod: OverLimit: department research would exceed its limit of 8 GPUs"
        in out
    )
    listed = dept.run("runai training list -A").output
    assert "prod-train" in listed and "Pending" in listed.splitlines()[-1]
    assert done(dept) == {"department-room": False, "sweep-runs": False, "work-kept": False}


def test_in_another_order_quota_and_limit_raised_together(dept: LabSession) -> None:
    dept.run(
        "kubectl patch departments.run.ai research --type merge "
        """-p '{"spec":{"deservedGpus":12,"maxAllowedGpus":-1}}'"""
    )
    wait(dept, 3)
    assert dept.is_complete(), done(dept)


def test_raising_the_projects_quota_leaves_the_department_cap(dept: LabSession) -> None:
    dept.run(
        """kubectl patch projects.run.ai team-rl --type merge -p '{"spec":{"deservedGpus":8}}'"""
    )
    wait(dept, 3)
    assert "OverLimit: department research would exceed its limit of 8 GPUs" in sweep_status(dept)
    assert done(dept)["sweep-runs"] is False


def test_a_queue_edited_by_hand_is_put_back_by_runai(dept: LabSession) -> None:
    out = dept.run(
        "kubectl patch queues.scheduling.run.ai research --type merge "
        """-p '{"spec":{"resources":{"gpu":{"limit":16}}}}'"""
    ).output
    assert out == "queue.scheduling.run.ai/research patched"
    wait(dept, 3)
    # The queue-controller writes queues from the departments: the old limit is back.
    assert dept.run(QUEUE_LIMIT).output == "8"
    assert done(dept) == {"department-room": False, "sweep-runs": False, "work-kept": False}


def test_a_limit_too_small_for_the_sweep_still_holds_it(dept: LabSession) -> None:
    dept.run(
        "kubectl patch departments.run.ai research --type merge "
        """-p '{"spec":{"maxAllowedGpus":10}}'"""
    )
    wait(dept, 3)
    assert "OverLimit: department research would exceed its limit of 10 GPUs" in sweep_status(dept)
    assert done(dept)["department-room"] is False


def test_stopping_a_colleagues_training_is_not_a_fix(dept: LabSession) -> None:
    run_all(dept, ["runai training delete llm-sft -p team-llm"])
    wait(dept, 3)
    assert done(dept) == {"department-room": False, "sweep-runs": True, "work-kept": False}


def test_the_answer_key_raises_the_limit_that_the_scheduler_reads(dept: LabSession) -> None:
    dept.run(RAISE_LIMIT)
    wait(dept, 1)
    assert dept.run(QUEUE_LIMIT).output == "16"


PER_POOL = (
    "kubectl patch departments.run.ai research --type merge -p "
    """'{"spec":{"nodePoolResources":[{"nodePool":{"name":"default"},"gpu":{"limit":%s}}]}}'"""
)


def test_the_per_pool_limit_in_node_pool_resources_is_the_one_the_scheduler_reads(
    dept: LabSession,
) -> None:
    dept.run(PER_POOL % 16)
    wait(dept, 1)
    assert dept.run(QUEUE_LIMIT).output == "16"
    pool = "{.spec.nodePools.default.resources.gpu.limit}"
    assert dept.run(
        f"kubectl get queues.scheduling.run.ai research -o jsonpath='{pool}'"
    ).output == ("16")
    wait(dept, 2)
    assert dept.is_complete()


def test_the_per_pool_limit_wins_over_the_deprecated_flat_one(dept: LabSession) -> None:
    run_all(dept, [PER_POOL % 10, RAISE_LIMIT])
    wait(dept, 3)
    assert dept.run(QUEUE_LIMIT).output == "10"
    assert "Status:           Pending" in sweep_status(dept)
