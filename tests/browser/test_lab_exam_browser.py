"""The lab exam in Chromium: two tasks solved in the terminal, the clock runs out, the report."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from simulators.lab import load_ticket
from tests.browser.axe import blocking_violations
from tests.live_server import daphne_server

# The quickest tickets to solve, and three more: the exam draws all five, in a random order.
QUICK = ["department-cap", "pending-workspace"]
POOL = [*QUICK, "inference-priority", "node-pool-quota", "gang-fragmentation"]
LAB_WAIT = 20_000


@pytest.fixture(scope="module")
def exam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("exam-log") / "server.log"
    with daphne_server({"LAB_EXAM_TICKETS": ",".join(POOL)}, log=log) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def exam_page(browser: Browser, exam_server: str) -> Iterator[Page]:
    context = browser.new_context(base_url=exam_server, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"the page logged errors: {errors}"


def type_line(page: Page, line: str) -> None:
    entries = page.locator("#transcript-log .transcript-entry")
    before = entries.count()
    page.evaluate("line => window.LabTerminal.typeLine(line)", line)
    expect(entries).to_have_count(before + 1, timeout=LAB_WAIT)


def start_terminal(page: Page) -> None:
    start = page.get_by_role("button", name="Start the terminal")
    if start.is_visible():
        start.click()
    expect(page.locator("#lab.connected")).to_be_attached(timeout=LAB_WAIT)


def test_an_exam_with_two_tasks_solved_ends_when_the_clock_runs_out_and_scores_two_of_five(
    exam_page: Page,
) -> None:
    page = exam_page
    page.goto("/lab/")
    page.get_by_role("link", name="Take a timed lab exam").click()
    page.get_by_label("Time for the whole exam (minutes)").fill("1")
    page.get_by_role("button", name="Start the exam").click()
    expect(page).to_have_url(re.compile(r"/lab/exam/\d+/1/$"))
    expect(page.locator("#exam-clock")).to_contain_text("Time left:")
    titles = {load_ticket(ticket).title: ticket for ticket in POOL}
    solved = []
    for position in range(1, 6):
        page.get_by_role("navigation", name="Exam tasks").get_by_role(
            "link", name=f"Task {position}", exact=True
        ).click()
        heading = page.get_by_role("heading", level=1).inner_text()
        ticket = titles[heading.split(": ", 1)[1]]
        # No hints, no answer key, no checklist ticks.
        expect(page.locator("details.answer-key")).to_have_count(0)
        expect(page.locator("#checklist")).to_have_count(0)
        if ticket not in QUICK:
            continue
        start_terminal(page)
        for line in load_ticket(ticket).answer_key:
            type_line(page, line)
        solved.append(ticket)
        # The task's lab survives a reload.
        page.reload()
        expect(page.locator("#transcript-log")).to_contain_text(load_ticket(ticket).answer_key[-1])
    assert sorted(solved) == sorted(QUICK)
    # Nobody presses Finish: the clock does, and the server agrees the time is up.
    expect(page).to_have_url(re.compile(r"/lab/exam/\d+/report$"), timeout=90_000)
    expect(page.locator("#exam-score")).to_contain_text("2 of 5 tasks solved")
    for ticket in POOL:
        item = load_ticket(ticket)
        report = page.locator("section.exam-task-report", has_text=item.title)
        verdict = "solved" if ticket in QUICK else "not solved"
        expect(report.get_by_role("heading", level=2)).to_have_text(re.compile(f"— {verdict}$"))
        findings = report.locator(".check-finding").all_inner_texts()
        assert findings == ["done" if ticket in QUICK else "not done"] * len(item.checklist)
        expect(report.locator("details.answer-key")).to_contain_text(item.answer_key[0])
    department = page.locator("section.exam-task-report", has_text=load_ticket(QUICK[0]).title)
    expect(department).to_contain_text("runai training describe rl-sweep -p team-rl")
    # The attempt is listed with its score.
    page.goto("/lab/exam/")
    expect(page.get_by_role("link", name="2 of 5 tasks solved")).to_be_visible()


def test_axe_finds_no_blocking_violation_on_the_exam_pages(exam_page: Page) -> None:
    page = exam_page
    page.goto("/lab/exam/")
    assert blocking_violations(page) == []
    page.get_by_role("button", name="Start the exam").click()
    assert blocking_violations(page) == []
