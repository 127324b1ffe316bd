"""The ci-service-account ticket: RBAC for the CI pipeline's ServiceAccount, least privilege,
and the account's own token in the admin host's kubeconfig (simulators/lab/checks_access.py).
The answer key is in tests/unit/lab/test_lab_tickets.py; these are the other ways, and the
traps."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all

TICKET = "ci-service-account"
NS = "-n runai-team-ml"
SA = "runai-team-ml:ci-deployer"
AS = f"--as=system:serviceaccount:{SA}"
TOKEN = [
    'kubectl config set-credentials ci-deployer --token="$(kubectl create token ci-deployer '
    '-n runai-team-ml)"',
    "kubectl config set-context ci --cluster=dgx-cluster --user=ci-deployer "
    "--namespace=runai-team-ml",
]


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new(TICKET)


def test_at_the_start_the_pipeline_is_forbidden_both_steps(lab: LabSession) -> None:
    assert done(lab) == dict.fromkeys(done(lab), False)
    restart = lab.run(f"kubectl rollout restart deployment/model-gateway {NS} {AS}")
    assert restart.output == (
        'Error from server (Forbidden): deployments.apps "model-gateway" is forbidden: User '
        f'"system:serviceaccount:{SA}" cannot get resource "deployments" in API group "apps" in '
        'the namespace "runai-team-ml"'
    )


def test_a_role_of_its_own_and_a_new_binding_solve_it_too(lab: LabSession) -> None:
    run_all(
        lab,
        [
            f"kubectl delete rolebinding ci-deployer {NS}",
            f"kubectl create role ci-deploy {NS} --verb=get,patch --resource=deployments.apps",
            f"kubectl create role pod-watch {NS} --verb=get,list,watch --resource=pods",
            f"kubectl create rolebinding ci-deploy {NS} --role=ci-deploy --serviceaccount={SA}",
            f"kubectl create rolebinding pod-watch {NS} --role=pod-watch --serviceaccount={SA}",
            *TOKEN,
        ],
    )
    assert lab.run("kubectl --context ci rollout restart deploy/model-gateway").exit_code == 0
    assert lab.is_complete()


def test_cluster_admin_gets_the_job_done_and_fails_least_privilege(lab: LabSession) -> None:
    run_all(
        lab,
        [
            f"kubectl create clusterrolebinding ci-admin --clusterrole=cluster-admin "
            f"--serviceaccount={SA}",
            *TOKEN,
        ],
    )
    assert done(lab) == {
        "can-restart": True,
        "can-watch": True,
        "least-privilege": False,
        "checked-as-pipeline": True,
    }
    assert lab.run("kubectl --context ci get secrets").exit_code == 0


def test_every_verb_on_the_role_lets_it_delete_and_fails_least_privilege(lab: LabSession) -> None:
    lab.run("kubectl create clusterrole ci-deploy --verb=* --resource=deployments.apps,pods")
    assert done(lab)["can-restart"] and done(lab)["can-watch"]
    assert not done(lab)["least-privilege"]


def test_a_role_that_forgets_the_pods_leaves_the_watch_forbidden(lab: LabSession) -> None:
    lab.run("kubectl create clusterrole ci-deploy --verb=get,patch --resource=deployments.apps")
    assert done(lab)["can-restart"] and done(lab)["least-privilege"]
    assert not done(lab)["can-watch"]
    run_all(lab, TOKEN)
    assert lab.run("kubectl --context ci get pods -w").output.startswith(
        'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:'
    )


def test_a_role_in_another_namespace_grants_nothing_where_the_pipeline_runs(
    lab: LabSession,
) -> None:
    run_all(
        lab,
        [
            "kubectl create role ci-deploy -n default --verb=get,list,watch,patch "
            "--resource=deployments.apps,pods",
            f"kubectl create rolebinding ci-deploy -n default --role=ci-deploy "
            f"--serviceaccount={SA}",
        ],
    )
    assert not done(lab)["can-restart"]
    assert not done(lab)["can-watch"]


def test_checking_with_as_is_not_checking_with_the_accounts_token(lab: LabSession) -> None:
    lab.run("kubectl create clusterrole ci-deploy --verb=get,list,watch,patch "
            "--resource=deployments.apps,pods")  # fmt: skip
    lab.run(f"kubectl rollout restart deployment/model-gateway {NS} {AS}")
    assert not done(lab)["checked-as-pipeline"]
    lab.run("kubectl create serviceaccount other -n runai-team-ml")
    lab.run('kubectl config set-credentials other --token="$(kubectl create token other '
            '-n runai-team-ml)"')  # fmt: skip
    assert not done(lab)["checked-as-pipeline"]
    run_all(lab, TOKEN)
    assert lab.is_complete()


def test_a_deleted_account_token_no_longer_counts(lab: LabSession) -> None:
    lab.run("kubectl create clusterrole ci-deploy --verb=get,list,watch,patch "
            "--resource=deployments.apps,pods")  # fmt: skip
    run_all(lab, TOKEN)
    assert lab.is_complete()
    lab.run("kubectl delete serviceaccount ci-deployer -n runai-team-ml")
    assert not done(lab)["checked-as-pipeline"]
    assert lab.run("kubectl --context ci get pods").output == (
        "error: You must be logged in to the server (Unauthorized)"
    )
