"""A reader in Chromium: reading, navigating, copying, searching, theming, by mouse and keyboard."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.axe import blocking_violations


def test_a_reader_follows_next_and_previous_through_the_guide(page: Page) -> None:
    page.goto("/")
    page.get_by_role("link", name=re.compile("^Start reading")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "The big picture: what Run:ai adds to Kubernetes"
    )
    page.get_by_role("link", name=re.compile("^Next 2\\. ")).click()
    expect(page).to_have_url(re.compile("/guide/ncp-aii-exam/$"))
    page.get_by_role("link", name=re.compile("^Previous 1\\. ")).click()
    expect(page).to_have_url(re.compile("/guide/big-picture/$"))
    toc_current = page.get_by_role("navigation", name="Guide contents").locator(
        "[aria-current=page]"
    )
    expect(toc_current).to_have_text("The big picture: what Run:ai adds to Kubernetes")


def test_the_copy_button_copies_the_command_without_its_prompt(page: Page) -> None:
    page.goto("/guide/sample-outputs/")
    sample = page.locator("details.sample").filter(has_text="Request a MIG layout from MIG Manager")
    sample.locator("summary").click()
    sample.get_by_role("button", name="Copy command").click()
    expect(sample.get_by_role("button", name="Copied")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite"


def test_a_command_block_copies_every_line(page: Page) -> None:
    page.goto("/guide/gang-scheduling/")
    block = page.locator(".code-block.command").first
    block.get_by_role("button", name="Copy").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("# Distributed PyTorch")
    assert "runai training pytorch submit llm-ft -p team-llm" in copied
    assert "$ " not in copied


def test_a_sample_output_opens_and_scrolls_sideways_instead_of_wrapping(page: Page) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/guide/sample-outputs/")
    sample = page.locator("details.sample").filter(has_text="v1 job list")
    output = sample.locator("pre.output")
    expect(output).to_be_hidden()
    sample.locator("summary").click()
    expect(output).to_be_visible()
    expect(sample.get_by_text("What to look at:")).to_be_visible()
    widths = output.evaluate("el => [el.scrollWidth, el.clientWidth]")
    assert widths[0] > widths[1], "long lines scroll inside the block"
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_slash_focuses_search_and_results_come_as_you_type(page: Page) -> None:
    page.goto("/guide/big-picture/")
    page.keyboard.press("/")
    search = page.get_by_role("searchbox", name="Search the guide")
    expect(search).to_be_focused()
    page.keyboard.type("single vs mixed")
    result = page.locator("#search-popup").get_by_role("link", name="single vs mixed")
    expect(result).to_be_visible()
    page.keyboard.press("ArrowDown")
    expect(page.locator("#search-popup a").first).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("/guide/mig-gpu-operator/#single-vs-mixed$"))


def test_search_works_without_javascript(browser, live_server_url: str) -> None:
    context = browser.new_context(base_url=live_server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/")
    page.get_by_role("searchbox", name="Search the guide").fill("fragmentation")
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(r"/search/\?q=fragmentation$"))
    expect(
        page.get_by_role("link", name="Placement: bin-packing vs spreading").first
    ).to_be_visible()
    context.close()


def test_the_theme_toggle_switches_and_is_remembered(page: Page) -> None:
    page.emulate_media(color_scheme="light")
    page.goto("/guide/quota-fairness/")
    toggle = page.get_by_role("button", name="Dark theme")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    background = "getComputedStyle(document.body).backgroundColor"
    light = page.evaluate(background)
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert page.evaluate(background) != light
    page.goto("/guide/placement/")
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate(background) != light


def test_the_dark_theme_follows_the_system_setting(page: Page) -> None:
    page.emulate_media(color_scheme="dark")
    page.goto("/")
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")


def test_marking_a_section_read_updates_the_contents_without_a_reload(page: Page) -> None:
    page.goto("/guide/stack/")
    page.get_by_role("button", name="Mark section as read").click()
    expect(page.get_by_text("You marked this section as read.")).to_be_visible()
    expect(page.locator("#read-mark-stack")).to_contain_text("(read)")
    page.reload()
    expect(page.get_by_text("1 of 27 sections read").first).to_be_visible()


def test_a_learner_sees_their_read_mark_and_marks_a_section_read_by_keyboard(page: Page) -> None:
    page.goto("/guide/placement/")
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "Mark section as read":
            break
    page.keyboard.press("Enter")
    expect(page.get_by_text("You marked this section as read.")).to_be_visible()
    # The focus stays on the button (now its opposite), not lost to the page.
    expect(page.get_by_role("button", name="Mark as unread")).to_be_focused()
    expect(page.locator("#read-mark-placement")).to_contain_text("(read)")

    # Another section's page, the same bytes for everyone, shows this learner's marks.
    page.goto("/guide/stack/")
    expect(page.locator("#read-mark-placement")).to_contain_text("(read)")
    expect(page.locator("#read-mark-stack")).not_to_contain_text("(read)")
    expect(page.locator(".toc-heading")).to_contain_text("1 of 27 read")
    expect(page.get_by_role("button", name="Mark section as read")).to_be_visible()


def test_without_javascript_a_reader_marks_a_section_read_through_the_link(
    browser, live_server_url: str
) -> None:
    context = browser.new_context(base_url=live_server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/guide/placement/")
    page.get_by_role("link", name="Mark this section as read, or see what you have read").click()
    page.get_by_role("button", name="Mark section as read").click()
    expect(page.get_by_text("You marked this section as read.")).to_be_visible()
    expect(page.get_by_text("1 of 27 sections read")).to_be_visible()
    page.get_by_role("link", name="Back to the section").click()
    expect(page).to_have_url(re.compile("/guide/placement/$"))
    context.close()


def test_the_guide_can_be_read_with_the_keyboard_alone(page: Page) -> None:
    page.goto("/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    page.keyboard.press("Enter")
    # From the main content, Tab reaches "Start reading" and Enter follows it.
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent").startswith("Start reading"):
            break
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("/guide/big-picture/$"))
    # Tab on to the Next link, and open the first sample output with the keyboard too.
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.getAttribute('rel')") == "next":
            break
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile("/guide/ncp-aii-exam/$"))
    page.goto("/guide/sample-outputs/")
    page.locator("details.sample summary").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("details.sample").first).to_have_attribute("open", "")


def test_the_pages_fit_a_375_pixel_phone(page: Page) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    for url in [
        "/",
        "/guide/troubleshooting-pending/",
        "/guide/mig-gpu-operator/",
        "/search/?q=quota",
    ]:
        page.goto(url)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, url


def test_every_page_type_has_no_serious_accessibility_violations(page: Page) -> None:
    for url in ["/", "/guide/mig-gpu-operator/", "/guide/stack/read", "/search/?q=quota"]:
        page.goto(url)
        assert blocking_violations(page) == [], url
    page.goto("/guide/sample-outputs/")
    page.locator("details.sample summary").first.click()
    assert blocking_violations(page) == []
    page.emulate_media(color_scheme="dark")
    page.goto("/guide/troubleshooting-pending/")
    assert blocking_violations(page) == []


def test_the_not_found_page_is_accessible_and_leads_back(context) -> None:
    # Its own page: the 404 status is expected here, so the console check is not applied.
    page = context.new_page()
    response = page.goto("/guide/no-such-page/")
    assert response is not None and response.status == 404
    assert blocking_violations(page) == []
    contents = page.get_by_role("region", name="The guide's contents")
    contents.get_by_role("link").first.click()
    expect(page).to_have_url(re.compile(r"/guide/[a-z-]+/$"))
    expect(page.get_by_role("heading", level=1)).to_be_visible()
