"""Saved labs: one per browser session and ticket, kept after every command.

A lab is saved when its learner first types in it, not when its page is fetched: `peek_lab`
shows a lab that has no row yet, and the first command `apply` keeps creates the row. Its world
is seeded from the session and the ticket (`lab_seed`), so the page, its websocket, the form and
the annex all show and save the same world before it exists; a reset draws another seed. A new
lab is a fork of its ticket's template world for that seed (simulators.lab.world), not a build.

The lab itself (world, shell, tickets) lives in simulators.lab and serialises to
JSON. Here it is kept as a snapshot plus the lines typed since (see SavedLab): a
command appends one row, and the snapshot is rewritten (and the log emptied: a fold)
once the command's answer has gone out, when the log has grown long or replaying it
would cost more than REPLAY_COST_SECONDS of CPU (see fold); at once, before the
answer, when a command ran out of its budget, so that opening a lab never re-runs an
expensive command.

One writer per lab: `apply` runs a command on the lab as this writer last saw it
and keeps it only if no other writer (another tab, the form, another server
process) saved a change in between; otherwise it reloads and runs it again. The check is
a conditional UPDATE of `next_position`, so it holds on SQLite and PostgreSQL
alike. A per-lab lock in this process keeps same-process writers in arrival
order without wasted runs. A command is committed before `apply` returns, so
its output is never sent before it is durable.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import hmac
import os
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

try:
    import fcntl
except ImportError:  # not POSIX: each process still takes turns within itself
    fcntl = None  # type: ignore[assignment]

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F

from simulators.lab import CommandResult, LabError, LabSession, budget, editor
from studysite import sessions
from studysite.lab import cluster
from studysite.lab.models import LabSnapshot, LoggedCommand, SavedLab

SNAPSHOT_EVERY = 50
# Logged commands whose CPU time adds up to more than this are folded into a snapshot. A lab
# open in this process is reused (see _kept), so replay is paid only by another process or after
# a restart; a fold rewrites the whole snapshot, which costs more than most commands.
REPLAY_COST_SECONDS = 0.1
# A log this many times past the limits is folded by the command itself (see fold).
OVERDUE = 2.0
# A long command gives way to the others' short ones (see budget.Pace).
PACE = budget.Pace()
# Labs opened in this process stay in memory this long after their last use (a page load and
# its websocket, a reconnect), and always while a socket holds them; at most KEPT_LABS of them.
KEEP_SECONDS = 600.0
KEPT_LABS = 500
# Writers that keep losing the race (another process writing as fast) give up politely.
MAX_ATTEMPTS = 8
BUSY = "bash: the lab is busy with commands from another tab; try again"
SLOW_DOWN = "bash: your recent commands used a lot of processor time; wait a few seconds"
# The one-writer check and the log append, in SQL that SQLite and PostgreSQL share.
CLAIM = (
    f"UPDATE {SavedLab._meta.db_table} SET next_position = next_position + 1,"
    " replay_cost = %s, done_items = %s, total_items = %s WHERE id = %s AND next_position = %s"
)
# A snapshot, encoded and packed beforehand (see Snapshot).
SNAPSHOT_UPDATE = (
    f"UPDATE {LabSnapshot._meta.db_table} SET state = NULL, packed = %s WHERE lab_id = %s"
)
SNAPSHOT_INSERT = f"INSERT INTO {LabSnapshot._meta.db_table} (lab_id, packed) VALUES (%s, %s)"
APPEND = (
    f"INSERT INTO {LoggedCommand._meta.db_table} (lab_id, position, line, hints)"
    " VALUES (%s, %s, %s, %s)"
)


@dataclass
class OpenLab:
    lab: LabSession
    exam_mode: bool
    saved_id: int
    session_key: str = ""
    ticket: str = ""
    version: int = 0
    logged: int = 0
    replay_cost: float = 0.0
    # The row's identity beside its pk (a pk can be reused after a delete): its `updated` stamp.
    stamp: object = None


# A replayed line's CPU time, in times its command's budget (see restore).
REPLAY_ROOM = 10


def limits() -> budget.Limits:
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


def restore(saved: SavedLab) -> tuple[LabSession, int]:
    """The lab as the learner left it: the snapshot with the logged lines replayed."""
    try:
        state = saved.snapshot.data()
    except LabSnapshot.DoesNotExist:
        state = None  # a fresh start below, as for any damaged lab
    if saved.ticket == cluster.EXPLORE_ID:
        # A real cluster is never replayed on: its commands really happened (see _commit).
        return cluster.explore(saved.session_key, state), 0
    lab = LabSession.from_json(state)
    log = list(saved.log.values_list("line", "hints"))
    # A logged line ran within its budget (one that ran out was folded, never logged), so it
    # replays with room to spare: replayed a little slower, it must not stop the cluster's
    # step at another point than it did (run_controllers) and so build another world.
    normal = limits()
    room = dataclasses.replace(normal, cpu_seconds=normal.cpu_seconds * REPLAY_ROOM)
    for line, hints in log:
        with budget.metered(budget.Meter(room)):
            lab.run(line, hints=hints)
    return lab, len(log)


def _opened(saved: SavedLab) -> OpenLab:
    try:
        lab, logged = restore(saved)
    except LabError:
        # Saved by an older version of the lab (or damaged): start the ticket afresh, never a 500.
        lab, logged = _new(saved.session_key, saved.ticket, secrets.randbelow(SEED_VARIANTS)), 0
        snapshot = Snapshot.of(lab)
        with _one_writer(), transaction.atomic():
            _replace_snapshot(saved.pk, snapshot)
        saved.refresh_from_db()
    return OpenLab(
        lab,
        exam_mode=saved.exam_mode,
        saved_id=saved.pk,
        session_key=saved.session_key,
        ticket=saved.ticket,
        version=saved.next_position,
        logged=logged,
        replay_cost=saved.replay_cost,
        stamp=saved.updated,
    )


def _counts(lab: LabSession) -> dict[str, int]:
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
        return cls(LabSnapshot.pack(lab.encode()), _counts(lab))


def create(
    session_key: str, ticket: str, lab: LabSession | Snapshot, *, exam_mode: bool = False
) -> SavedLab:
    """A new saved lab: its row and its snapshot (in the caller's transaction, which should
    open after Snapshot.of)."""
    snapshot = lab if isinstance(lab, Snapshot) else Snapshot.of(lab)
    sessions.keep(session_key)  # a key a page minted gets its session row with its first lab
    saved = SavedLab.objects.create(
        session_key=session_key, ticket=ticket, exam_mode=exam_mode, **snapshot.counts
    )
    with connection.cursor() as cursor:
        cursor.execute(SNAPSHOT_INSERT, [saved.pk, snapshot.packed])
    return saved


def _replace_snapshot(saved_id: int, snapshot: Snapshot, version: int | None = None) -> bool:
    """Make `snapshot` the saved lab's, with an empty log (in the caller's transaction).

    With a `version`, only if no other writer moved the row since: False if one did.
    """
    rows = SavedLab.objects.filter(pk=saved_id)
    if version is not None:
        rows = rows.filter(next_position=version)
    if not rows.update(next_position=F("next_position") + 1, replay_cost=0.0, **snapshot.counts):
        return False
    # A plain update of the text encoded beforehand: update_or_create would first read (and
    # decode) the old snapshot, and the ORM would encode the new one here, in the transaction.
    # The row is missing only for a lab whose snapshot was lost, which starts afresh here.
    with connection.cursor() as cursor:
        cursor.execute(SNAPSHOT_UPDATE, [snapshot.packed, saved_id])
        if not cursor.rowcount:
            cursor.execute(SNAPSHOT_INSERT, [saved_id, snapshot.packed])
    LoggedCommand.objects.filter(lab_id=saved_id).delete()
    return True


# The worlds a ticket's labs start from: a seed varies the generated names and uids (a pod's
# suffix), and each seed's world is built once per process and forked for every lab
# (simulators.lab.world.template_world), so a class opening one ticket builds it a few times,
# not once per learner.
SEED_VARIANTS = 4


def lab_seed(session_key: str, ticket: str) -> int:
    """The seed of this session's first lab of this ticket, one of SEED_VARIANTS: the same in
    every process, and not guessable without the site's secret key."""
    message = f"lab-seed:{session_key}:{ticket}".encode()
    digest = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big") % SEED_VARIANTS


def other_seed(seed: int) -> int:
    """A reset's seed: another of the SEED_VARIANTS than the lab's, drawn at random."""
    return (seed + 1 + secrets.randbelow(SEED_VARIANTS - 1)) % SEED_VARIANTS


def _new(session_key: str, ticket: str, seed: int | None = None) -> LabSession:
    """A new lab: seeded by `lab_seed` unless given a seed (a reset draws a random one)."""
    if ticket == cluster.EXPLORE_ID:
        return cluster.explore(session_key)
    return LabSession.new(ticket, seed=lab_seed(session_key, ticket) if seed is None else seed)


class Kept:
    """Labs open in this process, by row: reused while the row is unchanged since.

    Opening a lab from the database parses its snapshot and replays its log (several ms, more
    for a long session); a page load and its websocket, a reconnect or a second tab find it here
    after one small query. Every holder shares the one OpenLab, so a command through any of
    them (under the lab's lock) is seen by all; a change saved by another process moves the
    row's position, and the next open loads it afresh.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.recent: dict[int, tuple[float, OpenLab]] = {}
        self.live: weakref.WeakValueDictionary[int, OpenLab] = weakref.WeakValueDictionary()

    def get(self, pk: int, now: float) -> OpenLab | None:
        with self.lock:
            found = self.live.get(pk)
            if found is not None:
                self.recent.pop(pk, None)
                self.recent[pk] = (now, found)
            return found

    def put(self, opened: OpenLab, now: float) -> None:
        with self.lock:
            self.live[opened.saved_id] = opened
            self.recent.pop(opened.saved_id, None)
            self.recent[opened.saved_id] = (now, opened)
            # Oldest first (dicts keep insertion order and a use moves an entry to the end).
            for pk, (used, _) in list(self.recent.items()):
                if used > now - KEEP_SECONDS and len(self.recent) <= KEPT_LABS:
                    break
                del self.recent[pk]

    def drop(self, pk: int) -> None:
        with self.lock:
            self.recent.pop(pk, None)
            self.live.pop(pk, None)

    def clear(self) -> None:
        with self.lock:
            self.recent.clear()
            self.live.clear()


_kept = Kept()


def _still_current(head: tuple[Any, ...], session_key: str, ticket: str) -> OpenLab | None:
    """The lab kept in memory for this row (pk, position, exam mode, stamp) if it is unchanged."""
    pk, version, exam_mode, stamp = head
    found = _kept.get(pk, time.monotonic())
    if found is None:
        return None
    # Under the lab's lock: a command half run (or half saved) on it is finished first.
    with _lock_for(pk):
        if (found.version, found.exam_mode, found.stamp) == (version, exam_mode, stamp) and (
            found.session_key,
            found.ticket,
        ) == (session_key, ticket):
            return found
    return None


def open_lab(session_key: str, ticket: str) -> OpenLab:
    head = (
        SavedLab.objects.filter(session_key=session_key, ticket=ticket)
        .values_list("pk", "next_position", "exam_mode", "updated")
        .first()
    )
    if head is not None and ticket != cluster.EXPLORE_ID:
        kept = _still_current(head, session_key, ticket)
        if kept is not None:
            return kept
    opened = _load(session_key, ticket)
    if opened.ticket != cluster.EXPLORE_ID:
        _kept.put(opened, time.monotonic())
    return opened


def peek_lab(session_key: str, ticket: str) -> OpenLab:
    """The lab to show: the saved one, else a new one that is not saved (saved_id 0) until a
    command is kept in it (see apply). A page load or a socket that never types writes nothing."""
    if (
        ticket != cluster.EXPLORE_ID
        and not SavedLab.objects.filter(session_key=session_key, ticket=ticket).exists()
    ):
        return OpenLab(_new(session_key, ticket), False, 0, session_key, ticket)
    return open_lab(session_key, ticket)


def _materialize(opened: OpenLab) -> None:
    """Save a lab that so far was only shown (peek_lab), in place: its first command is kept."""
    snapshot = Snapshot.of(opened.lab)
    try:
        with _one_writer(), transaction.atomic():
            saved = create(opened.session_key, opened.ticket, snapshot)
    except IntegrityError:
        # Another tab (or the annex) saved it first: continue from theirs.
        theirs = _load(opened.session_key, opened.ticket)
        for field in dataclasses.fields(OpenLab):
            setattr(opened, field.name, getattr(theirs, field.name))
    else:
        opened.saved_id, opened.version, opened.stamp = saved.pk, 0, saved.updated
    _kept.put(opened, time.monotonic())


def _load(session_key: str, ticket: str) -> OpenLab:
    """The lab from the database: its snapshot with the log replayed (or a new one, saved)."""
    rows = SavedLab.objects.select_related("snapshot").filter(
        session_key=session_key, ticket=ticket
    )
    saved = rows.first()
    if saved is None:
        # Seeded by lab_seed: the same world a page showed before the lab was saved.
        lab = _new(session_key, ticket)
        snapshot = Snapshot.of(lab)
        try:
            with _one_writer(), transaction.atomic():
                saved = create(session_key, ticket, snapshot)
        except IntegrityError:
            # Another tab created it first: use theirs.
            return _opened(rows.get())
        return OpenLab(lab, False, saved.pk, session_key, ticket, stamp=saved.updated)
    return _opened(saved)


_locks: weakref.WeakValueDictionary[int, threading.Lock] = weakref.WeakValueDictionary()
_locks_guard = threading.Lock()


@contextmanager
def reading(opened: OpenLab) -> Iterator[LabSession]:
    """The lab held still while a page or a replay reads it: a lab kept in this process is
    shared by the learner's tabs, and a command running on it from another tab finishes first."""
    with _lock_for(opened.saved_id):
        yield opened.lab


class SqliteWriter:
    """SQLite's one writer at a time, as a queue rather than a retry.

    SQLite lets one connection write at a time, and one kept waiting sleeps in growing steps
    (1, 2, 5, 10 ms and up) before it tries again. With two server processes and the annexes
    writing about 300 commands a second, those sleeps were most of a command's commit (3.5 ms
    of wall time for 0.5 ms of work). So a process's threads take turns on a lock, and the
    processes on an exclusive `flock` of a file beside the database, which the kernel hands to
    the next waiter as soon as it is released. PostgreSQL's writers never wait for each other.
    """

    def __init__(self) -> None:
        self.turn = threading.Lock()
        # The lock file's descriptor, per database file and process (a forked worker opens its
        # own: a descriptor shared with the parent would share its lock).
        self.files: dict[tuple[str, int], int] = {}

    @contextmanager
    def held(self, database: str) -> Iterator[None]:
        with self.turn:
            lock_file = self._lock_file(database)
            if lock_file is None:
                yield
                return
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)

    def _lock_file(self, database: str) -> int | None:
        """None for a database only this process can open (in memory), or without flock."""
        if fcntl is None or database == ":memory:" or "mode=memory" in database:
            return None
        key = (database, os.getpid())
        if key not in self.files:
            self.files[key] = os.open(f"{database}.writer", os.O_RDWR | os.O_CREAT, 0o600)
        return self.files[key]


_sqlite_writer = SqliteWriter()


def _one_writer() -> contextlib.AbstractContextManager[None]:
    if connection.vendor != "sqlite":
        return contextlib.nullcontext()
    return _sqlite_writer.held(str(connection.settings_dict["NAME"]))


def _lock_for(saved_id: int) -> threading.Lock:
    with _locks_guard:
        lock = _locks.get(saved_id)
        if lock is None:
            lock = threading.Lock()
            _locks[saved_id] = lock
        return lock


# A session whose recent commands add up to this much processor time (each counted fully when it
# ends, then fading by half every RECENT_HALF_LIFE seconds) has its commands run apart from the
# others' (studysite.lab.annex): a learner's ordinary commands (a few ms each) never come near
# it, a session sending expensive commands back to back gets there with one.
HEAVY_SECONDS = 0.2
RECENT_HALF_LIFE = 3.0


class CpuShare:
    """Per browser session: command CPU time refilled at a rate, with a burst of ten seconds' worth.

    One learner's expensive commands then cost the others at most this share of a
    processor; an ordinary command (a few ms) never meets it.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.buckets: dict[str, tuple[float, float]] = {}
        # Per session: recent processor time and when it was last counted.
        self.recent: dict[str, tuple[float, float]] = {}

    def allows(self, key: str, now: float) -> bool:
        rate = settings.LAB_SESSION_CPU_MS_PER_SECOND / 1000
        with self.lock:
            tokens, last = self.buckets.get(key, (rate * 10, now))
            tokens = min(rate * 10, tokens + (now - last) * rate)
            self.buckets[key] = (tokens, now)
            return tokens > 0

    def heavy(self, key: str, now: float) -> bool:
        """This session's recent commands used more than HEAVY_SECONDS (see RECENT_HALF_LIFE)."""
        with self.lock:
            return self._recent(key, now) > HEAVY_SECONDS

    def _recent(self, key: str, now: float) -> float:
        spent, at = self.recent.get(key, (0.0, now))
        return float(spent * 0.5 ** ((now - at) / RECENT_HALF_LIFE))

    def charge(self, key: str, seconds: float) -> None:
        now = time.monotonic()
        with self.lock:
            if len(self.buckets) > 50_000:
                self.buckets.clear()  # a forgotten bucket is a full one: harmless
                self.recent.clear()
            tokens, last = self.buckets.get(key, (0.0, now))
            self.buckets[key] = (tokens - seconds, last)
            self.recent[key] = (self._recent(key, now) + seconds, now)


cpu_share = CpuShare()


def _reload(opened: OpenLab) -> None:
    """Catch up with what other writers saved (or start again if the row was deleted).

    Never from what this process keeps: `opened` itself is what others' holders share, and
    its lab has just run a command that was not kept.
    """
    fresh = _load(opened.session_key, opened.ticket)
    for name in OpenLab.__dataclass_fields__:
        setattr(opened, name, getattr(fresh, name))
    if opened.ticket != cluster.EXPLORE_ID:
        _kept.put(opened, time.monotonic())


def refusal(opened: OpenLab, line: str, share: CpuShare | None = None) -> CommandResult | None:
    """The shell's answer to a line that is not run: over LAB_MAX_LINE_BYTES, or (with a
    `share`) sent when the session's processor share is spent. None for a line to run."""
    message = too_long(line)
    if not message and share is not None and not share.allows(opened.session_key, time.monotonic()):
        message = SLOW_DOWN
    if not message:
        return None
    lab = opened.lab
    return CommandResult(line[:80], message, lab.checklist(), lab.step, prompt=lab.prompt)


class Runner(Protocol):
    """Runs a piece of a command's work: here, or (the annex) on its idle-priority thread."""

    def __call__[T](self, work: Callable[[], T]) -> T: ...


def run_here[T](work: Callable[[], T]) -> T:
    return work()


def _run(opened: OpenLab, line: str, meter: budget.Meter) -> CommandResult:
    with budget.metered(meter):
        return opened.lab.run(line, hints=not opened.exam_mode)


def apply(
    opened: OpenLab,
    line: str,
    share: CpuShare | None = cpu_share,
    *,
    runner: Runner = run_here,
) -> CommandResult:
    """Run one line and keep it, as the terminal and the form fallback both do.

    Optimistic: the line runs on the lab as this writer last saw it, and is kept
    only if nobody saved in between; otherwise the lab is reloaded and the line
    runs again. Blocking: call it from a worker thread, never on the event loop.
    Its processor time is charged to `share` (None: the caller keeps the account, as the
    web process does for the commands it sends to the annex). `runner` runs the line itself
    (the annex: on its idle-priority thread); the save runs on the calling thread.
    """
    line = as_typed(line)
    refused = refusal(opened, line, share)
    if refused is not None:
        return refused
    started = time.thread_time()
    if not opened.saved_id and line.strip():
        _materialize(opened)
    try:
        with _lock_for(opened.saved_id):
            for _ in range(MAX_ATTEMPTS):
                meter = budget.Meter(limits(), pace=PACE)
                # A blank line changes nothing, unless it is part of a here-document.
                blank = not line.strip() and not opened.lab.awaiting
                result = runner(functools.partial(_run, opened, line, meter))
                if blank or _commit(opened, line, meter, runner):
                    return result
                _reload(opened)
            return CommandResult(line[:80], BUSY, opened.lab.checklist(), opened.lab.step)
    finally:
        # The save counts too: a command over budget rewrites the whole snapshot.
        if share is not None:
            share.charge(opened.session_key, time.thread_time() - started)


def fold_due(opened: OpenLab) -> bool:
    """Whether this lab's log is long enough, or costly enough to replay, to fold (see fold)."""
    spread = fold_spread(opened.saved_id)
    return (
        opened.logged >= SNAPSHOT_EVERY * spread
        or opened.replay_cost > REPLAY_COST_SECONDS * spread
    )


def fold(opened: OpenLab, runner: Runner = run_here) -> bool:
    """Fold the log into a new snapshot if it is due: True if this did.

    Called once a command's output has gone out (the command itself is already durable in the
    log), so that the fold's cost (several ms to encode and pack the world) is never part of a
    command's answer: with a fold every 50 commands, the folding commands were the slowest 2%.
    Skipped if another writer saved in between: the next command here reloads and folds.
    """
    with _lock_for(opened.saved_id):
        if not fold_due(opened):
            return False
        # Checked before the encoding too: a lab whose commands now run in the annex stays due
        # here, behind the database, and would otherwise be encoded in vain after each of them.
        if not SavedLab.objects.filter(pk=opened.saved_id, next_position=opened.version).exists():
            return False
        snapshot = runner(functools.partial(Snapshot.of, opened.lab))
        with _one_writer(), transaction.atomic():
            if not _replace_snapshot(opened.saved_id, snapshot, opened.version):
                return False
        opened.version += 1
        opened.logged, opened.replay_cost = 0, 0.0
        return True


def fold_spread(saved_id: int) -> float:
    """This lab's share of the fold limits, from 0.5 to 1.5: labs opened in the same minute (a
    class starting a ticket together) fold at different commands, not all in the same second."""
    return 0.5 + (saved_id * GOLDEN_RATIO) % 1.0


GOLDEN_RATIO = 0.6180339887498949


def _commit(opened: OpenLab, line: str, meter: budget.Meter, runner: Runner = run_here) -> bool:
    """Save the command just run unless another writer got there first.

    The common case (append to the log) is two plain SQL statements: this runs
    for every command of every learner, and the ORM's query building cost more
    than the command itself.
    """
    cost = opened.replay_cost + meter.spent()
    # Routine folds come after the answer (see fold); one here is for a command that must never
    # be replayed, or a log that its caller never folded (OVERDUE times the usual limits).
    overdue = fold_spread(opened.saved_id) * OVERDUE
    fold = (
        meter.exceeded
        or opened.logged + 1 >= SNAPSHOT_EVERY * overdue
        or cost > REPLAY_COST_SECONDS * overdue
        # A real cluster's commands really happened: kept as a snapshot, never replayed.
        or opened.ticket == cluster.EXPLORE_ID
    )
    # Everything computed before the transaction opens (see Snapshot), the encoding on the
    # command's runner: the annex folds after every over-budget command, at idle priority.
    snapshot = runner(functools.partial(Snapshot.of, opened.lab)) if fold else None
    counts = snapshot.counts if snapshot is not None else _counts(opened.lab)
    done, total = counts["done_items"], counts["total_items"]
    with _one_writer(), transaction.atomic():
        if snapshot is not None:
            claimed = _replace_snapshot(opened.saved_id, snapshot, opened.version)
        else:
            with connection.cursor() as cursor:
                cursor.execute(CLAIM, [cost, done, total, opened.saved_id, opened.version])
                claimed = cursor.rowcount
                if claimed:
                    row: list[int | str | bool] = [
                        opened.saved_id,
                        opened.version,
                        line,
                        not opened.exam_mode,
                    ]
                    cursor.execute(APPEND, row)
    if not claimed:
        return False
    opened.version += 1
    opened.logged, opened.replay_cost = (0, 0.0) if fold else (opened.logged + 1, cost)
    return True


def reset_lab(session_key: str, ticket: str) -> OpenLab:
    opened = open_lab(session_key, ticket)
    snapshot = Snapshot.of(_new(session_key, ticket, other_seed(opened.lab.seed)))
    with _lock_for(opened.saved_id), _one_writer(), transaction.atomic():
        _replace_snapshot(opened.saved_id, snapshot)
    return open_lab(session_key, ticket)


def set_exam_mode(session_key: str, ticket: str, on: bool) -> None:
    open_lab(session_key, ticket)
    SavedLab.objects.filter(session_key=session_key, ticket=ticket).update(
        exam_mode=on, next_position=F("next_position") + 1
    )


def saved_labs(session_key: str) -> list[tuple[SavedLab, LabSession]]:
    """Every lab this session has opened, restored, in ticket order."""
    # An exploration of a real cluster is no ticket: no progress, not exported, and restoring
    # it would need the cluster (which a site back in mock mode no longer has).
    rows = (
        SavedLab.objects.filter(session_key=session_key)
        .exclude(ticket=cluster.EXPLORE_ID)
        .select_related("snapshot")
        .order_by("ticket")
    )
    return [(saved, restore(saved)[0]) for saved in rows]


def progress(session_key: str) -> dict[str, tuple[int, int]]:
    """Done and total checklist items per ticket this session has opened (no replay)."""
    result: dict[str, tuple[int, int]] = {}
    rows = SavedLab.objects.filter(session_key=session_key).exclude(ticket=cluster.EXPLORE_ID)
    for saved in rows:
        if saved.total_items < 0:
            # Saved before the counts were kept: count once, and keep the counts.
            counts = _counts(restore(saved)[0])
            SavedLab.objects.filter(pk=saved.pk).update(**counts)
            saved.done_items, saved.total_items = counts["done_items"], counts["total_items"]
        result[saved.ticket] = (saved.done_items, saved.total_items)
    return result


def delete_orphans() -> int:
    """Delete the labs of sessions that no longer exist (expired or cleared)."""
    from django.contrib.sessions.models import Session

    live = Session.objects.values("session_key")
    # A lab exam's task labs are keyed by their attempt; the exam deletes them with it
    # (studysite.lab.exam.delete_orphans).
    rows = SavedLab.objects.exclude(session_key__in=live).exclude(session_key__startswith="exam-")
    _, per_model = rows.delete()
    return per_model.get("lab.SavedLab", 0)
