"""kubectl's connection flags over the kubeconfig (clientcmd's overrides): --server, --token,
--insecure-skip-tls-verify and --certificate-authority, and whom the API server then takes
the client for."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from simulators.lab.kubectl.connection import PLAIN_HTTP, UNKNOWN_AUTHORITY

SERVER = "https://10.0.0.10:6443"


@pytest.fixture
def lab() -> LabSession:
    lab = LabSession.new("ci-service-account", seed=3)
    lab.run("T=$(kubectl create token default); touch empty")
    return lab


def test_token_beside_the_admins_certificate_still_acts_as_the_admin(lab: LabSession) -> None:
    # kube-apiserver tries client certificates before bearer tokens (kubernetes/kubectl#1657).
    out = lab.run("kubectl --token=$T auth whoami").output
    assert "kubernetes-admin" in out and "serviceaccount" not in out


def test_token_with_its_own_server_and_no_kubeconfig_acts_as_the_service_account(
    lab: LabSession,
) -> None:
    line = f"kubectl --kubeconfig=/dev/null -s {SERVER} --insecure-skip-tls-verify --token=$T"
    out = lab.run(line + " auth whoami").output
    assert "system:serviceaccount:default:default" in out
    refused = lab.run(line + " get nodes")
    assert refused.exit_code == 1
    assert 'User "system:serviceaccount:default:default" cannot list resource "nodes"' in (
        refused.output
    )


def test_a_server_not_trusted_by_any_ca_fails_tls_verification(lab: LabSession) -> None:
    result = lab.run(f"kubectl --kubeconfig=empty --server={SERVER} --token=$T get pods")
    lines = result.output.split("\n")
    assert result.exit_code == 1
    assert lines[-1] == f"Unable to connect to the server: {UNKNOWN_AUTHORITY}"
    assert len(lines) == 6 and "memcache.go:265" in lines[0]


def test_the_clusters_ca_taken_from_the_kubeconfig_into_a_file_is_trusted(
    lab: LabSession,
) -> None:
    lab.run(
        "kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}'"
        " | base64 -d > ca.crt"
    )
    line = f"kubectl --kubeconfig=empty -s {SERVER} --certificate-authority=ca.crt --token=$T"
    assert "system:serviceaccount:default:default" in lab.run(line + " auth whoami").output
    lab.run("echo not-a-ca > other.crt")
    other = lab.run(line.replace("ca.crt", "other.crt") + " auth whoami").output
    assert other.endswith(UNKNOWN_AUTHORITY)
    missing = lab.run(line.replace("ca.crt", "nope.crt") + " get ns").output
    assert missing == (
        "error: unable to read certificate-authority nope.crt for  due to"
        " open nope.crt: no such file or directory"
    )


def test_a_server_without_a_scheme_is_https_only_with_tls_settings(lab: LabSession) -> None:
    secure = lab.run(
        "kubectl --kubeconfig=empty -s 10.0.0.10:6443 --insecure-skip-tls-verify get ns"
    )
    assert secure.exit_code == 1 and "system:anonymous" in secure.output
    plain = lab.run("kubectl --kubeconfig=empty -s 10.0.0.10:6443 get ns").output
    assert plain.split("\n")[-1] == PLAIN_HTTP
    assert lab.run("kubectl -s 10.0.0.10:6443 get nodes").output.startswith("NAME ")


def test_an_unknown_token_is_unauthorized_and_another_server_unreachable(lab: LabSession) -> None:
    line = f"kubectl --kubeconfig=empty -s {SERVER} --insecure-skip-tls-verify"
    bogus = lab.run(line + " --token=bogus get ns").output
    assert bogus == "error: You must be logged in to the server (Unauthorized)"
    far = lab.run("kubectl -s https://10.0.0.99:6443 get ns").output
    assert far.endswith("Unable to connect to the server: dial tcp 10.0.0.99:6443: i/o timeout")


def test_a_kubeconfig_user_with_a_token_and_a_certificate_is_the_certificates(
    lab: LabSession,
) -> None:
    lab.run("kubectl config set-credentials kubernetes-admin --token=$T")
    assert "kubernetes-admin" in lab.run("kubectl auth whoami").output
