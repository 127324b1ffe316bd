"""Saved labs: one per browser session and ticket, kept after every command.

The lab itself (world, shell, tickets) lives in simulators.lab and serialises to
JSON. Here it is kept as a snapshot plus the lines typed since (see SavedLab): a
command appends one row, and every SNAPSHOT_EVERY commands the snapshot is
rewritten and the log emptied.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from simulators.lab import CommandResult, LabError, LabSession
from studysite.lab import cluster
from studysite.lab.models import LoggedCommand, SavedLab

SNAPSHOT_EVERY = 25


@dataclass
class OpenLab:
    lab: LabSession
    exam_mode: bool
    saved_id: int
    logged: int


def too_long(line: str) -> bool:
    return len(line.encode("utf-8", errors="replace")) > settings.LAB_MAX_LINE_BYTES


def restore(saved: SavedLab) -> tuple[LabSession, int]:
    """The lab as the learner left it: the snapshot with the logged lines replayed."""
    if saved.ticket == cluster.EXPLORE_ID:
        # A real cluster is never replayed on: its commands really happened (see record).
        return cluster.explore(saved.session_key, saved.state), 0
    lab = LabSession.from_json(saved.state)
    log = list(saved.log.values_list("line", "hints"))
    for line, hints in log:
        lab.run(line, hints=hints)
    return lab, len(log)


def open_lab(session_key: str, ticket: str) -> OpenLab:
    saved = SavedLab.objects.filter(session_key=session_key, ticket=ticket).first()
    if saved is None:
        # Saved at once: the page and its websocket must see the same (seeded) world.
        lab = _new(session_key, ticket)
        saved = SavedLab.objects.create(session_key=session_key, ticket=ticket, state=lab.to_json())
        return OpenLab(lab, exam_mode=False, saved_id=saved.pk, logged=0)
    try:
        lab, logged = restore(saved)
    except LabError:
        # Saved by an older version of the lab (or damaged): start the ticket afresh, never a 500.
        lab = _new(session_key, ticket)
        with transaction.atomic():
            SavedLab.objects.filter(pk=saved.pk).update(state=lab.to_json())
            LoggedCommand.objects.filter(lab_id=saved.pk).delete()
        return OpenLab(lab, exam_mode=saved.exam_mode, saved_id=saved.pk, logged=0)
    return OpenLab(lab, exam_mode=saved.exam_mode, saved_id=saved.pk, logged=logged)


def _new(session_key: str, ticket: str) -> LabSession:
    if ticket == cluster.EXPLORE_ID:
        return cluster.explore(session_key)
    return LabSession.new(ticket, seed=secrets.randbits(32))


def run_line(opened: OpenLab, line: str) -> CommandResult:
    """Run one line, as the terminal and the form fallback both do."""
    if too_long(line):
        items = opened.lab.checklist()
        return CommandResult(line[:80], "bash: line too long (limit 4 KiB)", items, opened.lab.step)
    return opened.lab.run(line, hints=not opened.exam_mode)


def record(opened: OpenLab, line: str) -> None:
    """Keep the line just run, so that the lab survives a reload or a restart."""
    if too_long(line) or not line.strip():
        return  # neither changed the lab
    if opened.lab.ticket_id == cluster.EXPLORE_ID:
        snapshot(opened)
        return
    if opened.logged + 1 >= SNAPSHOT_EVERY:
        snapshot(opened)
        return
    LoggedCommand.objects.create(
        lab_id=opened.saved_id, position=opened.logged, line=line, hints=not opened.exam_mode
    )
    opened.logged += 1


def snapshot(opened: OpenLab) -> None:
    with transaction.atomic():
        SavedLab.objects.filter(pk=opened.saved_id).update(state=opened.lab.to_json())
        LoggedCommand.objects.filter(lab_id=opened.saved_id).delete()
    opened.logged = 0


def reset_lab(session_key: str, ticket: str) -> OpenLab:
    opened = open_lab(session_key, ticket)
    opened.lab = _new(session_key, ticket)
    snapshot(opened)
    return opened


def set_exam_mode(session_key: str, ticket: str, on: bool) -> None:
    open_lab(session_key, ticket)
    SavedLab.objects.filter(session_key=session_key, ticket=ticket).update(exam_mode=on)


def saved_labs(session_key: str) -> list[tuple[SavedLab, LabSession]]:
    """Every lab this session has opened, restored, in ticket order."""
    # An exploration of a real cluster is no ticket: no progress, not exported, and restoring
    # it would need the cluster (which a site back in mock mode no longer has).
    rows = (
        SavedLab.objects.filter(session_key=session_key)
        .exclude(ticket=cluster.EXPLORE_ID)
        .order_by("ticket")
    )
    return [(saved, restore(saved)[0]) for saved in rows]


def progress(session_key: str) -> dict[str, tuple[int, int]]:
    """Done and total checklist items per ticket this session has opened."""
    result: dict[str, tuple[int, int]] = {}
    for saved, lab in saved_labs(session_key):
        items = lab.checklist()
        result[saved.ticket] = (sum(item.done for item in items), len(items))
    return result
