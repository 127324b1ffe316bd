"""kubectl explain: the real kubectl reads the apiserver's OpenAPI v3 schemas, and the lab's
kubectl prints the same from the same schemas."""

from __future__ import annotations

import shlex
from types import SimpleNamespace

import pytest

from simulators.cluster.sample import sample_cluster
from simulators.lab import kubeconfig, kubectl
from simulators.lab.tool import Context
from simulators.lab.world import HostState
from tests.cluster_server import RunningServer

COMMANDS = [
    "explain pods",
    "explain pods.spec.containers",
    "explain pod.spec.containers.imagePullPolicy",
    "explain deployments --recursive",
    "explain deployments.apps.spec.strategy",
    "explain nodes.status",
    "explain svc.spec.ports.targetPort",
    "explain priorityclasses",
    "explain cronjobs.spec.jobTemplate",
    "explain clusterrolebinding.subjects",
    "explain queues",
    "explain queues.spec --recursive",
    "explain podgroups.spec",
    "explain trainingworkloads",
    "explain foos",
    "explain",
]


def lab_kubectl(line: str) -> tuple[int, str]:
    world = SimpleNamespace(
        api=sample_cluster(0),
        state=HostState.holding({kubeconfig.NAME: kubeconfig.starting_text()}),
    )
    result = kubectl.run(Context(world=world), shlex.split(line))  # type: ignore[arg-type]
    return result.code, result.text.rstrip("\n")


@pytest.mark.parametrize("line", COMMANDS)
def test_the_labs_explain_prints_what_the_real_kubectl_prints(
    sample_server: RunningServer, line: str
) -> None:
    real = sample_server.kubectl(*shlex.split(line))
    code, text = lab_kubectl(line)
    assert (code != 0) == (real.returncode != 0)
    assert text == (real.stdout + real.stderr).rstrip("\n")


def test_explain_describes_a_field_with_its_enum(sample_server: RunningServer) -> None:
    real = sample_server.kubectl("explain", "pods.spec.containers.imagePullPolicy")
    assert real.returncode == 0, real.stderr
    assert real.stdout.startswith(
        "KIND:       Pod\nVERSION:    v1\n\nFIELD: imagePullPolicy <string>"
    )
    assert "ENUM:\n    Always\n    IfNotPresent\n    Never" in real.stdout


def test_explain_reads_kai_schedulers_queue_schema(sample_server: RunningServer) -> None:
    real = sample_server.kubectl("explain", "queues.spec.resources.gpu")
    assert real.returncode == 0, real.stderr
    assert real.stdout.startswith(
        "GROUP:      scheduling.run.ai\nKIND:       Queue\nVERSION:    v2"
    )
    assert "overQuotaWeight\t<number>" in real.stdout


def test_a_field_that_does_not_exist_is_named(sample_server: RunningServer) -> None:
    real = sample_server.kubectl("explain", "pods.spec.contianers")
    assert real.returncode == 1
    assert real.stderr.strip() == 'error: field "contianers" does not exist'
    assert lab_kubectl("explain pods.spec.contianers") == (
        1,
        'KIND:       Pod\nVERSION:    v1\n\nerror: field "contianers" does not exist',
    )
