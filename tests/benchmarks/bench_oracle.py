"""The generated oracle's agreement: N commands drawn from a seed over the nine tickets' worlds,
each run by the lab's kubectl and by the real kubectl against the apiserver on the same state.

Prints agreement overall, per verb and per output option, the lab kubectl's p50 and p99 in
process, then every disagreement as a diff (real kubectl first). Goal: at least 99.5% on any
seed for 2,000 commands. Prints, never asserts. About 0.2 s a command on a quiet 2-core machine
(the real kubectl's start and each write's fresh world dominate).

    .venv/bin/python -m tests.benchmarks.bench_oracle --seed 1 --count 2000 [--agreeing]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from tests.oracle.generate import generate
from tests.oracle.run import Outcome, run_cases


def table(title: str, rows: dict[str, list[Outcome]]) -> str:
    lines = [f"{title:<22} {'agree':>7} {'of':>6} {'%':>7}"]
    for key in sorted(rows, key=lambda k: (-len(rows[k]), k)):
        outcomes = rows[key]
        agree = sum(o.agrees for o in outcomes)
        lines.append(
            f"{key or '(default)':<22} {agree:>7} {len(outcomes):>6} "
            f"{100 * agree / len(outcomes):>6.1f}%"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument(
        "--agreeing", action="store_true", help="only the smaller grammar (generate's more=False)"
    )
    parser.add_argument("--no-diffs", action="store_true")
    args = parser.parse_args()
    cases = generate(args.seed, args.count, more=not args.agreeing)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        outcomes = run_cases(cases, Path(folder))
    seconds = time.perf_counter() - start
    agree = sum(o.agrees for o in outcomes)
    by_verb: dict[str, list[Outcome]] = defaultdict(list)
    by_output: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_verb[outcome.case.verb].append(outcome)
        by_output[outcome.case.output].append(outcome)
    print(
        f"seed {args.seed}: {agree}/{len(outcomes)} agree "
        f"({100 * agree / len(outcomes):.2f}%) in {seconds:.0f} s"
    )
    times = sorted(1000 * o.lab.seconds for o in outcomes)
    print(
        f"lab kubectl in process: p50 {times[len(times) // 2]:.2f} ms, "
        f"p99 {times[min(len(times) - 1, int(0.99 * len(times)))]:.2f} ms "
        "(the call alone; a write's includes the controllers' step the write triggers)"
    )
    print()
    print(table("verb", by_verb))
    print()
    print(table("output option", by_output))
    if not args.no_diffs:
        for outcome in outcomes:
            if not outcome.agrees:
                print()
                print(outcome.diff())


if __name__ == "__main__":
    main()
