"""The one-writer rule: a lab's row changes only for the writer that saw it last.

Every write of a lab (a command, a fold, a reset) names the row's `next_position` as its writer
last saw it, and moves it on: a conditional UPDATE, so the rule holds on SQLite and PostgreSQL
alike, and across processes (another tab, the form, another server process, the annex). A writer
that finds the position moved has lost the race, and reloads (studysite.lab.store).

The common write (append a command to the log) is two plain SQL statements: it runs for every
command of every learner, and the ORM's query building cost more than the command itself. Every
write happens inside `one_writer()` and a transaction, with its snapshot encoded beforehand
(studysite.lab.saved.Snapshot).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.db.models import F

from studysite.lab.models import LabSnapshot, LoggedCommand, SavedLab
from studysite.lab.process_lock import ProcessLock
from studysite.lab.saved import Snapshot

CLAIM = (
    f"UPDATE {SavedLab._meta.db_table} SET next_position = next_position + 1,"
    " replay_cost = %s, done_items = %s, total_items = %s WHERE id = %s AND next_position = %s"
)
SNAPSHOT_UPDATE = (
    f"UPDATE {LabSnapshot._meta.db_table} SET state = NULL, packed = %s WHERE lab_id = %s"
)
SNAPSHOT_INSERT = f"INSERT INTO {LabSnapshot._meta.db_table} (lab_id, packed) VALUES (%s, %s)"
APPEND = (
    f"INSERT INTO {LoggedCommand._meta.db_table} (lab_id, position, line, hints)"
    " VALUES (%s, %s, %s, %s)"
)


class SqliteWriter:
    """SQLite's one writer at a time, as a queue rather than a retry.

    SQLite lets one connection write at a time, and one kept waiting sleeps in growing steps
    (1, 2, 5, 10 ms and up) before it tries again. With two server processes and the annexes
    writing about 300 commands a second, those sleeps were most of a command's commit (3.5 ms
    of wall time for 0.5 ms of work). So a process's threads take turns on a lock, and the
    processes on a lock of a file beside the database (studysite.lab.process_lock), which the
    kernel hands to the next waiter as soon as it is released. PostgreSQL's writers never wait
    for each other.
    """

    def __init__(self) -> None:
        self.turn = threading.Lock()
        self.files = ProcessLock()

    @contextmanager
    def held(self, database: str) -> Iterator[None]:
        # A database only this process can open (in memory) has no file to lock beside it.
        in_memory = database == ":memory:" or "mode=memory" in database
        with self.turn, self.files.held(None if in_memory else f"{database}.writer"):
            yield


_sqlite_writer = SqliteWriter()


def one_writer() -> contextlib.AbstractContextManager[None]:
    """The database's writers' turn, held around every lab write transaction."""
    if connection.vendor != "sqlite":
        return contextlib.nullcontext()
    return _sqlite_writer.held(str(connection.settings_dict["NAME"]))


def create(
    session_key: str, ticket: str, snapshot: Snapshot, *, exam_mode: bool = False
) -> SavedLab:
    """A new saved lab: its row and its snapshot (in the caller's transaction)."""
    saved = SavedLab.objects.create(
        session_key=session_key, ticket=ticket, exam_mode=exam_mode, **snapshot.counts
    )
    with connection.cursor() as cursor:
        cursor.execute(SNAPSHOT_INSERT, [saved.pk, snapshot.packed])
    return saved


def replace_snapshot(saved_id: int, snapshot: Snapshot, version: int | None = None) -> bool:
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


def append(
    saved_id: int, version: int, line: str, hints: bool, cost: float, counts: dict[str, int]
) -> bool:
    """Log a command at `version` unless another writer moved the row since (in the caller's
    transaction): False if one did. `cost` is the log's replay cost with it."""
    done, total = counts["done_items"], counts["total_items"]
    with connection.cursor() as cursor:
        cursor.execute(CLAIM, [cost, done, total, saved_id, version])
        if not cursor.rowcount:
            return False
        cursor.execute(APPEND, [saved_id, version, line, hints])
    return True


def still_at(saved_id: int, version: int) -> bool:
    """Whether no other writer moved the row since `version`."""
    return SavedLab.objects.filter(pk=saved_id, next_position=version).exists()
