"""`python -m simulators fairshare|reclaim|cycle`: JSON in, JSON out, exit 2 on bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from simulators.__main__ import main

ROOT = Path(__file__).resolve().parents[3]


def run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    """`python -m simulators ARGS` in this process, with its exit code and streams."""
    out, err = io.StringIO(), io.StringIO()
    saved, sys.stdin = sys.stdin, io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(args)
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def queue(name: str, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "name": name,
        "parent": None,
        "deserved": 0,
        "over_quota_weight": 1,
        "limit": None,
        "priority": 0,
    }
    base.update(fields)
    return base


def job(
    name: str, queue_name: str, tasks: list[tuple[str, str | None]], rank: int, **fields: object
) -> dict[str, object]:
    base: dict[str, object] = {
        "name": name,
        "queue": queue_name,
        "priority": 50,
        "preemptible": True,
        "gpus_per_task": 1,
        "tasks": [{"status": s, "node": n} for s, n in tasks],
        "min_available": 1,
        "creation_rank": rank,
    }
    base.update(fields)
    return base


RECLAIM_INPUT = {
    "nodes": {"n1": 4},
    "queues": [queue("a", deserved=2), queue("b", deserved=2)],
    "jobs": [
        *[job(f"b{i}", "b", [("Running", "n1")], i) for i in range(4)],
        job("a1", "a", [("Pending", None)], 10),
    ],
}


def test_fairshare_prints_each_queues_share() -> None:
    data = {
        "total_gpus": 10,
        "queues": [queue("a", request=100), queue("b", request=100, over_quota_weight=2)],
    }
    result = run(["fairshare"], json.dumps(data))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"fair_share": {"a": 3, "b": 7}}


def test_reclaim_reports_each_jobs_status_and_node(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(RECLAIM_INPUT))
    result = run(["reclaim", str(path)], "")
    assert result.returncode == 0, result.stderr
    jobs = json.loads(result.stdout)["jobs"]
    assert jobs["a1"] == {"status": "Pipelined", "node": "n1"}
    assert jobs["b3"] == {"status": "Releasing", "node": "n1"}
    assert [jobs[f"b{i}"]["status"] for i in range(3)] == ["Running"] * 3


def test_cycle_adds_the_events() -> None:
    result = run(["cycle"], json.dumps(RECLAIM_INPUT))
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)
    assert output["jobs"]["a1"]["status"] == "Pipelined"
    reasons = {(e["job"], e["reason"]) for e in output["events"]}
    assert ("b3", "Evicted") in reasons and ("a1", "Pipelined") in reasons


@pytest.mark.parametrize(
    ("args", "stdin", "expected"),
    [
        (["fairshare"], "{not json", "not valid JSON"),
        (["fairshare"], json.dumps({"queues": []}), "total_gpus"),
        (["fairshare"], json.dumps({"total_gpus": -1, "queues": []}), "total_gpus"),
        (
            ["fairshare"],
            json.dumps({"total_gpus": 4, "queues": [queue("a", request="x")]}),
            "queues[0].request",
        ),
        (["reclaim"], json.dumps({**RECLAIM_INPUT, "nodes": {"n1": "eight"}}), "nodes.n1"),
        (
            ["cycle"],
            json.dumps({**RECLAIM_INPUT, "jobs": [job("x", "nope", [("Pending", None)], 1)]}),
            "jobs[0].queue",
        ),
        (
            ["reclaim"],
            json.dumps({**RECLAIM_INPUT, "jobs": [job("x", "a", [("Running", "n9")], 1)]}),
            "jobs[0].tasks[0].node",
        ),
        (["reclaim"], "[]", "input: must be a JSON object"),
        (["fairshare", "/no/such/file.json"], "", "cannot read"),
    ],
    ids=[
        "not json",
        "missing total",
        "negative total",
        "request not a number",
        "gpus not a number",
        "unknown queue",
        "unknown node",
        "not an object",
        "missing file",
    ],
)
def test_bad_input_prints_one_line_and_exits_2(args: list[str], stdin: str, expected: str) -> None:
    result = run(args, stdin)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    assert expected in lines[0]
    assert "Traceback" not in result.stderr


def test_lab_commands_are_handed_to_the_lab_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    from simulators.__main__ import main

    received: list[list[str]] = []
    fake = types.ModuleType("simulators.lab.cli")

    def fake_main(argv: list[str]) -> int:
        received.append(argv)
        return 7

    fake.main = fake_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "simulators.lab.cli", fake)
    assert main(["lab", "--ticket", "mig-single"]) == 7
    assert received == [["--ticket", "mig-single"]]


def test_help_lists_every_command() -> None:
    result = run(["--help"], "")
    assert result.returncode == 0
    for command in ("fairshare", "reclaim", "cycle", "lab"):
        assert f"  {command} " in result.stdout


def test_an_unknown_command_gets_the_list_of_commands() -> None:
    result = run(["schedule"], "")
    assert result.returncode == 2
    assert "unknown command 'schedule'" in result.stderr
    assert "fairshare" in result.stderr


def test_an_unknown_lab_ticket_lists_the_tickets() -> None:
    result = run(["lab", "--ticket", "nope"], "")
    assert result.returncode == 2
    assert "unknown ticket 'nope'" in result.stderr
    assert "mig-single" in result.stderr


def test_the_package_runs_as_a_module() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "simulators", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0
    assert "usage: python -m simulators" in result.stdout
