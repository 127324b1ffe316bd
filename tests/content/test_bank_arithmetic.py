"""Every fair-share number the bank asks for is what the engine computes (python -m simulators)."""

from __future__ import annotations

import pytest

from simulators.engine.cli import run_fairshare, run_whole_cycle
from studysite.study.content import Question, load_bank

BANK = {question.id: question for question in load_bank()}

# question id -> (pool GPUs, [(queue, quota, weight, demand, limit)])
POOLS: dict[str, tuple[int, list[tuple[str, int, int, int, int | None]]]] = {
    "sim-quota-first-then-weights": (24, [("A", 8, 1, 16, None), ("B", 8, 1, 4, None),
                                          ("C", 0, 1, 12, None)]),
    "sim-owner-takes-back-at-most-its-quota": (24, [("A", 8, 1, 16, None), ("B", 8, 1, 8, None),
                                                    ("C", 0, 1, 12, None)]),
    "sim-weights-split-the-idle-pool": (36, [("A", 8, 2, 24, None), ("B", 8, 1, 4, None),
                                             ("C", 0, 1, 20, None)]),
    "sim-rounding-after-a-weighted-split": (36, [("A", 8, 2, 24, None), ("B", 8, 1, 8, None),
                                                 ("C", 0, 1, 20, None)]),
    "sim-unused-quota-is-lent": (16, [("A", 8, 1, 2, None), ("B", 4, 1, 16, None),
                                      ("C", 4, 1, 16, None)]),
    "sim-weight-zero-beside-another-project": (16, [("A", 4, 0, 16, None), ("B", 4, 1, 16, None)]),
    "limit-caps-a-weighted-share": (16, [("A", 4, 1, 12, 6), ("B", 4, 1, 12, None)]),
    "weights-three-to-one": (32, [("A", 16, 1, 4, None), ("B", 8, 3, 30, None),
                                  ("C", 8, 1, 30, None)]),
    "zero-quota-weight-two": (20, [("A", 6, 1, 20, None), ("B", 6, 1, 5, None),
                                   ("C", 0, 2, 20, None)]),
}  # fmt: skip


def key(question: Question) -> str:
    return next(option.text for option in question.options if option.correct)


def queue(name: str, quota: float, weight: float, demand: float, limit: float | None,
          parent: str | None = None) -> dict[str, object]:  # fmt: skip
    return {"name": name, "parent": parent, "deserved": quota, "over_quota_weight": weight,
            "limit": limit, "priority": 0, "request": demand}  # fmt: skip


@pytest.mark.parametrize("question_id", sorted(POOLS))
def test_the_fair_shares_in_the_key_are_the_engines(question_id: str) -> None:
    total, rows = POOLS[question_id]
    shares = run_fairshare({"total_gpus": total, "queues": [queue(*row) for row in rows]})
    computed = ", ".join(f"{name} {share}" for name, share in shares["fair_share"].items())  # type: ignore[attr-defined]
    assert key(BANK[question_id]) == computed
    for option in BANK[question_id].options:
        assert option.correct or option.text != computed


def test_the_department_split_is_the_engines() -> None:
    queues = [
        queue("research", 16, 1, 0, None), queue("team-llm", 8, 1, 20, None, "research"),
        queue("team-vision", 8, 1, 20, None, "research"), queue("product", 16, 1, 0, None),
        queue("team-inf", 16, 1, 4, None, "product"),
    ]  # fmt: skip
    s = run_fairshare({"total_gpus": 32, "queues": queues})["fair_share"]
    expected = (
        f"research {s['research']} (team-llm {s['team-llm']}, team-vision {s['team-vision']}); "  # type: ignore[index]
        f"product {s['product']}"  # type: ignore[index]
    )
    assert key(BANK["department-fair-share-engine"]) == expected


def test_the_two_zero_quota_projects_get_what_the_engine_gives() -> None:
    queues = [queue("A", 0, 1, 10, None), queue("B", 0, 1, 10, None)]
    shares = run_fairshare({"total_gpus": 16, "queues": queues})["fair_share"]
    assert shares == {"A": 8, "B": 8}
    assert key(BANK["sim-two-zero-quota-projects"]).startswith("8 each")


def one_gpu_jobs(queue_name: str, count: int, nodes: list[str] | None = None) -> list[object]:
    return [
        {"name": f"{queue_name}{i}", "queue": queue_name, "gpus_per_task": 1, "preemptible": True,
         "min_available": 1, "priority": 50, "creation_rank": len(queue_name) * 100 + i,
         "tasks": [{"status": "Running", "node": nodes[i]} if nodes else {"status": "Pending"}]}
        for i in range(count)
    ]  # fmt: skip


def cycle_queue(name: str, quota: int, weight: int) -> dict[str, object]:
    return {"name": name, "parent": None, "deserved": quota, "over_quota_weight": weight,
            "limit": None, "priority": 0}  # fmt: skip


def test_reclaim_leaves_the_borrower_what_the_engine_leaves_it() -> None:
    nodes = {f"n{i}": 8 for i in range(4)}
    placed = [f"n{i // 8}" for i in range(32)]
    jobs = one_gpu_jobs("a", 32, placed) + one_gpu_jobs("bb", 10)
    queues = [cycle_queue("a", 16, 1), cycle_queue("bb", 16, 1)]
    result = run_whole_cycle({"nodes": nodes, "queues": queues, "jobs": jobs})["jobs"]
    kept = sum(
        1 for name, job in result.items() if name.startswith("a") and job["status"] == "Running"
    )  # type: ignore[attr-defined,index]
    assert key(BANK["reclaim-stops-at-fair-share"]) == str(kept)


def test_weight_zero_alone_runs_what_the_engine_runs() -> None:
    jobs = one_gpu_jobs("a", 8)
    result = run_whole_cycle({"nodes": {"n1": 8}, "queues": [cycle_queue("a", 2, 0)], "jobs": jobs})
    running = [job["status"] for job in result["jobs"].values()].count("Running")  # type: ignore[attr-defined,index]
    assert key(BANK["sim-weight-zero-alone-still-borrows"]).startswith(
        f"All {running} run: 2 within quota and {running - 2} borrowed"
    )
