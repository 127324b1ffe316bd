"""What a learner typed in a lab since it was new: enough to build the lab again.

A lab is its ticket's world for a seed (simulators.lab.world, a fork of a template) with the
learner's lines run on it in order, each with hints on or off (exam mode). Replaying the lines
on a new lab of that ticket and seed rebuilds the same lab (transcript, checklist, cluster), as
replaying a saved lab's log does (studysite.lab.saved.restore). That is the lab's portable form
(the progress file): a few KB where the whole cluster is 300 KB.

The record is given up (`lines` None) where a replay could differ or would cost too much: a
command that ran out of its budget (where it stopped depends on CPU time), more than MAX_LINES
lines or MAX_BYTES of them, commands whose CPU time adds up to more than MAX_REPLAY_SECONDS, or
a lab restored from a form that had none (saved before this, or imported as a whole state).
Such a lab travels whole.
"""

from __future__ import annotations

from typing import Any

MAX_LINES = 2_000
MAX_BYTES = 256 * 1024
MAX_REPLAY_SECONDS = 1.0


class Typed:
    """The lines run on a lab since it was new, each with its hints flag; or None (unknown)."""

    def __init__(self, lines: list[tuple[str, bool]] | None, cpu: float = 0.0) -> None:
        self.lines = lines
        self.size = sum(len(line) for line, _ in lines) if lines is not None else 0
        # The CPU seconds the lines took when they ran: what a replay costs, about.
        self.cpu = cpu

    def record(self, line: str, hints: bool) -> None:
        if self.lines is None:
            return
        self.lines.append((line, hints))
        self.size += len(line)
        if len(self.lines) > MAX_LINES or self.size > MAX_BYTES:
            self.give_up()

    def spent(self, seconds: float) -> None:
        """Count a line's CPU time, once it has run."""
        self.cpu += seconds
        if self.cpu > MAX_REPLAY_SECONDS:
            self.give_up()

    def give_up(self) -> None:
        self.lines, self.size, self.cpu = None, 0, 0.0

    def to_json(self) -> dict[str, Any] | None:
        if self.lines is None:
            return None
        return {"lines": [[line, hints] for line, hints in self.lines], "cpu": self.cpu}

    @classmethod
    def from_json(cls, data: Any) -> Typed:
        """The record as to_json made it; unknown (None) for anything else."""
        if not isinstance(data, dict) or not isinstance(data.get("cpu"), float | int):
            return cls(None)
        return cls(read_lines(data.get("lines")), float(data["cpu"]))


def read_lines(data: Any) -> list[tuple[str, bool]] | None:
    """[[line, hints], ...] within the limits, or None."""
    if not isinstance(data, list) or len(data) > MAX_LINES:
        return None
    lines: list[tuple[str, bool]] = []
    size = 0
    for item in data:
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], bool)
        ):
            return None
        size += len(item[0])
        lines.append((item[0], item[1]))
    return lines if size <= MAX_BYTES else None
