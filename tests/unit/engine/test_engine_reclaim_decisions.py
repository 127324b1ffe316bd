"""Reclaim and preempt decisions of 24 seeded scenes, written out (in reclaim_decisions.json).

Each scene (`reclaim_scenes.readable_outcome`): borrowers fill a pool, then owners and
higher-priority jobs arrive. The expected lines are the first cycle's decisions after they
arrive — who was pipelined where, whose pods were evicted, by whom and why (Reclaimed or
Preempted) — and, after two more cycles, every owner's and high-priority job's status and
every borrower that is no longer running.

They were recorded from the engine as it was verified against the decisions of the engine
before the reclaim speed-up (commit 4752a58). A mismatch means a scheduling decision changed:
read the diff, and change the lines only when the new decision is the one docs/engine.md asks
for.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.engine.reclaim_scenes import bench_shaped_summary, readable_outcome

# The recorded lines, one list per scene seed (kept as data: 1,300 lines of them).
RECORDED = Path(__file__).with_name("reclaim_decisions.json")
EXPECTED: dict[int, tuple[str, ...]] = {
    int(seed): tuple(lines) for seed, lines in json.loads(RECORDED.read_text())["scenes"].items()
}

EXPECTED_BENCH_SHAPED: dict[tuple[int, int], str] = {
    (40, 10): "Pipelined 10, Releasing 160, Running 160",
    (24, 6): "Pending 1, Pipelined 5, Releasing 80, Running 112",
}


@pytest.mark.parametrize("seed", sorted(EXPECTED))
def test_a_scene_makes_the_recorded_decisions(seed: int) -> None:
    assert readable_outcome(seed) == EXPECTED[seed]


@pytest.mark.parametrize(("nodes", "gangs"), sorted(EXPECTED_BENCH_SHAPED))
def test_the_benchmark_shaped_reclaim_makes_the_recorded_decisions(nodes: int, gangs: int) -> None:
    assert bench_shaped_summary(nodes, gangs) == EXPECTED_BENCH_SHAPED[(nodes, gangs)]
