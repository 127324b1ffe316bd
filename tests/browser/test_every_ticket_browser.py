"""Every lab ticket, solved in Chromium by typing its answer key into the terminal."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from simulators.lab import list_tickets

# The lab answers over a websocket; on a busy shared CI machine that can take a while.
LAB_WAIT = 20_000


@pytest.mark.parametrize("ticket", [summary.id for summary in list_tickets()])
def test_every_ticket_is_solved_in_the_browser_by_its_answer_key(page: Page, ticket: str) -> None:
    page.goto(f"/lab/{ticket}/")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    page.get_by_role("button", name="Start the terminal").click()
    expect(page.locator("#lab.connected")).to_be_attached(timeout=LAB_WAIT)
    # The key as the page shows it (pod names filled in for this learner's world).
    page.locator("details.answer-key summary").click()
    steps = page.locator("details.answer-key li code").all_inner_texts()
    assert steps
    entries = page.locator("#transcript-log .transcript-entry")
    for line in steps:
        before = entries.count()
        page.evaluate("line => window.LabTerminal.typeLine(line)", line)
        expect(entries).to_have_count(before + 1, timeout=LAB_WAIT)
    expect(page.locator("#ticket-solved")).to_be_visible(timeout=LAB_WAIT)
    total = page.locator("#checklist [data-item]").count()
    expect(page.locator("#checklist-summary")).to_have_text(f"{total} of {total} done")
