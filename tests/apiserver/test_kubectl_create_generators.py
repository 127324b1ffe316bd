"""The real kubectl's typed requests against the apiserver: every ``create`` generator (kubectl
1.36 sends them as protobuf), the kinds every cluster has, ``auth can-i``, and the image-pull
ticket solved with its answer key."""

from __future__ import annotations

import base64
import json
import shlex
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from simulators.cluster.unsupported import limit
from simulators.lab import tickets
from tests.cluster_server import RunningServer, start_cluster_server


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> RunningServer:
    path: Path = tmp_path_factory.mktemp("generators")
    with start_cluster_server("sample", path) as running:
        yield running  # type: ignore[misc]


def _tls_pair(folder: Path) -> tuple[Path, Path]:
    """A certificate and key made by the cryptography package (kubectl checks they pair)."""
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "lab.local")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "tls.crt", folder / "tls.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


GENERATORS = [
    (["namespace", "scratch"], "namespace/scratch created"),
    (["secret", "generic", "s1", "--from-literal=a=b"], "secret/s1 created"),
    (
        [
            "secret",
            "docker-registry",
            "pull",
            "--docker-server=nvcr.io",
            "--docker-username=$oauthtoken",
            "--docker-password=nvapi-x",
        ],
        "secret/pull created",
    ),
    (["configmap", "c1", "--from-literal=x=y"], "configmap/c1 created"),
    (["deployment", "web", "--image=nginx", "--replicas=2", "--port=80"], "deployment.apps/web"),
    (["job", "once", "--image=busybox", "--", "echo", "hi"], "job.batch/once created"),
    (["cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *"], "cronjob.batch/tick"),
    (["service", "clusterip", "svc-a", "--tcp=80:8080"], "service/svc-a created"),
    (["service", "nodeport", "svc-b", "--tcp=80:8080"], "service/svc-b created"),
    (["service", "loadbalancer", "svc-c", "--tcp=80"], "service/svc-c created"),
    (["service", "externalname", "svc-d", "--external-name=a.example.com"], "service/svc-d"),
    (["serviceaccount", "robot"], "serviceaccount/robot created"),
    (["quota", "small", "--hard=pods=20,requests.cpu=2"], "resourcequota/small created"),
    (["priorityclass", "urgent", "--value=1000"], "priorityclass.scheduling.k8s.io/urgent"),
    (["role", "reader", "--verb=get,list", "--resource=pods"], "role.rbac.authorization.k8s.io"),
    (["rolebinding", "rb", "--role=reader", "--user=alice"], "rolebinding.rbac"),
    (["clusterrole", "creader", "--verb=get", "--resource=nodes"], "clusterrole.rbac"),
    (["clusterrolebinding", "crb", "--clusterrole=creader", "--user=bob"], "clusterrolebinding"),
    (["ingress", "ing", "--rule=foo.com/bar=svc-a:80"], "ingress.networking.k8s.io/ing created"),
    (["poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=1"], "policy/pdb"),
]


@pytest.mark.parametrize(("args", "said"), GENERATORS, ids=[" ".join(g[0][:2]) for g in GENERATORS])
def test_every_create_generator_works_with_the_real_kubectl(
    server: RunningServer, args: list[str], said: str
) -> None:
    assert said in ok(server.kubectl("create", *args))


def test_the_created_objects_read_back_as_kubectl_built_them(server: RunningServer) -> None:
    ok(server.kubectl("create", "deployment", "readback", "--image=nginx:1.27", "--replicas=0"))
    deployment = json.loads(ok(server.kubectl("get", "deploy", "readback", "-o", "json")))
    assert deployment["spec"]["replicas"] == 0  # a pointer's zero survives protobuf
    assert deployment["spec"]["strategy"]["type"] == "RollingUpdate"
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert (container["name"], container["image"]) == ("nginx", "nginx:1.27")
    ok(server.kubectl("create", "secret", "generic", "readback", "--from-literal=token=s3cret"))
    secret = json.loads(ok(server.kubectl("get", "secret", "readback", "-o", "json")))
    assert base64.b64decode(secret["data"]["token"]) == b"s3cret"


def test_create_secret_tls_sends_the_pair(server: RunningServer, tmp_path: Path) -> None:
    cert, key = _tls_pair(tmp_path)
    said = ok(server.kubectl("create", "secret", "tls", "site", f"--cert={cert}", f"--key={key}"))
    assert said == "secret/site created\n"
    secret = json.loads(ok(server.kubectl("get", "secret", "site", "-o", "json")))
    assert secret["type"] == "kubernetes.io/tls"
    assert base64.b64decode(secret["data"]["tls.crt"]) == cert.read_bytes()


def test_create_token_prints_a_jwt_for_the_service_account(server: RunningServer) -> None:
    token = ok(server.kubectl("create", "token", "default", "--duration=1h")).strip()
    _header, payload, _signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["sub"] == "system:serviceaccount:default:default"
    assert claims["exp"] - claims["iat"] == 3600
    missing = server.kubectl("create", "token", "nobody")
    assert missing.returncode == 1
    assert 'serviceaccounts "nobody" not found' in missing.stderr


def test_get_priorityclasses_lists_the_system_and_runai_classes(server: RunningServer) -> None:
    lines = ok(server.kubectl("get", "priorityclasses")).splitlines()
    assert lines[0].split() == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["system-node-critical"][1:3] == ["2000001000", "false"]
    assert rows["system-cluster-critical"][1] == "2000000000"
    assert {name: rows[name][1] for name in ("train", "build", "inference")} == {
        "train": "50",
        "build": "100",
        "inference": "125",
    }
    assert rows["inference"][-1] == "PreemptLowerPriority"


def test_auth_can_i_answers_from_the_rbac_objects(server: RunningServer) -> None:
    assert ok(server.kubectl("auth", "can-i", "delete", "nodes")) == "yes\n"
    listing = ok(server.kubectl("auth", "can-i", "--list")).splitlines()
    assert listing[0].split() == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"]
    assert listing[1].split() == ["*.*", "[]", "[]", "[*]"]
    assert "selfsubjectaccessreviews.authorization.k8s.io" in "\n".join(listing)
    # Without the kubeadm binding the admin is only an authenticated user.
    ok(server.kubectl("delete", "clusterrolebinding", "kubeadm:cluster-admins"))
    try:
        denied = server.kubectl("auth", "can-i", "delete", "nodes")
        assert (denied.returncode, denied.stdout) == (1, "no\n")
    finally:
        ok(
            server.kubectl(
                "create",
                "clusterrolebinding",
                "kubeadm:cluster-admins",
                "--clusterrole=cluster-admin",
                "--group=kubeadm:cluster-admins",
            )
        )
    assert ok(server.kubectl("auth", "can-i", "delete", "nodes")) == "yes\n"


def test_the_image_pull_ticket_is_solved_with_the_real_kubectl(tmp_path: Path) -> None:
    definition = tickets.load_ticket("image-pull")
    with start_cluster_server("image-pull", tmp_path, timeout=120) as server:

        def done() -> dict[str, bool]:
            with urllib.request.urlopen(f"{server.url}/lab/v1/checklist", timeout=10) as reply:
                return {item["id"]: item["done"] for item in json.load(reply)["items"]}

        assert not all(done().values())
        for line in definition.answer_key:
            words = shlex.split(line)
            if words[0] != "kubectl":
                continue  # runai and cat are the lab's own tools
            ok(server.kubectl(*words[1:]))
        for _ in range(60):
            if all(done().values()):
                break
            time.sleep(1)
        assert all(done().values()), done()


@pytest.mark.parametrize(
    ("args", "verb"),
    [
        (["port-forward", "-n", "runai", "deploy/runai-scheduler", "8080:80"], "port-forward"),
        (["attach", "-n", "runai", "deploy/runai-scheduler"], "attach"),
        (["cp", "-n", "runai", "runai-scheduler-7d4b9c6f58-x2k9p:/etc/hosts", "hosts"], "cp"),
        (["debug", "-n", "runai", "runai-scheduler-7d4b9c6f58-x2k9p", "--image=busybox"], "debug"),
        (["run", "tmp", "--rm", "-i", "--image=busybox", "--restart=Never", "--", "sh"], "run -i"),
    ],
    ids=["port-forward", "attach", "cp", "debug", "run -i"],
)
def test_what_the_lab_cannot_serve_ends_with_its_limit(
    server: RunningServer, args: list[str], verb: str
) -> None:
    result = server.kubectl(*args, timeout=30)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].endswith(limit(verb))
