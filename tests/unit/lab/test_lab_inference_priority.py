"""The inference-priority ticket: an inference server reclaims borrowed GPUs in its own project."""

from __future__ import annotations

from simulators.controllers.runai import all_workloads
from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, wait

IMAGE = "nvcr.io/nvidia/tritonserver:24.05-py3"
SUBMIT = f"runai inference submit chat-api -p team-serve -i {IMAGE} -g 4"
NOTHING = {"inference-runs": False, "within-quota": False, "borrowed-returned": False}


def evictions(session: LabSession) -> dict[str, list[str]]:
    return {
        w["metadata"]["name"]: [r["reason"] for r in w.get("status", {}).get("evictions") or []]
        for w in all_workloads(session.world.api)
        if w.get("status", {}).get("evictions")
    }


def test_the_cluster_is_full_of_borrowed_gpus_and_nothing_is_done(serve: LabSession) -> None:
    projects = serve.run("runai project list").output
    assert "team-train  research    12         24" in projects
    assert done(serve) == NOTHING


def test_the_server_in_team_serve_reclaims_one_over_quota_training(serve: LabSession) -> None:
    assert serve.run(SUBMIT).output.startswith("Creating inference chat-api...")
    wait(serve, 3)
    out = serve.run("runai inference describe chat-api -p team-serve").output
    assert "Preemptible:      false" in out
    assert evictions(serve) == {"sweep-c": ["Reclaimed"]}
    assert serve.is_complete(), done(serve)


def test_in_another_order_the_default_project_and_a_look_afterwards(serve: LabSession) -> None:
    # team-serve is the CLI's default project, so -p can be left out.
    serve.run(f"runai inference submit chat-api -i {IMAGE} -g 4")
    wait(serve, 3)
    serve.run("runai training list -A")
    assert serve.is_complete(), done(serve)


def test_submitted_in_team_train_it_preempts_that_projects_own_training(
    serve: LabSession,
) -> None:
    serve.run(f"runai inference submit chat-api -p team-train -i {IMAGE} -g 4")
    wait(serve, 3)
    out = serve.run("runai training describe sweep-c -p team-train").output
    assert (
        "Preempted by a higher-priority job: team-train/chat-api (priority 125) needs the GPUs; "
        "this job has priority 50" in out
    )
    assert evictions(serve) == {"sweep-c": ["Preempted"]}
    assert done(serve) == NOTHING


def test_a_server_larger_than_the_projects_quota_is_refused_by_the_scheduler(
    serve: LabSession,
) -> None:
    serve.run(f"runai inference submit chat-api -p team-serve -i {IMAGE} -g 12")
    wait(serve, 2)
    out = serve.run("runai inference describe chat-api -p team-serve").output
    assert "NonPreemptibleOverQuota: project team-serve would exceed its quota of 8 GPUs" in out
    assert done(serve) == NOTHING


def test_submitted_as_a_training_it_runs_but_can_be_taken_away(serve: LabSession) -> None:
    serve.run(f"runai training submit chat-api -p team-serve -i {IMAGE} -g 4")
    wait(serve, 3)
    out = serve.run("runai training describe chat-api -p team-serve").output
    assert "Status:           Running" in out and "Preemptible:      true" in out
    assert done(serve)["inference-runs"] is False


def test_the_inference_commands_list_and_delete_only_inference(serve: LabSession) -> None:
    serve.run(SUBMIT)
    assert "chat-api" in serve.run("runai inference list -p team-serve").output
    assert "pretrain" not in serve.run("runai inference list -A").output
    out = serve.run("runai inference delete chat-api -p team-serve").output
    assert out == "Successfully deleted inference chat-api"
