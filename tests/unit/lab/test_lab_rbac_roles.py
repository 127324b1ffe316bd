"""The roles every Kubernetes cluster has, as a learner binds them: admin, edit and view grant
what they grant on a real cluster, and a ClusterRole labelled aggregate-to-view widens them."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all

NS = "-n runai-team-ml"
SA = "runai-team-ml:ci-deployer"
AS = f"--as=system:serviceaccount:{SA}"


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("ci-service-account")


def _can(lab: LabSession, what: str) -> str:
    return lab.run(f"kubectl auth can-i {what} {NS} {AS}").output


@pytest.mark.parametrize(
    ("role", "answers"),
    [
        ("view", {"list pods": "yes", "get secrets": "no", "patch deployments": "no"}),
        ("edit", {"get secrets": "yes", "patch deployments": "yes", "create roles": "no"}),
        (
            "admin",
            {"create roles": "yes", "create rolebindings": "yes", "create resourcequotas": "no"},
        ),
    ],
)
def test_binding_a_default_role_grants_what_it_grants_on_a_real_cluster(
    lab: LabSession, role: str, answers: dict[str, str]
) -> None:
    for what in answers:
        assert _can(lab, what) == "no"
    lab.run(f"kubectl create rolebinding {role} {NS} --clusterrole={role} --serviceaccount={SA}")
    assert {what: _can(lab, what) for what in answers} == answers


def test_a_clusterrole_labelled_aggregate_to_view_widens_view_at_once(lab: LabSession) -> None:
    lab.run(f"kubectl create rolebinding view {NS} --clusterrole=view --serviceaccount={SA}")
    assert _can(lab, "list leases.coordination.k8s.io") == "no"
    run_all(
        lab,
        [
            "kubectl create clusterrole lease-view --verb=get,list --resource=leases",
            "kubectl label clusterrole lease-view rbac.authorization.k8s.io/aggregate-to-view=true",
        ],
    )
    assert _can(lab, "list leases.coordination.k8s.io") == "yes"
    described = lab.run("kubectl describe clusterrole view").output.splitlines()
    assert any(line.split()[:1] == ["leases.coordination.k8s.io"] for line in described)


def test_binding_edit_to_the_pipeline_works_and_fails_least_privilege(lab: LabSession) -> None:
    lab.run(f"kubectl create rolebinding ci-edit {NS} --clusterrole=edit --serviceaccount={SA}")
    assert done(lab)["can-restart"] and done(lab)["can-watch"]
    assert not done(lab)["least-privilege"]


def test_describe_clusterrole_prints_kubectls_policy_rule_table_sorted_by_verbs_first(
    lab: LabSession,
) -> None:
    out = lab.run("kubectl describe clusterrole system:aggregate-to-admin").output
    lines = out.splitlines()
    every = "[create delete deletecollection get list patch update watch]"
    rows = [line.split(None, 3) for line in lines[lines.index("PolicyRule:") + 1 :]]
    assert rows == [
        ["Resources", "Non-Resource", "URLs", "Resource Names  Verbs"],
        ["---------", "-----------------", "--------------", "-----"],
        ["rolebindings.rbac.authorization.k8s.io", "[]", "[]", every],
        ["roles.rbac.authorization.k8s.io", "[]", "[]", every],
        ["localsubjectaccessreviews.authorization.k8s.io", "[]", "[]", "[create]"],
    ]
    # The columns line up, as kubectl's tabwriter lines them up.
    assert len({line.index("[]") for line in lines if "[]" in line}) == 1
