"""Streams in the browser terminal: a watch moves as another tab changes the cluster."""

from __future__ import annotations

import re

from playwright.sync_api import BrowserContext, Page, expect

PROMPT = "admin@kadmin:~$ "
# The rows after the first `pending` hold a `success`: MIG Manager finished while we watched.
MOVED = """() => {
  const text = document.querySelector('.xterm-rows').innerText;
  const at = text.indexOf('pending');
  return at >= 0 && text.indexOf('success', at) > at;
}"""


def open_terminal(page: Page) -> None:
    page.goto("/lab/mig-single/")
    start = page.get_by_role("button", name="Start the terminal")
    if start.is_visible():
        start.click()
    expect(page.locator("#lab.connected")).to_be_attached()
    page.locator(".xterm-helper-textarea").focus()


def run(page: Page, line: str) -> None:
    entries = page.locator("#transcript-log .transcript-entry")
    before = entries.count()
    page.keyboard.type(line)
    page.keyboard.press("Enter")
    expect(entries).to_have_count(before + 1)


def test_a_watch_shows_mig_manager_move_to_success_as_another_tab_labels_the_node(
    context: BrowserContext, page: Page
) -> None:
    open_terminal(page)
    run(page, "kubectl cordon gpu-node2 && kubectl drain gpu-node2 --ignore-daemonsets")
    run(page, "kubectl get nodes -L nvidia.com/mig.config.state -w")
    expect(page.locator("#lab-status")).to_have_text("Streaming: Ctrl+C stops it.")
    rows = page.locator(".xterm-rows")
    expect(rows).to_contain_text("MIG.CONFIG.STATE")

    other = context.new_page()
    open_terminal(other)
    run(other, "kubectl label node gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite")
    expect(other.locator("#transcript-log")).to_contain_text("node/gpu-node2 labeled")

    page.wait_for_function(MOVED, timeout=15_000)
    # The stream moved the checklist too; it runs until Ctrl+C, then the prompt is back.
    layout = page.locator('#checklist [data-item="layout-applied"]')
    expect(layout).to_have_class(re.compile("done"))
    page.bring_to_front()
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.press("Control+c")
    expect(page.locator("#lab-status")).to_have_text("The stream ended.")
    run(page, "kubectl get node gpu-node2 -L nvidia.com/mig.config")
    expect(page.locator("#transcript-log")).to_contain_text("all-1g.10gb")
    # The transcript holds the stream's rows too, for screen readers.
    expect(page.locator("#transcript-log")).to_contain_text("pending")
    other.close()


def test_watch_reruns_its_command_under_procps_header(page: Page) -> None:
    open_terminal(page)
    run(page, "watch -n 1 kubectl get nodes")
    rows = page.locator(".xterm-rows")
    expect(rows).to_contain_text("Every 1.0s: kubectl get nodes  kadmin: ")
    expect(rows).to_contain_text("gpu-node3")
    page.keyboard.press("Control+c")
    expect(page.locator("#lab-status")).to_have_text("The stream ended.")


def test_watch_only_is_silent_until_another_tab_cordons_a_node_then_shows_its_row_under_a_header(
    context: BrowserContext, page: Page
) -> None:
    open_terminal(page)
    run(page, "kubectl get nodes --watch-only")
    expect(page.locator("#lab-status")).to_have_text("Streaming: Ctrl+C stops it.")
    rows = page.locator(".xterm-rows")
    page.wait_for_timeout(2_500)  # two steps of the world: kubectl prints nothing meanwhile
    expect(rows).not_to_contain_text("VERSION")

    other = context.new_page()
    open_terminal(other)
    run(other, "kubectl cordon gpu-node3")
    expect(rows).to_contain_text(re.compile(r"NAME +STATUS +ROLES +AGE +VERSION"), timeout=15_000)
    expect(rows).to_contain_text(re.compile(r"gpu-node3 +Ready,SchedulingDisabled"))
    expect(rows).not_to_contain_text("gpu-node1")
    page.bring_to_front()
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.press("Control+c")
    expect(page.locator("#lab-status")).to_have_text("The stream ended.")
    other.close()


def test_a_jsonpath_watch_prints_each_events_name_on_the_line_kubectl_left_open(
    context: BrowserContext, page: Page
) -> None:
    open_terminal(page)
    run(page, "kubectl get nodes -w -o jsonpath='{.metadata.name}'")
    rows = page.locator(".xterm-rows")
    expect(rows).to_contain_text("gpu-node1gpu-node2gpu-node3")

    other = context.new_page()
    open_terminal(other)
    run(other, "kubectl cordon gpu-node2")
    expect(rows).to_contain_text("gpu-node1gpu-node2gpu-node3gpu-node2", timeout=15_000)
    page.bring_to_front()
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.press("Control+c")
    expect(page.locator("#lab-status")).to_have_text("The stream ended.")
    # Ctrl+C ended the line; the prompt is on a line of its own, and the transcript for screen
    # readers holds the names as the terminal shows them.
    expect(rows).to_contain_text(re.compile(r"gpu-node2\^C\s*admin@kadmin:~\$"))
    expect(page.locator("#transcript-log")).to_contain_text("gpu-node1gpu-node2gpu-node3gpu-node2")
    other.close()
