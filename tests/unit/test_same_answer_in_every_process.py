"""What a learner relies on being the same tomorrow: an attempt's option order, a scenario's
choice order and the simulator's outcome are the same in a fresh interpreter with another hash
seed (a set or a str hash would pass a same-process check and still differ between servers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.cluster_server import REPO_ROOT

PROBE = """
import json, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studysite.settings")
import django
django.setup()
from studysite.study import quiz, scenarios
from studysite.study.content import load_study
STUDY = load_study()
from simulators.engine.quota import simulate_quota
from tests.unit.engine.test_engine_quota import THREE
orders = {
    f"{q.id}@{seed}": [o.id for o in quiz.option_order(q, seed)]
    for q in STUDY.questions
    for seed in (1, 7)
}
choices = {s.id: [c.id for c in scenarios.choice_order(s, "learner-1")] for s in STUDY.scenarios}
outcome = repr(simulate_quota(THREE))
print(json.dumps([orders, choices, outcome]))
"""


def _probe(hash_seed: str) -> list[object]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_orders_and_outcomes_are_the_same_under_two_hash_seeds() -> None:
    first, second = _probe("1"), _probe("4242")
    assert first == second
    orders = first[0]
    assert isinstance(orders, dict) and len(orders) >= 56
