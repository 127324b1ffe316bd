"""Helpers shared by the lab tests (a uniquely named module, unlike conftest)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from simulators.lab import LabSession


def run_all(session: LabSession, lines: list[str]) -> str:
    """Run lines in order; return the last output."""
    output = ""
    for line in lines:
        output = session.run(line).output
    return output


def done(session: LabSession) -> dict[str, bool]:
    return {item.id: item.done for item in session.checklist()}


def wait(session: LabSession, steps: int = 3) -> None:
    """Let simulated time pass with harmless commands."""
    for _ in range(steps):
        session.run("kubectl get nodes")


def solved_in_the_cli(ticket: str) -> list[dict[str, Any]]:
    """`python -m simulators lab --ticket TICKET --json` fed the ticket's answer key: one row
    (line, output, checklist) per line, as the CLI prints them."""
    key = LabSession.new(ticket, seed=0).answer_key()
    proc = subprocess.run(
        [sys.executable, "-m", "simulators", "lab", "--ticket", ticket, "--json"],
        input="\n".join(key) + "\n",
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]
