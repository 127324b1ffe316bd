"""Properties that must hold for any input (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.engine import (
    Cluster,
    GpuRequest,
    Node,
    PodStatus,
    PoolQuota,
    ShareQueue,
    TickingClock,
    fair_share,
)

EPS = 1e-6

amounts = st.integers(min_value=0, max_value=40).map(float)


@st.composite
def flat_queues(draw: st.DrawFn) -> tuple[float, list[ShareQueue]]:
    total = draw(st.integers(min_value=0, max_value=64))
    count = draw(st.integers(min_value=1, max_value=6))
    queues = [
        ShareQueue(
            f"q{i}",
            None,
            deserved=draw(amounts),
            over_quota_weight=draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])),
            limit=draw(st.one_of(st.none(), amounts)),
            priority=draw(st.integers(min_value=0, max_value=2)),
            request=draw(st.one_of(amounts, st.sampled_from([0.5, 2.5]))),
        )
        for i in range(count)
    ]
    return float(total), queues


@st.composite
def tree_queues(draw: st.DrawFn) -> tuple[float, list[ShareQueue]]:
    total, parents = draw(flat_queues())
    queues: list[ShareQueue] = []
    for parent in parents:
        queues.append(
            ShareQueue(
                parent.name,
                None,
                parent.deserved,
                parent.over_quota_weight,
                parent.limit,
                parent.priority,
            )
        )
        for j in range(draw(st.integers(min_value=1, max_value=3))):
            queues.append(
                ShareQueue(
                    f"{parent.name}-p{j}",
                    parent.name,
                    deserved=draw(amounts),
                    over_quota_weight=draw(st.sampled_from([0.0, 1.0, 2.0])),
                    limit=draw(st.one_of(st.none(), amounts)),
                    priority=draw(st.integers(min_value=0, max_value=1)),
                    request=draw(amounts),
                )
            )
    return total, queues


def requestable(queue: ShareQueue) -> float:
    return queue.request if queue.limit is None else min(queue.request, queue.limit)


@given(flat_queues())
def test_shares_are_never_negative_and_never_above_request_or_limit(
    data: tuple[float, list[ShareQueue]],
) -> None:
    total, queues = data
    shares = fair_share(total, queues)
    for queue in queues:
        assert -EPS <= shares[queue.name] <= requestable(queue) + EPS


@given(flat_queues())
def test_shares_fit_the_pool_unless_deserved_quotas_already_exceed_it(
    data: tuple[float, list[ShareQueue]],
) -> None:
    total, queues = data
    shares = fair_share(total, queues)
    deserved_part = sum(min(q.deserved, requestable(q)) for q in queues)
    assert sum(shares.values()) <= max(total, deserved_part) + EPS


@given(tree_queues())
def test_children_share_no_more_than_their_parent_unless_their_quotas_do(
    data: tuple[float, list[ShareQueue]],
) -> None:
    total, queues = data
    shares = fair_share(total, queues)
    for parent in (q for q in queues if q.parent is None):
        children = [q for q in queues if q.parent == parent.name]
        deserved_part = sum(min(c.deserved, requestable(c)) for c in children)
        assert (
            sum(shares[c.name] for c in children) <= max(shares[parent.name], deserved_part) + EPS
        )
        assert all(shares[c.name] >= -EPS for c in children)


# ---------------------------------------------------------------------------- whole cycles

workload_specs = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=2),  # project index
        st.sampled_from(["training", "workspace", "distributed", "inference"]),
        st.sampled_from([0.5, 1, 2, 4, 8]),  # GPUs per pod
        st.integers(min_value=1, max_value=3),  # pods
    ),
    min_size=1,
    max_size=14,
)
quota_specs = st.lists(
    st.tuples(st.integers(min_value=0, max_value=12), st.one_of(st.none(), st.integers(0, 16))),
    min_size=3,
    max_size=3,
)


def build(
    nodes: list[int],
    quotas: list[tuple[int, int | None]],
    specs: list[tuple[int, str, float, int]],
    placement: str,
) -> Cluster:
    cluster = Cluster(clock=TickingClock())
    cluster.add_node_pool("default", placement=placement)  # type: ignore[arg-type]
    for i, gpus in enumerate(nodes):
        cluster.add_node(Node(f"n{i}", gpus=gpus))
    for i, (deserved, limit) in enumerate(quotas):
        cluster.add_project(
            f"p{i}",
            quotas={
                "default": PoolQuota(float(deserved), 1.0, None if limit is None else float(limit))
            },
        )
    for i, (proj, kind, gpus, pods) in enumerate(specs):
        request = GpuRequest.portion(gpus) if gpus < 1 else GpuRequest.whole(int(gpus))
        cluster.submit(f"w{i}", f"p{proj}", kind=kind, gpu=request, pods=pods)
    return cluster


def check_invariants(cluster: Cluster) -> None:
    held: dict[tuple[str, int], float] = {}
    future: dict[tuple[str, int], float] = {}
    for pod in cluster.pods():
        if pod.node is None or pod.extended_resource is not None:
            continue
        for device in pod.devices:
            key = (pod.node, device)
            if pod.status in (PodStatus.RUNNING, PodStatus.RELEASING):
                held[key] = held.get(key, 0.0) + pod.portion
            if pod.status in (PodStatus.RUNNING, PodStatus.PIPELINED):
                future[key] = future.get(key, 0.0) + pod.portion
    assert all(v <= 1 + EPS for v in held.values()), "a GPU is over-allocated now"
    assert all(v <= 1 + EPS for v in future.values()), "a GPU is over-allocated after releases"
    for name, queue in cluster.queues.items():
        quota = queue.quota("default")
        active = [
            (w, sum(1 for p in w.pods if p.status in (PodStatus.RUNNING, PodStatus.PIPELINED)))
            for w in cluster.workloads(name)
        ]
        allocated = sum(w.gpu.units() * n for w, n in active)
        non_preemptible = sum(w.gpu.units() * n for w, n in active if not w.preemptible)
        if quota.limit is not None:
            assert allocated <= quota.limit + EPS, f"{name} runs above its limit"
        assert non_preemptible <= quota.deserved + EPS, (
            f"{name} runs non-preemptible work over quota"
        )
        for workload, n in active:
            assert n <= workload.pod_count
            if workload.kind == "distributed":
                assert n in (0, workload.pod_count), f"gang {workload.name} partly started"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([1, 2, 4, 8]), min_size=1, max_size=4),
    quota_specs,
    workload_specs,
    st.sampled_from(["binpack", "spread"]),
)
def test_cycles_never_break_capacity_limits_quotas_or_gangs(
    nodes: list[int],
    quotas: list[tuple[int, int | None]],
    specs: list[tuple[int, str, float, int]],
    placement: str,
) -> None:
    cluster = build(nodes, quotas, specs, placement)
    for _ in range(4):
        cluster.run_cycle()
        check_invariants(cluster)
