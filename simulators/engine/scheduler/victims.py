"""Victims for reclaim and preempt: what each victim job loses at once, and the order
in which victims are taken (docs/engine.md, "Reclaim", steps 3 and 6).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import TYPE_CHECKING

from simulators.engine.fairshare import EPSILON
from simulators.engine.model import Pod
from simulators.engine.scheduler.proportion import reclaimable
from simulators.engine.state import INF, JobState, NodeState, QState

if TYPE_CHECKING:
    from simulators.engine.scheduler.session import PoolSession


class VictimTake:
    """Pods a victim loses at once, and the GPUs they free: (node index, devices, portion,
    extended resource) per pod on a node."""

    __slots__ = ("frees", "job", "pods", "units")

    def __init__(
        self, job: JobState, pods: list[Pod], units: float, node_by_name: dict[str, NodeState]
    ) -> None:
        self.job = job
        self.pods = pods
        self.units = units
        self.frees = [
            (node_by_name[p.node].index, p.devices, p.portion, p.extended_resource)
            for p in pods
            if p.node is not None
        ]


def victim_takes(
    candidates: list[JobState], node_by_name: dict[str, NodeState]
) -> Iterator[VictimTake]:
    """Preempt's victims in order; each job's takes are worked out when they are reached."""
    # The running pods are read now, for every candidate, as the search starts.
    remaining = [(job, job.running_pods()) for job in candidates]
    return (
        take for job, running in remaining for take in take_sequence(job, running, node_by_name)
    )


def take_sequence(
    job: JobState, running: list[Pod], node_by_name: dict[str, NodeState]
) -> list[VictimTake]:
    """Gang rule: a victim at or below its minimum loses all pods, above it one pod, last first."""
    remaining = list(running)
    takes: list[VictimTake] = []
    while remaining:
        if len(remaining) <= job.workload.min_available:
            pods = list(remaining)
            remaining.clear()
        else:
            remaining.sort(key=lambda p: p.index)
            pods = [remaining.pop()]
        takes.append(VictimTake(job, pods, job.pod_units * len(pods), node_by_name))
    return takes


class VictimIndex:
    """Reclaim candidates for one action: preemptible jobs with running pods, per leaf queue.

    Queue numbers are lists indexed by `QState.rank`. Each leaf's takes, in victim order,
    are laid out once per action in a flat list that grows as pickers reach further: a job
    keeps its running pods until it loses some, and then it leaves the list.
    """

    def __init__(self, session: PoolSession, jobs: list[JobState]) -> None:
        self.session = session
        size = 1 + max((q.rank for q in session.queues.values()), default=-1)
        self.by_leaf: dict[int, list[JobState]] = {}
        self.units = [0.0] * size
        self.count = [0] * size
        self.job_units: dict[int, float] = {}
        for job in jobs:
            if not job.preemptible:
                continue
            running = job.running_pods()
            if not running:
                continue
            self.by_leaf.setdefault(job.queue.rank, []).append(job)
            self.job_units[id(job)] = len(running) * job.pod_units
            for queue in job.queue.path:
                self.units[queue.rank] += self.job_units[id(job)]
                self.count[queue.rank] += 1
        for leaf_jobs in self.by_leaf.values():
            # Inside a queue: lowest job priority first, then the newest.
            leaf_jobs.sort(key=lambda j: (j.priority, -j.workload.creation_rank))
        self.removed: set[int] = set()
        self.total = sum(self.units[q.rank] for q in session.top_level)
        # min(limit, max(deserved, fair share)) is fixed for the cycle; the order reads it often.
        self.capped = [0.0] * size
        for queue in session.queues.values():
            self.capped[queue.rank] = queue.capped_share
        # Per leaf: (take, whether it is the job's last) in order, and how many jobs are laid out.
        self.flat: list[list[tuple[VictimTake | None, bool]]] = [[] for _ in range(size)]
        self.laid_out = [0] * size
        self._entries: dict[int, list[tuple[VictimTake | None, bool]]] = {}

    def available_outside(self, leaf: QState) -> float:
        """An upper bound on what victims outside this queue could free."""
        return self.total - self.units[leaf.rank]

    def lay_out(self, rank: int) -> bool:
        """Append the leaf's next job's takes to its flat list; False when none is left."""
        jobs = self.by_leaf.get(rank, [])
        while self.laid_out[rank] < len(jobs):
            job = jobs[self.laid_out[rank]]
            self.laid_out[rank] += 1
            if id(job) in self.removed:
                continue
            takes = take_sequence(job, job.running_pods(), self.session.node_by_name)
            entries: list[tuple[VictimTake | None, bool]] = [
                (take, i == len(takes) - 1) for i, take in enumerate(takes)
            ]
            if not entries:
                # Nothing to take, but the job still counts until a picker passes it.
                entries = [(None, True)]
            self._entries[id(job)] = entries
            self.flat[rank].extend(entries)
            return True
        return False

    def remove(self, job: JobState) -> None:
        """A job that lost pods in this action is no longer a candidate in it."""
        if id(job) in self.removed or id(job) not in self.job_units:
            return
        self.removed.add(id(job))
        flat = self.flat[job.queue.rank]
        for entry in self._entries.pop(id(job), []):
            flat.remove(entry)
        units = self.job_units[id(job)]
        for queue in job.queue.path:
            self.count[queue.rank] -= 1
            self.units[queue.rank] -= units
        self.total -= units

    def picker_for(self, reclaimer: JobState) -> VictimPicker:
        return VictimPicker(self, reclaimer)


# Victim order at one level: smaller is taken first (reclaim step 3 of docs/engine.md). The
# rank is unique, so two entries never tie and the queue itself is never compared.
VictimKey = tuple[bool, int, float, int, QState]


class VictimPicker:
    """Victim order for one reclaimer: re-evaluated after every pick (reclaim step 3).

    Each visited parent keeps a heap of its children that still have candidates. A pick
    walks down the heap tops, so every queue on the picked path sits on top of its
    parent's heap and is re-keyed in place (`heapreplace`): no stale entries pile up.
    """

    def __init__(self, index: VictimIndex, reclaimer: JobState) -> None:
        self.index = index
        self.session = index.session
        self.reclaimer = reclaimer
        self.capped = index.capped
        self.taken = [0.0] * len(index.count)
        # Candidates left per queue; the reclaimer's own jobs are never its victims.
        live = list(index.count)
        own = reclaimer.queue
        for queue in own.path[1:]:
            live[queue.rank] -= live[own.rank]
        live[own.rank] = 0
        self.live = live
        self.cursor = [0] * len(index.count)
        self.heaps: dict[int, list[VictimKey]] = {}
        self.sides: dict[int, tuple[QState, QState]] = {}

    def _key(self, queue: QState) -> VictimKey:
        left = queue.allocated - self.taken[queue.rank]
        capped = self.capped[queue.rank]
        # As QState.dominant_share, with the denominator read from the cache.
        share = (INF if left > EPSILON else 0.0) if capped <= EPSILON else left / capped
        return (not left > queue.deserved + EPSILON, queue.priority, -share, -queue.rank, queue)

    def _heap(self, parent: QState | None) -> list[VictimKey]:
        key = parent.rank if parent is not None else -1
        heap = self.heaps.get(key)
        if heap is None:
            children = parent.children if parent is not None else self.session.top_level
            live = self.live
            heap = [self._key(c) for c in children if live[c.rank] > 0]
            heapq.heapify(heap)
            self.heaps[key] = heap
        return heap

    def _rekey(self, leaf: QState) -> None:
        # Only the picked path changed; each of its queues is the top of its parent's heap.
        live = self.live
        heaps = self.heaps
        for queue in leaf.path:
            parent = queue.parent
            heap = heaps[parent.rank if parent is not None else -1]
            if live[queue.rank] > 0:
                heapq.heapreplace(heap, self._key(queue))
            else:
                heapq.heappop(heap)

    def next(self, units: float) -> tuple[VictimTake, bool] | None:
        """The next victim and whether it passes the check (reclaim step 5), or None."""
        live = self.live
        heaps = self.heaps
        while True:
            heap = heaps.get(-1) or self._heap(None)
            if not heap:
                return None
            queue = heap[0][4]
            while not queue.is_leaf:
                heap = heaps.get(queue.rank) or self._heap(queue)
                if not heap:
                    return None
                queue = heap[0][4]
            take = self._take_in(queue)
            if take is None:
                # Nothing left to take here whatever the counts say: retire the queue.
                gone = live[queue.rank]
                for q in queue.path:
                    live[q.rank] -= gone
                self._rekey(queue)
                continue
            check_ok = self._check(queue, units)
            taken = self.taken
            capped = self.capped
            for q in queue.path:
                rank = q.rank
                taken[rank] += take.units
                # Each queue on the picked path is the top of its parent's heap.
                heap = heaps[q.parent.rank if q.parent is not None else -1]
                if live[rank] <= 0:
                    heapq.heappop(heap)
                    continue
                # `_key`, written out: this runs once per level for every victim.
                left = q.allocated - taken[rank]
                bound = capped[rank]
                share = (INF if left > EPSILON else 0.0) if bound <= EPSILON else left / bound
                heapq.heapreplace(
                    heap, (not left > q.deserved + EPSILON, q.priority, -share, -rank, q)
                )
            return take, check_ok

    def _take_in(self, leaf: QState) -> VictimTake | None:
        rank = leaf.rank
        flat = self.index.flat[rank]
        position = self.cursor[rank]
        while True:
            if position == len(flat) and not self.index.lay_out(rank):
                self.cursor[rank] = position
                return None
            take, last = flat[position]
            position += 1
            if last:
                # The job is used up: one candidate fewer on the whole path.
                for queue in leaf.path:
                    self.live[queue.rank] -= 1
            if take is not None:
                self.cursor[rank] = position
                return take

    def _sides(self, leaf: QState) -> tuple[QState, QState]:
        """The children of the lowest common ancestor on the victim's and reclaimer's paths."""
        victim_path = leaf.path[::-1]
        reclaimer_path = self.reclaimer.queue.path[::-1]
        depth = 0
        while (
            depth < len(victim_path)
            and depth < len(reclaimer_path)
            and victim_path[depth] is reclaimer_path[depth]
        ):
            depth += 1
        reclaimer_side = (
            reclaimer_path[depth] if depth < len(reclaimer_path) else self.reclaimer.queue
        )
        return victim_path[depth], reclaimer_side

    def _check(self, leaf: QState, units: float) -> bool:
        sides = self.sides.get(leaf.rank)
        if sides is None:
            sides = self.sides[leaf.rank] = self._sides(leaf)
        victim_side, reclaimer_side = sides
        return reclaimable(victim_side, reclaimer_side, self.taken, self.capped, units)
