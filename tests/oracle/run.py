"""Run generated cases through both kubectls: reads in order on one copy of a ticket's world,
each write on a fresh copy (the same server, its world rebuilt from the seed)."""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from tests.oracle.harness import Answer, mask, oracle, same
from tests.oracle.pieces import Case


@dataclass(frozen=True)
class Outcome:
    case: Case
    lab: Answer
    real: Answer

    @property
    def agrees(self) -> bool:
        return same(self.case.line, self.lab, self.real)

    def diff(self) -> str:
        body = "\n".join(
            difflib.unified_diff(
                mask(self.real.text).split("\n"),
                mask(self.lab.text).split("\n"),
                "real kubectl",
                "lab kubectl",
                lineterm="",
            )
        )
        return (
            f"[{self.case.ticket}] $ {self.case.line}  "
            f"(failed: real {self.real.failed}, lab {self.lab.failed})\n{body}"
        )


def run_cases(cases: list[Case], tmp: Path) -> list[Outcome]:
    """Every case's answers, in the order given."""
    by_ticket: dict[str, list[int]] = defaultdict(list)
    for i, case in enumerate(cases):
        by_ticket[case.ticket].append(i)
    results: dict[int, Outcome] = {}
    for ticket, indexes in by_ticket.items():
        folder = tmp / ticket
        folder.mkdir(parents=True, exist_ok=True)
        with oracle(ticket, folder) as running:
            # Reads first, on the untouched world; then each write on a rebuilt one.
            for i in indexes:
                if not cases[i].writes:
                    lab, real = running.both(cases[i].line)
                    results[i] = Outcome(cases[i], lab, real)
            for i in indexes:
                if cases[i].writes:
                    running.reset()
                    lab, real = running.both(cases[i].line)
                    results[i] = Outcome(cases[i], lab, real)
    return [results[i] for i in range(len(cases))]
