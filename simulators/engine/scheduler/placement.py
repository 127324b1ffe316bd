"""Where a pod fits: the one fit function, the node index, and the node search.

`fit_on` is the only place that decides whether a pod fits on a node and on which
devices; every caller (allocate, consolidation, reclaim trials, the pending census,
placing a pod by hand) gives it the node's availability as that caller sees it.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from simulators.engine.fairshare import EPSILON
from simulators.engine.mig import GPU_RESOURCE
from simulators.engine.model import Placement, Pod, Workload
from simulators.engine.state import NodeState

UNASSIGNED = Pod(name="", workload="", project="", index=-1)


@dataclass
class Seat:
    """A pod's place on a node: the devices (or extended resource) and the portion of each."""

    pod: Pod
    node: NodeState
    devices: tuple[int, ...]
    portion: float
    extended: str | None


def fit_on(
    workload: Workload,
    node_state: NodeState,
    available: Sequence[float],
    idle: Sequence[float],
    ext_available: Mapping[str, float] | None,
    strategy: Placement,
) -> Seat | None:
    """Fit one of the workload's pods on a node, or None.

    `available` is each device's free portion as the caller sees it (idle now, or free once
    victims leave); `idle` breaks ties toward devices free right now, so fewer pods wait on
    releases. `ext_available` gives extended (MIG) resources; None reads the node's future.
    """
    request = workload.gpu
    if request.mig_profile is not None:
        resource = request.resource_name
        free = (
            ext_available.get(resource, 0.0)
            if ext_available is not None
            else node_state.ext_future(resource)
        )
        return Seat(UNASSIGNED, node_state, (), 1.0, resource) if free >= 1 - EPSILON else None
    if request.kind == "whole":
        need = request.whole_gpus
        chosen = [i for i, free in enumerate(available) if free >= 1 - EPSILON]
        if len(chosen) < need:
            return None
        if available is not idle:
            chosen.sort(key=lambda i: (0 if idle[i] >= 1 - EPSILON else 1, i))
            chosen = sorted(chosen[:need])
        return Seat(UNASSIGNED, node_state, tuple(chosen[:need]), 1.0, None)
    best: tuple[float, int] | None = None
    portion_used = 0.0
    for index, free in enumerate(available):
        memory = node_state.devices[index].memory_gib
        portion = request.memory_gib / memory if request.memory_gib is not None else request.gpus
        if portion > 1 + EPSILON or free < portion - EPSILON:
            continue
        # Bin-pack prefers the fullest shared GPU that still fits, spread the emptiest.
        score = free if strategy == "binpack" else -free
        if best is None or (score, index) < best:
            best, portion_used = (score, index), portion
    if best is None:
        return None
    return Seat(UNASSIGNED, node_state, (best[1],), portion_used, None)


def fit_now(workload: Workload, node_state: NodeState, strategy: Placement) -> Seat | None:
    """`fit_on` with the node's idle GPUs and idle extended resources."""
    idle = node_state.idles
    ext = (
        {workload.gpu.resource_name: node_state.ext_idle(workload.gpu.resource_name)}
        if workload.gpu.mig_profile is not None
        else None
    )
    return fit_on(workload, node_state, idle, idle, ext, strategy)


def node_order_score(node_state: NodeState, strategy: Placement) -> float:
    """Smaller is better: bin-pack the fullest node, spread the emptiest (by share)."""
    idle = node_state.idle_total()
    if strategy == "binpack":
        return idle
    total = node_state.gpu_count or 1
    return -idle / total


class NodeIndex:
    """Nodes by (fully idle devices, devices), and the nodes with GPUs free in the future.

    The buckets answer "the best node with n idle GPUs" without scanning every node for
    every pod; `touch` keeps them current after a node changes.
    """

    def __init__(self, nodes: list[NodeState], strategy: Placement) -> None:
        self.nodes = nodes
        self.strategy = strategy
        self._buckets: dict[tuple[int, int], list[int]] = {}
        # The bucket keys by node score (best first), so a search stops at the first
        # bucket with room.
        self._order: list[tuple[float, tuple[int, int]]] = []
        self._future_nodes: set[int] = set()
        self._future_by_node: dict[int, float] = {}
        self._future_free_total = 0.0
        # Future counts matter only to reclaim and preempt; allocate binds thousands of pods
        # first, so nodes are re-counted when those counts are next read.
        self._stale_future: set[int] = set()
        for node_state in nodes:
            self.touch(node_state)

    def touch(self, node_state: NodeState) -> None:
        node_state.recount()
        if node_state.schedulable and node_state.devices:
            key = (node_state.idle_whole, node_state.gpu_count)
            if key != node_state.bucket:
                node_state.bucket = key
                heap = self._buckets.get(key)
                if heap is None:
                    heap = self._buckets[key] = []
                    bisect.insort(self._order, (self._score(key), key))
                heapq.heappush(heap, node_state.index)
        self._stale_future.add(node_state.index)

    def _recount_future(self) -> None:
        for node_index in sorted(self._stale_future):
            node_state = self.nodes[node_index]
            future = node_state.future_total() if node_state.schedulable else 0.0
            self._future_free_total += future - self._future_by_node.get(node_index, 0.0)
            self._future_by_node[node_index] = future
            if future > EPSILON:
                self._future_nodes.add(node_index)
            else:
                self._future_nodes.discard(node_index)
        self._stale_future.clear()

    @property
    def future_nodes(self) -> set[int]:
        """Nodes with GPUs free once every Releasing pod has gone."""
        if self._stale_future:
            self._recount_future()
        return self._future_nodes

    @property
    def future_free_total(self) -> float:
        if self._stale_future:
            self._recount_future()
        return self._future_free_total

    def _bucket_top(self, key: tuple[int, int]) -> NodeState | None:
        heap = self._buckets.get(key)
        while heap:
            node_state = self.nodes[heap[0]]
            if node_state.bucket == key:
                return node_state
            heapq.heappop(heap)
        return None

    def _score(self, key: tuple[int, int]) -> float:
        """`node_order_score` of every node in the bucket (smaller is better)."""
        idle, total = key
        return float(idle) if self.strategy == "binpack" else -idle / total

    def whole_node(self, count: int, exclude: NodeState | None = None) -> NodeState | None:
        """The best node with `count` idle whole GPUs, from the buckets: the smallest
        (score, node index)."""
        best_score = 0.0
        chosen: NodeState | None = None
        saved = (-1, -1)
        if exclude is not None:
            # Hide the excluded node from the buckets for this one lookup.
            saved, exclude.bucket = exclude.bucket, (-1, -1)
        buckets = self._buckets
        for score, key in self._order:
            if chosen is not None and score > best_score:
                break
            if key[0] < count or not buckets[key]:
                continue
            top = self._bucket_top(key)
            if top is not None and (chosen is None or top.index < chosen.index):
                best_score, chosen = score, top
        if exclude is not None:
            exclude.bucket = (-2, -2)
            self.touch(exclude)
            if exclude.bucket == (-2, -2):
                exclude.bucket = saved
        return chosen

    def find(self, workload: Workload, exclude: NodeState | None = None) -> Seat | None:
        """The best node where one of the workload's pods fits now (never `exclude`)."""
        request = workload.gpu
        if (
            request.kind == "whole"
            and not workload.node_selector
            and request.resource_name == GPU_RESOURCE
        ):
            node_state = self.whole_node(request.whole_gpus, exclude)
            if node_state is None:
                return None
            # `fit_now` for a whole-GPU request (no extended resource to read).
            idle = node_state.idles
            return fit_on(workload, node_state, idle, idle, None, self.strategy)
        best: tuple[float, int] | None = None
        chosen: Seat | None = None
        for node_state in self.nodes:
            if node_state is exclude or not node_state.schedulable:
                continue
            if not node_state.matches(workload.node_selector):
                continue
            fit = fit_now(workload, node_state, self.strategy)
            if fit is None:
                continue
            key = (node_order_score(node_state, self.strategy), node_state.index)
            if best is None or key < best:
                best, chosen = key, fit
        return chosen
