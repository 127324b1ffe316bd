"""A live ASGI server (daphne, as in production) and Debian's Chromium via Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.live_server import daphne_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# What the live server wrote while a test ran goes in that test's failure report: its warnings,
# logged exceptions, pages and sockets (not static files), at most this many lines from the end.
SERVER_LOG_LINES = 120


@pytest.fixture(scope="session")
def server_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("live-log") / "server.log"


@pytest.fixture(scope="session")
def live_server_url(server_log: Path) -> Iterator[str]:
    with daphne_server({}, log=server_log) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def _server_log_from_here(request: pytest.FixtureRequest) -> None:
    """Where the live server's log stood as this test began (see pytest_runtest_makereport)."""
    if "live_server_url" in request.fixturenames:
        log: Path = request.getfixturevalue("server_log")
        request.node.server_log_from = (log, log.stat().st_size if log.exists() else 0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """A browser test's failure report shows what its live server logged while it ran: a flake
    seen only in CI (a lab's state lost, a socket closed) can then be read, not guessed."""
    report = yield
    where = getattr(item, "server_log_from", None)
    if report.when == "call" and report.failed and where is not None and where[0].exists():
        log, start = where
        with log.open("rb") as handle:
            handle.seek(start)
            text = handle.read().decode("utf-8", "replace")
        lines = [line for line in text.splitlines() if '"GET /static/' not in line]
        lines = lines[-SERVER_LOG_LINES:]
        report.sections.append(("live server log", "\n".join(lines) or "(nothing)"))
    return report


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Debian's Chromium is missing at {CHROMIUM}: apt-get install -y chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def context(browser: Browser, live_server_url: str) -> Iterator[BrowserContext]:
    context = browser.new_context(base_url=live_server_url, viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server_url)
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Iterator[Page]:
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: errors.append(message.text) if message.type == "error" else None,
    )
    yield page
    assert not errors, f"the page logged errors: {errors}"
