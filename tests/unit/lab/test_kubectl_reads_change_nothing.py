"""kubectl's reads print the store's own objects (no copy), so they must never change them."""

from __future__ import annotations

import shlex

import pytest

from simulators.lab import kubectl
from simulators.lab.tool import Context
from simulators.lab.world import build_world
from tests.unit.lab.test_lab_tickets import TICKETS

READS = [
    "get pods -A",
    "get pods -A -o wide --show-labels",
    "get pods -A -o yaml",
    "get pods -A -o json",
    "get pods -A -o name",
    "get pods -A -o jsonpath={.items[*].metadata.name}",
    "get pods -A -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName",
    "get pods -A --sort-by=.metadata.creationTimestamp",
    "get pods -A --field-selector status.phase=Running -l app",
    "get nodes -L nvidia.com/mig.config,nvidia.com/gpu.product -o wide",
    "get nodes -o yaml",
    "get events -A --sort-by=.lastTimestamp",
    "get deploy,ds,rs,svc -A",
    "get queues,podgroups -A",
    "get projects,departments -o yaml",
    "get trainingworkloads,interactiveworkloads,inferenceworkloads -A -o yaml",
    "get clusterpolicies -o json",
    "describe nodes",
    "describe pods -A",
    "describe deploy -A",
    "describe ds -A",
]


@pytest.mark.parametrize("ticket", TICKETS)
def test_reading_the_cluster_leaves_every_object_as_it_was(ticket: str) -> None:
    world = build_world(ticket, seed=3)
    ctx = Context(world=world)
    before = world.api.to_json()
    for line in READS:
        out = kubectl.run(ctx, shlex.split(line))
        assert out.code == 0 and out.text, (line, out.text[:200])
    assert world.api.to_json() == before
