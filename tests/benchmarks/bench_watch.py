"""The watch oracle's agreement on a seed: N `kubectl get -w` lines drawn over every ticket's
world, each watched by the lab's kubectl and by the real kubectl against the apiserver while
the same writes change both (tests/oracle/watch.py). Prints agreement overall and per output
option, then every disagreement (real kubectl first). About 1.7 s a case on a quiet 2-core
machine. Prints, never asserts.

    .venv/bin/python -m tests.benchmarks.bench_watch --seed 1 --count 240
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from tests.oracle.harness import oracle
from tests.oracle.pieces import tickets
from tests.oracle.watch import WatchCase, generate, run_case


def output_of(case: WatchCase) -> str:
    words = case.watch.split()
    for i, word in enumerate(words):
        if word == "-o" and i + 1 < len(words):
            return words[i + 1].partition("=")[0]
    return "(table)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=240)
    args = parser.parse_args()
    cases = generate(args.seed, args.count, tickets())
    start = time.perf_counter()
    results: dict[str, list[bool]] = defaultdict(list)
    shown = []
    with tempfile.TemporaryDirectory() as folder:
        for ticket in tickets():
            some = [case for case in cases if case.ticket == ticket]
            if not some:
                continue
            with oracle(ticket, Path(folder)) as running:
                for case in some:
                    seen = run_case(running, case)
                    results[output_of(case)].append(seen.agree)
                    if not seen.agree:
                        shown.append(
                            f"$ {case.watch}\n  then: "
                            + "\n  then: ".join(case.writes)
                            + f"\n--- real\n{seen.real}\n--- lab\n{seen.lab}"
                        )
    seconds = time.perf_counter() - start
    agree = sum(sum(r) for r in results.values())
    print(
        f"seed {args.seed}: {agree} of {len(cases)} watches agree "
        f"({100 * agree / len(cases):.2f}%) in {seconds:.0f} s"
    )
    for output, seen in sorted(results.items(), key=lambda kv: -len(kv[1])):
        print(f"  {output:<22} {sum(seen):>5} of {len(seen):>5}")
    for text in shown:
        print("\n" + text)


if __name__ == "__main__":
    main()
