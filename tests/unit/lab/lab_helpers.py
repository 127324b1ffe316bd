"""Helpers shared by the lab tests (a uniquely named module, unlike conftest)."""

from __future__ import annotations

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
