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
from simulators.engine.state import INF, JobState, QState

QueueKey = tuple[bool, bool, int, float, int]
# A heap entry: the queue's key, the queue's version when it was pushed, the queue.
Entry = tuple[QueueKey, int, QState]


def queue_key(queue: QState, job_units: float, capped: float | None = None) -> QueueKey:
    """Smaller is served first.

    Queues not over their fair share first; then queues that stay within deserved after
    taking the job; then higher queue priority; then lower dominant share; then older.
    `capped` is the queue's `capped_share` when the caller has it at hand.
    """
    after = queue.allocated + job_units
    if capped is None:
        capped = queue.capped_share
    # As QState.dominant_share(after), with the denominator given.
    share = (INF if after > EPSILON else 0.0) if capped <= EPSILON else after / capped
    return (
        queue.allocated > queue.fair_share + EPSILON,
        not after <= queue.deserved + EPSILON,
        -queue.priority,
        share,
        queue.rank,
    )


class JobPicker:
    """Yields jobs one at a time in the allocate order; each job at most once.

    Per-queue numbers are lists indexed by `QState.rank`. A job's units (pod units times
    its pending pods) are read once, when it becomes its queue's candidate: only a picked
    job gains or loses pending pods while the picker runs, and a picked job is never a
    candidate again.
    """

    def __init__(self, jobs: Iterable[JobState]) -> None:
        by_leaf: dict[int, list[JobState]] = {}
        leaves: dict[int, QState] = {}
        for job in jobs:
            by_leaf.setdefault(job.queue.rank, []).append(job)
            leaves[job.queue.rank] = job.queue
        size = 1 + max((q.rank for leaf in leaves.values() for q in leaf.path), default=-1)
        self._jobs: list[list[JobState]] = [[] for _ in range(size)]
        for rank, queue_jobs in by_leaf.items():
            queue_jobs.sort(key=JobState.job_order_key)
            self._jobs[rank] = queue_jobs
        self._next_index = [0] * size
        # min(limit, max(deserved, fair share)) is fixed for the cycle; every key reads it.
        self._capped = [0.0] * size
        for leaf in leaves.values():
            for queue in leaf.path:
                self._capped[queue.rank] = queue.capped_share
        self._version = [0] * size
        self._heaps: list[list[Entry]] = [[] for _ in range(size)]
        self._root: list[Entry] = []
        # Each queue's candidate (the job it would yield next) and that job's units.
        self._candidate: list[JobState | None] = [None] * size
        self._units = [0.0] * size
        self._dirty: QState | None = None
        for leaf in leaves.values():
            self._refresh_path(leaf)

    def _top(self, heap: list[Entry]) -> QState | None:
        version = self._version
        candidate = self._candidate
        while heap:
            entry = heap[0]
            rank = entry[2].rank
            if entry[1] == version[rank] and candidate[rank] is not None:
                return entry[2]
            heapq.heappop(heap)
        return None

    def _refresh_path(self, leaf: QState) -> None:
        # Only this leaf and its ancestors changed; siblings' heap entries stay valid.
        rank = leaf.rank
        jobs = self._jobs[rank]
        index = self._next_index[rank]
        job = jobs[index] if index < len(jobs) else None
        units = job.pod_units * max(1, len(job.pending_pods())) if job is not None else 0.0
        queue = leaf
        while True:
            self._version[rank] += 1
            self._candidate[rank] = job
            self._units[rank] = units
            parent = queue.parent
            if job is not None:
                heap = self._root if parent is None else self._heaps[parent.rank]
                entry = (queue_key(queue, units, self._capped[rank]), self._version[rank], queue)
                if heap and heap[0][2] is queue:
                    # Just picked: the queue's entry is the top, now stale; replace it.
                    heapq.heapreplace(heap, entry)
                else:
                    heapq.heappush(heap, entry)
            if parent is None:
                return
            queue, rank = parent, parent.rank
            top = self._top(self._heaps[rank])
            job = self._candidate[top.rank] if top is not None else None
            units = self._units[top.rank] if top is not None else 0.0

    def refresh(self, queue: QState) -> None:
        """Re-key a queue whose allocation changed outside the picked job (a reclaim victim)."""
        # The queue may have had no pending job when the picker was built.
        size = 1 + max(q.rank for q in queue.path)
        if size > len(self._version):
            grow = size - len(self._version)
            self._jobs.extend([] for _ in range(grow))
            for numbers in (self._next_index, self._version):
                numbers.extend([0] * grow)
            self._capped.extend([0.0] * grow)
            self._units.extend([0.0] * grow)
            self._heaps.extend([] for _ in range(grow))
            self._candidate.extend([None] * grow)
        for q in queue.path:
            self._capped[q.rank] = q.capped_share
        self._refresh_path(queue)

    def next(self) -> JobState | None:
        if self._dirty is not None:
            self._refresh_path(self._dirty)
            self._dirty = None
        queue = self._top(self._root)
        if queue is None:
            return None
        while not queue.is_leaf:
            child = self._top(self._heaps[queue.rank])
            if child is None:  # pragma: no cover - a parent only has a candidate via a child
                return None
            queue = child
        rank = queue.rank
        index = self._next_index[rank]
        job = self._jobs[rank][index]
        self._next_index[rank] = index + 1
        self._dirty = queue
        return job
