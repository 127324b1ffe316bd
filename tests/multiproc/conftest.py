from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.multiproc.servers import (
    Services,
    fresh_database,
    granian_servers,
    missing_services,
    running_services,
)


@pytest.fixture(scope="module")
def services() -> Iterator[Services]:
    reason = missing_services()
    if reason:
        pytest.skip(reason)
    with running_services() as running:
        yield running


@pytest.fixture(scope="module")
def two_workers(services: Services) -> Iterator[list[int]]:
    """Two separate server processes sharing one fresh PostgreSQL database and Redis."""
    with fresh_database(services) as url:
        shared = Services(url, services.redis_url)
        # Two sockets typing at full speed must not trip the per-socket flood guard.
        settings = {"LAB_MAX_FRAMES_PER_SECOND": "500"}
        with granian_servers(shared, count=2, settings=settings) as ports:
            yield ports
