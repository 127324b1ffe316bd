"""The fair-share division reports its own working, and the simulator's limits live here."""

from __future__ import annotations

import pytest

from simulators.engine import (
    MAX_DEPARTMENTS,
    MAX_WEIGHT,
    DepartmentSpec,
    EngineError,
    FairShareTrace,
    PoolSpec,
    ProjectSpec,
    QuotaScenario,
    ShareQueue,
    fair_share,
    simulate_quota,
)

GUIDE = [
    ShareQueue("team-a", deserved=8, over_quota_weight=1, request=4),
    ShareQueue("team-b", deserved=8, over_quota_weight=2, request=16),
    ShareQueue("team-c", deserved=8, over_quota_weight=1, request=10),
]


def test_a_trace_records_quota_rounds_rounding_and_leftovers() -> None:
    trace = FairShareTrace()
    shares = fair_share(24, GUIDE, trace=trace)
    assert shares == fair_share(24, GUIDE)
    (division,) = trace.divisions or ()
    assert [g.given for g in division.deserved] == [4, 8, 8]
    assert division.after_deserved == 4
    (first,) = division.rounds
    assert first.available == 4 and first.weight_sum == 3 and first.left == 1
    offers = {o.queue: o for o in first.offers}
    assert offers["team-b"].given == 2 and offers["team-b"].remembered == pytest.approx(2 / 3)
    assert offers["team-c"].given == 1 and offers["team-c"].remembered == pytest.approx(1 / 3)
    assert [(g.queue, g.given) for g in division.leftovers] == [("team-b", 1.0)]
    assert division.shares == shares == {"team-a": 4, "team-b": 11, "team-c": 9}


def test_a_trace_lists_the_pool_before_each_department() -> None:
    trace = FairShareTrace()
    fair_share(
        16,
        [
            ShareQueue("research", deserved=8),
            ShareQueue("product", deserved=8),
            ShareQueue("llm", parent="research", deserved=4, request=12),
            ShareQueue("serve", parent="product", deserved=8, request=2),
        ],
        trace=trace,
    )
    assert [d.parent for d in trace.divisions or ()] == [None, "research", "product"]


def test_an_over_subscribed_division_says_so() -> None:
    trace = FairShareTrace()
    fair_share(
        10,
        [ShareQueue("a", deserved=8, request=8), ShareQueue("b", deserved=8, request=8)],
        trace=trace,
    )
    (division,) = trace.divisions or ()
    assert division.oversubscribed and division.rounds == []


def test_the_scenario_limits_are_the_engines() -> None:
    pools = (PoolSpec("p", 8),)
    with pytest.raises(EngineError, match="over_quota_weight: at most"):
        simulate_quota(QuotaScenario(pools, (ProjectSpec("a", over_quota_weight=MAX_WEIGHT + 1),)))
    too_many = tuple(DepartmentSpec(f"d{i}") for i in range(MAX_DEPARTMENTS + 1))
    with pytest.raises(EngineError, match="departments: at most"):
        simulate_quota(QuotaScenario(pools, (ProjectSpec("a"),), too_many))
