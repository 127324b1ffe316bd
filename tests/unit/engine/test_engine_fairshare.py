"""Fair share, worked by hand from the design note's steps."""

from __future__ import annotations

import pytest

from simulators.engine import EngineError, ShareQueue, fair_share


def q(name: str, **fields: object) -> ShareQueue:
    values: dict[str, object] = {"request": 100.0}
    values.update(fields)
    return ShareQueue(name, **values)  # type: ignore[arg-type]


def test_it_gives_leftover_gpus_to_the_largest_remembered_fraction() -> None:
    # 10 GPUs, weights 1 and 2: offers 3.33 and 6.67, rounded down to 3 and 6.
    # The lost fractions are 0.33 and 0.67, so the one leftover GPU goes to b.
    shares = fair_share(10, [q("a", over_quota_weight=1), q("b", over_quota_weight=2)])
    assert shares == {"a": 3, "b": 7}


def test_it_breaks_a_leftover_tie_in_favour_of_the_oldest_queue() -> None:
    # 10 / 3 = 3.33 each: three lose 0.33; the leftover GPU goes to the first created.
    shares = fair_share(10, [q("c"), q("a"), q("b")])
    assert shares == {"c": 4, "a": 3, "b": 3}


def test_it_hands_out_a_fractional_remainder_after_whole_gpus() -> None:
    # 10.5 / 3 = 3.5 each → 3 each; 1.5 left: 1 to the oldest, then the 0.5 remainder.
    shares = fair_share(10.5, [q("a"), q("b"), q("c")])
    assert shares == {"a": 4, "b": 3.5, "c": 3}


def test_it_serves_deserved_quota_before_sharing_the_rest() -> None:
    # a only asks for 4 of its 6; b gets its 2 and then all 4 idle GPUs.
    shares = fair_share(10, [q("a", deserved=6, request=4), q("b", deserved=2, request=10)])
    assert shares == {"a": 4, "b": 6}


def test_over_subscribed_quotas_add_up_to_more_than_the_pool() -> None:
    shares = fair_share(10, [q("a", deserved=8, request=10), q("b", deserved=8, request=10)])
    assert shares == {"a": 8, "b": 8}


def test_weight_zero_means_nothing_beyond_deserved() -> None:
    # b takes the 1 GPU it still wants; the weight-0 queue gets none of the 5 left.
    shares = fair_share(
        10,
        [q("a", deserved=2, over_quota_weight=0), q("b", deserved=2, request=3)],
    )
    assert shares == {"a": 2, "b": 3}


def test_a_limit_caps_the_share_and_the_rest_goes_to_others() -> None:
    # Round 1 offers 6 each: a's limit of 3 fits, b rounds to 6; round 2 gives b the 3 left.
    shares = fair_share(12, [q("a", limit=3), q("b")])
    assert shares == {"a": 3, "b": 9}


def test_a_higher_priority_level_takes_all_it_requests_first() -> None:
    shares = fair_share(10, [q("low", priority=0, request=8), q("high", priority=1, request=8)])
    assert shares == {"low": 2, "high": 8}


def test_it_runs_another_round_when_a_queue_needs_less_than_its_share() -> None:
    # 7 / 3 = 2.33: a needs only 1, b and c round to 2; round 2 splits the 2 left.
    shares = fair_share(7, [q("a", request=1), q("b"), q("c")])
    assert shares == {"a": 1, "b": 3, "c": 3}


def test_a_department_share_is_divided_among_its_projects() -> None:
    # Top: d1 deserved 10 + all 6 idle = 16, d2 asks for 4. Inside d1: 4 + 2 deserved,
    # then 10 split evenly: p1 9, p2 7.
    queues = [
        ShareQueue("d1", None, deserved=10),
        ShareQueue("p1", "d1", deserved=4, request=10),
        ShareQueue("p2", "d1", deserved=2, request=10),
        ShareQueue("d2", None, deserved=10),
        ShareQueue("p3", "d2", deserved=10, request=4),
    ]
    shares = fair_share(20, queues)
    assert shares == {"d1": 16, "p1": 9, "p2": 7, "d2": 4, "p3": 4}


def test_a_queue_never_gets_more_than_it_requests() -> None:
    shares = fair_share(100, [q("a", request=3), q("b", request=5)])
    assert shares == {"a": 3, "b": 5}


@pytest.mark.parametrize(
    ("queues", "field"),
    [
        ([ShareQueue("a", "missing")], "parent"),
        ([ShareQueue("a"), ShareQueue("a")], "appears twice"),
    ],
    ids=["unknown parent", "duplicate"],
)
def test_bad_queues_raise_an_engine_error_naming_the_problem(
    queues: list[ShareQueue], field: str
) -> None:
    with pytest.raises(EngineError, match=field):
        fair_share(10, queues)


def test_negative_deserved_is_rejected_when_the_queue_is_built() -> None:
    with pytest.raises(EngineError, match="deserved"):
        ShareQueue("a", None, deserved=-1)
