"""scheduler-bypass: default-scheduler pods hold GPUs that Run:ai's quota never sees."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, wait

SWEEP_POD = "kubectl get pods -n runai-team-nlp -l job-name=nlp-sweep-1 -o name"


@pytest.fixture
def bypass() -> LabSession:
    return LabSession.new("scheduler-bypass", seed=0)


def test_at_the_start_the_sweeps_run_on_the_default_scheduler_and_the_guaranteed_work_waits(
    bypass: LabSession,
) -> None:
    schedulers = bypass.run(
        "kubectl get pods -n runai-team-nlp -o custom-columns=NAME:.metadata.name,"
        "SCHEDULER:.spec.schedulerName"
    ).output
    assert [line.split()[1] for line in schedulers.splitlines()[1:]] == [
        "runai-scheduler",
        "default-scheduler",
        "default-scheduler",
    ]
    described = bypass.run("runai training describe vision-train -p team-vision").output
    assert "Insufficient nvidia.com/gpu" in described
    projects = bypass.run("runai project list").output
    assert "team-nlp     research    8          4 " in projects  # Run:ai counts only 4 of 20
    assert done(bypass) == {
        "no-bypass": False,
        "guaranteed-runs": False,
        "sweeps-queued": False,
        "baseline-kept": True,
    }


def test_the_answer_key_in_another_order_resubmits_first_then_deletes_the_jobs(
    bypass: LabSession,
) -> None:
    run_all(
        bypass,
        [
            "runai training submit sweep-a -p team-nlp -i nvcr.io/nvidia/pytorch:24.05-py3 -g 8",
            "runai training submit sweep-b -p team-nlp -i nvcr.io/nvidia/pytorch:24.05-py3 -g 8",
            "kubectl delete jobs.batch --all -n runai-team-nlp",
        ],
    )
    wait(bypass, 3)
    assert bypass.is_complete()


def test_deleting_a_sweeps_pod_only_brings_another_from_its_job(bypass: LabSession) -> None:
    pod = bypass.run(SWEEP_POD).output.strip()
    assert bypass.run(f"kubectl delete {pod} -n runai-team-nlp").output.startswith('pod "')
    wait(bypass, 2)
    again = bypass.run(SWEEP_POD).output.strip()
    assert again and again != pod
    assert done(bypass)["no-bypass"] is False


def test_a_running_pods_scheduler_cannot_be_changed_in_place(bypass: LabSession) -> None:
    pod = bypass.run(SWEEP_POD).output.strip().removeprefix("pod/")
    result = bypass.run(
        f"kubectl patch pod {pod} -n runai-team-nlp -p "
        """'{"spec":{"schedulerName":"runai-scheduler"}}'"""
    )
    assert result.exit_code == 1
    assert "spec: Forbidden: pod updates may not change fields other than" in result.output


def test_stopping_the_baseline_instead_is_not_a_fix(bypass: LabSession) -> None:
    bypass.run("runai training delete nlp-baseline -p team-nlp")
    wait(bypass, 3)
    assert done(bypass)["baseline-kept"] is False
    assert done(bypass)["no-bypass"] is False  # the bypassing sweeps still hold two nodes
    assert not bypass.is_complete()


def test_deleting_the_jobs_without_resubmitting_leaves_the_sweeps_unqueued(
    bypass: LabSession,
) -> None:
    bypass.run("kubectl delete job nlp-sweep-1 nlp-sweep-2 -n runai-team-nlp")
    wait(bypass, 3)
    assert done(bypass) == {
        "no-bypass": True,
        "guaranteed-runs": True,
        "sweeps-queued": False,
        "baseline-kept": True,
    }
