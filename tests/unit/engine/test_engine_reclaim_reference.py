"""The reclaim search against a plain reference written from docs/engine.md.

The reference covers a domain small enough to state plainly: flat projects, a full pool of
4-GPU nodes, single-pod whole-GPU preemptible jobs, and one pending reclaimer. It walks the
steps as written — skip a reclaimer above its fair share, take victims in victim order with
the check before each, stop at the first set that places the reclaimer, place it on the
fullest candidate node — and says who is evicted. Hypothesis compares it with the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.engine import Cluster, GpuRequest, Node, PoolQuota, TickingClock, fair_share
from simulators.engine.fairshare import EPSILON, ShareQueue

GPUS_PER_NODE = 4


@dataclass
class Job:
    name: str
    queue: int
    size: int
    node: str
    devices: tuple[int, ...]
    rank: int


@dataclass
class Scene:
    deserved: list[int]
    jobs: list[Job]
    nodes: list[str]
    reclaimer_queue: int
    reclaimer_size: int


@st.composite
def scenes(draw: st.DrawFn) -> Scene:
    queues = draw(st.integers(2, 4))
    deserved = draw(st.lists(st.integers(0, 8), min_size=queues, max_size=queues))
    nodes = [f"node-{n}" for n in range(draw(st.integers(1, 4)))]
    jobs: list[Job] = []
    for node in nodes:
        free = 0
        while free < GPUS_PER_NODE:
            size = draw(st.sampled_from([s for s in (1, 2, 4) if free + s <= GPUS_PER_NODE]))
            devices = tuple(range(free, free + size))
            free += size
            queue = draw(st.integers(0, queues - 1))
            jobs.append(Job(f"j{len(jobs):02d}", queue, size, node, devices, len(jobs)))
    return Scene(
        deserved, jobs, nodes, draw(st.integers(0, queues - 1)), draw(st.sampled_from([1, 2, 4]))
    )


def engine_evictions(scene: Scene) -> tuple[bool, set[str]]:
    cluster = Cluster(clock=TickingClock())
    for node in scene.nodes:
        cluster.add_node(Node(node, gpus=GPUS_PER_NODE))
    for q, deserved in enumerate(scene.deserved):
        cluster.add_project(f"q{q}", quotas={"default": PoolQuota(deserved=float(deserved))})
    for job in scene.jobs:
        cluster.submit(job.name, f"q{job.queue}", gpu=GpuRequest.whole(job.size))
        cluster.place_running(f"q{job.queue}", job.name, [job.node])
    project = f"q{scene.reclaimer_queue}"
    cluster.submit("reclaimer", project, gpu=GpuRequest.whole(scene.reclaimer_size))
    cluster.run_cycle(actions=("reclaim",), settle=False)
    placed = cluster.workload(project, "reclaimer").status == "Pipelined"
    evicted = {w.name for w in cluster.workloads() if w.status == "Releasing"}
    return placed, evicted


def reference_evictions(scene: Scene) -> tuple[bool, set[str]]:
    queues = range(len(scene.deserved))
    me, need = scene.reclaimer_queue, scene.reclaimer_size
    alloc = [sum(j.size for j in scene.jobs if j.queue == q) for q in queues]
    request = [alloc[q] + (need if q == me else 0) for q in queues]
    shares = fair_share(
        len(scene.nodes) * GPUS_PER_NODE,
        [ShareQueue(f"q{q}", deserved=scene.deserved[q], request=request[q]) for q in queues],
    )
    share = [shares[f"q{q}"] for q in queues]
    # Step 1: a reclaimer that would end above its fair share is skipped.
    if alloc[me] + need > share[me] + EPSILON:
        return False, set()
    capped = [max(scene.deserved[q], share[q]) for q in queues]
    taken = [0] * len(scene.deserved)
    # Inside a queue: the newest job first (every job here has the same priority).
    left = {
        q: sorted((j for j in scene.jobs if j.queue == q), key=lambda j: -j.rank)
        for q in queues
        if q != me
    }
    victims: list[Job] = []

    def victim_key(q: int) -> tuple[bool, float, int]:
        remaining = alloc[q] - taken[q]
        ratio = remaining / capped[q] if capped[q] > EPSILON else (1e18 if remaining else 0.0)
        return (not remaining > scene.deserved[q] + EPSILON, -ratio, -q)

    while True:
        candidates = [q for q in left if left[q]]
        if not candidates:
            return False, set()
        # Step 3: the queue that would come last in the allocate order gives first.
        q = min(candidates, key=victim_key)
        victim = left[q].pop(0)
        # Step 5, measured before the victim is removed; a failing victim ends the search.
        remaining = alloc[q] - taken[q]
        passes = remaining > capped[q] + EPSILON or (
            alloc[me] + need <= scene.deserved[me] + EPSILON
            and remaining > scene.deserved[q] + EPSILON
        )
        if not passes:
            return False, set()
        taken[q] += victim.size
        victims.append(victim)
        freed = {n: sum(v.size for v in victims if v.node == n) for n in scene.nodes}
        touched = [n for n in scene.nodes if freed[n]]
        fits = [n for n in touched if freed[n] >= need]
        if fits:
            break
    # Step 7: the pool is full, so only victims' nodes are candidates; bin-pack takes the one
    # with the fewest GPUs being freed, then the first name; the lowest freed devices go.
    node = min(fits, key=lambda n: (freed[n], n))
    devices = sorted(d for v in victims if v.node == node for d in v.devices)[:need]
    evicted = {v.name for v in victims if v.node == node and set(v.devices) & set(devices)}
    return True, evicted


@settings(max_examples=300, deadline=None)
@given(scenes())
def test_the_engine_reclaims_as_the_reference_search_does(scene: Scene) -> None:
    assert engine_evictions(scene) == reference_evictions(scene)
