"""`deserved: null` is "no quota set" (KAI's -1): the queue deserves what its parent divides,
up to its request and limit, and is never counted as above its quota."""

from __future__ import annotations

import json

from simulators.__main__ import main
from simulators.engine import (
    Cluster,
    GpuRequest,
    Node,
    PoolQuota,
    ShareQueue,
    TickingClock,
    fair_share,
)


def test_a_queue_without_quota_deserves_its_request_up_to_what_the_parent_divides() -> None:
    shares = fair_share(
        10,
        [
            ShareQueue("dept", deserved=None),
            ShareQueue("a", parent="dept", deserved=None, request=6),
            ShareQueue("b", parent="dept", deserved=2, request=8),
        ],
    )
    assert shares["dept"] == 10
    # a deserves up to what dept divides (10) capped by its request; b its quota of 2;
    # the 2 left over go to b by weight.
    assert shares["a"] == 6
    assert shares["b"] == 4


def test_a_limit_still_caps_a_queue_without_quota() -> None:
    shares = fair_share(8, [ShareQueue("a", deserved=None, limit=3, request=8)])
    assert shares["a"] == 3


def test_the_cli_accepts_a_null_deserved(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = {
        "total_gpus": 10,
        "queues": [
            {
                "name": "a",
                "parent": None,
                "deserved": None,
                "over_quota_weight": 1,
                "limit": None,
                "priority": 0,
                "request": 4,
            },
            {
                "name": "b",
                "parent": None,
                "deserved": 3,
                "over_quota_weight": 1,
                "limit": None,
                "priority": 0,
                "request": 8,
            },
        ],
    }
    path = tmp_path / "queues.json"
    path.write_text(json.dumps(data))
    assert main(["fairshare", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == {"fair_share": {"a": 4, "b": 6}}


def test_a_non_preemptible_workload_without_quota_is_never_over_quota() -> None:
    cluster = Cluster(clock=TickingClock())
    cluster.add_node(Node("gpu-node1", gpus=8))
    cluster.add_project("free", quotas={"default": PoolQuota(deserved=None)})
    cluster.add_project("zero", quotas={"default": PoolQuota(deserved=0)})
    cluster.submit("nb", "free", kind="workspace", gpu=GpuRequest.whole(4))
    cluster.submit("nb", "zero", kind="workspace", gpu=GpuRequest.whole(4))
    cluster.run_cycle()
    assert cluster.workload("free", "nb").status == "Running"
    blocked = cluster.workload("zero", "nb")
    assert blocked.status == "Pending"
    assert blocked.reason_code == "NonPreemptibleOverQuota"
