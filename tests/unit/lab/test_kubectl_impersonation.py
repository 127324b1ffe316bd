"""`kubectl ... --as=USER` in the lab: every request authorized as that user, as kube-apiserver
authorizes an impersonated one (simulators/cluster/impersonation.py). The real kubectl is the
reference in tests/oracle/test_impersonation_oracle.py; these pin the words without it."""

from __future__ import annotations

import pytest

from tests.unit.lab.kubectl_cluster import Lab

SA = "--as=system:serviceaccount:dev:ci"


@pytest.fixture
def lab() -> Lab:
    lab = Lab()
    lab.run("kubectl create namespace dev")
    lab.run("kubectl create deployment web -n dev --image=nginx")
    lab.run("kubectl create configmap settings -n dev --from-literal=a=b")
    return lab


def test_a_service_account_without_a_grant_is_refused_with_the_api_servers_403(lab: Lab) -> None:
    result = lab.run(f"kubectl get configmaps -n dev {SA}")
    assert result.code == 1
    assert result.text == (
        "Error from server (Forbidden): configmaps is forbidden: "
        'User "system:serviceaccount:dev:ci" cannot list resource "configmaps" in API group "" '
        'in the namespace "dev"'
    )


def test_a_role_binding_lets_the_service_account_do_what_its_role_grants_and_no_more(
    lab: Lab,
) -> None:
    lab.run("kubectl create role reader -n dev --verb=get,list --resource=configmaps")
    lab.run("kubectl create rolebinding ci-reads -n dev --role=reader --serviceaccount=dev:ci")
    assert lab.out(f"kubectl get configmaps -n dev -o name {SA}") == (
        "configmap/kube-root-ca.crt\nconfigmap/settings"
    )
    deleting = lab.run(f"kubectl delete configmap settings -n dev {SA}")
    assert deleting.code == 1
    assert deleting.text.startswith('Error from server (Forbidden): configmaps "settings" is')
    assert lab.run("kubectl get configmap settings -n dev").code == 0  # nothing was deleted
    elsewhere = lab.run(f"kubectl get configmaps -n default {SA}")
    assert 'in the namespace "default"' in elsewhere.text


def test_cluster_scoped_refusals_say_at_the_cluster_scope(lab: Lab) -> None:
    result = lab.run("kubectl get nodes --as=jane")
    assert result.text.endswith('cannot list resource "nodes" in API group "" at the cluster scope')


def test_a_group_given_with_as_group_counts_and_the_admin_is_never_asked(lab: Lab) -> None:
    assert lab.run("kubectl get nodes --as=jane --as-group=system:masters").code == 0
    assert lab.run("kubectl get nodes").code == 0
    refused = lab.run("kubectl get pods --as-group=ops")
    assert refused.text == (
        "error: requesting uid, groups or user-extra for kubernetes-admin without impersonating"
        " a user"
    )


def test_logs_need_the_pods_log_subresource(lab: Lab) -> None:
    lab.run("kubectl run p -n dev --image=nginx")
    lab.run("kubectl create role r -n dev --verb=get --resource=pods")
    lab.run("kubectl create rolebinding rb -n dev --role=r --serviceaccount=dev:ci")
    refused = lab.run(f"kubectl logs p -n dev {SA}")
    assert 'cannot get resource "pods/log" in API group ""' in refused.text


def test_get_prints_kinds_when_it_got_more_than_one_kind_an_empty_list_counting(lab: Lab) -> None:
    """kubectl's multipleGVKsRequested over its infos: a list it got counts even empty; a kind
    it could not list, or a named object it did not find, does not."""
    table = lab.out("kubectl get deployments,services -n dev")
    assert table.splitlines()[1].startswith("deployment.apps/web ")
    lab.run("kubectl create role r -n dev --verb=list --resource=deployments.apps")
    lab.run("kubectl create rolebinding rb -n dev --role=r --serviceaccount=dev:ci")
    beside = lab.run(f"kubectl get deployments,services -n dev {SA}")
    assert beside.text.splitlines()[1].startswith("web ")
    assert beside.text.endswith(
        'cannot list resource "services" in API group "" in the namespace "dev"'
    )
    named = lab.run("kubectl get deploy/web svc/nosuch -n dev")
    assert named.text.splitlines()[1].startswith("web ")
