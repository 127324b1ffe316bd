"""The quota simulator in Chromium: keyboard, mouse, steps, links, reset, themes, phones."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.axe import blocking_violations

KILLED = "/simulator/?pool=16&p=team-vision,8,2,1&p=team-llm,8,14,1"


def project(page: Page, number: int) -> Locator:
    return page.get_by_role("group", name=f"Project {number}", exact=True)


def cell(page: Page, project_name: str, column: str, pool: str = "default") -> Locator:
    """The table cell for a project and column, found by the column's header text."""
    table = page.locator("table", has=page.get_by_text(f"GPUs per project in node pool {pool}"))
    expect(table.get_by_role("columnheader", name=column, exact=True)).to_be_visible()
    headers = [" ".join(text.split()) for text in table.locator("thead th").all_inner_texts()]
    row = table.locator(
        "tbody tr", has=page.get_by_role("rowheader", name=project_name, exact=True)
    )
    return row.locator("th, td").nth(headers.index(column))


def bar(page: Page, project_name: str) -> Locator:
    return page.locator(f'svg.sim-bar[aria-label^="{project_name}:"]')


def test_a_value_changed_with_the_keyboard_updates_the_bars_table_and_url(page: Page) -> None:
    page.goto("/simulator/")
    expect(cell(page, "team-a", "Within quota")).to_have_text("4")
    demand = project(page, 1).get_by_label("Demand", exact=True)
    demand.focus()
    for _ in range(4):
        page.keyboard.press("ArrowUp")
    expect(demand).to_have_value("8")
    expect(cell(page, "team-a", "Within quota")).to_have_text("8")
    expect(bar(page, "team-a")).to_have_attribute("aria-label", re.compile("8 GPUs running"))
    expect(page).to_have_url(re.compile(r"/simulator/\?pool=24&p=team-a,8,8,1&p=team-b"))
    expect(page.locator("#sim-live")).to_contain_text("Node pool default (24 GPUs)")
    expect(demand).to_be_focused()


def test_a_value_changed_with_the_mouse_updates_the_result(page: Page) -> None:
    page.goto("/simulator/")
    before = bar(page, "team-b").get_attribute("aria-label")
    weight = project(page, 2).get_by_label("Over-quota weight", exact=True)
    weight.click(click_count=3)
    page.keyboard.type("1")
    expect(cell(page, "team-b", "Borrowed")).to_have_text("2 reclaimable")
    expect(cell(page, "team-c", "Borrowed")).to_have_text("2 reclaimable")
    assert bar(page, "team-b").get_attribute("aria-label") != before


def test_stepping_a_reclaim_shows_the_timeline_and_can_step_again(page: Page) -> None:
    page.goto(KILLED)
    expect(cell(page, "team-llm", "Borrowed")).to_have_text("6 reclaimable")
    page.get_by_label("Project", exact=True).select_option(label="team-vision")
    page.get_by_label("Extra demand (GPUs)").fill("6")
    page.get_by_role("button", name="Raise demand").click()
    story = page.locator("#sim-step-result")
    expect(story).to_contain_text("6 GPUs reclaimed from team-llm for team-vision")
    expect(story).to_contain_text("above its fair share of 8")
    expect(story.locator("ol.sim-timeline li").first).to_contain_text("Cycle 1")
    expect(cell(page, "team-llm", "Borrowed")).to_have_text("0")
    expect(page).to_have_url(re.compile(r"&step=team-vision,6$"))
    expect(project(page, 1).get_by_label("Demand", exact=True)).to_have_value("8")
    expect(page.get_by_role("button", name="Raise demand")).to_be_focused()
    expect(page.locator("#sim-live")).to_contain_text("6 GPUs reclaimed")
    page.keyboard.press("Enter")
    expect(project(page, 1).get_by_label("Demand", exact=True)).to_have_value("14")
    expect(story).to_contain_text("grew by 6 GPUs")
    expect(page).to_have_url(re.compile(r"p=team-vision,8,8,1.*&step=team-vision,6$"))


def test_enter_in_the_step_size_field_takes_the_step(page: Page) -> None:
    page.goto(KILLED)
    page.get_by_label("Project", exact=True).select_option(label="team-vision")
    extra = page.get_by_label("Extra demand (GPUs)")
    extra.fill("2")
    expect(page).to_have_url(re.compile(re.escape(KILLED) + "$"))
    extra.press("Enter")
    expect(page.locator("#sim-step-result")).to_contain_text("grew by 2 GPUs")


def test_a_copied_link_reopens_the_same_setup(page: Page, context) -> None:
    page.goto("/simulator/")
    project(page, 3).get_by_label("Quota", exact=True).fill("5")
    expect(cell(page, "team-c", "Quota")).to_have_text("5")
    page.get_by_role("button", name="Copy link").click()
    expect(page.get_by_role("status").filter(has_text="copied")).to_be_visible()
    link = page.evaluate("navigator.clipboard.readText()")
    assert link.endswith("/simulator/?pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,5,10,1")
    other = context.new_page()
    other.goto(link)
    expect(project(other, 3).get_by_label("Quota", exact=True)).to_have_value("5")
    expect(cell(other, "team-c", "Quota")).to_have_text("5")
    other.close()


def test_reset_goes_back_to_the_guides_setup(page: Page) -> None:
    page.goto("/simulator/?pool=8&p=solo,2,2,1")
    page.get_by_role("link", name="Reset").click()
    expect(page).to_have_url(re.compile(r"/simulator/$"))
    expect(project(page, 3).get_by_label("Name", exact=True)).to_have_value("team-c")


def test_adding_and_removing_projects_moves_focus_sensibly(page: Page) -> None:
    page.goto("/simulator/")
    page.get_by_role("button", name="Add a project").click()
    name = project(page, 4).get_by_label("Name", exact=True)
    expect(name).to_be_focused()
    expect(name).to_have_value("team-d")
    expect(cell(page, "team-d", "Demand (running + waiting)")).to_have_text("4")
    expect(page.locator(".sim-warnings")).to_contain_text("Project team-d has no quota")
    page.get_by_role("button", name="Remove project 1").click()
    expect(page.get_by_role("button", name="Add a project")).to_be_focused()
    expect(page.get_by_role("rowheader", name="team-a", exact=True)).to_have_count(0)
    expect(page).to_have_url(re.compile(r"\?pool=24&p=team-b,8,16,2&p=team-c,8,10,1&p=team-d"))
    page.keyboard.type(" ")  # the button has focus: space presses it
    expect(project(page, 4).get_by_label("Name", exact=True)).to_be_focused()


def test_a_bad_value_is_explained_beside_its_field_until_fixed(page: Page) -> None:
    page.goto("/simulator/")
    quota = project(page, 1).get_by_label("Quota", exact=True)
    quota.fill("-3")
    message = page.locator("#p-0-quota-0-msg")
    expect(message).to_have_text("Can't be negative (-3). Enter 0 or more.")
    expect(quota).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#sim-problems")).to_contain_text("1 value needs fixing")
    expect(project(page, 2).get_by_label("Demand", exact=True)).to_have_value("16")
    quota.fill("6")
    expect(message).to_be_empty()
    expect(quota).not_to_have_attribute("aria-invalid", "true")
    expect(cell(page, "team-a", "Quota")).to_have_text("6")


def test_the_problem_list_links_to_its_field(page: Page) -> None:
    page.goto("/simulator/?pool=24&p=team-a,8,4,1,limit:lots&p=team-b,8,16,2")
    limit = project(page, 1).get_by_label("Limit", exact=True)
    page.locator("#sim-problems").get_by_role("link").click()
    expect(limit).to_be_focused()
    limit.fill("6")
    expect(cell(page, "team-a", "Limit")).to_have_text("6")


def test_the_back_button_returns_to_the_previous_setup(page: Page) -> None:
    page.goto("/simulator/")
    demand = project(page, 1).get_by_label("Demand", exact=True)
    demand.fill("7")
    expect(page).to_have_url(re.compile("p=team-a,8,7,1"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/simulator/$"))
    expect(project(page, 1).get_by_label("Demand", exact=True)).to_have_value("4")
    expect(cell(page, "team-a", "Demand (running + waiting)")).to_have_text("4")


def test_enter_in_a_field_updates_and_does_not_press_another_button(page: Page) -> None:
    page.goto("/simulator/")
    project(page, 1).get_by_label("Name", exact=True).press("Enter")
    expect(page.locator("#sim-result")).to_be_visible()
    expect(page.get_by_role("group", name="Node pool 2")).to_have_count(0)
    expect(project(page, 4)).to_have_count(0)


def test_a_second_pool_and_a_department_through_the_form(page: Page) -> None:
    page.goto("/simulator/")
    page.get_by_role("button", name="Add a second node pool").click()
    expect(page.locator("#pool-1-name")).to_be_focused()
    project(page, 2).get_by_label("Demand in l40s", exact=True).fill("3")
    expect(cell(page, "team-b", "Within quota", pool="l40s")).to_have_text("0")
    expect(cell(page, "team-b", "Borrowed", pool="l40s")).to_have_text("3 reclaimable")
    page.locator("#pool-1-name").fill("a100")
    expect(project(page, 2).get_by_label("Demand in a100", exact=True)).to_have_value("3")
    # Let the rename's update land first: adding a department would cancel it mid-flight.
    expect(page).to_have_url(re.compile(r"pool=a100:8"))
    page.get_by_text("Departments (0)").click()
    page.get_by_role("button", name="Add a department").click()
    expect(page.locator("#d-0-name")).to_be_focused()
    project(page, 1).get_by_text("Limit, priority, department").click()
    project(page, 1).get_by_label("Department", exact=True).select_option(label="research")
    expect(cell(page, "team-a", "Department", pool="a100")).to_have_text("research")
    expect(page).to_have_url(re.compile(r"dept:research.*&d=research,0/0,1"))


def test_the_embedded_simulator_updates_in_place_in_the_guide(page: Page) -> None:
    page.goto("/guide/quota-simulator/")
    project(page, 2).get_by_label("Demand", exact=True).fill("20")
    expect(cell(page, "team-b", "Demand (running + waiting)")).to_have_text("20")
    expect(page).to_have_url(re.compile(r"/guide/quota-simulator/$"))
    page.get_by_role("link", name="Open the full simulator").click()
    expect(page).to_have_url(re.compile(r"/simulator/$"))


def test_the_form_works_without_javascript(browser: Browser, live_server_url: str) -> None:
    context = browser.new_context(base_url=live_server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/simulator/")
    expect(page.get_by_role("button", name="Copy link")).to_be_hidden()
    project(page, 1).get_by_label("Demand", exact=True).fill("8")
    page.get_by_role("button", name="Update result").click()
    expect(page).to_have_url(re.compile(r"/simulator/\?pool=24&p=team-a,8,8,1&"))
    expect(cell(page, "team-a", "Within quota")).to_have_text("8")
    page.get_by_role("button", name="Raise demand").click()
    expect(page).to_have_url(re.compile(r"&step=team-a,4#sim-step-result$"))
    expect(page.locator("#sim-step-result")).to_contain_text("grew by 4 GPUs")
    context.close()


def test_the_simulator_fits_a_375_pixel_phone(page: Page) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    for url in ["/simulator/", f"{KILLED}&step=team-vision,6", "/guide/quota-simulator/"]:
        page.goto(url)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, url
    bars = page.locator("svg.sim-bar").first.bounding_box()
    assert bars and bars["width"] > 250
    button = page.get_by_role("button", name="Raise demand").bounding_box()
    assert button and button["height"] >= 24 and button["width"] >= 24


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_blocking_accessibility_violations(page: Page, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)
    rich = (
        "/simulator/?pool=h100:16&pool=l40s:8&d=research,12/2,1"
        "&p=team-llm,8/0,16/0,1,limit:20,dept:research&p=team-vision,4/2,2/4,1,prio:1"
        "&p=bad,x,1/1,1&step=team-vision,6"
    )
    for url in ["/simulator/", f"{KILLED}&step=team-vision,6", rich, "/guide/quota-simulator/"]:
        page.goto(url)
        page.locator("details").evaluate_all("all => all.forEach(d => d.open = true)")
        assert blocking_violations(page) == [], url


def _in_view(page: Page, locator: Locator) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"] if page.viewport_size else 0
    return bool(box) and box["y"] >= 0 and box["y"] + box["height"] <= height  # type: ignore[index]


@pytest.mark.parametrize("width", [1280, 375])
def test_a_change_says_what_changed_beside_the_controls(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/simulator/")
    demand = project(page, 1).get_by_label("Demand", exact=True)
    demand.fill("8")
    change = page.locator("#sim-quick-change")
    expect(change).to_have_text("Changed: team-a 4 → 8, team-b 11 → 8, team-c 9 → 8 GPUs running.")
    expect(page.locator("#sim-live")).to_contain_text("Changed: team-a 4 → 8")
    expect(page.locator("#sim-quick")).to_contain_text("default: team-a 8, team-b 8, team-c 8")
    # Typing at the top of the form, the summary is still on screen beside it.
    assert _in_view(page, demand)
    assert _in_view(page, page.locator("#sim-quick"))
    expect(demand).to_be_focused()


@pytest.mark.parametrize("width", [1280, 375])
def test_the_working_is_shown_beside_the_numbers(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/simulator/?pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,8,10,1")
    why = page.locator("#sim-why-0")
    expect(why).to_contain_text("Quota first, up to demand")
    expect(why).to_contain_text("Round 1: 4 GPUs to share, weights add up to 3")
    expect(why).to_contain_text("team-b gets 1 GPU (remembered fraction 0.67).")
    expect(page.locator(".sim-holders")).to_contain_text("team-b 11 GPUs (3 borrowed)")
    ticks = page.locator(".sim-scale .sim-tick")
    expect(ticks).to_have_count(7)
    # The axis lines up with the bars: the tick for 8 GPUs sits at team-a's quota mark.
    mark = page.locator('svg.sim-bar[aria-label^="team-a:"] .sim-quota-mark').bounding_box()
    tick = ticks.nth(2).bounding_box()
    assert mark and tick and abs(mark["x"] + mark["width"] / 2 - tick["x"]) < 3


def test_on_a_phone_the_table_scrolls_sideways_with_a_cue(page: Page) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/simulator/?pool=24&p=team-a,8,4,1,limit:8,dept:research&d=research,8,1")
    expect(page.locator(".sim-scroll-cue").first).to_be_visible()
    region = page.locator(".sim-table-scroll").first
    assert region.evaluate("r => r.scrollWidth > r.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_blocking_accessibility_violations_on_a_phone(page: Page, scheme: str) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    page.emulate_media(color_scheme=scheme)
    for url in [
        "/simulator/",
        f"{KILLED}&step=team-vision,6",
        "/simulator/?pool=16&p=a,8,8,1&p=b,8,8,1&p=c,8,8,1",
    ]:
        page.goto(url)
        page.locator("details").evaluate_all("all => all.forEach(d => d.open = true)")
        assert blocking_violations(page) == [], url
