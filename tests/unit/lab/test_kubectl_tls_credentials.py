"""Which PEM files kubectl and curl take for the cluster's CA and the admin's credentials
(kubeconfig.holds_ca, connection's client certificate checks), and the namespace a request
for a namespace itself is authorized in. The wordings are kubectl 1.36's and curl's, measured;
the plain-http answers per verb are compared with the real kubectl in
tests/oracle/test_kubeconfig_connection_oracle.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulators.lab import LabSession, kubeconfig
from simulators.lab.kubectl.connection import UNKNOWN_AUTHORITY

API = "https://10.0.0.10:6443"
NS = "runai-team-ml"
# A certificate the cluster's CA did not sign, and its key: a real P-256 pair, which Go's
# tls.X509KeyPair takes as a pair (made-up PEM blocks it would not parse).
FILES = Path(__file__).resolve().parents[2] / "oracle" / "files"
OTHER_CERT = (FILES / "tls.crt").read_text(encoding="utf-8")
OTHER_KEY = (FILES / "tls.key").read_text(encoding="utf-8")
INSECURE_WITH_CA = (
    "error: specifying a root certificates file with the insecure flag is not allowed"
)
LOGGED_IN = "error: You must be logged in to the server (Unauthorized)"


@pytest.fixture
def lab() -> LabSession:
    lab = LabSession.new("ci-service-account", 7)
    files = lab.world.state.files
    files["ca.crt"] = kubeconfig.ca_pem()
    files["admin.crt"] = kubeconfig.admin_certificate_pem()
    files["admin.key"] = kubeconfig.admin_key_pem()
    files["other.crt"] = OTHER_CERT
    files["other.key"] = OTHER_KEY
    files["bundle.crt"] = OTHER_CERT + kubeconfig.ca_pem()
    return lab


def test_holds_ca_finds_the_clusters_ca_among_a_bundles_certificates() -> None:
    assert kubeconfig.holds_ca(OTHER_CERT + "\n" + kubeconfig.ca_pem())
    assert kubeconfig.holds_ca(kubeconfig.ca_pem().replace("\n", "\r\n"))
    assert not kubeconfig.holds_ca(OTHER_CERT)
    assert not kubeconfig.holds_ca("not a certificate")


def test_a_ca_bundle_holding_the_clusters_ca_is_trusted_by_kubectl_and_by_curl(
    lab: LabSession,
) -> None:
    line = f"kubectl --kubeconfig=/dev/null -s {API} --certificate-authority=bundle.crt"
    who = lab.run(line + " --token=$(kubectl create token default) auth whoami")
    assert who.exit_code == 0 and "system:serviceaccount:default:default" in who.output
    version = lab.run(f"curl -s --cacert bundle.crt {API}/version")
    assert json.loads(version.output)["major"] == "1"


def test_a_file_without_the_clusters_ca_still_fails_verification_in_both(
    lab: LabSession,
) -> None:
    line = f"kubectl --kubeconfig=/dev/null -s {API} --certificate-authority=other.crt"
    refused = lab.run(line + " auth whoami")
    assert refused.exit_code == 1
    assert refused.output == f"Unable to connect to the server: {UNKNOWN_AUTHORITY}"
    curl = lab.run(f"curl --cacert other.crt {API}/version")
    assert curl.exit_code == 60
    assert curl.output.startswith("curl: (60) SSL certificate problem")


def test_a_kubeconfig_cluster_with_a_ca_and_insecure_skip_tls_verify_is_refused(
    lab: LabSession,
) -> None:
    lab.run(
        "sed -i 's/    server:/    insecure-skip-tls-verify: true\\n    server:/' ~/.kube/config"
    )
    for verb in ("get pods", "auth whoami", "version"):
        result = lab.run(f"kubectl {verb}")
        assert (result.output, result.exit_code) == (INSECURE_WITH_CA, 1), verb


def test_the_insecure_flag_beside_a_ca_flag_is_refused_but_alone_replaces_the_ca(
    lab: LabSession,
) -> None:
    both = lab.run("kubectl get pods --insecure-skip-tls-verify --certificate-authority=ca.crt")
    assert (both.output, both.exit_code) == (INSECURE_WITH_CA, 1)
    assert lab.run("kubectl get ns default --insecure-skip-tls-verify -o name").output == (
        "namespace/default"
    )


def test_missing_client_certificate_files_are_clientcmds_configuration_errors(
    lab: LabSession,
) -> None:
    one = lab.run("kubectl get pods --client-certificate=nope.crt --client-key=admin.key")
    assert one.exit_code == 1
    assert one.output == (
        "error: unable to read client-cert nope.crt for kubernetes-admin due to open nope.crt:"
        " no such file or directory"
    )
    both = lab.run("kubectl get pods --client-certificate=nope.crt --client-key=nope.key")
    assert both.output == (
        "Error in configuration: \n"
        "* unable to read client-cert nope.crt for kubernetes-admin due to open nope.crt:"
        " no such file or directory\n"
        "* unable to read client-key nope.key for kubernetes-admin due to open nope.key:"
        " no such file or directory"
    )
    alone = lab.run(f"kubectl --kubeconfig=/dev/null -s {API} --insecure-skip-tls-verify"
                    " --client-certificate=admin.crt auth whoami")  # fmt: skip
    assert alone.output == (
        "error: client-key-data or client-key must be specified for  to use the clientCert"
        " authentication method."
    )


def test_the_admins_certificate_and_key_as_files_act_as_the_admin(lab: LabSession) -> None:
    result = lab.run("kubectl auth whoami --client-certificate=admin.crt --client-key=admin.key")
    assert result.exit_code == 0 and "kubernetes-admin" in result.output


def test_a_certificate_the_cluster_did_not_sign_is_unauthorized(lab: LabSession) -> None:
    result = lab.run("kubectl get pods --client-certificate=other.crt --client-key=other.key")
    assert (result.output, result.exit_code) == (LOGGED_IN, 1)


def test_beside_a_certificate_the_cluster_did_not_sign_a_token_authenticates(
    lab: LabSession,
) -> None:
    # kube-apiserver's union authenticator goes on past x509's error to the bearer token.
    line = "kubectl auth whoami --client-certificate=other.crt --client-key=other.key"
    who = lab.run(line + " --token=$(kubectl create token default)").output
    assert "system:serviceaccount:default:default" in who
    assert lab.run(line + " --token=bogus").output == LOGGED_IN


def test_a_certificate_file_without_pem_or_a_key_that_does_not_match_fails_the_handshake(
    lab: LabSession,
) -> None:
    lab.run("echo garbage > junk.txt")
    cases = {
        "junk.txt admin.key": "tls: failed to find any PEM data in certificate input",
        "admin.crt junk.txt": "tls: failed to find any PEM data in key input",
        "admin.crt other.key": "tls: private key type does not match public key type",
    }
    for pair, why in cases.items():
        cert, key = pair.split()
        result = lab.run(f"kubectl auth whoami --client-certificate={cert} --client-key={key}")
        lines = result.output.split("\n")
        assert result.exit_code == 1
        assert len(lines) == 2, result.output
        assert lines[0].endswith(
            f'cert_rotation.go:172] "Loading client cert failed" err="{why}" key="key"'
        )
        assert lines[1] == f"Unable to connect to the server: {why}"


def _granted(lab: LabSession) -> None:
    """A Role in the namespace NS granting `get` on namespaces to the default account there."""
    lab.run(f"kubectl create role ns-reader --verb=get --resource=namespaces -n {NS}")
    lab.run(
        f"kubectl create rolebinding ns-reader --role=ns-reader"
        f" --serviceaccount={NS}:default -n {NS}"
    )
    lab.run(f"T=$(kubectl create token default -n {NS})")


def test_a_role_in_a_namespace_lets_curl_get_that_namespace_itself(lab: LabSession) -> None:
    _granted(lab)
    bearer = '-H "Authorization: Bearer $T"'
    own = json.loads(lab.run(f"curl -sk {bearer} {API}/api/v1/namespaces/{NS}").output)
    assert own["kind"] == "Namespace" and own["metadata"]["name"] == NS
    other = json.loads(lab.run(f"curl -sk {bearer} {API}/api/v1/namespaces/default").output)
    assert other["code"] == 403
    assert other["message"] == (
        'namespaces "default" is forbidden: User "system:serviceaccount:runai-team-ml:default"'
        ' cannot get resource "namespaces" in API group "" in the namespace "default"'
    )


def test_a_role_in_a_namespace_lets_kubectl_get_that_namespace_and_can_i_agrees(
    lab: LabSession,
) -> None:
    _granted(lab)
    line = f"kubectl --kubeconfig=/dev/null -s {API} --insecure-skip-tls-verify --token=$T"
    got = lab.run(f"{line} get namespace {NS} -o name")
    assert (got.output, got.exit_code) == (f"namespace/{NS}", 0)
    assert lab.run(f"{line} get namespace default -o name").exit_code == 1
    can = lab.run(f"{line} auth can-i get namespace/{NS} -n {NS}")
    assert can.output == "Warning: resource 'namespaces' is not namespace scoped\n\nyes"
    cannot = lab.run(f"{line} auth can-i get namespace/default -n default")
    assert cannot.output.endswith("no") and cannot.exit_code == 1


def test_curl_with_a_certificate_the_cluster_did_not_sign_gets_kube_apiservers_401(
    lab: LabSession,
) -> None:
    # kube-apiserver requests client certificates without verifying them in the handshake
    # (tls.RequestClientCert): its x509 authenticator refuses one, and the union goes on to
    # the bearer token, never to the anonymous user.
    cert = "--cert other.crt --key other.key"
    refused = json.loads(lab.run(f"curl -sk {cert} {API}/api").output)
    assert (refused["code"], refused["message"]) == (401, "Unauthorized")
    lab.run(f"T=$(kubectl create token default -n {NS})")
    pods = lab.run(f'curl -sk {cert} -H "Authorization: Bearer $T" {API}/api/v1/nodes')
    assert json.loads(pods.output)["message"].startswith(
        f'nodes is forbidden: User "system:serviceaccount:{NS}:default"'
    )
    mismatched = lab.run(f"curl -sSk --cert admin.crt --key other.key {API}/api")
    assert (mismatched.exit_code, mismatched.output) == (
        58,
        "curl: (58) Private key does not match the certificate public key",
    )


@pytest.mark.parametrize(
    ("cert", "key", "said"),
    [
        # Measured with curl 7.88.1 (OpenSSL 3.0.19) against a TLS server, keys of the kinds.
        ("other.crt", "stray.key", "unable to set private key file: 'stray.key' type PEM"),
        ("admin.crt", "rsa.key", "unable to set private key file: 'rsa.key' type PEM"),
        ("other.crt", "rsa.key", "Private key does not match the certificate public key"),
        ("other.crt", "admin.key", "Private key does not match the certificate public key"),
    ],
)
def test_curl_refuses_a_key_that_is_not_its_certificates_in_openssls_words(
    lab: LabSession, cert: str, key: str, said: str
) -> None:
    lab.world.state.files["stray.key"] = (FILES / "other.key").read_text(encoding="utf-8")
    lab.world.state.files["rsa.key"] = (FILES / "rsa.key").read_text(encoding="utf-8")
    refused = lab.run(f"curl -sSk --cert {cert} --key {key} {API}/api")
    assert (refused.exit_code, refused.output) == (58, f"curl: (58) {said}")
