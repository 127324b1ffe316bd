"""The lab terminal in Chromium over a live websocket: typing, completion, history, persistence."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.axe import blocking_violations

PROMPT = "admin@kadmin:~$ "
# Where an element is on the page (not in the viewport, which scrolls to the terminal).
PAGE_BOX = (
    "e => { const r = e.getBoundingClientRect();"
    " return [r.left, r.top + scrollY, r.width, r.height]; }"
)


def open_terminal(page: Page, ticket: str = "mig-single") -> None:
    page.goto(f"/lab/{ticket}/")
    page.get_by_role("button", name="Start the terminal").click()
    expect(page.locator("#lab.connected")).to_be_attached()
    page.locator(".xterm-helper-textarea").focus()


def type_command(page: Page, line: str) -> None:
    entries = page.locator("#transcript-log .transcript-entry")
    before = entries.count()
    page.keyboard.type(line)
    page.keyboard.press("Enter")
    expect(entries).to_have_count(before + 1)


def terminal_text(page: Page) -> str:
    rows = page.locator(".xterm-rows > div").all_inner_texts()
    return "\n".join(row.replace("\xa0", " ") for row in rows)


def test_a_learner_solves_mig_single_by_typing_and_finds_it_all_after_a_reload(
    page: Page,
) -> None:
    open_terminal(page)
    page.locator("details.answer-key summary").click()
    steps = page.locator("details.answer-key li code").all_inner_texts()
    page.locator("details.answer-key summary").click()
    page.locator(".xterm-helper-textarea").focus()
    for step in steps:
        type_command(page, step)
    # MIG Manager works over steps: keep looking until the state says success.
    for _ in range(4):
        type_command(page, "kubectl get node gpu-node2 -L nvidia.com/mig.config.state")
    type_command(page, "kubectl uncordon gpu-node2")
    checklist = page.locator("#checklist")
    for item in ["layout-applied", "advertises-56", "schedulable-again", "others-untouched"]:
        expect(checklist.locator(f'[data-item="{item}"]')).to_have_class(re.compile("done"))
    expect(page.locator("#checklist-summary")).to_have_text("4 of 4 done")
    expect(page.locator("#lab-status")).to_contain_text("Ticket solved")

    # Started once, the terminal starts by itself on the next visit.
    page.reload()
    expect(page.locator("#lab.connected")).to_be_attached()
    expect(page.locator("#checklist-summary")).to_have_text("4 of 4 done")
    transcript = page.locator("#transcript-log")
    expect(transcript).to_contain_text(PROMPT + "kubectl uncordon gpu-node2")
    expect(transcript).to_contain_text("node/gpu-node2 uncordoned")
    expect(page.locator(".xterm-rows")).to_contain_text("node/gpu-node2 uncordoned")


def test_typing_echoes_and_tab_completes_and_up_recalls(page: Page) -> None:
    open_terminal(page)
    page.keyboard.type("kubectl get no")
    expect(page.locator(".xterm-rows")).to_contain_text(PROMPT + "kubectl get no")
    page.keyboard.press("Tab")
    expect(page.locator(".xterm-rows")).to_contain_text(PROMPT + "kubectl get nodes")
    page.keyboard.press("Enter")
    expect(page.locator("#transcript-log")).to_contain_text("gpu-node3")
    page.keyboard.type("kubectl drain gpu-n")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator(".xterm-rows")).to_contain_text("gpu-node1  gpu-node2  gpu-node3")
    page.keyboard.press("Control+c")
    page.keyboard.press("ArrowUp")
    expect(page.locator(".xterm-rows")).to_contain_text(re.compile(r"\$ kubectl get nodes\s*$"))


def test_a_mistake_gets_the_real_tools_answer_in_the_terminal(page: Page) -> None:
    open_terminal(page)
    type_command(page, "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb")
    expect(page.locator("#transcript-log")).to_contain_text(
        "error: 'nvidia.com/mig.config' already has a value (all-disabled), "
        "and --overwrite is false"
    )
    type_command(page, "emacs cluster.yaml")
    expect(page.locator("#transcript-log")).to_contain_text("bash: emacs: command not found")


def test_ctrl_l_clears_the_screen_but_keeps_the_line(page: Page) -> None:
    open_terminal(page)
    type_command(page, "kubectl get nodes")
    page.keyboard.type("kubectl get pods")
    page.keyboard.press("Control+l")
    expect(page.locator(".xterm-rows")).not_to_contain_text("gpu-node3")
    expect(page.locator(".xterm-rows")).to_contain_text(PROMPT + "kubectl get pods")


def test_the_lab_works_without_javascript_through_the_form(browser, live_server_url: str) -> None:
    context = browser.new_context(base_url=live_server_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/lab/mig-single/")
    expect(page.get_by_role("button", name="Start the terminal")).to_be_hidden()
    page.get_by_role("textbox", name="Command").fill("kubectl cordon gpu-node2")
    page.get_by_role("button", name="Run").click()
    expect(page.locator("#transcript-log")).to_contain_text("node/gpu-node2 cordoned")
    context.close()


def test_reset_asks_for_confirmation(page: Page) -> None:
    open_terminal(page)
    type_command(page, "kubectl cordon gpu-node2")
    page.get_by_role("link", name="Reset this ticket…").click()
    page.get_by_role("button", name="Yes, reset this ticket").click()
    expect(page.locator("#lab.connected")).to_be_attached()
    expect(page.locator("#transcript-log")).not_to_contain_text("cordoned")


def test_lab_pages_have_no_serious_accessibility_violations(page: Page) -> None:
    page.goto("/lab/")
    assert blocking_violations(page) == []
    open_terminal(page)
    type_command(page, "kubectl get nodes")
    assert blocking_violations(page) == []


def test_the_terminal_loads_only_when_started_and_takes_what_was_typed_meanwhile(
    page: Page,
) -> None:
    xterm: list[str] = []
    page.on(
        "request", lambda request: xterm.append(request.url) if "xterm" in request.url else None
    )
    page.goto("/lab/mig-single/")
    start = page.get_by_role("button", name="Start the terminal")
    box = start.evaluate(PAGE_BOX)
    page.wait_for_load_state("networkidle")
    assert xterm == [], "xterm.js is not fetched before the terminal is wanted"
    expect(page.get_by_role("textbox", name="Command")).to_be_visible()
    assert blocking_violations(page) == []
    start.focus()
    page.keyboard.type("kubectl get nodes")
    page.keyboard.press("Enter")
    expect(page.locator("#transcript-log")).to_contain_text(PROMPT + "kubectl get nodes")
    expect(page.locator("#transcript-log")).to_contain_text("gpu-node3")
    expect(page.locator(".xterm-helper-textarea")).to_be_focused()
    expect(start).to_be_hidden()
    expect(page.get_by_role("textbox", name="Command")).to_be_hidden()
    assert page.locator("#terminal").evaluate(PAGE_BOX) == box, "the terminal has the button's box"


def test_when_the_terminal_cannot_load_the_form_still_runs_commands(
    browser, live_server_url: str
) -> None:
    # Its own page: the shared fixture fails a test on the console error a lost script logs.
    context = browser.new_context(base_url=live_server_url)
    page = context.new_page()
    page.route("**/xterm.js", lambda route: route.abort())
    page.goto("/lab/mig-single/")
    page.get_by_role("button", name="Start the terminal").click()
    expect(page.locator("#lab-status")).to_contain_text("could not load")
    page.get_by_role("textbox", name="Command").fill("kubectl cordon gpu-node2")
    page.get_by_role("button", name="Run").click()
    expect(page.locator("#transcript-log")).to_contain_text("node/gpu-node2 cordoned")
    context.close()
