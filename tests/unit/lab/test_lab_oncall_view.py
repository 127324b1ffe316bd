"""The oncall-view ticket: a group bound to edit made read-only with view, Run:ai's workloads
added to what view reads, and no Secrets (simulators/lab/checks_access.py). The answer key is
in tests/unit/lab/test_lab_tickets.py; these are the other ways, and the traps."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all

NS = "-n runai-team-vision"
WEN = "--as=wen --as-group=gpu-oncall"
VIEW = [
    f"kubectl delete rolebinding oncall {NS}",
    f"kubectl create rolebinding oncall {NS} --clusterrole=view --group=gpu-oncall",
]
WORKLOADS = "--resource=trainingworkloads.run.ai,interactiveworkloads.run.ai"


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("oncall-view")


def test_at_the_start_the_group_can_change_everything_and_read_the_secrets(
    lab: LabSession,
) -> None:
    assert done(lab) == {"can-look": True, "sees-workloads": False, "read-only": False}
    assert lab.run(f"kubectl auth can-i delete pods {NS} {WEN}").output == "yes"
    listed = lab.run(f"kubectl get secrets {NS} {WEN} -o name").output
    assert listed == "secret/dataset-credentials"


def test_a_bindings_role_cannot_be_changed_in_place(lab: LabSession) -> None:
    patched = lab.run(
        f"kubectl patch rolebinding oncall {NS} --type=merge -p "
        """'{"roleRef":{"name":"view"}}'"""
    )
    assert patched.output == (
        'The RoleBinding "oncall" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:'
        '"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: cannot change roleRef'
    )
    assert patched.exit_code == 1
    assert lab.run(
        f"kubectl get rolebinding oncall {NS} -o jsonpath='{{.roleRef.name}}'"
    ).output == ("edit")


def test_view_alone_is_read_only_but_shows_no_workloads(lab: LabSession) -> None:
    run_all(lab, VIEW)
    assert done(lab) == {"can-look": True, "sees-workloads": False, "read-only": True}
    refused = lab.run(f"kubectl get trainingworkloads {NS} {WEN}").output
    assert refused.startswith(
        "Error from server (Forbidden): trainingworkloads.run.ai is forbidden"
    )


def test_a_second_binding_to_a_workload_reader_solves_it_too(lab: LabSession) -> None:
    run_all(
        lab,
        [
            *VIEW,
            f"kubectl create role workloads {NS} --verb=get,list,watch {WORKLOADS}",
            f"kubectl create rolebinding workloads {NS} --role=workloads --group=gpu-oncall",
        ],
    )
    assert lab.is_complete()


def test_aggregating_every_verb_on_the_workloads_into_view_fails_read_only(
    lab: LabSession,
) -> None:
    run_all(
        lab,
        [
            *VIEW,
            f"kubectl create clusterrole runai-view --verb=* {WORKLOADS}",
            "kubectl label clusterrole runai-view rbac.authorization.k8s.io/aggregate-to-view=true",
            "kubectl describe clusterrole view",  # the checklist after the controller's step
        ],
    )
    assert done(lab) == {"can-look": True, "sees-workloads": True, "read-only": False}
    assert lab.run(f"kubectl auth can-i delete trainingworkloads.run.ai {NS} {WEN}").output == "yes"


def test_aggregating_into_edit_does_not_reach_a_group_bound_to_view(lab: LabSession) -> None:
    run_all(
        lab,
        [
            *VIEW,
            f"kubectl create clusterrole runai-view --verb=get,list,watch {WORKLOADS}",
            "kubectl label clusterrole runai-view rbac.authorization.k8s.io/aggregate-to-edit=true",
            "kubectl describe clusterrole edit",
        ],
    )
    assert not done(lab)["sees-workloads"]


def test_view_for_the_whole_cluster_fails_read_only(lab: LabSession) -> None:
    run_all(
        lab,
        [
            f"kubectl delete rolebinding oncall {NS}",
            "kubectl create clusterrolebinding oncall --clusterrole=view --group=gpu-oncall",
            f"kubectl create role workloads {NS} --verb=get,list {WORKLOADS}",
            f"kubectl create rolebinding workloads {NS} --role=workloads --group=gpu-oncall",
        ],
    )
    assert done(lab) == {"can-look": True, "sees-workloads": True, "read-only": False}


def test_no_binding_at_all_is_not_read_only_access(lab: LabSession) -> None:
    lab.run(f"kubectl delete rolebinding oncall {NS}")
    assert done(lab) == {"can-look": False, "sees-workloads": False, "read-only": False}
