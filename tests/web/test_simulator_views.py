"""The simulator page: its numbers are the engine's, its form keeps values, htmx gets parts.

Each result table is read back from the HTML and compared with `simulate_quota` run here
on a scenario the test builds itself, so the page cannot drift from the engine.
"""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.engine import (
    DepartmentSpec,
    PoolSpec,
    ProjectSpec,
    QuotaOutcome,
    QuotaScenario,
    simulate_quota,
    step_demand,
)
from studysite.guide.pages import section_page
from studysite.simulator.embed import render_embed
from tests.web.simulator_page import Row, form_inputs, pool_tables

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}
DEFAULT_URL = "/simulator/?pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,8,10,1"


def project(
    name: str,
    quota: float | dict[str, float],
    demand: int | dict[str, int],
    weight: float = 1,
    limit: float | None = None,
    priority: int = 0,
    department: str | None = None,
) -> ProjectSpec:
    return ProjectSpec(
        name,
        quota if isinstance(quota, dict) else {"default": quota},
        demand if isinstance(demand, dict) else {"default": demand},
        weight,
        limit,
        priority,
        department,
    )


def one_pool(gpus: int, *projects: ProjectSpec) -> QuotaScenario:
    return QuotaScenario((PoolSpec("default", gpus),), projects)


def get_page(client: Client, url: str, **headers: str) -> str:
    response = client.get(url, headers=headers)
    assert response.status_code == 200, url
    return response.content.decode()


def assert_matches_engine(page: str, outcome: QuotaOutcome) -> None:
    tables = pool_tables(page)
    assert list(tables) == [pool.pool for pool in outcome.pools]
    for pool in outcome.pools:
        table = tables[pool.pool]
        assert (table.gpus, table.idle) == (pool.gpus, pool.idle), pool.pool
        assert list(table.rows) == [p.project for p in pool.projects]
        for p in pool.projects:
            row = table.rows[p.project]
            shown = (row.quota_backed, row.over_quota, row.unmet, row.fair_share)
            assert shown == (p.quota_backed, p.over_quota, p.unmet, p.fair_share), p.project


def text_of(page: str) -> str:
    """The page's words, tags dropped and entities read, whitespace squeezed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


# ---------------------------------------------------------------------------- numbers = engine

RESEARCH, PRODUCT = "research", "product"
TWO_POOLS = QuotaScenario(
    (PoolSpec("h100", 16), PoolSpec("l40s", 8)),
    (
        project("team-llm", {"h100": 8, "l40s": 0}, {"h100": 16, "l40s": 0}, department=RESEARCH),
        project("team-vision", {"h100": 4, "l40s": 2}, {"h100": 4, "l40s": 4}, department=RESEARCH),
        project("team-serve", {"h100": 4, "l40s": 6}, {"h100": 6, "l40s": 8}, 1, None, 1, PRODUCT),
    ),
    (
        DepartmentSpec(RESEARCH, {"h100": 12, "l40s": 2}),
        DepartmentSpec(PRODUCT, {"h100": 4, "l40s": 6}),
    ),
)


CASES = {
    "the guide's example": (
        DEFAULT_URL,
        one_pool(
            24, project("team-a", 8, 4), project("team-b", 8, 16, 2), project("team-c", 8, 10)
        ),
    ),
    "equal weights": (
        "/simulator/?pool=24&p=a,4,20,1&p=b,4,20,1",
        one_pool(24, project("a", 4, 20), project("b", 4, 20)),
    ),
    "weights 2:1": (
        "/simulator/?pool=24&p=a,4,20,2&p=b,4,20,1",
        one_pool(24, project("a", 4, 20, 2), project("b", 4, 20, 1)),
    ),
    "a limit": (
        "/simulator/?pool=24&p=a,4,20,1,limit:8&p=b,4,20,1",
        one_pool(24, project("a", 4, 20, 1, 8), project("b", 4, 20)),
    ),
    "weight 0": (
        "/simulator/?pool=24&p=a,4,20,1&p=b,4,20,0",
        one_pool(24, project("a", 4, 20), project("b", 4, 20, 0)),
    ),
    "over-subscribed": (
        "/simulator/?pool=16&p=a,8,8,1&p=b,8,8,1&p=c,8,8,1",
        one_pool(16, project("a", 8, 8), project("b", 8, 8), project("c", 8, 8)),
    ),
    "no quota": (
        "/simulator/?pool=12&p=a,0,10,1&p=b,6,3,1",
        one_pool(12, project("a", 0, 10), project("b", 6, 3)),
    ),
    "idle GPUs left": (
        "/simulator/?pool=40&p=a,8,3,1&p=b,8,12,3",
        one_pool(40, project("a", 8, 3), project("b", 8, 12, 3)),
    ),
    "priority first": (
        "/simulator/?pool=8&p=a,0,20,1&p=b,0,20,1,prio:1",
        one_pool(8, project("a", 0, 20), project("b", 0, 20, 1, None, 1)),
    ),
    "fractional weight": (
        "/simulator/?pool=20&p=a,2,20,0.5&p=b,2,20,1.5",
        one_pool(20, project("a", 2, 20, 0.5), project("b", 2, 20, 1.5)),
    ),
    "eight projects": (
        "/simulator/?pool=30&" + "&".join(f"p=t{i},{i},{3 * i},{i % 3}" for i in range(8)),
        one_pool(30, *(project(f"t{i}", i, 3 * i, i % 3) for i in range(8))),
    ),
    "departments and two pools": (
        "/simulator/?pool=h100:16&pool=l40s:8&d=research,12/2,1&d=product,4/6,1"
        "&p=team-llm,8/0,16/0,1,dept:research&p=team-vision,4/2,4/4,1,dept:research"
        "&p=team-serve,4/6,6/8,1,prio:1,dept:product",
        TWO_POOLS,
    ),
}


@pytest.mark.parametrize(("url", "scenario"), CASES.values(), ids=CASES.keys())
def test_the_page_shows_the_engines_numbers(
    client: Client, url: str, scenario: QuotaScenario
) -> None:
    assert_matches_engine(get_page(client, url), simulate_quota(scenario))


@st.composite
def setups(draw: st.DrawFn) -> tuple[str, QuotaScenario]:
    """A random valid setup as the compact URL and as the engine's own scenario."""
    pool_names = ["default", "l40s"][: draw(st.integers(1, 2))]
    pools = tuple(PoolSpec(name, draw(st.integers(0, 40))) for name in pool_names)
    projects = []
    for i in range(draw(st.integers(1, 8))):
        quota = {name: draw(st.integers(0, 16)) for name in pool_names}
        demand = {name: draw(st.integers(0, 30)) for name in pool_names}
        weight = draw(st.sampled_from([0, 1, 2, 3, 0.5]))
        limit = draw(st.none() | st.integers(0, 30))
        priority = draw(st.integers(0, 2))
        projects.append(ProjectSpec(f"p{i}", quota, demand, weight, limit, priority))
    query = "&".join(f"pool={pool.name}:{pool.gpus}" for pool in pools)
    for p in projects:
        quota = "/".join(str(p.quota[name]) for name in pool_names)
        demand = "/".join(str(p.demand[name]) for name in pool_names)
        query += f"&p={p.name},{quota},{demand},{p.over_quota_weight}"
        query += f",limit:{p.limit}" if p.limit is not None else ""
        query += f",prio:{p.priority}"
    return f"/simulator/?{query}", QuotaScenario(pools, tuple(projects))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(setups())
def test_any_setup_shows_the_engines_numbers(
    client: Client, setup: tuple[str, QuotaScenario]
) -> None:
    url, scenario = setup
    page = get_page(client, url)
    outcome = simulate_quota(scenario)
    assert_matches_engine(page, outcome)
    words = text_of(page)
    assert all(" ".join(warning.split()) in words for warning in outcome.warnings)


# ---------------------------------------------------------------------------- the guide's claims


def rows(page: str, pool: str = "default") -> dict[str, Row]:
    return pool_tables(page)[pool].rows


def test_each_project_gets_its_quota_first_up_to_its_demand(client: Client) -> None:
    shown = rows(get_page(client, "/simulator/?pool=24&p=a,8,4,1&p=b,8,20,1&p=c,8,20,1"))
    assert (shown["a"].quota_backed, shown["a"].over_quota, shown["a"].unmet) == (4, 0, 0)
    assert shown["b"].quota_backed == 8 and shown["c"].quota_backed == 8


def test_the_idle_gpus_are_shared_by_weight(client: Client) -> None:
    equal = rows(get_page(client, "/simulator/?pool=24&p=a,4,20,1&p=b,4,20,1"))
    assert equal["a"].over_quota == equal["b"].over_quota == 8
    double = rows(get_page(client, "/simulator/?pool=24&p=a,4,20,2&p=b,4,20,1"))
    assert double["a"].over_quota + double["b"].over_quota == 16
    assert abs(double["a"].over_quota - 2 * double["b"].over_quota) <= 1.5


def test_borrowed_gpus_are_reclaimed_when_their_owners_demand_grows(client: Client) -> None:
    url = "/simulator/?pool=16&p=team-vision,8,2,1&p=team-llm,8,14,1"
    before = rows(get_page(client, url))
    assert before["team-llm"].over_quota == 6 and before["team-vision"].quota_backed == 2
    page = get_page(client, f"{url}&step=team-vision,6")
    step = step_demand(
        one_pool(16, project("team-vision", 8, 2), project("team-llm", 8, 14)),
        "team-vision",
        "default",
        6,
    )
    assert_matches_engine(page, step.after)
    after = rows(page)
    assert after["team-llm"].over_quota == 0 and after["team-vision"].quota_backed == 8
    words = text_of(page)
    assert "What happened: team-vision's demand in node pool default grew by 6 GPUs" in words
    assert "6 GPUs reclaimed from team-llm for team-vision." in words
    assert "above its fair share of 8" in words  # the engine's reason
    assert "team-llm : 14 → 8 (6 GPUs fewer)" in words
    for entry in step.timeline:
        assert html.escape(entry.message) in page
    inputs, _ = form_inputs(page)
    assert inputs["p-0-demand-0"]["value"] == "8", "the form holds the raised demand"


def test_a_step_can_be_taken_again_from_the_raised_demand(client: Client) -> None:
    first = client.get(
        "/simulator/",
        {
            **{"pool-0-name": "default", "pool-0-gpus": "16"},
            **{"p-0-name": "a", "p-0-quota-0": "8", "p-0-demand-0": "2", "p-0-weight": "1"},
            **{"p-1-name": "b", "p-1-quota-0": "8", "p-1-demand-0": "14", "p-1-weight": "1"},
            **{"step-project": "0", "step-extra": "3", "action": "step"},
        },
    )
    assert first.status_code == 302
    assert first["Location"] == "/simulator/?pool=16&p=a,8,2,1&p=b,8,14,1&step=a,3#sim-step-result"
    inputs, _ = form_inputs(get_page(client, first["Location"]))
    assert inputs["p-0-demand-0"]["value"] == "5"
    assert inputs["step-project"]["value"] == "0" and inputs["step-extra"]["value"] == "3"


def test_a_step_with_idle_gpus_reclaims_nothing(client: Client) -> None:
    words = text_of(get_page(client, "/simulator/?pool=24&p=a,8,2,1&p=b,8,4,1&step=a,4"))
    assert "grew by 4 GPUs: the new work started, nothing reclaimed." in words


def test_a_limit_caps_a_project_even_with_gpus_idle(client: Client) -> None:
    page = get_page(client, "/simulator/?pool=24&p=a,4,20,1,limit:8")
    shown = rows(page)["a"]
    assert shown.quota_backed + shown.over_quota == 8 and shown.unmet == 12
    assert pool_tables(page)["default"].idle == 16
    assert "Project a wants 20 GPUs in node pool default, above its limit of 8" in text_of(page)


def test_weight_zero_gets_nothing_beyond_its_quota(client: Client) -> None:
    page = get_page(client, "/simulator/?pool=24&p=a,4,20,1&p=b,4,20,0")
    assert rows(page)["b"].over_quota == 0 and rows(page)["b"].quota_backed == 4
    assert "Project b has over-quota weight 0" in text_of(page)


def test_an_over_subscribed_pool_is_a_warning_in_plain_words(client: Client) -> None:
    words = text_of(get_page(client, "/simulator/?pool=16&p=a,8,8,1&p=b,8,8,1&p=c,8,8,1"))
    assert (
        "In node pool default the project quotas add up to 24 GPUs, but the pool has 16 GPUs: "
        '"guaranteed" cannot be honoured for everyone at once.'
    ) in words


def test_a_project_without_quota_in_a_pool_is_warned_about(client: Client) -> None:
    words = text_of(get_page(client, "/simulator/?pool=12&p=a,0,10,1"))
    assert "Project a has no quota in node pool default" in words


def test_borrowed_gpus_are_marked_reclaimable_in_words_and_hatching(client: Client) -> None:
    page = get_page(client, DEFAULT_URL)
    assert '<pattern id="sim-hatch"' in page
    assert re.search(r'class="seg seg-borrowed"[^>]*fill="url\(#sim-hatch\)"', page)
    assert "reclaimable" in text_of(page) and "(hatched)" in text_of(page)
    bar = re.search(r'<svg class="sim-bar"[^>]*aria-label="team-b: ([^"]+)"', page)
    assert bar and "8 within quota + 3 borrowed (reclaimable)" in bar.group(1)
    assert "fair share 11" in bar.group(1)


# ---------------------------------------------------------------------------- bad input


BAD = [
    ("p=team-a,-3,4,1", "p-0-quota-0", "Can't be negative (-3). Enter 0 or more."),
    ("p=team-a,8,lots,1", "p-0-demand-0", "“lots” is not a number. Enter a whole number of GPUs."),
    ("p=team-a,8,2.5,1", "p-0-demand-0", "Use a whole number of GPUs: 2.5 is not whole."),
    ("p=team-a,8,99999,1", "p-0-demand-0", "Too large: at most 1024 GPUs."),
    ("p=team-a,8,4,1,limit:-1", "p-0-limit", "Can't be negative (-1). Enter 0 or more."),
    ("p=team-a,8,4,x", "p-0-weight", "“x” is not a number. Enter a number."),
    ("p=Team-A,8,4,1", "p-0-name", "Use lowercase letters, digits and hyphens"),
]


@pytest.mark.parametrize(("project", "field_id", "message"), BAD)
def test_a_bad_value_gets_a_message_beside_its_field_and_the_rest_is_kept(
    client: Client, project: str, field_id: str, message: str
) -> None:
    page = get_page(client, f"/simulator/?pool=5000&{project}&p=team-b,8,16,2")
    inputs, messages = form_inputs(page)
    assert messages[field_id].startswith(message)
    assert inputs[field_id]["aria-invalid"] == "true"
    assert f"{field_id}-msg" in inputs[field_id]["aria-describedby"].split()
    assert messages["pool-0-gpus"] == "Too large: at most 1024 GPUs."
    assert inputs["p-1-name"]["value"] == "team-b" and inputs["p-1-demand-0"]["value"] == "16"
    assert "aria-invalid" not in inputs["p-1-demand-0"]
    assert pool_tables(page) == {}, "no result while a value needs fixing"
    assert "2 values need fixing" in text_of(page)
    assert f'href="#{field_id}"' in page


def test_with_htmx_the_messages_come_out_of_band_with_a_spoken_summary(client: Client) -> None:
    response = client.get("/simulator/?pool=24&p=a,-1,4,1", headers=HX)
    body = response.content.decode()
    assert (
        '<span class="sim-msg" id="p-0-quota-0-msg" data-for="p-0-quota-0" hx-swap-oob="true">'
        in body
    )
    assert re.search(r'id="p-0-demand-0-msg"[^>]*hx-swap-oob="true"></span>', body)
    live = re.search(r'<div id="sim-live" hx-swap-oob="innerHTML">([^<]*)</div>', body)
    assert live and html.unescape(live.group(1)).startswith(
        "1 value needs fixing. Project 1, quota:"
    )


def test_too_much_demand_in_one_pool_is_refused_as_a_whole(client: Client) -> None:
    page = get_page(client, "/simulator/?pool=24&p=a,0,200,1&p=b,0,200,1")
    assert "adds up to 400 GPUs; the simulator takes at most 256 in one pool." in text_of(page)
    assert pool_tables(page) == {}


def test_a_bad_step_is_flagged_and_the_result_still_shows(client: Client) -> None:
    page = get_page(client, f"{DEFAULT_URL}&step=team-a,0")
    _, messages = form_inputs(page)
    assert messages["step-extra"] == "Raise the demand by at least 1 GPU."
    assert_matches_engine(page, simulate_quota(CASES["the guide's example"][1]))


# ---------------------------------------------------------------------------- the URL


def form_query(**extra: str) -> dict[str, str]:
    fields = {"pool-0-name": "default", "pool-0-gpus": "24"}
    for i, (name, quota, demand, weight) in enumerate(
        [("team-a", "8", "4", "1"), ("team-b", "8", "16", "2"), ("team-c", "8", "10", "1")]
    ):
        fields |= {f"p-{i}-name": name, f"p-{i}-quota-0": quota, f"p-{i}-demand-0": demand}
        fields |= {f"p-{i}-weight": weight, f"p-{i}-limit": "", f"p-{i}-priority": ""}
        fields |= {f"p-{i}-dept": ""}
    return fields | {"step-project": "0", "step-extra": "4"} | extra


def test_the_form_without_javascript_lands_on_the_compact_url(client: Client) -> None:
    response = client.get("/simulator/", form_query(**{"p-1-weight": "3"}))
    assert response.status_code == 302
    assert (
        response["Location"] == "/simulator/?pool=24&p=team-a,8,4,1&p=team-b,8,16,3&p=team-c,8,10,1"
    )


def test_the_compact_url_fills_the_form_back(client: Client) -> None:
    url = "/simulator/?pool=h100:16&pool=l40s:8&p=a,8/2,12/3,1.5,limit:10,prio:2,dept:r&d=r,8/4,2"
    inputs, messages = form_inputs(get_page(client, url))
    values = {key: attrs.get("value", "") for key, attrs in inputs.items()}
    assert {k: values[k] for k in ["pool-0-name", "pool-0-gpus", "pool-1-name", "pool-1-gpus"]} == {
        "pool-0-name": "h100", "pool-0-gpus": "16", "pool-1-name": "l40s", "pool-1-gpus": "8"
    }  # fmt: skip
    assert [values[f"p-0-{k}"] for k in ["name", "quota-0", "quota-1", "demand-0", "demand-1"]] == [
        "a", "8", "2", "12", "3"
    ]  # fmt: skip
    assert [values[f"p-0-{k}"] for k in ["weight", "limit", "priority", "dept"]] == [
        "1.5", "10", "2", "0"
    ]  # fmt: skip
    assert [values[f"d-0-{k}"] for k in ["name", "quota-0", "quota-1", "weight"]] == [
        "r", "8", "4", "2"
    ]  # fmt: skip
    assert not any(messages.values())
    assert f'data-share-url="{html.escape(url)}"' in get_page(client, url)


@pytest.mark.parametrize(
    ("action", "anchor", "check"),
    [
        ("add-project", "#p-3-name", "&p=team-d,0,4,1"),
        ("remove-project-1", "#sim-add-project", "?pool=24&p=team-a,8,4,1&p=team-c,8,10,1"),
        ("add-pool", "#pool-1-name", "pool=default:24&pool=l40s:8&p=team-a,8/0,4/0,1"),
        ("add-department", "#d-0-name", "&d=research,0,1"),
    ],
)
def test_the_form_buttons_work_without_javascript(
    client: Client, action: str, anchor: str, check: str
) -> None:
    response = client.get("/simulator/", form_query(action=action))
    assert response.status_code == 302
    location = response["Location"]
    assert location.endswith(anchor) and check in location
    get_page(client, location.split("#")[0])


def test_reset_is_a_link_to_the_bare_page_which_shows_the_guides_setup(client: Client) -> None:
    page = get_page(client, "/simulator/?pool=8&p=x,1,1,1")
    assert '<a class="button" href="/simulator/" id="sim-reset">Reset</a>' in page
    assert_matches_engine(
        get_page(client, "/simulator/"), simulate_quota(CASES["the guide's example"][1])
    )


def test_presets_are_plain_links_to_compact_urls(client: Client) -> None:
    page = get_page(client, "/simulator/")
    links = re.findall(r'<a href="(/simulator/\?[^"]+)" aria-describedby="sim-preset-', page)
    assert len(links) == 9
    assert (
        "/simulator/?pool=16&amp;p=team-vision,8,2,1&amp;p=team-llm,8,14,1&amp;step=team-vision,6"
        in links
    )
    for link in links:
        assert "values need" not in get_page(client, html.unescape(link))


# ---------------------------------------------------------------------------- htmx


def test_an_htmx_update_returns_only_the_result_and_pushes_the_compact_url(client: Client) -> None:
    response = client.get("/simulator/", form_query(**{"p-0-demand-0": "6"}), headers=HX)
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<section id="sim-result"')
    assert "<html" not in body and "<form" not in body
    assert (
        response["HX-Push-Url"]
        == "/simulator/?pool=24&p=team-a,8,6,1&p=team-b,8,16,2&p=team-c,8,10,1"
    )
    assert "HX-Retarget" not in response
    assert "HX-Request" in response["Vary"]
    assert rows(body)["team-a"].quota_backed == 6


def test_a_button_under_htmx_redraws_the_whole_simulator_and_moves_focus(client: Client) -> None:
    response = client.get("/simulator/", form_query(action="add-project"), headers=HX)
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="simulator"')
    assert response["HX-Retarget"] == "#simulator" and response["HX-Reswap"] == "outerHTML"
    assert response["HX-Push-Url"].endswith("&p=team-d,0,4,1")
    assert re.search(r'<input id="p-3-name"[^>]*autofocus>', body.replace("\n", " "))
    assert 'hx-swap-oob="true"' not in body, "new fields have no old messages to replace"
    assert '<div id="sim-live" hx-swap-oob="innerHTML">' in body


def test_a_step_under_htmx_keeps_focus_on_the_step_button(client: Client) -> None:
    response = client.get("/simulator/", form_query(action="step"), headers=HX)
    body = response.content.decode()
    assert response["HX-Retarget"] == "#simulator"
    assert response["HX-Push-Url"].endswith("&step=team-a,4")
    assert 'id="sim-step-button"' in body and "What happened:" in body


def test_going_back_in_history_gets_the_whole_page(client: Client) -> None:
    body = get_page(client, DEFAULT_URL, **HX, **{"HX-History-Restore-Request": "true"})
    assert "<html" in body and '<form id="sim-form"' in body


def test_the_embedded_form_does_not_push_a_url(client: Client) -> None:
    response = client.get("/simulator/", form_query(embed="1"), headers=HX)
    assert "HX-Push-Url" not in response
    response = client.get("/simulator/", form_query(embed="1"))
    assert response.status_code == 302 and "embed" not in response["Location"]


def test_only_get_and_head_are_allowed(client: Client) -> None:
    assert client.post("/simulator/").status_code == 405
    assert client.head("/simulator/").status_code == 200


# ---------------------------------------------------------------------------- house rules


def test_the_page_has_no_inline_style_or_script_and_labels_every_field(client: Client) -> None:
    page = get_page(client, "/simulator/?pool=24&pool=l40s:8&p=a,1/1,1/1,1&d=r,1/1,1&step=a,1")
    assert not re.search(r"\sstyle=", page)
    assert " hx-on" not in page
    for tag in re.findall(r"<script[^>]*>", page):
        assert "src=" in tag
    inputs, _ = form_inputs(page)
    for field_id in inputs:
        if field_id != "site-search":
            assert f'<label for="{field_id}">' in page, field_id
    assert page.count('role="img"') == len(re.findall(r'<svg class="sim-bar"', page)) > 0


def test_user_text_cannot_inject_markup(client: Client) -> None:
    page = get_page(
        client, "/simulator/?p=%3Cscript%3Ealert(1)%3C/script%3E,1,1,1&pool=%22%3E%3Cb%3E"
    )
    assert "<script>alert" not in page and '"><b>' not in page


# ---------------------------------------------------------------------------- in the guide


def test_section_7_embeds_the_simulator_as_a_plain_get_form(client: Client) -> None:
    page = get_page(client, "/guide/quota-simulator/")
    assert '<form id="sim-form" class="sim-form" method="get" action="/simulator/"' in page
    assert 'hx-push-url="false"' in page and 'name="embed" value="1"' in page
    assert "csrfmiddlewaretoken" not in render_embed()
    assert_matches_engine(page, simulate_quota(CASES["the guide's example"][1]))
    assert '<h2 id="sim-embed-title">Try it</h2>' in page


def test_the_embedded_simulator_is_static_html_the_guide_can_cache() -> None:
    first = render_embed()
    assert first == render_embed()
    assert "csrf" not in first.lower() and "X-CSRFToken" not in first
    assert first in section_page("quota-simulator").text
    assert "sim-form" not in section_page("quota-fairness").text
