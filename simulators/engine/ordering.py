"""The allocate order: walk down the queue tree, then order jobs inside a queue.

Queue keys only change for the queue that just got (or gave up) a job and its
ancestors, so each parent keeps a heap of its children and stale entries are
dropped lazily. That keeps one pick at O(depth x log siblings) instead of
re-sorting every queue for every job.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from simulators.engine.fairshare import EPSILON
from simulators.engine.state import JobState, QState

QueueKey = tuple[bool, bool, int, float, int]


def queue_key(queue: QState, job_units: float) -> QueueKey:
    """Smaller is served first.

    Queues not over their fair share first; then queues that stay within deserved after
    taking the job; then higher queue priority; then lower dominant share; then older.
    """
    over_fair_share = queue.allocated > queue.fair_share + EPSILON
    within_deserved = queue.allocated + job_units <= queue.deserved + EPSILON
    return (
        over_fair_share,
        not within_deserved,
        -queue.priority,
        queue.dominant_share(queue.allocated + job_units),
        queue.rank,
    )


class JobPicker:
    """Yields jobs one at a time in the allocate order; each job at most once."""

    def __init__(self, jobs: Iterable[JobState]) -> None:
        self._by_leaf: dict[int, list[JobState]] = {}
        self._leaves: dict[int, QState] = {}
        for job in jobs:
            self._by_leaf.setdefault(id(job.queue), []).append(job)
            self._leaves[id(job.queue)] = job.queue
        for queue_jobs in self._by_leaf.values():
            queue_jobs.sort(key=lambda j: j.job_order_key())
        self._next_index: dict[int, int] = dict.fromkeys(self._by_leaf, 0)
        self._heaps: dict[int, list[tuple[QueueKey, int, QState]]] = {}
        self._root: list[tuple[QueueKey, int, QState]] = []
        self._candidate: dict[int, JobState | None] = {}
        self._dirty: QState | None = None
        for leaf in self._leaves.values():
            self._refresh_path(leaf)

    def _units(self, job: JobState) -> float:
        return job.pod_units * max(1, len(job.pending_pods()))

    def _heap_for(self, queue: QState | None) -> list[tuple[QueueKey, int, QState]]:
        if queue is None:
            return self._root
        return self._heaps.setdefault(id(queue), [])

    def _top(self, heap: list[tuple[QueueKey, int, QState]]) -> QState | None:
        while heap:
            _key, version, queue = heap[0]
            if version == queue.version and self._candidate.get(id(queue)) is not None:
                return queue
            heapq.heappop(heap)
        return None

    def _refresh_path(self, leaf: QState) -> None:
        # Only this leaf and its ancestors changed; siblings' heap entries stay valid.
        queue: QState | None = leaf
        while queue is not None:
            queue.version += 1
            if queue.is_leaf:
                jobs = self._by_leaf.get(id(queue), [])
                index = self._next_index.get(id(queue), 0)
                candidate = jobs[index] if index < len(jobs) else None
            else:
                top = self._top(self._heap_for(queue))
                candidate = self._candidate.get(id(top)) if top is not None else None
            self._candidate[id(queue)] = candidate
            if candidate is not None:
                heapq.heappush(
                    self._heap_for(queue.parent),
                    (queue_key(queue, self._units(candidate)), queue.version, queue),
                )
            queue = queue.parent

    def refresh(self, queue: QState) -> None:
        """Re-key a queue whose allocation changed outside the picked job (a reclaim victim)."""
        self._refresh_path(queue)

    def next(self) -> JobState | None:
        if self._dirty is not None:
            self._refresh_path(self._dirty)
            self._dirty = None
        queue = self._top(self._root)
        if queue is None:
            return None
        while not queue.is_leaf:
            child = self._top(self._heap_for(queue))
            if child is None:  # pragma: no cover - a parent only has a candidate via a child
                return None
            queue = child
        index = self._next_index[id(queue)]
        job = self._by_leaf[id(queue)][index]
        self._next_index[id(queue)] = index + 1
        self._dirty = queue
        return job
