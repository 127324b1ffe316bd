"""The lab terminal by keyboard alone: in and out of it (no keyboard trap), keys typed while it
loads, and `clear`."""

from __future__ import annotations

import re

from playwright.sync_api import Page, Route, WebSocketRoute, expect

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


def start_terminal(page: Page) -> None:
    """The mig-single lab with its terminal started and focused."""
    page.goto("/lab/mig-single/")
    page.get_by_role("button", name="Start the terminal").click()
    expect(page.locator("#lab.connected")).to_be_attached()
    page.locator(".xterm-helper-textarea").focus()


class HeldSocket:
    """Routes the lab's socket through the test, holding the server's frames until released."""

    def __init__(self) -> None:
        self.held: list[str | bytes] = []
        self.holding = True
        self.route: WebSocketRoute | None = None

    def __call__(self, route: WebSocketRoute) -> None:
        self.route = route
        route.connect_to_server().on_message(self.from_server)

    def from_server(self, message: str | bytes) -> None:
        if self.holding:
            self.held.append(message)
        elif self.route is not None:
            self.route.send(message)

    def wait_for_replay(self, page: Page) -> None:
        """Until the cluster's first answer (the replay) is held back, within 5 s."""
        for _ in range(100):
            if self.held:
                return
            page.wait_for_timeout(50)
        raise AssertionError("the cluster's replay never came")

    def release(self) -> None:
        self.holding = False
        assert self.route is not None
        for message in self.held:
            self.route.send(message)


def test_a_tab_typed_while_the_terminal_loads_completes_once_it_is_ready(page: Page) -> None:
    socket = HeldSocket()
    page.route_web_socket(re.compile(r"/ws/"), socket)
    start_terminal(page)
    page.keyboard.type("kubectl get no")
    page.keyboard.press("Tab")
    socket.wait_for_replay(page)
    expect(page.locator(".xterm-rows")).not_to_contain_text("kubectl get no")
    socket.release()
    expect(page.locator(".xterm-rows")).to_contain_text(PROMPT + "kubectl get nodes")


def test_keys_typed_while_the_terminal_loads_are_handled_in_order_once_it_is_ready(
    page: Page,
) -> None:
    socket = HeldSocket()
    page.route_web_socket(re.compile(r"/ws/"), socket)
    start_terminal(page)
    page.keyboard.type("get nodes")
    page.keyboard.press("Control+a")  # to the start of the line, as in bash
    page.keyboard.type("kubectl ")
    page.keyboard.press("End")
    page.keyboard.type(" -o wide")
    page.keyboard.press("Enter")
    socket.wait_for_replay(page)
    socket.release()
    rows = page.locator(".xterm-rows")
    expect(rows).to_contain_text(PROMPT + "kubectl get nodes -o wide")
    expect(rows).to_contain_text("INTERNAL-IP")


class HeldFiles:
    """Routes the terminal's files (xterm.js) through the test, held until released: the
    terminal stays loading, whatever the machine's speed."""

    def __init__(self) -> None:
        self.routes: list[Route] = []
        self.released = False

    def __call__(self, route: Route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def release(self) -> None:
        self.released = True
        for route in self.routes:
            route.continue_()


def test_line_editing_keys_typed_on_the_start_button_edit_the_first_line(page: Page) -> None:
    files = HeldFiles()
    page.route(re.compile(r"xterm"), files)
    page.goto("/lab/mig-single/")
    start = page.get_by_role("button", name="Start the terminal")
    start.focus()
    page.keyboard.type("get nodes")  # the first key starts the terminal; the rest wait for it
    page.keyboard.press("Control+a")
    page.keyboard.type("kubectl ")
    page.keyboard.press("End")
    page.keyboard.type(" -o wxde")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Backspace")
    page.keyboard.type("i")
    page.keyboard.press("Enter")
    expect(start).to_be_focused()  # still loading: the keys were the button's
    assert files.routes, "the terminal's files were never asked for"
    files.release()
    rows = page.locator(".xterm-rows")
    expect(rows).to_contain_text(PROMPT + "kubectl get nodes -o wide")
    expect(rows).to_contain_text("INTERNAL-IP")


def test_tab_on_the_start_button_moves_focus_on_without_starting_the_terminal(
    page: Page,
) -> None:
    page.goto("/lab/mig-single/")
    page.get_by_role("button", name="Start the terminal").focus()
    page.keyboard.press("Tab")
    assert active_id(page) != "terminal-start"
    expect(page.locator(".xterm")).to_have_count(0)


def test_clear_clears_the_screen(page: Page) -> None:
    start_terminal(page)
    page.keyboard.type("kubectl get nodes")
    page.keyboard.press("Enter")
    expect(page.locator(".xterm-rows")).to_contain_text("gpu-node3")
    page.keyboard.type("clear")
    page.keyboard.press("Enter")
    expect(page.locator(".xterm-rows")).not_to_contain_text("gpu-node3")
    expect(page.locator(".xterm-rows")).to_contain_text(PROMPT)
