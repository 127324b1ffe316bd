"""The lab's shell in Chromium: a here-document typed line by line gets bash's `> ` prompt,
and Ctrl+C leaves it (`clear`: tests/browser/test_lab_terminal_keys.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.test_lab_browser import PROMPT, open_terminal

pytestmark = pytest.mark.browser


def enter(page: Page, line: str) -> None:
    page.keyboard.type(line)
    page.keyboard.press("Enter")


def rows_matching(page: Page, pattern: str) -> Locator:
    """The terminal's rows whose whole text matches `pattern`."""
    return page.locator(".xterm-rows > div").filter(has_text=re.compile(pattern))


def test_a_here_document_typed_line_by_line_prompts_with_a_continuation(page: Page) -> None:
    open_terminal(page)
    enter(page, "cat <<EOF > note.txt")
    rows = page.locator(".xterm-rows")
    continuation = rows_matching(page, r"^>\s*$")
    expect(continuation).to_have_count(1)
    # Typed ahead, without waiting for each `> `: every line still runs as its own.
    enter(page, "gpu: $HOME")
    enter(page, "EOF")
    expect(rows).to_contain_text("> EOF")
    enter(page, "cat note.txt")
    expect(rows).to_contain_text("gpu: /home/admin")
    expect(page.locator("#transcript-log")).to_contain_text("> gpu: $HOME")


def test_a_loop_typed_over_three_lines_runs_once_done_is_typed(page: Page) -> None:
    open_terminal(page)
    rows = page.locator(".xterm-rows")
    enter(page, "for n in $(kubectl get nodes -o name)")
    continuation = rows_matching(page, r"^>\s*$")
    expect(continuation).to_have_count(1)
    enter(page, 'do echo "seen ${n}"')
    enter(page, "done")
    expect(rows).to_contain_text("seen node/gpu-node3")
    enter(page, "kubectl get nodes -o name | while read n; do echo got $n; done | wc -l")
    expect(rows_matching(page, r"^3\s*$")).to_have_count(1)


def test_ctrl_c_leaves_an_unfinished_command(page: Page) -> None:
    open_terminal(page)
    enter(page, "kubectl get nodes |")
    rows = page.locator(".xterm-rows")
    continuation = rows_matching(page, r"^>\s*$")
    expect(continuation).to_have_count(1)
    page.keyboard.press("Control+c")
    expect(rows).to_contain_text("^C")
    expect(rows).to_contain_text(re.compile(re.escape(PROMPT) + r"\s*$"))
    enter(page, "echo back")
    expect(rows).to_contain_text("back")


def test_the_admin_hosts_text_tools_answer_as_gnus_and_bashs_do(page: Page) -> None:
    """awk, tr, base64 and printf, typed in the terminal, answer as on a real host (each is
    compared with the real tool in tests/unit/lab/test_*_oracle.py)."""
    open_terminal(page)
    rows = page.locator(".xterm-rows")
    enter(page, "awk 'BEGIN { if (count == 0) print \"unset is\", count + 0 }'")
    expect(rows).to_contain_text("unset is 0")
    enter(page, "echo gpu-node1 | tr -c 'a-z\\n' _")
    expect(rows).to_contain_text("gpu_node_")
    enter(page, "printf '%-6s|%#x|\\x41\\n' node 255")
    expect(rows).to_contain_text("node  |0xff|A")
    enter(page, "printf gpu | base64 -w0; echo; echo Z3B1 | base64 -d | wc -c")
    lines = page.locator(".xterm-rows > div")
    expect(lines.filter(has_text=re.compile(r"^Z3B1\s*$"))).to_have_count(1)
    expect(lines.filter(has_text=re.compile(r"^3\s*$"))).to_have_count(1)


def test_a_function_typed_over_lines_and_a_script_made_executable_run_in_the_terminal(
    page: Page,
) -> None:
    open_terminal(page)
    rows = page.locator(".xterm-rows")
    enter(page, "gpus() {")
    expect(rows_matching(page, r"^>\s*$")).to_have_count(1)
    enter(page, "  kubectl get nodes -o name | grep -c gpu")
    enter(page, "}")
    enter(page, "gpus")
    expect(rows_matching(page, r"^3\s*$")).to_have_count(1)
    enter(page, "printf '#!/bin/bash\\necho ran $1\\n' > run.sh; ./run.sh")
    expect(rows).to_contain_text("bash: ./run.sh: Permission denied")
    enter(page, "chmod +x run.sh && ./run.sh now")
    expect(rows).to_contain_text("ran now")


def test_kubectl_diff_shows_a_change_to_a_file_before_it_is_applied(page: Page) -> None:
    open_terminal(page)
    rows = page.locator(".xterm-rows")
    enter(page, "kubectl create configmap cfg --from-literal=a=1 --dry-run=client -o yaml > c.yaml")
    enter(page, 'kubectl apply -f c.yaml && sed -i \'s/a: "1"/a: "2"/\' c.yaml')
    expect(rows).to_contain_text("configmap/cfg created")
    enter(page, "kubectl diff -f c.yaml; echo status $?")
    expect(rows_matching(page, r'^-\s+a: "1"\s*$')).to_have_count(1)
    expect(rows_matching(page, r'^\+\s+a: "2"\s*$')).to_have_count(1)
    expect(rows).to_contain_text("status 1")


def test_the_prompt_follows_the_working_folder_and_ctrl_c_keeps_it(page: Page) -> None:
    open_terminal(page)
    rows = page.locator(".xterm-rows")
    enter(page, "cd /tmp")
    expect(rows_matching(page, r"^admin@kadmin:/tmp\$\s*$")).to_have_count(1)
    enter(page, "echo report > gpu.txt; cat /tmp/gpu.txt; pwd")
    expect(rows_matching(page, r"^/tmp\s*$")).to_have_count(1)
    page.keyboard.press("Control+c")
    expect(rows_matching(page, r"^admin@kadmin:/tmp\$ \^C\s*$")).to_have_count(1)
    enter(page, "cd ~")
    expect(rows).to_contain_text(re.compile(re.escape(PROMPT) + r"\s*$"))
    expect(page.locator("#transcript-log")).to_contain_text("admin@kadmin:/tmp$ echo report")
    page.reload()  # started once, the terminal starts by itself: the replay keeps each prompt
    expect(page.locator("#lab.connected")).to_be_attached()
    expect(rows).to_contain_text("admin@kadmin:/tmp$ echo report > gpu.txt")
    expect(page.locator("#transcript-log")).to_contain_text("admin@kadmin:/tmp$ cd ~")
