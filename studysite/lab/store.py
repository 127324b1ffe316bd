"""Saved labs: one per browser session and ticket, kept after every command.

This is what the views, the socket and the annex call: open a lab, run a line on it and keep it
(`apply`), fold its log (`fold`), reset it. Each of its jobs has its own module:

- the saved form, a snapshot plus the lines typed since, and when to fold: studysite.lab.saved;
- the one-writer rule, in SQL: studysite.lab.writes (with studysite.lab.process_lock, the
  lock that makes SQLite's writers across processes a queue);
- the labs kept open in this process and their locks: studysite.lab.kept;
- the session's processor share: studysite.rates.CpuShare;
- what each kind of lab allows (a ticket's, a real cluster's): studysite.lab.kinds.

A lab is saved when its learner first types in it, not when its page is fetched: `peek_lab`
shows a lab that has no row yet, and the first command `apply` keeps creates the row.

One writer per lab: `apply` runs a command on the lab as this writer last saw it and keeps it
only if no other writer (another tab, the form, another server process) saved a change in
between; otherwise it reloads and runs it again. A per-lab lock in this process keeps
same-process writers in arrival order without wasted runs. A command is committed before
`apply` returns, so its output is never sent before it is durable.
"""

from __future__ import annotations

import functools
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from django.db import IntegrityError, transaction
from django.db.models import F

from simulators.lab import CommandResult, LabError, LabSession, budget
from studysite import sessions
from studysite.lab import writes
from studysite.lab.accounts import account
from studysite.lab.kept import OpenLab, kept, lock_for, reading
from studysite.lab.kinds import kind_of, outside_progress
from studysite.lab.models import SavedLab
from studysite.lab.saved import (
    SEED_VARIANTS,
    Snapshot,
    as_typed,
    counts,
    fold_now,
    lab_seed,
    limits,
    new_lab,
    other_seed,
    restore,
    too_long,
)
from studysite.lab.saved import (
    fold_due as _fold_due,
)
from studysite.lab.writes import SqliteWriter, one_writer
from studysite.rates import HEAVY_SECONDS, CpuShare

log = logging.getLogger(__name__)

__all__ = [
    "BUSY",
    "HEAVY_SECONDS",
    "SEED_VARIANTS",
    "SLOW_DOWN",
    "CpuShare",
    "OpenLab",
    "Overran",
    "Runner",
    "Snapshot",
    "SqliteWriter",
    "account",
    "apply",
    "as_typed",
    "catch_up",
    "cpu_share",
    "create",
    "fold",
    "fold_due",
    "kept",
    "lab_seed",
    "limits",
    "lock_for",
    "one_writer",
    "open_lab",
    "other_seed",
    "peek_lab",
    "progress",
    "reading",
    "refusal",
    "reset_lab",
    "restore",
    "run_here",
    "saved_labs",
    "set_exam_mode",
]

# A long command gives way to the others' short ones (see budget.Pace).
PACE = budget.Pace()
# A session without history (studysite.lab.admission) gives way four times as much: its first
# heavy commands cost it the wait, not the other learners.
FRESH_PACE = budget.Pace(ratio=16.0)
# A command that the annex could run runs here only while it is cheap: past this much processor
# time it is thrown away, its lab reloaded, and it runs again in the annex (Overran). Most
# commands take 1-10 ms, `kubectl get pods -A -o yaml` 35 ms; a fresh session's scale to 600
# would otherwise hold this process's interpreter for its whole budget, paced. At 20 ms, a class
# whose first command was that 35 ms one queued through the annex (first answer's p95 1.9 s
# against 1.1 s); at 50 ms it stays here, and the scale costs the others no more than at 20.
PROBATION_SECONDS = 0.05
# Writers that keep losing the race (another process writing as fast) give up politely.
MAX_ATTEMPTS = 8
BUSY = "bash: the lab is busy with commands from another tab; try again"
SLOW_DOWN = "bash: your recent commands used a lot of processor time; wait a few seconds"

cpu_share = CpuShare()


class Overran(Exception):
    """The command ran past its probation here (budget.Moved): nothing of it was kept and its
    lab is as it was saved. The caller runs the line again where it can afford it (the annex)."""


def create(
    session_key: str, ticket: str, lab: LabSession | Snapshot, *, exam_mode: bool = False
) -> SavedLab:
    """A new saved lab: its row and its snapshot (in the caller's transaction, which should
    open after Snapshot.of)."""
    snapshot = lab if isinstance(lab, Snapshot) else Snapshot.of(lab)
    sessions.keep(session_key)  # a key a page minted gets its session row with its first lab
    return writes.create(session_key, ticket, snapshot, exam_mode=exam_mode)


def _opened(saved: SavedLab) -> OpenLab:
    try:
        lab, logged = restore(saved)
    except LabError as error:
        # Saved by an older version of the lab (or damaged): start the ticket afresh, never a 500.
        # Said in the server's log: a learner's work is gone, and why must be readable.
        log.warning("saved lab %s could not be restored, started afresh: %s", saved.pk, error)
        lab, logged = new_lab(saved.session_key, saved.ticket, secrets.randbelow(SEED_VARIANTS)), 0
        snapshot = Snapshot.of(lab)
        with one_writer(), transaction.atomic():
            writes.replace_snapshot(saved.pk, snapshot)
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


def _still_current(head: tuple[Any, ...], session_key: str, ticket: str) -> OpenLab | None:
    """The lab kept in memory for this row (pk, position, exam mode, stamp) if it is unchanged."""
    pk, version, exam_mode, stamp = head
    found = kept.get(pk, time.monotonic())
    if found is None:
        return None
    # Under the lab's lock: a command half run (or half saved) on it is finished first.
    with lock_for(pk):
        now = found.head
        if (now.version, now.exam_mode, now.stamp, now.session_key, now.ticket) == (
            version,
            exam_mode,
            stamp,
            session_key,
            ticket,
        ):
            return found
    return None


def open_lab(session_key: str, ticket: str) -> OpenLab:
    """The session's saved lab of this ticket (saved now if it was not)."""
    keep = kind_of(ticket).kept
    row = (
        SavedLab.objects.filter(session_key=session_key, ticket=ticket)
        .values_list("pk", "next_position", "exam_mode", "updated")
        .first()
    )
    if row is not None and keep:
        found = _still_current(row, session_key, ticket)
        if found is not None:
            return found
    opened = _load(session_key, ticket)
    if keep:
        kept.put(opened, time.monotonic())
    return opened


def peek_lab(session_key: str, ticket: str) -> OpenLab:
    """The lab to show: the saved one, else a new one that is not saved (saved_id 0) until a
    command is kept in it (see apply). A page load or a socket that never types writes nothing."""
    if (
        kind_of(ticket).seeded
        and not SavedLab.objects.filter(session_key=session_key, ticket=ticket).exists()
    ):
        return OpenLab(new_lab(session_key, ticket), False, 0, session_key, ticket)
    return open_lab(session_key, ticket)


def _materialize(opened: OpenLab) -> None:
    """Save a lab that so far was only shown (peek_lab), in place: its first command is kept."""
    snapshot = Snapshot.of(opened.lab)
    try:
        with one_writer(), transaction.atomic():
            saved = create(opened.session_key, opened.ticket, snapshot)
    except IntegrityError:
        # Another tab (or the annex) saved it first: continue from theirs.
        opened.take(_load(opened.session_key, opened.ticket))
    else:
        opened.moved(saved_id=saved.pk, version=0, stamp=saved.updated)
    kept.put(opened, time.monotonic())


def _load(session_key: str, ticket: str) -> OpenLab:
    """The lab from the database: its snapshot with the log replayed (or a new one, saved)."""
    rows = SavedLab.objects.select_related("snapshot").filter(
        session_key=session_key, ticket=ticket
    )
    saved = rows.first()
    if saved is None:
        # Seeded by lab_seed: the same world a page showed before the lab was saved.
        lab = new_lab(session_key, ticket)
        snapshot = Snapshot.of(lab)
        try:
            with one_writer(), transaction.atomic():
                saved = create(session_key, ticket, snapshot)
        except IntegrityError:
            # Another tab created it first: use theirs.
            return _opened(rows.get())
        return OpenLab(lab, False, saved.pk, session_key, ticket, stamp=saved.updated)
    return _opened(saved)


def _reload(opened: OpenLab) -> None:
    """Catch up with what other writers saved (or start again if the row was deleted).

    Never from what this process keeps: `opened` itself is what others' holders share, and
    its lab has just run a command that was not kept. Its holders see the old head or the new
    one, whole (studysite.lab.kept).
    """
    opened.take(_load(opened.session_key, opened.ticket))
    if kind_of(opened.ticket).kept:
        kept.put(opened, time.monotonic())


def catch_up(opened: OpenLab) -> None:
    """Reload this copy of the lab if another process kept commands of it since (Head.behind):
    before a command runs on it here, or Tab reads it."""
    if not opened.head.behind:
        return
    with lock_for(opened.saved_id):
        if opened.head.behind:
            _reload(opened)


def refusal(opened: OpenLab, line: str, share: CpuShare | None = None) -> CommandResult | None:
    """The shell's answer to a line that is not run: over LAB_MAX_LINE_BYTES, or (with a
    `share`) sent when the session's processor share is spent. None for a line to run."""
    message = too_long(line)
    spent = share is not None and not share.allows(account(opened.session_key), time.monotonic())
    if not message and spent:
        message = SLOW_DOWN
    if not message:
        return None
    lab = opened.lab
    prompt = lab.prompt
    return CommandResult(
        line[:80], message, lab.checklist(), lab.step, prompt=prompt, typed_at=prompt
    )


class Runner(Protocol):
    """Runs a piece of a command's work: here, or (the annex) on its idle-priority thread."""

    def __call__[T](self, work: Callable[[], T]) -> T: ...


def run_here[T](work: Callable[[], T]) -> T:
    return work()


# Runs and keeps a line in another process (the annex): its result and the processor seconds
# it spent there.
Elsewhere = Callable[[OpenLab, str], tuple[CommandResult, float]]


def _run(opened: OpenLab, line: str, meter: budget.Meter) -> CommandResult:
    with budget.metered(meter):
        return opened.lab.run(line, hints=not opened.exam_mode)


def apply(
    opened: OpenLab,
    line: str,
    share: CpuShare | None = cpu_share,
    *,
    runner: Runner = run_here,
    elsewhere: Elsewhere | None = None,
    pace: budget.Pace | None = PACE,
    probation: float | None = None,
) -> CommandResult:
    """Run one line and keep it, as the terminal, the form fallback and the annex all do.

    A line over the limits, or sent when `share` is spent, is answered without running. Else
    it runs and is kept here (`_keep`), or by `elsewhere` (the annex, another process that
    keeps it the same way); either way its processor time is charged to `share` (None: the
    caller keeps no account, as in the annex, whose web process charges what it reports).
    `runner` runs the line itself (the annex: on its idle-priority thread); the save runs on
    the calling thread. Blocking: call it from a worker thread, never on the event loop.

    With a `probation` (CPU seconds), a line still running past it raises Overran, its time so
    far charged, its half-run world thrown away and the lab reloaded as saved.
    """
    line = as_typed(line)
    refused = refusal(opened, line, share)
    if refused is not None:
        return refused
    started, spent_elsewhere = budget.command_time(), 0.0
    try:
        if elsewhere is not None:
            result, spent_elsewhere = elsewhere(opened, line)
            return result
        return _keep(opened, line, runner, pace, probation)
    finally:
        # The save counts too: a command over budget rewrites the whole snapshot.
        if share is not None:
            spent = budget.command_time() - started + spent_elsewhere
            share.charge(account(opened.session_key), spent)


def _keep(
    opened: OpenLab,
    line: str,
    runner: Runner,
    pace: budget.Pace | None = PACE,
    probation: float | None = None,
) -> CommandResult:
    """Optimistic: the line runs on the lab as this writer last saw it, and is kept only if
    nobody saved in between; otherwise the lab is reloaded and the line runs again."""
    catch_up(opened)
    if not opened.saved_id and line.strip():
        _materialize(opened)
    with lock_for(opened.saved_id):
        for _ in range(MAX_ATTEMPTS):
            meter = budget.Meter(limits(), pace=pace, probation=probation)
            # A blank line changes nothing, unless it is part of a here-document.
            blank = not line.strip() and not opened.lab.awaiting
            try:
                result = runner(functools.partial(_run, opened, line, meter))
            except budget.Moved:
                # Under the lab's lock: its other holders never see the half-run world.
                _reload(opened)
                raise Overran from None
            if blank or _commit(opened, line, meter, runner):
                kept.used(opened.saved_id, time.monotonic())
                return result
            _reload(opened)
        return CommandResult(line[:80], BUSY, opened.lab.checklist(), opened.lab.step)


def fold_due(opened: OpenLab) -> bool:
    """Whether this lab's log is long enough, or costly enough to replay, to fold (see fold)."""
    head = opened.head
    return _fold_due(head.saved_id, head.logged, head.replay_cost)


def fold(opened: OpenLab, runner: Runner = run_here) -> bool:
    """Fold the log into a new snapshot if it is due: True if this did.

    Called once a command's output has gone out (the command itself is already durable in the
    log), so that the fold's cost (several ms to encode and pack the world) is never part of a
    command's answer: with a fold every 50 commands, the folding commands were the slowest 2%.
    Skipped if another writer saved in between: the next command here reloads and folds.
    """
    with lock_for(opened.saved_id):
        if not fold_due(opened):
            return False
        # Checked before the encoding too: a lab whose commands now run in the annex stays due
        # here, behind the database, and would otherwise be encoded in vain after each of them.
        if not writes.still_at(opened.saved_id, opened.version):
            return False
        snapshot = runner(functools.partial(Snapshot.of, opened.lab))
        with one_writer(), transaction.atomic():
            if not writes.replace_snapshot(opened.saved_id, snapshot, opened.version):
                return False
        opened.moved(version=opened.version + 1, logged=0, replay_cost=0.0)
        return True


def _commit(opened: OpenLab, line: str, meter: budget.Meter, runner: Runner = run_here) -> bool:
    """Save the command just run unless another writer got there first."""
    head = opened.head
    cost = head.replay_cost + meter.spent()
    # Routine folds come after the answer (see fold); one here is for a command that must never
    # be replayed, or a log that its holder never folded.
    folding = fold_now(head.ticket, head.saved_id, head.logged + 1, cost, meter.exceeded)
    # Everything computed before the transaction opens (see Snapshot), the encoding on the
    # command's runner: the annex folds after every over-budget command, at idle priority.
    snapshot = runner(functools.partial(Snapshot.of, head.lab)) if folding else None
    with one_writer(), transaction.atomic():
        if snapshot is not None:
            claimed = writes.replace_snapshot(head.saved_id, snapshot, head.version)
        else:
            hints = not head.exam_mode
            claimed = writes.append(
                head.saved_id, head.version, line, hints, cost, counts(head.lab)
            )
    if not claimed:
        return False
    logged, cost = (0, 0.0) if folding else (head.logged + 1, cost)
    opened.moved(version=head.version + 1, logged=logged, replay_cost=cost)
    return True


def reset_lab(session_key: str, ticket: str) -> OpenLab:
    opened = open_lab(session_key, ticket)
    snapshot = Snapshot.of(new_lab(session_key, ticket, other_seed(opened.lab.seed)))
    with lock_for(opened.saved_id), one_writer(), transaction.atomic():
        writes.replace_snapshot(opened.saved_id, snapshot)
    return open_lab(session_key, ticket)


def set_exam_mode(session_key: str, ticket: str, on: bool) -> None:
    open_lab(session_key, ticket)
    SavedLab.objects.filter(session_key=session_key, ticket=ticket).update(
        exam_mode=on, next_position=F("next_position") + 1
    )


def saved_labs(session_key: str) -> list[tuple[SavedLab, LabSession]]:
    """Every lab this session has opened that counts as progress, restored, in ticket order."""
    # A real cluster's exploration is no ticket: restoring it would need the cluster (which a
    # site back in mock mode no longer has).
    rows = (
        SavedLab.objects.filter(session_key=session_key)
        .exclude(ticket__in=outside_progress())
        .select_related("snapshot")
        .order_by("ticket")
    )
    return [(saved, restore(saved)[0]) for saved in rows]


def progress(session_key: str) -> dict[str, tuple[int, int]]:
    """Done and total checklist items per ticket this session has opened (no replay)."""
    result: dict[str, tuple[int, int]] = {}
    rows = SavedLab.objects.filter(session_key=session_key).exclude(ticket__in=outside_progress())
    for saved in rows:
        if saved.total_items < 0:
            # Saved before the counts were kept: count once, and keep the counts.
            done = counts(restore(saved)[0])
            SavedLab.objects.filter(pk=saved.pk).update(**done)
            saved.done_items, saved.total_items = done["done_items"], done["total_items"]
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
