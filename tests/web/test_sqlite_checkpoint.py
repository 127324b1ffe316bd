"""SQLite's log is copied back by a thread of its own (studysite.lab.checkpoint), never by a
learner's commit that happens to cross the mark while other learners wait behind it."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from django.db import connection

from studysite.lab import checkpoint
from studysite.lab.writes import SqliteWriter


@pytest.mark.django_db
def test_the_sites_connections_leave_checkpoints_to_the_thread_up_to_a_far_backstop() -> None:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        assert cursor.fetchone()[0] == checkpoint.BACKSTOP_PAGES == 20_000


def test_a_process_writing_labs_copies_the_log_back_in_the_background(tmp_path: Path) -> None:
    database = tmp_path / "labs.sqlite3"
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute(f"PRAGMA wal_autocheckpoint={checkpoint.BACKSTOP_PAGES}")
    writer.execute("CREATE TABLE snapshot (packed BLOB)")
    # A lab write takes the writers' turn, which starts this process's checkpointer.
    with SqliteWriter().held(str(database)):
        for _ in range(40):
            writer.execute("INSERT INTO snapshot VALUES (?)", (bytes(50_000),))
    # Two megabytes in the log, none of it in the database file yet: no commit checkpointed.
    assert database.stat().st_size < 100_000
    deadline = time.monotonic() + 10 * checkpoint.CHECKPOINT_EVERY
    while database.stat().st_size < 2_000_000 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert database.stat().st_size >= 2_000_000
    busy, frames, done = checkpoint.checkpoint(writer)
    assert (busy, done) == (0, frames)
    writer.close()
