from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# A shared 2-core CI machine makes timings noisy: no per-example deadline, so that a
# property test fails on a wrong answer, never on a slow moment.
settings.register_profile("project", deadline=None, print_blob=True)
settings.load_profile("project")

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _a_fresh_client_budget() -> None:
    # Expensive requests are limited per client and minute in the cache (studysite.limits);
    # every test is a new learner, whatever the tests before it spent.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(scope="session", autouse=True)
def _lab_commands_run_in_the_test_process() -> None:
    # The test database is SQLite in memory, which the lab's annex (a child process) cannot
    # open. The annex is tested against real servers: tests/reliability/test_annex.py.
    from django.conf import settings as django_settings

    django_settings.LAB_ANNEX = False


@pytest.fixture(scope="session", autouse=True)
def _lab_pool_connections_closed_before_the_test_database_goes(
    django_db_setup: None,
) -> Iterator[None]:
    # Torn down before pytest-django drops the test database: the lab's command threads keep
    # their connections open between commands, and PostgreSQL will not drop a database in use.
    yield
    from studysite.lab.consumers import close_pool_connections

    close_pool_connections()


@pytest.fixture(autouse=True)
def _lab_commands_in_hand_finish_before_the_database_is_flushed(
    _django_db_marker: None,
) -> Iterator[None]:
    # Set up after pytest-django's per-test database fixture (which that autouse fixture pulls
    # in), so torn down before it flushes the tables: a test's socket whose disconnect timed
    # out may leave a command or a fold still writing in the lab's command threads, and
    # SQLite's shared in-memory database refuses the flush while it holds a table.
    yield
    from studysite.lab.consumers import on_every_pool_thread

    on_every_pool_thread(lambda: None)


def pytest_itemcollected(item: pytest.Item) -> None:
    # Everything under tests/browser drives a real browser: mark it as it is collected, before
    # -m selects, so that it can be selected (-m browser) or left out (-m "not browser").
    if "tests/browser/" in str(item.path).replace("\\", "/"):
        item.add_marker(pytest.mark.browser)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Browser tests run last (after pytest-django has put database tests first): Playwright's sync
    # API keeps an event loop running in this thread until the session ends, and no test
    # after it could start one of its own (asyncio.run, async_to_sync, async tests).
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
