"""A script pasted into the lab's terminal runs line by line, every line, however long: the
terminal sends each line after the last one's answer and paces them under the server's frame
limit (LAB_MAX_FRAMES_PER_SECOND), so the session is never closed as a flood. Before, a paste of
cheap commands sent one line each answer (a few ms apart): past the limit's burst of 20 the
server closed the socket with 4429 and the rest of the paste was lost."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_lab_browser import open_terminal

pytestmark = pytest.mark.browser

LINES = 45


def test_a_pasted_script_of_45_lines_runs_every_line_and_keeps_the_connection(
    page: Page,
) -> None:
    open_terminal(page)
    script = "\n".join(f"echo pasted-{n}" for n in range(1, LINES + 1))
    page.evaluate("text => window.LabTerminal.typeLine(text)", script)
    entries = page.locator("#transcript-log .transcript-entry")
    expect(entries).to_have_count(LINES, timeout=20_000)
    expect(entries.last).to_contain_text(f"pasted-{LINES}")
    expect(page.locator("#lab-status")).not_to_contain_text("Too many commands")
    expect(page.locator(".xterm-rows")).not_to_contain_text("connection closed")
