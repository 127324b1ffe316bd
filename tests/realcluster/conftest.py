"""Real-cluster mode against ``python -m simulators apiserver --scheduler external``.

The apiserver stands in for a real cluster: the scheduler (``python -m simulators scheduler``)
runs as its own process against it, and the tests drive it with the official client, as a user
of a real cluster would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.cluster_server import REPO_ROOT, RunningServer, start_cluster_server

WAIT_SECONDS = 60.0


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "realcluster: the scheduler and the kube backend against the apiserver"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/realcluster/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.realcluster)


def wait_for[T](what: str, probe: Callable[[], T | None], timeout: float = WAIT_SECONDS) -> T:
    """Poll until ``probe`` returns something truthy; fail naming ``what`` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.2)


@dataclass
class SchedulerProcess:
    """``python -m simulators scheduler`` in the background, its output in a file."""

    identity: str
    process: subprocess.Popen[bytes]
    log_path: Path
    extra: list[str] = field(default_factory=list)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def bound(self) -> list[str]:
        """``namespace/name`` of every pod this process bound."""
        return [
            line.split(" bound ", 1)[1].split(" to ", 1)[0]
            for line in self.log().splitlines()
            if " bound " in line
        ]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@dataclass
class Cluster:
    """The apiserver, the official client on it, and the schedulers started on it."""

    server: RunningServer
    tmp_path: Path
    schedulers: list[SchedulerProcess] = field(default_factory=list)
    _client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self.server.client()
        return self._client

    def core(self) -> Any:
        from kubernetes import client

        return client.CoreV1Api(self.client)

    def custom(self) -> Any:
        from kubernetes import client

        return client.CustomObjectsApi(self.client)

    def start_scheduler(self, identity: str, *extra: str) -> SchedulerProcess:
        log_path = self.tmp_path / f"scheduler-{identity}-{len(self.schedulers)}.log"
        handle = log_path.open("wb")
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "simulators",
                "scheduler",
                "--kubeconfig",
                str(self.server.kubeconfig),
                "--identity",
                identity,
                "--lease-seconds",
                "3",
                "--resync-seconds",
                "1",
                *extra,
            ],
            cwd=REPO_ROOT,
            stdout=handle,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        handle.close()
        scheduler = SchedulerProcess(identity, process, log_path, list(extra))
        self.schedulers.append(scheduler)
        return scheduler

    # -- objects, through the official client ----------------------------------------
    def queue(
        self, name: str, quota: float, *, parent: str | None = None, limit: float = -1
    ) -> None:
        body: dict[str, Any] = {
            "apiVersion": "scheduling.run.ai/v2",
            "kind": "Queue",
            "metadata": {"name": name},
            "spec": {"resources": {"gpu": {"quota": quota, "limit": limit, "overQuotaWeight": 1}}},
        }
        if parent:
            body["spec"]["parentQueue"] = parent
        self.custom().create_cluster_custom_object("scheduling.run.ai", "v2", "queues", body)

    def podgroup(self, name: str, queue: str, min_member: int, *, preemptible: bool = True) -> None:
        body = {
            "apiVersion": "scheduling.run.ai/v2alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "minMember": min_member,
                "queue": queue,
                "preemptibility": "preemptible" if preemptible else "non-preemptible",
            },
        }
        self.custom().create_namespaced_custom_object(
            "scheduling.run.ai", "v2alpha2", "default", "podgroups", body
        )

    def pod(self, name: str, queue: str, gpus: int, *, group: str = "") -> None:
        body: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": {"runai/queue": queue}},
            "spec": {
                "schedulerName": "runai-scheduler",
                "terminationGracePeriodSeconds": 1,
                "containers": [
                    {
                        "name": "main",
                        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                        "resources": {"limits": {"nvidia.com/gpu": str(gpus)}},
                    }
                ],
            },
        }
        if group:
            body["metadata"]["annotations"] = {"pod-group-name": group}
        self.core().create_namespaced_pod("default", body)

    def node_of(self, name: str) -> str | None:
        from kubernetes.client.exceptions import ApiException

        try:
            pod = self.core().read_namespaced_pod(name, "default")
        except ApiException as error:
            if error.status == 404:
                return None
            raise
        return pod.spec.node_name  # type: ignore[no-any-return]

    def pods(self) -> list[Any]:
        return list(self.core().list_namespaced_pod("default").items)

    def events(self, name: str) -> list[Any]:
        return [
            e
            for e in self.core().list_namespaced_event("default").items
            if e.involved_object.name == name
        ]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """The sample cluster (three nodes of 8 GPUs) with no built-in runai-scheduler."""
    with start_cluster_server("sample", tmp_path, args=("--scheduler", "external")) as server:
        cluster = Cluster(server, tmp_path)
        try:
            yield cluster
        finally:
            for scheduler in cluster.schedulers:
                scheduler.stop()
