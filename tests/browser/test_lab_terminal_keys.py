"""The lab terminal by keyboard alone: in and out of it (no keyboard trap), and `clear`."""

from __future__ import annotations

from playwright.sync_api import Page, expect

PROMPT = "admin@kadmin:~$ "


def active_id(page: Page) -> str:
    return str(page.evaluate("document.activeElement && document.activeElement.id"))


def in_terminal(page: Page) -> bool:
    return bool(page.evaluate("document.activeElement.classList.contains('xterm-helper-textarea')"))


def tab_to(page: Page, check: str, limit: int = 80) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(check):
            return
    raise AssertionError(f"Tab never reached {check}")


def test_a_keyboard_user_enters_the_terminal_and_leaves_it_with_esc_tab_and_f6(
    page: Page,
) -> None:
    page.goto("/lab/mig-single/")
    tab_to(page, "document.activeElement.id === 'terminal-start'")
    page.keyboard.press("Enter")
    expect(page.locator("#lab.connected")).to_be_attached()
    assert in_terminal(page)
    # The page says how to leave, and the terminal's input is described by it.
    keys = page.locator("#terminal-keys")
    expect(keys).to_be_visible()
    expect(keys).to_contain_text("Esc then Tab (or F6) leaves it")
    expect(page.locator(".xterm-helper-textarea")).to_have_attribute(
        "aria-describedby", "terminal-keys"
    )
    # Tab alone stays: it completes.
    page.keyboard.type("kubectl get no")
    page.keyboard.press("Tab")
    expect(page.locator(".xterm-rows")).to_contain_text(PROMPT + "kubectl get nodes")
    assert in_terminal(page)
    page.keyboard.press("Enter")
    expect(page.locator("#transcript-log")).to_contain_text("gpu-node3")

    page.keyboard.press("Escape")
    expect(page.locator("#lab-status")).to_contain_text("press Tab to leave")
    page.keyboard.press("Tab")
    assert active_id(page) == "terminal-find"
    expect(page.locator("#lab-status")).to_have_text("Left the terminal.")

    # Back in with Shift+Tab, out again with F6.
    page.keyboard.press("Shift+Tab")
    assert in_terminal(page)
    page.keyboard.press("F6")
    assert active_id(page) == "terminal-find"

    # Esc then another key stays in: Esc alone is no exit.
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Escape")
    page.keyboard.type("x")
    page.keyboard.press("Tab")
    assert in_terminal(page)


def test_clear_clears_the_screen(page: Page) -> None:
    page.goto("/lab/mig-single/")
    page.get_by_role("button", name="Start the terminal").click()
    expect(page.locator("#lab.connected")).to_be_attached()
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.type("kubectl get nodes")
    page.keyboard.press("Enter")
    expect(page.locator(".xterm-rows")).to_contain_text("gpu-node3")
    page.keyboard.type("clear")
    page.keyboard.press("Enter")
    expect(page.locator(".xterm-rows")).not_to_contain_text("gpu-node3")
    expect(page.locator(".xterm-rows")).to_contain_text(PROMPT)
