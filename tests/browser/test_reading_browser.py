"""Reading in Chromium: code blocks, wrapping, worked examples and search, at 1280 and 375 px."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import blocking_violations

WIDTHS = [1280, 375]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_copy_button_never_covers_the_first_line(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/guide/gang-scheduling/")
    block = page.locator(".code-block.command").first
    button = block.get_by_role("button", name="Copy").bounding_box()
    code = block.locator("pre").bounding_box()
    assert button and code
    assert button["y"] + button["height"] <= code["y"] + 1, (button, code)


@pytest.mark.parametrize("width", WIDTHS)
def test_long_lines_wrap_on_request_and_the_choice_is_remembered(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/guide/installation/")
    overflowing = page.locator(".code-block.command pre").evaluate_all(
        "pres => pres.map(el => el.scrollWidth > el.clientWidth)"
    )
    assert True in overflowing, "a long line scrolls at first"
    block = page.locator(".code-block.command").nth(overflowing.index(True))
    pre = block.locator("pre")
    toggle = block.get_by_role("button", name="Wrap lines")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert pre.evaluate("el => el.scrollWidth <= el.clientWidth")
    page.goto("/guide/sample-outputs/")
    sample = page.locator("details.sample").filter(has_text="v1 job list")
    sample.locator("summary").click()
    output = sample.locator("pre.output")
    assert output.evaluate("el => el.scrollWidth <= el.clientWidth"), "remembered on the next page"
    sample.get_by_role("button", name="Wrap lines").click()
    assert output.evaluate("el => el.scrollWidth > el.clientWidth")
    page.reload()
    expect(page.locator("button.wrap-toggle").first).to_have_attribute("aria-pressed", "false")


def test_code_is_coloured_in_both_themes(page: Page) -> None:
    page.goto("/guide/gang-scheduling/")
    comment = page.locator(".hl-c").first
    expect(comment).to_be_visible()
    light = comment.evaluate("el => getComputedStyle(el).color")
    page.emulate_media(color_scheme="dark")
    dark = comment.evaluate("el => getComputedStyle(el).color")
    assert light != dark


@pytest.mark.parametrize("width", WIDTHS)
def test_a_worked_example_is_marked_and_shows_the_engines_numbers(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/guide/quota-fairness/")
    example = page.get_by_role("region", name="Fair share, step by step")
    expect(example).to_contain_text("Worked example · added by this site")
    expect(example).to_contain_text("Fair shares: team-a 4, team-b 11, team-c 9.")
    example.get_by_role("link", name="Try it in the simulator with this setup").click()
    expect(page).to_have_url(re.compile(r"/simulator/\?pool=24&p=team-a,8,4,1"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", WIDTHS)
def test_search_understands_a_question_and_a_typo(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto("/search/")
    box = page.get_by_label("Words to find")
    box.fill("why is my job pending")
    results = page.locator(".search-results li")
    expect(results.first.get_by_role("link")).to_have_text("Troubleshooting: why is it Pending?")
    box.fill("preemtible")
    mark = page.locator(".search-results mark").first
    expect(mark).to_have_text(re.compile("preemptible", re.IGNORECASE))
    expect(page).to_have_url(re.compile(r"q=preemtible"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_no_blocking_accessibility_violations_on_reading_pages(
    page: Page, scheme: str, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.emulate_media(color_scheme=scheme)
    for url in [
        "/guide/quota-fairness/",
        "/guide/preemption-reclaim/",
        "/guide/placement/",
        "/guide/sample-outputs/",
        "/search/?q=reclaiming",
    ]:
        page.goto(url)
        page.locator("details").evaluate_all("all => all.forEach(d => d.open = true)")
        assert blocking_violations(page) == [], url


def _guide_sections(page: Page) -> list[str]:
    page.goto("/guide/big-picture/")
    return page.locator(".toc ol a").evaluate_all("links => links.map(a => a.pathname)")


@pytest.mark.parametrize("width", [1280, 390])
def test_no_guide_table_hides_a_column_at_desktop_or_phone_width(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    tables = 0
    for path in _guide_sections(page):
        page.goto(path)
        for region in page.locator(".prose .table-scroll").all():
            tables += 1
            clipped = region.evaluate("el => el.scrollWidth - el.clientWidth")
            assert clipped <= 1, f"{path}: a table is {clipped}px wider than its region"
            right = region.evaluate("el => el.getBoundingClientRect().right")
            assert right <= width, f"{path}: a table runs off the screen"
    assert tables >= 15


def test_on_a_phone_each_table_cell_names_its_column(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/guide/mig-gpu-operator/#troubleshooting-mig")
    table = page.locator("#troubleshooting-mig ~ .table-scroll table").first
    labels = table.locator("tbody td").evaluate_all(
        "cells => cells.map(td => getComputedStyle(td, '::before').content)"
    )
    assert labels[:3] == ['"Symptom" / ""', '"Likely cause" / ""', '"Fix" / ""'], labels
    fix = table.locator("tbody tr").first.locator("td").nth(2)
    expect(fix).to_be_in_viewport()
    # Screen readers still read a table: the roles survive the cards' display.
    expect(page.get_by_role("columnheader", name="Likely cause").first).to_be_attached()
    assert table.get_attribute("role") == "table"


@pytest.mark.parametrize("width", [1280, 390])
def test_the_search_page_box_is_wide_enough_for_a_question(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    question = "why is my distributed training job stuck pending on the pool"
    page.goto(f"/search/?q={question.replace(' ', '+')}")
    box = page.locator("#search-page-input")
    expect(box).to_have_value(question)
    if width >= 1000:
        assert box.evaluate("el => el.scrollWidth <= el.clientWidth"), "the question is cut off"
    else:
        main = page.locator("main").evaluate("el => el.clientWidth")
        assert box.evaluate("el => el.getBoundingClientRect().width") >= 0.8 * main


def test_reaching_the_end_of_a_section_marks_it_read_with_an_undo(page: Page) -> None:
    page.clock.install()
    page.goto("/guide/placement/")
    expect(page.get_by_role("button", name="Mark section as read")).to_be_attached()
    page.get_by_role("button", name="Mark section as read").scroll_into_view_if_needed()
    page.clock.run_for(6000)
    expect(page.get_by_text("Marked as read: you reached the end of this section.")).to_be_visible()
    expect(page.locator("#read-mark-placement")).to_contain_text("read")
    page.get_by_role("button", name="Undo: mark as unread").click()
    expect(page.get_by_role("button", name="Mark section as read")).to_be_visible()
    page.clock.run_for(6000)
    # Undone stays undone while the reader is still here.
    expect(page.get_by_role("button", name="Mark section as read")).to_be_visible()
    page.goto("/")
    expect(page.locator(".home-continue")).to_contain_text("Continue reading")
    expect(page.locator(".home-continue a").first).to_have_attribute("href", "/guide/placement/")


def test_a_section_offers_to_continue_from_the_heading_the_reader_reached(page: Page) -> None:
    page.goto("/guide/placement/")
    headings = page.locator(".prose h2[id]")
    assert headings.count() >= 3
    target = headings.nth(2)
    target_id = target.get_attribute("id")
    target.evaluate("el => window.scrollTo(0, el.getBoundingClientRect().top + scrollY + 40)")
    page.wait_for_function(
        "id => localStorage.getItem('guide-position:placement') === id", arg=target_id
    )
    page.goto("/guide/stack/")
    page.goto("/guide/placement/")
    offer = page.get_by_role("link", name=re.compile("^Continue where you left off"))
    expect(offer).to_have_attribute("href", f"#{target_id}")
    offer.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(f"#{target_id}$"))
