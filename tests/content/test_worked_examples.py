"""The worked examples in sections 6, 8, 9 and 10 say what the engine computes.

Each example is built by `studysite.guide.examples` from the scheduler engine when
the page is built; these tests run the engine again, independently, and check the
page shows the same figures.
"""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from simulators.engine import (
    Cluster,
    GpuRequest,
    Node,
    PoolQuota,
    ShareQueue,
    TickingClock,
    fair_share,
    simulate_quota,
    step_demand,
)
from studysite.guide.examples import (
    EXAMPLES,
    GUIDE_SCENARIO,
    RECLAIM_SCENARIO,
    RECLAIM_STEP,
    worked_example,
)

pytestmark = pytest.mark.django_db

WHERE = {
    "fairshare-steps": "/guide/quota-fairness/",
    "reclaim-fair-share": "/guide/preemption-reclaim/",
    "preemption-priority": "/guide/preemption-reclaim/",
    "gang-waits": "/guide/gang-scheduling/",
    "binpack-vs-spread": "/guide/placement/",
}


def _text(client: Client, url: str) -> str:
    body = client.get(url).content.decode()
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))


def _box(client: Client, url: str, name: str) -> str:
    body = client.get(url).content.decode()
    start = body.index(f'aria-labelledby="example-{name}"')
    end = (
        body.index('<div class="worked-example"', start)
        if body.count('<div class="worked-example"', start)
        else len(body)
    )
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body[start:end])))


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_each_example_sits_in_its_section_marked_as_the_sites_addition(
    client: Client, name: str
) -> None:
    body = client.get(WHERE[name]).content.decode()
    assert f'<div class="worked-example" role="region" aria-labelledby="example-{name}">' in body
    assert "Worked example · added by this site" in _text(client, WHERE[name])
    assert html.escape(worked_example(name).title, quote=False) in body


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_every_try_it_link_opens(client: Client, name: str) -> None:
    for link in worked_example(name).tries:
        assert client.get(link.url).status_code == 200, link.url


def test_the_fair_share_example_shows_the_engines_division(client: Client) -> None:
    pool = simulate_quota(GUIDE_SCENARIO).pools[0]
    alone = fair_share(
        24,
        [
            ShareQueue(p.name, deserved=p.quota["default"], over_quota_weight=p.over_quota_weight,
                       request=p.demand["default"])
            for p in GUIDE_SCENARIO.projects
        ],
    )  # fmt: skip
    assert alone == {p.project: p.fair_share for p in pool.projects}
    box = _box(client, WHERE["fairshare-steps"], "fairshare-steps")
    shares = ", ".join(f"{name} {share:g}" for name, share in alone.items())
    assert f"Fair shares: {shares}." in box
    assert "Round 1: 4 GPUs to share, weights add up to 3" in box
    assert "team-b gets 1 GPU (remembered fraction 0.67)" in box
    for p in pool.projects:
        row = f"{p.project} {p.fair_share:g} {p.quota_backed:g} {p.over_quota:g} {p.unmet:g}"
        assert row in box


def test_the_reclaim_example_stops_where_the_engine_stops(client: Client) -> None:
    step = step_demand(RECLAIM_SCENARIO, *RECLAIM_STEP)
    victim = step.after.pools[0].project("team-b")
    before = step.before.pools[0].project("team-b")
    running = victim.quota_backed + victim.over_quota
    taken = before.quota_backed + before.over_quota - running
    # What the example teaches: the victim keeps exactly its new fair share.
    assert running == victim.fair_share and victim.over_quota > 0
    box = _box(client, WHERE["reclaim-fair-share"], "reclaim-fair-share")
    assert f"Reclaim took {taken:g} GPUs and stopped there: team-b still runs {running:g}" in box
    assert f"keeps {victim.over_quota:g} GPUs borrowed" in box


def test_the_preemption_example_matches_a_fresh_run(client: Client) -> None:
    cluster = Cluster(clock=TickingClock())
    cluster.add_node(Node("gpu-node1", gpus=8, pool="default"))
    cluster.add_project("team-llm", quotas={"default": PoolQuota(deserved=8)})
    cluster.submit("sweep", "team-llm", kind="training", gpu=GpuRequest.whole(8))
    cluster.run_cycle()
    cluster.submit("urgent", "team-llm", kind="training", gpu=GpuRequest.whole(8), priority=80)
    for _ in range(3):
        cluster.run_cycle()
    sweep = cluster.workload("team-llm", "sweep")
    assert sweep.status == "Pending" and sweep.evicted_by == "team-llm/urgent"
    box = _box(client, WHERE["preemption-priority"], "preemption-priority")
    assert "sweep 50 yes Pending" in box and "urgent 80 yes Running on gpu-node1" in box
    assert "Preempted by a higher-priority job: team-llm/urgent (priority 80)" in box


def test_the_gang_example_waits_with_enough_gpus_free_in_total(client: Client) -> None:
    facts = worked_example("gang-waits").facts
    free = facts["free"]
    assert isinstance(free, dict)
    assert sum(free.values()) >= 16 and sum(1 for f in free.values() if f >= 8) == 1
    assert facts["status_before"] == "Pending" and facts["reason_code"] == "GangCannotFit"
    assert facts["status_after"] == "Running"
    box = _box(client, WHERE["gang-waits"], "gang-waits")
    assert "22 GPUs are free, more than the 16 the job asks for" in box
    assert "only 1 of its pods fit now" in box


def test_the_placement_example_fragments_only_under_spread(client: Client) -> None:
    facts = worked_example("binpack-vs-spread").facts
    assert facts["binpack"]["big"].startswith("Running")  # type: ignore[index]
    assert facts["spread"]["big"] == "Pending"  # type: ignore[index]
    assert facts["spread"]["reason"] == "Fragmentation"  # type: ignore[index]
    box = _box(client, WHERE["binpack-vs-spread"], "binpack-vs-spread")
    assert "node1 8 4" in box and "node3 0 2" in box
    assert "is Pending with reason Fragmentation , although 16 GPUs are free" in box


def test_an_unknown_example_names_the_ones_that_exist() -> None:
    with pytest.raises(KeyError, match="fairshare-steps"):
        worked_example("nope")


def test_every_worked_example_links_to_where_the_learner_can_try_it() -> None:
    from simulators.lab import list_tickets
    from studysite.guide.examples import EXAMPLES, worked_example

    tickets = {f"/lab/{ticket.id}/" for ticket in list_tickets()}
    for name in EXAMPLES:
        tries = worked_example(name).tries
        assert tries, name
        for attempt in tries:
            assert attempt.url.startswith("/simulator/") or attempt.url in tickets, attempt.url
