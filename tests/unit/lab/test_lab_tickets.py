"""Each ticket: its answer key ticks every item, other orders do too, and its traps bite."""

from __future__ import annotations

import json

import pytest

from simulators.controllers.runai import all_workloads
from simulators.lab import LabSession, UnknownTicketError, list_tickets, load_ticket
from tests.unit.lab.lab_helpers import done, run_all, wait

TICKETS = [
    "mig-single",
    "mig-mixed",
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
    "toolkit-runtime",
    "xid-fallen-off",
    "fabric-nccl",
    "ci-service-account",
    "oncall-view",
    "handover-inventory",
]


def workload_phases(session: LabSession) -> dict[str, str]:
    return {
        w["metadata"]["name"]: w.get("status", {}).get("phase", "Pending")
        for w in all_workloads(session.world.api)
    }


def test_the_tickets_are_listed_in_the_guides_order() -> None:
    assert [t.id for t in list_tickets()] == TICKETS


def test_a_ticket_has_a_story_checklist_hints_and_answer_key() -> None:
    for ticket_id in TICKETS:
        ticket = load_ticket(ticket_id)
        assert ticket.title and ticket.story and ticket.hints and ticket.answer_key
        assert len({item.id for item in ticket.checklist}) == len(ticket.checklist) >= 3


def test_an_unknown_ticket_is_refused_with_the_labs_error() -> None:
    with pytest.raises(UnknownTicketError):
        LabSession.new("nope")
    with pytest.raises(UnknownTicketError):
        LabSession.new("../../etc/passwd")


@pytest.mark.parametrize("ticket", TICKETS)
@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_the_answer_key_reaches_every_checklist_item(ticket: str, seed: int) -> None:
    session = LabSession.new(ticket, seed=seed)
    assert not session.is_complete()
    for line in session.answer_key():
        result = session.run(line)
        assert "internal error" not in result.output
    assert done(session) == dict.fromkeys(done(session), True)


# ---------------------------------------------------------------------------- mig-single


def test_mig_single_in_another_order_drain_first_then_label_and_uncordon_later(
    single: LabSession,
) -> None:
    run_all(
        single,
        [
            "kubectl drain gpu-node2 --ignore-daemonsets",
            "kubectl label node gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite",
        ],
    )
    wait(single, 4)
    single.run("kubectl uncordon gpu-node2")
    assert single.is_complete()


def test_mig_single_labelling_without_overwrite_changes_nothing(single: LabSession) -> None:
    single.run("kubectl drain gpu-node2 --ignore-daemonsets")
    out = single.run("kubectl label node gpu-node2 nvidia.com/mig.config=all-1g.10gb").output
    assert "--overwrite is false" in out
    wait(single, 4)
    assert not done(single)["layout-applied"]


def test_mig_single_relabelling_every_node_breaks_the_others_untouched_item(
    single: LabSession,
) -> None:
    single.run("kubectl drain gpu-node2 --ignore-daemonsets")
    for node in ("gpu-node1", "gpu-node2"):
        single.run(f"kubectl label node {node} nvidia.com/mig.config=all-1g.10gb --overwrite")
    wait(single, 4)
    assert done(single)["others-untouched"] is False


def test_mig_single_is_not_done_while_the_node_stays_cordoned(single: LabSession) -> None:
    run_all(
        single,
        [
            "kubectl drain gpu-node2 --ignore-daemonsets",
            "kubectl label node gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite",
        ],
    )
    wait(single, 4)
    assert done(single) == {
        "layout-applied": True,
        "advertises-56": True,
        "schedulable-again": False,
        "others-untouched": True,
    }


# ---------------------------------------------------------------------------- mig-mixed


def test_mig_mixed_in_another_order_strategy_first_and_a_new_configmap(mixed: LabSession) -> None:
    # Patch the strategy first, fix the layout through a new ConfigMap, create Triton anew.
    run_all(
        mixed,
        [
            "kubectl patch clusterpolicy cluster-policy --type merge "
            """-p '{"spec":{"mig":{"strategy":"mixed"}}}'""",
            "sed -i -e 's/mig-config.yaml:/config.yaml:/' -e 's/name: custom-mig-parted-config/"
            "name: fixed-mig-config/' custom-mig-config.yaml",
            "kubectl create -f custom-mig-config.yaml",
            "kubectl patch clusterpolicies.nvidia.com/cluster-policy --type=merge "
            """-p '{"spec":{"migManager":{"config":{"name":"fixed-mig-config"}}}}'""",
            "kubectl delete pod -n gpu-operator -l app=nvidia-mig-manager "
            "--field-selector spec.nodeName=gpu-node3",
        ],
    )
    wait(mixed, 3)
    run_all(
        mixed,
        [
            "sed -i 's/nvidia.com\\/gpu: 1/nvidia.com\\/mig-1g.10gb: 1/' triton.yaml",
            "kubectl delete -f triton.yaml",
            "kubectl create -f triton.yaml",
            "kubectl uncordon gpu-node3",
        ],
    )
    wait(mixed, 2)
    assert mixed.is_complete()


def test_mig_mixed_uncordoning_too_early_lets_triton_grab_a_whole_gpu(mixed: LabSession) -> None:
    mixed.run("kubectl uncordon gpu-node3")
    wait(mixed, 1)
    run_all(
        mixed,
        [
            "sed -i 's/mig-config.yaml:/config.yaml:/' custom-mig-config.yaml",
            "kubectl apply -f custom-mig-config.yaml",
            "kubectl delete pod -n gpu-operator -l app=nvidia-mig-manager "
            "--field-selector spec.nodeName=gpu-node3",
        ],
    )
    wait(mixed, 3)
    labels = mixed.world.api.get("nodes", "gpu-node3")["metadata"]["labels"]
    assert labels["nvidia.com/mig.config.state"] == "failed"
    assert done(mixed)["triton-on-slice"] is False


# ---------------------------------------------------------------------------- pending-workspace


def test_pending_workspace_starts_pending_with_non_preemptible_over_quota(
    pending: LabSession,
) -> None:
    out = pending.run("runai workspace describe nb-carol -p team-vision").output
    assert "Status:           Pending" in out
    assert (
        "Unable to schedule pod: NonPreemptibleOverQuota: project team-vision would exceed its "
        "quota of 8 GPUs" in out
    )
    free = 24 - sum(
        w.get("status", {}).get("allocatedGpus", 0) for w in all_workloads(pending.world.api)
    )
    assert free >= 4  # GPUs sit idle, yet the workspace waits
    assert done(pending) == {
        "idle-stopped": False,
        "new-workspace-runs": False,
        "active-work-kept": False,  # judged once the new workspace runs
    }


def test_pending_workspace_the_story_and_describe_point_at_the_idle_workspace(
    pending: LabSession,
) -> None:
    assert "nb-alice" in pending.ticket.story and "never" in pending.ticket.story
    out = pending.run("runai workspace describe nb-alice -p team-vision").output
    assert "Last activity:    21d ago (GPU utilization 0% since)" in out


def test_pending_workspace_suspending_the_idle_workspace_also_works(pending: LabSession) -> None:
    pending.run("runai workspace suspend nb-alice -p team-vision")
    wait(pending, 2)
    assert pending.is_complete()


def test_pending_workspace_stopping_bobs_active_workspace_is_not_a_fix(pending: LabSession) -> None:
    pending.run("runai workspace delete nb-bob -p team-vision")
    wait(pending, 2)
    # nb-carol fits the quota now, but someone's active work was stopped.
    assert done(pending) == {
        "idle-stopped": False,
        "new-workspace-runs": True,
        "active-work-kept": False,
    }


# ---------------------------------------------------------------------------- validate-runai


def test_validate_runai_commands_need_a_login_first(validate: LabSession) -> None:
    assert validate.run("runai project list").output == (
        "Error: you are not logged in; run 'runai login' first"
    )


def test_validate_runai_reclaim_takes_only_the_borrowed_gpus(validate: LabSession) -> None:
    run_all(
        validate,
        [
            "runai login",
            "runai project set team-a",
            "runai training submit a1 -i nvcr.io/nvidia/pytorch:24.05-py3 -g 8",
            "runai training submit a2 -i nvcr.io/nvidia/pytorch:24.05-py3 -g 8",
            "runai training submit a3 -i nvcr.io/nvidia/pytorch:24.05-py3 -g 8",
        ],
    )
    wait(validate, 1)
    statuses = workload_phases(validate)
    assert statuses == {"a1": "Running", "a2": "Running", "a3": "Running"}
    validate.run("runai training submit b1 -p team-b -i nvcr.io/nvidia/pytorch:24.05-py3 -g 8")
    wait(validate, 2)
    statuses = workload_phases(validate)
    # Only the newest over-quota job went back to Pending; team-a keeps 16 GPUs (quota 8).
    assert statuses == {"a1": "Running", "a2": "Running", "a3": "Pending", "b1": "Running"}
    describe = validate.run("runai training describe a3 -p team-a").output
    assert "Reclaimed by project team-b (workload b1)" in describe
    assert done(validate)["reclaim-works"] is True
    assert done(validate)["training-completes"] is False


def test_validate_runai_v1_commands_also_pass_the_functional_tests(validate: LabSession) -> None:
    run_all(
        validate,
        [
            "runai login",
            "runai config project team-a",
            "runai submit smoke -i gcr.io/run-ai-demo/quickstart -g 1",
            "runai submit nb1 -i jupyter/scipy-notebook -g 0.5 --interactive",
            "runai submit nb2 -i jupyter/scipy-notebook -g 0.5 --interactive",
            "runai submit-dist pytorch d1 --workers=2 -g 1 -i gcr.io/run-ai-demo/quickstart",
        ],
    )
    wait(validate, 6)
    assert done(validate) == {
        "training-completes": True,
        "fractions-share": True,
        "gang-starts": True,
        "reclaim-works": False,
    }


@pytest.mark.parametrize("ticket", TICKETS)
def test_every_lab_shares_its_ticket_and_no_lab_changes_its_world_spec(ticket: str) -> None:
    shared = load_ticket(ticket)
    spec = json.dumps(shared.world, sort_keys=True)
    session = LabSession.new(ticket, seed=7)
    for line in session.answer_key():
        session.run(line)
    session.rest()
    session.run("kubectl get nodes")
    reopened = LabSession.from_json(session.to_json())
    reopened.run("kubectl get pods -A")
    assert session.ticket is reopened.ticket is load_ticket(ticket)
    assert json.dumps(load_ticket(ticket).world, sort_keys=True) == spec
