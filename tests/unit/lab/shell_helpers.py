"""Helpers for the shell's tests: run a line, get what the terminal shows and `$?`."""

from __future__ import annotations

from simulators.lab import LabSession


def sh(session: LabSession, line: str) -> tuple[str, int]:
    result = session.run(line)
    return result.output, result.exit_code


def out(session: LabSession, line: str) -> str:
    return session.run(line).output
