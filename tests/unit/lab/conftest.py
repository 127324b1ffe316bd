"""Fixtures for the lab terminal's tests: a fresh session per ticket."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from simulators.lab import LabSession


@pytest.fixture
def new_session() -> Callable[..., LabSession]:
    def make(ticket: str = "mig-single", seed: int = 0) -> LabSession:
        return LabSession.new(ticket, seed=seed)

    return make


@pytest.fixture
def single() -> LabSession:
    return LabSession.new("mig-single", seed=0)


@pytest.fixture
def mixed() -> LabSession:
    return LabSession.new("mig-mixed", seed=0)


@pytest.fixture
def pending() -> LabSession:
    return LabSession.new("pending-workspace", seed=0)


@pytest.fixture
def validate() -> LabSession:
    return LabSession.new("validate-runai", seed=0)


@pytest.fixture
def pull() -> LabSession:
    return LabSession.new("image-pull", seed=0)


@pytest.fixture
def dept() -> LabSession:
    return LabSession.new("department-cap", seed=0)


@pytest.fixture
def gang() -> LabSession:
    return LabSession.new("gang-fragmentation", seed=0)


@pytest.fixture
def serve() -> LabSession:
    return LabSession.new("inference-priority", seed=0)


@pytest.fixture
def pools() -> LabSession:
    return LabSession.new("node-pool-quota", seed=0)
