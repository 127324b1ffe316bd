"""The admin host's kubeconfig as every kubectl command reads it (simulators/lab/kubectl/
connection.py): the context's namespace, a service account's token, a server nothing answers
on, the file itself in the home folder. The real kubectl is the reference in
tests/oracle/test_kubeconfig_connection_oracle.py; these pin what a learner sees without it."""

from __future__ import annotations

import re

import pytest

from simulators.lab import kubeconfig
from simulators.lab.home_files import HOME_FILES
from simulators.lab.session import LabSession
from simulators.lab.world import HostState

REFUSED = kubeconfig.LOCALHOST


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single")


def test_a_namespace_set_on_the_current_context_is_where_kubectl_looks_without_n(
    lab: LabSession,
) -> None:
    system = lab.run("kubectl get pods -n kube-system").output
    assert lab.run("kubectl get pods").output != system
    lab.run("kubectl config set-context --current --namespace=kube-system")
    assert lab.run("kubectl get pods").output == system
    assert lab.run("kubectl get pods -n default").output != system


def test_a_context_namespace_is_where_new_objects_go_and_helm_looks(lab: LabSession) -> None:
    lab.run("kubectl create namespace team-a")
    lab.run("kubectl config set-context --current --namespace=team-a")
    assert lab.run("kubectl create configmap settings --from-literal=a=b").output == (
        "configmap/settings created"
    )
    assert lab.run("kubectl get configmap settings -n team-a -o name").output == (
        "configmap/settings"
    )
    assert lab.run("kubectl get configmap settings -n default").exit_code == 1
    assert len(lab.run("helm list").output.split("\n")) == 1  # no release in team-a
    lab.run("kubectl config set-context --current --namespace=gpu-operator")
    assert [row.split()[:2] for row in lab.run("helm list").output.split("\n")[1:]] == [
        ["gpu-operator", "gpu-operator"]
    ]


def test_the_kubeconfig_is_a_hidden_file_in_the_home_folder(lab: LabSession) -> None:
    assert ".kube" not in lab.run("ls").output
    assert ".kube" in lab.run("ls -a").output.split()
    assert lab.run("ls ~/.kube").output == "config"
    assert lab.run("ls -l ~/.kube/config").output.startswith("-rw------- 1 admin admin ")
    shown = lab.run("cat ~/.kube/config").output
    assert shown == kubeconfig.starting_text().rstrip("\n")
    assert "current-context: kubernetes-admin@dgx-cluster" in shown
    assert ".kube" not in lab.run("echo *").output


def test_a_kubeconfig_removed_leaves_kubectl_knocking_on_localhost_8080(
    lab: LabSession,
) -> None:
    lab.run("cp ~/.kube/config saved.yaml")
    lab.run("rm ~/.kube/config")
    result = lab.run("kubectl get nodes")
    assert result.exit_code == 1
    lines = result.output.split("\n")
    assert lines[-1] == REFUSED
    assert len(lines) == 6
    assert re.fullmatch(r"E\d{4} [\d:.]+ +\d+ memcache.go:265\] \"Unhandled Error\" .+", lines[0])
    assert lab.run("kubectl create namespace x").output == REFUSED
    assert lab.run("kubectl get nodes --kubeconfig saved.yaml").exit_code == 0
    assert lab.run("KUBECONFIG=saved.yaml kubectl get nodes").exit_code == 0
    assert lab.run("kubectl version --client").exit_code == 0


def test_a_missing_kubeconfig_flag_file_is_kubectls_stat_error(lab: LabSession) -> None:
    result = lab.run("kubectl get nodes --kubeconfig other.yaml")
    assert (result.exit_code, result.output) == (
        1,
        "error: stat other.yaml: no such file or directory",
    )


def test_a_server_nothing_answers_on_times_out_in_kubectls_words(lab: LabSession) -> None:
    lab.run("kubectl config set-cluster dgx-cluster --server=https://10.0.0.99:6443")
    result = lab.run("kubectl create namespace x")
    assert (result.exit_code, result.output) == (
        1,
        "Unable to connect to the server: dial tcp 10.0.0.99:6443: i/o timeout",
    )


def test_a_service_account_token_in_the_kubeconfig_is_that_account_to_the_server(
    lab: LabSession,
) -> None:
    lab.run("kubectl create namespace dev")
    lab.run("kubectl create serviceaccount ci -n dev")
    lab.run('kubectl config set-credentials ci --token="$(kubectl create token ci -n dev)"')
    lab.run("kubectl config set-context ci --cluster=dgx-cluster --user=ci --namespace=dev")
    assert lab.run("kubectl --context ci auth whoami").output.split("\n")[1].split() == [
        "Username",
        "system:serviceaccount:dev:ci",
    ]
    refused = lab.run("kubectl --context ci get pods")
    assert refused.output == (
        'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:dev:ci" '
        'cannot list resource "pods" in API group "" in the namespace "dev"'
    )
    assert lab.run("kubectl --context ci auth can-i list pods").output == "no"
    lab.run("kubectl create role reader -n dev --verb=list --resource=pods")
    lab.run("kubectl create rolebinding ci -n dev --role=reader --serviceaccount=dev:ci")
    assert lab.run("kubectl --context ci get pods").output == "No resources found in dev namespace."
    assert lab.run("kubectl --context ci auth can-i list pods").output == "yes"
    assert lab.run("kubectl --context ci get pods --as=admin").output.startswith(
        'Error from server (Forbidden): users "admin" is forbidden: User '
        '"system:serviceaccount:dev:ci" cannot impersonate'
    )
    lab.run("kubectl delete serviceaccount ci -n dev")
    assert lab.run("kubectl --context ci get pods").output == (
        "error: You must be logged in to the server (Unauthorized)"
    )


def test_a_user_with_neither_certificate_nor_token_is_the_anonymous_user(lab: LabSession) -> None:
    lab.run("kubectl config set-credentials nobody --username=a --password=b")
    result = lab.run("kubectl get nodes --user nobody")
    assert (result.exit_code, result.output) == (
        1,
        'Error from server (Forbidden): nodes is forbidden: User "system:anonymous" cannot list '
        'resource "nodes" in API group "" at the cluster scope',
    )
    assert lab.run("kubectl auth whoami --user nobody -o jsonpath={.status.userInfo}").output == (
        '{"groups":["system:unauthenticated"],"username":"system:anonymous"}'
    )


def test_a_rolebindings_own_user_flag_names_a_subject_not_a_kubeconfig_user(
    lab: LabSession,
) -> None:
    result = lab.run("kubectl create rolebinding r --clusterrole=view --user=bob")
    assert result.output == "rolebinding.rbac.authorization.k8s.io/r created"
    assert lab.run("kubectl get nodes --user=bob").output == (
        'error: auth info "bob" does not exist'
    )


def test_a_lab_saved_before_the_kubeconfig_gets_one_when_loaded() -> None:
    old = {"seed": 0, "files": {"notes.txt": "hi"}}
    assert HostState.from_json(old).files == {
        "notes.txt": "hi",
        kubeconfig.NAME: kubeconfig.starting_text(),
        **HOME_FILES,
    }
    removed = {**old, "version": 2}
    assert kubeconfig.NAME not in HostState.from_json(removed).files
