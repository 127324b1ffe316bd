"""Fixtures: a ticket's world, built through the cluster API and warmed up by the controllers."""

from __future__ import annotations

import pytest

from simulators.lab.world import World, build_world


@pytest.fixture
def single() -> World:
    return build_world("mig-single", seed=5)


@pytest.fixture
def mixed() -> World:
    return build_world("mig-mixed", seed=5)


@pytest.fixture
def validate() -> World:
    return build_world("validate-runai", seed=5)
