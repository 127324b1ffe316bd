"""The quota simulator facade runs the engine and reports each project's outcome."""

from __future__ import annotations

import pytest

from simulators.engine import (
    DepartmentSpec,
    EngineError,
    PoolSpec,
    ProjectSpec,
    QuotaScenario,
    simulate_quota,
    step_demand,
)

THREE = QuotaScenario(
    pools=(PoolSpec("default", 24),),
    projects=(
        ProjectSpec("a", quota={"default": 8}, demand={"default": 4}),
        ProjectSpec("b", quota={"default": 8}, demand={"default": 20}),
        ProjectSpec("c", quota={"default": 8}, demand={"default": 10}, over_quota_weight=2),
    ),
)


def test_idle_quota_is_shared_by_weight_and_reported_per_project() -> None:
    # Deserved: a 4 (its demand), b 8, c 8; 4 idle GPUs split 1:2 → b +1.33, c +2.67;
    # c only needs 2, so b gets the rest: fair shares 4, 10, 10.
    pool = simulate_quota(THREE).pool("default")
    by_name = {p.project: p for p in pool.projects}
    assert {n: p.fair_share for n, p in by_name.items()} == {"a": 4, "b": 10, "c": 10}
    assert (by_name["b"].quota_backed, by_name["b"].over_quota, by_name["b"].unmet) == (8, 2, 10)
    assert (by_name["c"].quota_backed, by_name["c"].over_quota, by_name["c"].unmet) == (8, 2, 0)
    assert pool.idle == 0


def test_raising_demand_reclaims_borrowed_gpus_and_says_from_whom() -> None:
    step = step_demand(THREE, "a", "default", 8)
    reclaimed = {
        (t.from_project, t.project): t.gpus for t in step.timeline if t.kind == "reclaimed"
    }
    assert reclaimed == {("b", "a"): 2, ("c", "a"): 2}
    assert all(
        "Reclaimed by project a" in t.message for t in step.timeline if t.kind == "reclaimed"
    )
    after = {p.project: p for p in step.after.pool("default").projects}
    assert (after["a"].quota_backed, after["a"].unmet) == (8, 4)
    assert (after["b"].over_quota, after["c"].over_quota) == (0, 0)
    assert step.before.pool("default").project("a").quota_backed == 4


def test_warnings_name_each_risky_setting() -> None:
    scenario = QuotaScenario(
        pools=(PoolSpec("h100", 16), PoolSpec("l40s", 8)),
        projects=(
            ProjectSpec("a", quota={"h100": 12}, demand={"h100": 20}, limit=14),
            ProjectSpec("b", quota={"h100": 12}, demand={"l40s": 2}, over_quota_weight=0),
        ),
    )
    warnings = " ".join(simulate_quota(scenario).warnings)
    assert "quotas add up to 24 GPUs, but the pool has 16 GPUs" in warnings
    assert "Project b has over-quota weight 0" in warnings
    assert "above its limit of 14" in warnings
    assert "Project b has no quota in node pool l40s" in warnings


def test_a_pool_that_is_not_a_multiple_of_8_still_runs_every_gpu() -> None:
    scenario = QuotaScenario(
        pools=(PoolSpec("default", 20),),
        projects=(ProjectSpec("a", quota={"default": 20}, demand={"default": 20}),),
    )
    outcome = simulate_quota(scenario).pool("default")
    assert outcome.project("a").quota_backed == 20
    assert outcome.idle == 0


def test_departments_cap_what_their_projects_share() -> None:
    scenario = QuotaScenario(
        pools=(PoolSpec("default", 16),),
        departments=(DepartmentSpec("d", quota={"default": 4}, limit=6),),
        projects=(
            ProjectSpec("in-dept", quota={"default": 4}, demand={"default": 16}, department="d"),
            ProjectSpec("other", quota={"default": 4}, demand={"default": 2}),
        ),
    )
    outcome = simulate_quota(scenario).pool("default")
    assert outcome.project("in-dept").quota_backed + outcome.project("in-dept").over_quota == 6
    assert outcome.idle == 8


@pytest.mark.parametrize(
    ("scenario", "field"),
    [
        (
            QuotaScenario((PoolSpec("default", 8),), (ProjectSpec("a", quota={"default": -1}),)),
            r"projects\[0\].quota\[default\]",
        ),
        (
            QuotaScenario((PoolSpec("default", 8),), (ProjectSpec("a", demand={"gpu": 1}),)),
            r"projects\[0\].demand\[gpu\]",
        ),
        (
            QuotaScenario(
                (PoolSpec("default", 8),),
                tuple(ProjectSpec(f"p{i}") for i in range(9)),
            ),
            "projects: at most 8",
        ),
        (QuotaScenario((PoolSpec("default", -2),), (ProjectSpec("a"),)), r"pools\[0\].gpus"),
        (
            QuotaScenario((PoolSpec("default", 8),), (ProjectSpec("a", department="x"),)),
            r"projects\[0\].department",
        ),
    ],
    ids=["negative quota", "unknown pool", "too many projects", "negative pool", "no department"],
)
def test_invalid_values_raise_an_engine_error_naming_the_field(
    scenario: QuotaScenario, field: str
) -> None:
    with pytest.raises(EngineError, match=field):
        simulate_quota(scenario)


def test_a_step_needs_a_positive_whole_number_of_gpus() -> None:
    with pytest.raises(EngineError, match="extra"):
        step_demand(THREE, "a", "default", 0)
