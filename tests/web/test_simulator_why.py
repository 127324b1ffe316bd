"""The simulator shows its working: the engine's own fair-share trace, a GPU scale,
who holds the pool, and the result beside the controls."""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from simulators.engine import PoolSpec, ProjectSpec, QuotaScenario, simulate_quota
from studysite.simulator.forms import SimForms
from studysite.simulator.presets import PRESETS
from studysite.simulator.results import axis, run_engine
from studysite.simulator.why import pool_trace

GUIDE = "/simulator/?pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,8,10,1"


def _text(client: Client, url: str) -> str:
    body = client.get(url).content.decode()
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))


@pytest.mark.parametrize("preset", PRESETS, ids=[preset.slug for preset in PRESETS])
def test_the_traced_shares_are_the_ones_the_engine_used(preset: object) -> None:
    checked = SimForms(preset.state)  # type: ignore[attr-defined]
    assert checked.scenario is not None
    outcome, _ = run_engine(checked.scenario, checked.asked)
    for pool in outcome.pools:
        traced: dict[str, float] = {}
        for division in pool_trace(pool).divisions or ():
            traced.update(division.shares)
        assert traced == {row.queue: row.fair_share for row in pool.fair_share_table}


@given(
    gpus=st.integers(0, 64),
    projects=st.lists(
        st.tuples(st.integers(0, 16), st.integers(0, 40), st.sampled_from([0, 0.5, 1, 2, 3])),
        min_size=1,
        max_size=5,
    ),
)
def test_any_pools_trace_adds_up_to_its_fair_shares(
    gpus: int, projects: list[tuple[int, int, float]]
) -> None:
    scenario = QuotaScenario(
        pools=(PoolSpec("p", gpus),),
        projects=tuple(
            ProjectSpec(f"t{i}", {"p": q}, {"p": d}, w) for i, (q, d, w) in enumerate(projects)
        ),
    )
    pool = simulate_quota(scenario).pools[0]
    (division,) = pool_trace(pool).divisions or ()
    for name, share in division.shares.items():
        quota = next(g.given for g in division.deserved if g.queue == name)
        rounds = sum(o.given for r in division.rounds for o in r.offers if o.queue == name)
        leftovers = sum(g.given for g in division.leftovers if g.queue == name)
        assert share == pytest.approx(quota + rounds + leftovers)
    assert pool.project("t0").fair_share == division.shares["t0"]


def test_the_page_shows_each_water_filling_round_and_the_leftovers(client: Client) -> None:
    text = _text(client, GUIDE)
    assert "Why these numbers: the engine's working for node pool default" in text
    assert "team-b: quota 8, asks for 16 GPUs: gets its quota, 8." in text
    assert "Handed out 20 of 24; 4 GPUs left to share by over-quota weight." in text
    assert "Round 1: 4 GPUs to share, weights add up to 3" in text
    assert "team-b: 4 × 2/3 = 2.67; rounded down to whole GPUs it takes 2, and 0.67" in text
    assert "team-b gets 1 GPU (remembered fraction 0.67)." in text
    assert "Fair shares: team-a 4, team-b 11, team-c 9." in text


def test_an_over_subscribed_pool_says_why_the_guarantees_cannot_all_hold(client: Client) -> None:
    text = _text(client, "/simulator/?pool=16&p=team-a,8,8,1&p=team-b,8,8,1&p=team-c,8,8,1")
    assert "the pool is over-subscribed" in text
    assert "The quotas add up to 24 GPUs, but node pool default has 16" in text
    assert "8 GPUs of guarantees can't be met at once" in text
    running = re.findall(r"team-\w: quota 8, fair share 8, running (\d+)", text)
    assert sorted(map(int, running)) == [5, 5, 6]


def test_departments_get_their_own_division(client: Client) -> None:
    departments = next(p for p in PRESETS if p.slug == "departments")
    text = _text(client, departments.url.replace("&step=team-serve,5", ""))
    assert "Department research's share of" in text
    assert "Department product's share of" in text


def test_the_bars_have_a_gpu_scale_in_round_steps() -> None:
    assert axis(24).ticks == ("0", "4", "8", "12", "16", "20", "24")
    assert axis(10).ticks == ("0", "2", "4", "6", "8", "10")
    assert axis(1).ticks == ("0", "1")
    assert len(axis(4000).ticks) <= 9 and float(axis(4000).ticks[-1]) >= 4000


def test_the_whole_pool_bar_shows_which_project_holds_what(client: Client) -> None:
    body = client.get(GUIDE).content.decode()
    pool_bar = re.search(r'aria-label="(Whole pool default[^"]*)"', body)
    assert pool_bar is not None
    assert html.unescape(pool_bar.group(1)) == (
        "Whole pool default, 24 GPUs: team-a 4 GPUs; team-b 11 GPUs (3 borrowed); "
        "team-c 9 GPUs (1 borrowed); 0 idle"
    )
    assert 'class="sim-scale sim-scale-n6"' in body
    assert 'fill="url(#sim-hatch-1)"' in body


def test_demand_is_explained_as_running_plus_waiting(client: Client) -> None:
    text = _text(client, GUIDE)
    assert "Demand (running + waiting)" in text
    assert (
        "11 GPUs running, 8 within quota + 3 borrowed (reclaimable), 5 waiting (demand 16)" in text
    )


def test_an_update_sends_the_compact_result_for_beside_the_controls(client: Client) -> None:
    body = client.get(GUIDE.replace("8,4,1", "8,8,1"), headers={"HX-Request": "true"})
    text = body.content.decode()
    quick = re.search(r'<div id="sim-quick" class="sim-quick" hx-swap-oob="true"[^>]*>', text)
    assert quick is not None
    assert 'data-running="default/team-a=8;default/team-b=8;default/team-c=8;"' in quick.group(0)
    assert "default: team-a 8, team-b 8, team-c 8, idle 0." in html.unescape(text)


def test_a_wide_table_carries_a_sideways_scroll_cue(client: Client) -> None:
    body = client.get(GUIDE).content.decode()
    assert "Scroll the table sideways for every column" in body
    assert 'class="table-scroll sim-table-scroll"' in body


# Over-subscribed pools: the words against the scenario and against KAI's queue order, replayed
# here one 1-GPU job at a time (the proportion plugin's GetQueueOrderResult) over the fair
# shares the page reports, so neither the sentence nor the engine can drift alone.

ISSUE_URL = "/simulator/?pool=24&p=team-a,16,12,1&p=team-b,8,16,1&p=team-c,8,10,1"
ROW = re.compile(
    r"(?P<name>[\w-]+): quota (?P<quota>[\d.]+), fair share (?P<fair>[\d.]+), "
    r"running (?P<running>[\d.]+) \((?P<percent>\d+)% of (?P<whole>[\d.]+)\)"
)


@dataclass
class Spec:
    name: str
    quota: int
    demand: int
    priority: int


def url(pool: int, specs: list[Spec]) -> str:
    parts = "&".join(
        f"p={s.name},{s.quota},{s.demand},1" + (f",priority:{s.priority}" if s.priority else "")
        for s in specs
    )
    return f"/simulator/?pool={pool}&{parts}"


def why_lines(client: Client, address: str) -> list[str]:
    page = client.get(address).content.decode()
    assert "the pool is over-subscribed" in page, address
    text = html.unescape(re.sub(r"<[^>]+>", "\n", page))
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def rows(lines: list[str]) -> dict[str, dict[str, float]]:
    found = {}
    for line in lines:
        if match := ROW.match(line):
            found[match["name"]] = {
                k: float(v) for k, v in match.groupdict().items() if k != "name"
            }
    return found


def kai_order(pool: int, specs: list[Spec], fair: dict[str, float]) -> dict[str, int]:
    """Start 1-GPU jobs one at a time in KAI's queue order until the pool or demand runs out."""
    allocated = {s.name: 0 for s in specs}
    allocatable = {s.name: max(s.quota, fair[s.name]) for s in specs}
    rank = {s.name: i for i, s in enumerate(specs)}

    def key(s: Spec) -> tuple[bool, bool, int, float, float, float, int]:
        a, whole = allocated[s.name], allocatable[s.name]
        return (
            fair[s.name] < a,  # prioritizeUnderUtilized
            not a + 1 <= s.quota,  # prioritizeUnderQuotaWithJob
            -s.priority,  # prioritizePrioritized
            (a + 1) / whole,  # prioritizeSmallerResourceShare (with the job)
            a / whole,  # ...WithoutTask
            whole,  # prioritizeBasedOnAllocatableShare
            rank[s.name],  # creation time
        )

    free = pool
    while free:
        waiting = [s for s in specs if allocated[s.name] < s.demand]
        if not waiting:
            break
        allocated[min(waiting, key=key).name] += 1
        free -= 1
    return allocated


def test_the_explanation_tells_the_quota_sum_from_what_the_quota_step_promises() -> None:
    lines = why_lines(Client(), ISSUE_URL)
    assert any(
        "The quotas add up to 32 GPUs; each capped at what its project asks for, "
        "they promise 28 GPUs, but node pool default has 24" in line
        for line in lines
    ), lines


def test_the_explanation_names_the_share_that_projects_end_up_equal_in() -> None:
    found = rows(why_lines(Client(), ISSUE_URL))
    assert found["team-a"] == {"quota": 16, "fair": 12, "running": 12, "percent": 75, "whole": 16}
    assert found["team-b"]["running"] == 6 and found["team-b"]["percent"] == 75
    assert found["team-c"]["running"] == 6 and found["team-c"]["percent"] == 75


def random_setups(count: int) -> list[tuple[int, list[Spec]]]:
    rng = random.Random(20261202)
    setups = []
    while len(setups) < count:
        pool = rng.randint(8, 40)
        specs = [
            Spec(f"team-{chr(97 + i)}", rng.randint(1, pool), rng.randint(1, 40), 0)
            for i in range(rng.randint(2, 4))
        ]
        if rng.random() < 0.3:
            specs[0].priority = 1
        promised = sum(min(s.quota, s.demand) for s in specs)
        if promised > pool:
            setups.append((pool, specs))
    return setups


@pytest.mark.parametrize(("pool", "specs"), random_setups(20))
def test_over_subscribed_numbers_follow_kais_queue_order_and_the_words_say_so(
    pool: int, specs: list[Spec]
) -> None:
    client = Client()
    lines = why_lines(client, url(pool, specs))
    found = rows(lines)
    fair = {s.name: found[s.name]["fair"] for s in specs}
    expected = kai_order(pool, specs, fair)
    assert {name: int(row["running"]) for name, row in found.items()} == expected
    for s in specs:
        whole = max(s.quota, fair[s.name])
        assert found[s.name]["whole"] == whole
        assert found[s.name]["percent"] == round(100 * expected[s.name] / whole)
    quotas = sum(s.quota for s in specs)
    promised = sum(min(s.quota, s.demand) for s in specs)
    opening = next(line for line in lines if line.startswith("The quotas add up to"))
    assert opening.startswith(f"The quotas add up to {quotas} GPUs")
    if quotas != promised:
        assert f"they promise {promised} GPUs" in opening
