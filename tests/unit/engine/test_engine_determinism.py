"""The same input gives the same decisions in another process with another hash seed.

Sets and dicts keyed by strings iterate in an order that depends on PYTHONHASHSEED, so a
decision that leaked such an order would differ between two runs of the site's processes;
running twice in one process could never show it.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from simulators.engine import ShareQueue, fair_share
from tests.unit.engine.reclaim_scenes import readable_outcome

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SEEDS = range(6)


def random_tree(seed: int) -> tuple[float, list[ShareQueue]]:
    rng = random.Random(seed)
    queues: list[ShareQueue] = []
    for d in range(rng.randint(1, 4)):
        queues.append(ShareQueue(f"d{d}", deserved=rng.choice([0, 4, 8, None])))
        for p in range(rng.randint(1, 5)):
            queues.append(
                ShareQueue(
                    f"d{d}p{p}",
                    parent=f"d{d}",
                    deserved=rng.choice([0, 1, 2, 3, 5, None]),
                    over_quota_weight=rng.choice([0, 1, 2, 3]),
                    limit=rng.choice([None, None, 4, 9]),
                    priority=rng.choice([0, 0, 1]),
                    request=rng.randint(0, 12),
                )
            )
    return float(rng.randint(0, 40)), queues


def decisions() -> dict[str, object]:
    return {
        "fair_share": [fair_share(*random_tree(seed)) for seed in range(40)],
        "scenes": [list(readable_outcome(seed)) for seed in SEEDS],
    }


def decisions_in_a_fresh_process(hash_seed: str) -> dict[str, object]:
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from tests.unit.engine.test_engine_determinism import decisions;"
        "print(json.dumps(decisions()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        check=True,
    )
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_two_processes_with_other_hash_seeds_make_the_same_decisions() -> None:
    here = json.loads(json.dumps(decisions()))
    assert decisions_in_a_fresh_process("1") == here
    assert decisions_in_a_fresh_process("2") == here
