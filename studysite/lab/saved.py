"""A lab's saved form: a snapshot plus the lines typed since, and when to fold them.

A command appends one row to the lab's log (studysite.lab.writes), and the snapshot is rewritten
(and the log emptied: a fold) once the command's answer has gone out, when the log has grown
long or replaying it would cost more than REPLAY_COST_SECONDS of CPU (`fold_due`); at once,
before the answer, when a command ran out of its budget, so that opening a lab never re-runs an
expensive command (`fold_now`). Opening a lab from its row is `restore`: the snapshot with the
log replayed.

A lab's world is seeded from the session and the ticket (`lab_seed`), so the page, its
websocket, the form and the annex all show and save the same world before it exists; a reset
draws another seed. A new lab is a fork of its ticket's template world for that seed
(simulators.lab.world), not a build.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from django.conf import settings

from simulators.lab import LabSession, budget, editor
from studysite.lab.kinds import kind_of
from studysite.lab.models import LabSnapshot, SavedLab

SNAPSHOT_EVERY = 50
# Logged commands whose CPU time adds up to more than this are folded into a snapshot. A lab
# open in this process is reused (studysite.lab.kept), so replay is paid only by another process
# or after a restart; a fold rewrites the whole snapshot, which costs more than most commands.
REPLAY_COST_SECONDS = 0.1
# A log this many times past the limits is folded by the command itself (see fold_now).
OVERDUE = 2.0
# A replayed line's CPU time, in times its command's budget (see restore).
REPLAY_ROOM = 10
# The worlds a ticket's labs start from: a seed varies the generated names and uids (a pod's
# suffix), and each seed's world is built once per process and forked for every lab
# (simulators.lab.world.template_world), so a class opening one ticket builds it a few times,
# not once per learner.
SEED_VARIANTS = 4
GOLDEN_RATIO = 0.6180339887498949


def limits() -> budget.Limits:
    """A command's budget, from the settings."""
    return budget.Limits(
        cpu_seconds=settings.LAB_COMMAND_CPU_MS / 1000,
        output_bytes=settings.LAB_MAX_OUTPUT_BYTES,
        line_bytes=settings.LAB_MAX_LINE_BYTES,
    )


def as_typed(line: str) -> str:
    """The line as bash would run it.

    A terminal cannot send NUL, and PostgreSQL text cannot hold it: bash drops it too.
    """
    return line.replace("\x00", "")


def too_long(line: str) -> str | None:
    """The shell's message for a line over LAB_MAX_LINE_BYTES, else None. An editor's save
    line (simulators.lab.editor) carries a buffer: it has the editor's own limit."""
    if editor.is_save(line):
        return editor.save_too_long(line)
    with budget.metered(budget.Meter(limits())):
        return budget.line_too_long(line)


def counts(lab: LabSession) -> dict[str, int]:
    """The checklist's done and total items, kept on the row (no replay to show progress)."""
    items = lab.checklist()
    return {"done_items": sum(item.done for item in items), "total_items": len(items)}


@dataclass(frozen=True)
class Snapshot:
    """A lab's snapshot, encoded and packed (LabSnapshot.pack) before any write transaction
    opens.

    Encoding a world takes several ms (340 KB of JSON: 4 ms to build, 4 ms to dump), and while
    a write transaction is open SQLite holds every other writer of the database, the other
    server processes' learners included. So the transaction only writes.
    """

    packed: bytes
    counts: dict[str, int]

    @classmethod
    def of(cls, lab: LabSession) -> Snapshot:
        return cls(LabSnapshot.pack(lab.encode()), counts(lab))


def restore(saved: SavedLab) -> tuple[LabSession, int]:
    """The lab as the learner left it: the snapshot with the logged lines replayed; and how
    many lines were replayed."""
    try:
        state = saved.snapshot.data()
    except LabSnapshot.DoesNotExist:
        state = None  # a fresh start below, as for any damaged lab
    kind = kind_of(saved.ticket)
    if not kind.replays:
        # A real cluster is never replayed on: its commands really happened.
        return kind.open(saved.session_key, saved.ticket, state), 0
    lab = LabSession.from_json(state)
    log = list(saved.log.values_list("line", "hints"))
    # A logged line ran within its budget (one that ran out was folded, never logged), so the
    # cluster's step after it ran whole: replayed, the step runs whole again however slow the
    # machine is now (Meter.whole_steps), or it would build another world than the learner saw;
    # the line's own tools have room to spare.
    normal = limits()
    room = dataclasses.replace(normal, cpu_seconds=normal.cpu_seconds * REPLAY_ROOM)
    for line, hints in log:
        with budget.metered(budget.Meter(room, whole_steps=True)):
            lab.run(line, hints=hints)
    return lab, len(log)


def lab_seed(session_key: str, ticket: str) -> int:
    """The seed of this session's first lab of this ticket, one of SEED_VARIANTS: the same in
    every process, and not guessable without the site's secret key."""
    message = f"lab-seed:{session_key}:{ticket}".encode()
    digest = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big") % SEED_VARIANTS


def other_seed(seed: int) -> int:
    """A reset's seed: another of the SEED_VARIANTS than the lab's, drawn at random."""
    return (seed + 1 + secrets.randbelow(SEED_VARIANTS - 1)) % SEED_VARIANTS


def new_lab(session_key: str, ticket: str, seed: int | None = None) -> LabSession:
    """A new lab: seeded by `lab_seed` unless given a seed (a reset draws a random one)."""
    kind = kind_of(ticket)
    if not kind.seeded:
        return kind.open(session_key, ticket, None)
    return LabSession.new(ticket, seed=lab_seed(session_key, ticket) if seed is None else seed)


def prepare_lab(session_key: str, ticket: str) -> None:
    """Build the template world this session's new lab of `ticket` forks (LabSession.prepare),
    so that opening that lab costs a fork: a process's cache, not the first command's work."""
    if kind_of(ticket).seeded:
        LabSession.prepare(ticket, lab_seed(session_key, ticket))


def fold_spread(saved_id: int) -> float:
    """This lab's share of the fold limits, from 0.5 to 1.5: labs opened in the same minute (a
    class starting a ticket together) fold at different commands, not all in the same second."""
    return 0.5 + (saved_id * GOLDEN_RATIO) % 1.0


def fold_due(saved_id: int, logged: int, replay_cost: float) -> bool:
    """Whether a log this long, or this costly to replay, is to be folded once the command's
    answer has gone out."""
    spread = fold_spread(saved_id)
    return logged >= SNAPSHOT_EVERY * spread or replay_cost > REPLAY_COST_SECONDS * spread


def fold_now(ticket: str, saved_id: int, logged: int, replay_cost: float, exceeded: bool) -> bool:
    """Whether the command just run is to be saved as a snapshot rather than logged: one that
    ran out of its budget (never to be replayed), a lab that is never replayed, or a log its
    holder never folded (OVERDUE times the usual limits)."""
    overdue = fold_spread(saved_id) * OVERDUE
    return (
        exceeded
        or not kind_of(ticket).replays
        or logged >= SNAPSHOT_EVERY * overdue
        or replay_cost > REPLAY_COST_SECONDS * overdue
    )
