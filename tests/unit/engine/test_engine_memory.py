"""A cycle holds off CPython's cyclic garbage collector and leaves it as it found it."""

from __future__ import annotations

import gc
from datetime import UTC, datetime

from simulators.engine import Cluster, Node


def cluster_noting_the_collector(seen: list[bool]) -> Cluster:
    def clock() -> datetime:
        # The cycle reads its clock once it has started.
        seen.append(gc.isenabled())
        return datetime(2026, 11, 10, tzinfo=UTC)

    cluster = Cluster(clock=clock)
    cluster.add_node(Node("node-1", gpus=8))
    cluster.add_project("p")
    cluster.submit("t", "p")
    return cluster


def test_the_collector_is_off_during_a_cycle_and_back_on_after_it() -> None:
    seen: list[bool] = []
    cluster = cluster_noting_the_collector(seen)
    assert gc.isenabled()
    seen.clear()  # submitting read the clock too
    cluster.run_cycle()
    assert seen == [False]
    assert gc.isenabled()


def test_a_cycle_leaves_a_collector_that_was_off_off() -> None:
    cluster = cluster_noting_the_collector([])
    gc.disable()
    try:
        cluster.run_cycle()
        assert not gc.isenabled()
    finally:
        gc.enable()
