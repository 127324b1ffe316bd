"""What a new lab costs, per ticket, in process: built from scratch (before) beside forked
from its ticket's template world (after), in one run.

For each ticket it prints the processor time of a new lab (median of --repeat, each on a
seed of its own for "before", as every learner had one) built from scratch as
`LabSession.new` did before templates, and forked from the template as it does now (the
template built once beforehand: its one-off cost is the "before" column), and their ratio.
Then the memory a kept lab holds beyond its template (tracemalloc), new and after the
ticket's answer key (between two commands: its big buckets packed, MockCluster.pack_idle;
beside it, "live", the same with nothing packed, as before packing), that solved lab opened
again from its snapshot (as another process does), at rest (as the site keeps an idle lab a
socket holds: LabSession.rest) and shelved (one no holder holds: LabSession.shelve, the size
of its one block), beside a lab built from scratch; and of labs that printed more
(bench_load's commands, the cluster as YAML), awake, at rest and shelved. Then what a kept lab
costs to come back (CPU): woken from rest, unshelved, and its commands replayed (as the
database opens a lab whose log holds them). Then the size of a lab's snapshot (its world: the
template's name and what changed) after 1, 10 and 100 commands.
Each ticket's memory row is measured after one solved lab of it warmed the process's bounded
caches (the timestamps a step formats, shared by every lab at that cluster time).
Goals (issue 30): at most 5 ms of CPU per new lab, at most 100 KB per kept lab beyond its
template. Prints, never asserts.

    .venv/bin/python -m tests.benchmarks.bench_new_lab [--repeat 5]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterator

from simulators.lab import LabSession
from simulators.lab.session_state import SessionState
from simulators.lab.tickets import list_tickets, load_ticket
from simulators.lab.world import World, build_world, template_world
from tests.benchmarks.bench_load import COMMANDS as LOAD_COMMANDS


def from_scratch(ticket_id: str, seed: int) -> LabSession:
    """A new lab as LabSession.new made it before templates: the whole world built."""
    ticket = load_ticket(ticket_id)
    world = build_world(ticket.world, seed)
    return LabSession(SessionState(ticket_id=ticket.id, seed=seed, world=world), ticket)


# bench_load's commands, in a fixed random order, and a learner printing the cluster as YAML.
_LOAD = random.Random(1)
_LOAD_LINES = [_LOAD.choice(LOAD_COMMANDS) for _ in range(60)]
PRINTED = {
    "20 of bench_load's commands": _LOAD_LINES[:20],
    "60 of bench_load's commands": _LOAD_LINES,
    "kubectl get pods -A -o yaml, 5 times": ["kubectl get pods -A -o yaml"] * 5,
}


def lab_of(lines: list[str]) -> LabSession:
    """A mig-single lab that ran `lines`, its transcript encoded once (as a snapshot does)."""
    lab = LabSession.new("mig-single", seed=0)
    for line in lines:
        lab.run(line)
    lab.encode()
    return lab


@contextlib.contextmanager
def nothing_packed() -> Iterator[None]:
    """Labs hold their whole cluster live between commands, as before packing."""
    real = World.pack_idle
    World.pack_idle = lambda self: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        World.pack_idle = real  # type: ignore[method-assign]


# What a learner types in a lab, new (bench_load's commands) and once solved.
LOOKS = [
    "kubectl get pods -A",
    "kubectl describe node gpu-node2",
    "kubectl get nodes",
    "nvidia-smi",
    "kubectl label node gpu-node1 looked=yes --overwrite",
] * 6
COSTED = [
    ("mig-single, 60 of bench_load's", "mig-single", False, _LOAD_LINES),
    ("mig-single solved, 30 looks", "mig-single", True, LOOKS),
    ("mig-mixed solved, 30 looks", "mig-mixed", True, LOOKS),
    ("xid-fallen-off solved, 30 looks", "xid-fallen-off", True, LOOKS),
]


def command_ms(ticket_id: str, solved: bool, lines: list[str]) -> float:
    """A lab's processor time per command over `lines` (after its answer key if `solved`)."""
    lab = LabSession.new(ticket_id, seed=0)
    if solved:
        for line in lab.answer_key():
            lab.run(line)
    start = time.process_time()
    for line in lines:
        lab.run(line)
    return (time.process_time() - start) * 1000 / len(lines)


# Labs that come back after their learner left: as bench_load's, and solved.
BACK = [
    ("20 of bench_load's commands", "mig-single", _LOAD_LINES[:20]),
    ("60 of bench_load's commands", "mig-single", _LOAD_LINES),
    *(
        (f"{ticket_id}, its answer key", ticket_id, list(load_ticket(ticket_id).answer_key))
        for ticket_id in ("mig-single", "xid-fallen-off")
    ),
]


def coming_back(ticket_id: str, lines: list[str]) -> tuple[float, float, float, float, float]:
    """ms of CPU to rest a lab that ran `lines` and wake it, to shelve and unshelve it, and to
    replay `lines` on a new lab (a database's log replayed, without the database)."""
    lab = LabSession.new(ticket_id, seed=0)
    for line in lines:
        lab.run(line)
    lab.encode()
    rest = cpu_ms(lab.rest)
    wake = cpu_ms(lambda: lab.world)
    shelved = b""

    def shelve() -> None:
        nonlocal shelved
        shelved = lab.shelve() or b""

    shelve_ms = cpu_ms(shelve)
    unshelve = cpu_ms(lambda: LabSession.unshelve(shelved).world)

    def replay() -> None:
        again = LabSession.new(ticket_id, seed=0)
        for line in lines:
            again.run(line)

    return rest, wake, shelve_ms, unshelve, cpu_ms(replay)


def cpu_ms(make: Callable[[], object]) -> float:
    start = time.process_time()
    make()
    return (time.process_time() - start) * 1000


def kept_bytes(make: Callable[[], LabSession], answer: bool, rest: bool = False) -> int:
    """Memory a lab holds once made (and, with `answer`, after its answer key; with `rest`,
    at rest as the site keeps an idle lab, LabSession.rest)."""
    gc.collect()
    tracemalloc.start()
    lab = make()
    if answer:
        for line in lab.answer_key():
            lab.run(line)
    if rest:
        lab.rest()
    gc.collect()
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del lab
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    tickets = [t.id for t in list_tickets()]
    print("A new lab's CPU time, median of", args.repeat)
    print(f"{'ticket':<20} {'before ms':>10} {'after ms':>9} {'before/after':>13}")
    for ticket_id in tickets:
        template_world(load_ticket(ticket_id).world, 0)
        before = statistics.median(
            cpu_ms(functools.partial(from_scratch, ticket_id, 1000 + seed))
            for seed in range(args.repeat)
        )
        after = statistics.median(
            cpu_ms(functools.partial(LabSession.new, ticket_id, seed=0)) for _ in range(args.repeat)
        )
        print(f"{ticket_id:<20} {before:>10.1f} {after:>9.2f} {before / after:>13.0f}")
    print("goal: at most 5 ms per new lab")
    print()
    print("Memory a kept lab holds beyond its template (KB)")
    print(
        f"{'ticket':<20} {'scratch':>8} {'new':>6} {'live':>6} {'answered':>9} {'reopened':>9}"
        f" {'at rest':>8} {'shelved':>8}"
    )
    for ticket_id in tickets:
        new_lab = functools.partial(LabSession.new, ticket_id, seed=0)
        # The process's bounded caches of the times a step formats, which every lab at that
        # cluster time shares, warmed by one solved lab: each column is one more lab's cost
        # (before, "answered" paid for them and "live", measured after it, did not).
        warm = new_lab()
        for line in warm.answer_key():
            warm.run(line)
        warm.rest()
        del warm
        scratch = kept_bytes(functools.partial(from_scratch, ticket_id, 0), answer=False)
        new = kept_bytes(new_lab, answer=False)
        answered = kept_bytes(new_lab, answer=True)
        with nothing_packed():
            live = kept_bytes(new_lab, answer=True)
        solved = new_lab()
        for line in solved.answer_key():
            solved.run(line)
        reopened = kept_bytes(functools.partial(LabSession.from_json, solved.encode()), False)
        rested = kept_bytes(new_lab, answer=True, rest=True)
        shelved = len(solved.shelve() or b"")
        print(
            f"{ticket_id:<20} {scratch / 1024:>8.0f} {new / 1024:>6.0f} {live / 1024:>6.0f}"
            f" {answered / 1024:>9.0f}"
            f" {reopened / 1024:>9.0f} {rested / 1024:>8.0f} {shelved / 1024:>8.0f}"
        )
    print("goal: at most 100 KB per kept lab beyond its template (the site rests idle labs)")
    print()
    print("Labs that printed more (mig-single, a snapshot encoded): KB beyond the template")
    print(f"{'lab':<34} {'awake':>6} {'at rest':>8} {'shelved':>8}")
    for label, lines in PRINTED.items():
        awake = kept_bytes(functools.partial(lab_of, lines), answer=False)
        rested = kept_bytes(functools.partial(lab_of, lines), answer=False, rest=True)
        shelved = len(lab_of(lines).shelve() or b"")
        print(f"{label:<34} {awake / 1024:>6.0f} {rested / 1024:>8.0f} {shelved / 1024:>8.0f}")
    print()
    print("A kept lab coming back: ms of CPU, median of --repeat")
    print(f"{'lab':<34} {'rest':>6} {'wake':>6} {'shelve':>7} {'unshelve':>9} {'replay':>7}")
    for label, ticket_id, lines in BACK:
        costs = [coming_back(ticket_id, lines) for _ in range(args.repeat)]
        print(
            f"{label:<34} "
            + " ".join(
                f"{statistics.median(c[i] for c in costs):>{w}.2f}"
                for i, w in enumerate((6, 6, 7, 9, 7))
            )
        )
    print()
    print("A command's CPU (ms, median of --repeat runs of the lines), packed beside live")
    print(f"{'lab':<34} {'packed':>7} {'live':>6} {'ratio':>6}")
    for label, ticket_id, key_first, lines in COSTED:
        runs = range(args.repeat)
        packed_ms = statistics.median(command_ms(ticket_id, key_first, lines) for _ in runs)
        with nothing_packed():
            live_ms = statistics.median(command_ms(ticket_id, key_first, lines) for _ in runs)
        print(f"{label:<34} {packed_ms:>7.2f} {live_ms:>6.2f} {packed_ms / live_ms:>6.2f}")
    print()
    print("A snapshot's world after 1, 10 and 100 commands (KB of JSON; the whole world after)")
    for ticket_id in tickets:
        lab = LabSession.new(ticket_id, seed=0)
        sizes = []
        for n, line in enumerate([*lab.answer_key(), *["kubectl get nodes"] * 100][:100], 1):
            lab.run(line)
            if n in (1, 10, 100):
                sizes.append(len(json.dumps(json.loads(lab.encode())["world"])) / 1024)
        whole = len(json.dumps(lab.world.to_json())) / 1024
        print(
            f"{ticket_id:<20} " + " ".join(f"{size:>7.1f}" for size in sizes) + f"  ({whole:.0f})"
        )


if __name__ == "__main__":
    main()
