"""The editor in the browser terminal: kubectl edit by vim keys, an invalid edit, nano on a file."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.axe import blocking_violations

PROMPT = "admin@kadmin:~$ "


def open_terminal(page: Page) -> None:
    page.goto("/lab/mig-single/")
    page.get_by_role("button", name="Start the terminal").click()
    expect(page.locator("#lab.connected")).to_be_attached()
    page.locator(".xterm-helper-textarea").focus()


def run(page: Page, line: str) -> None:
    page.keyboard.type(line)
    page.keyboard.press("Enter")


def editor_open(page: Page) -> None:
    expect(page.locator("#lab-editor")).to_be_visible()
    expect(page.locator("#lab-editor .cm-content")).to_be_focused()


def test_kubectl_edit_with_vim_keys_changes_the_node(page: Page) -> None:
    open_terminal(page)
    run(page, "kubectl edit node gpu-node2")
    editor_open(page)
    content = page.locator("#lab-editor .cm-content")
    expect(content).to_contain_text("# Please edit the object below.")
    expect(page.locator("#lab-status")).to_contain_text("vim is open on /tmp/kubectl-edit-")
    # Normal mode: search, change the WORD, back to normal mode, write and quit.
    page.keyboard.type("/all-disabled")
    page.keyboard.press("Enter")
    page.keyboard.type("cW")
    page.keyboard.type("all-1g.10gb")
    page.keyboard.press("Escape")
    page.keyboard.type(":wq")
    page.keyboard.press("Enter")
    expect(page.locator("#lab-editor")).to_be_hidden()
    expect(page.locator(".xterm-rows")).to_contain_text("node/gpu-node2 edited")
    expect(page.locator(".xterm-helper-textarea")).to_be_focused()
    run(page, "kubectl get node gpu-node2 -L nvidia.com/mig.config")
    expect(page.locator("#transcript-log")).to_contain_text("all-1g.10gb")


def test_an_invalid_edit_reopens_with_kubectls_error_and_quitting_gives_up(page: Page) -> None:
    open_terminal(page)
    run(page, "kubectl edit node gpu-node2")
    editor_open(page)
    page.keyboard.type("/kubernetes.io\\/os:")
    page.keyboard.press("Enter")
    page.keyboard.type("o")
    page.keyboard.type("team: bad value!")
    page.keyboard.press("Escape")
    page.keyboard.type(":wq")
    page.keyboard.press("Enter")
    content = page.locator("#lab-editor .cm-content")
    expect(content).to_contain_text('# /v1, Resource=nodes "gpu-node2" was not valid:')
    expect(content).to_contain_text('# * metadata.labels: Invalid value: "bad value!"')
    expect(page.locator("#lab-editor")).to_be_visible()
    page.keyboard.type(":q!")
    page.keyboard.press("Enter")
    expect(page.locator("#lab-editor")).to_be_hidden()
    rows = page.locator(".xterm-rows")
    expect(rows).to_contain_text('error: /v1, Resource=nodes "gpu-node2" is invalid')
    expect(rows).to_contain_text("error: Edit cancelled, no valid changes were saved.")


def test_nano_writes_a_file_with_ctrl_o_and_exits_with_ctrl_x(page: Page) -> None:
    open_terminal(page)
    run(page, "nano notes.txt")
    editor_open(page)
    expect(page.locator("#lab-editor-help")).to_contain_text("^O Write Out")
    page.keyboard.type("second line")
    # ^K cuts the line, ^U pastes it back above the cursor's line.
    page.keyboard.press("Control+k")
    page.keyboard.type("hello from nano")
    page.keyboard.press("Enter")
    page.keyboard.press("Control+u")
    page.keyboard.press("Control+o")
    answer = page.locator("#lab-editor-answer")
    expect(answer).to_be_focused()
    expect(answer).to_have_value("notes.txt")
    page.keyboard.press("Enter")
    expect(page.locator("#lab-editor-status")).to_have_text("[ Wrote 2 lines ]")
    page.keyboard.press("Control+x")
    expect(page.locator("#lab-editor")).to_be_hidden()
    expect(page.locator(".xterm-helper-textarea")).to_be_focused()
    run(page, "cat notes.txt")
    expect(page.locator("#transcript-log")).to_contain_text("hello from nano\nsecond line")


def test_the_open_editor_is_accessible_and_no_keyboard_trap(page: Page) -> None:
    open_terminal(page)
    run(page, "vi notes.txt")
    editor_open(page)
    content = page.locator("#lab-editor .cm-content")
    expect(content).to_have_attribute("aria-label", "vim editor: notes.txt")
    expect(content).to_have_attribute("aria-describedby", "lab-editor-keys")
    expect(page.locator("#lab-editor-keys")).to_contain_text(":q! quits without saving")
    page.screenshot(path="/tmp/lab-editor.png")
    assert blocking_violations(page) == []
    # Esc (normal mode) then Tab moves on; Shift+Tab comes back; :q! leaves for the terminal.
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    expect(content).not_to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(content).to_be_focused()
    page.keyboard.type(":q!")
    page.keyboard.press("Enter")
    expect(page.locator("#lab-editor")).to_be_hidden()
    expect(page.locator(".xterm-helper-textarea")).to_be_focused()
    expect(page.locator("#lab-status")).to_have_text("The editor closed; back in the terminal.")


def test_vim_shows_a_files_lines_and_g_o_adds_the_next_one(page: Page) -> None:
    open_terminal(page)
    run(page, "echo hello > notes.txt")
    run(page, "vi notes.txt")
    editor_open(page)
    # vim's opening message; the buffer is the file's one line, not a line and an empty one.
    expect(page.locator("#lab-editor-status")).to_have_text('"notes.txt" 1L, 6B')
    page.keyboard.type("Go")
    page.keyboard.type("world")
    page.keyboard.press("Escape")
    page.keyboard.type(":wq")
    page.keyboard.press("Enter")
    expect(page.locator("#lab-editor")).to_be_hidden()
    expect(page.locator("#transcript-log")).to_contain_text('"notes.txt" 2L, 12B written')
    run(page, "cat -A notes.txt")
    expect(page.locator("#transcript-log")).to_contain_text("hello$\nworld$")
