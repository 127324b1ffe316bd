"""SQLite's checkpoints in a thread of their own, never inside a learner's commit.

In WAL mode SQLite copies the log back into the database file (a checkpoint) once the log
passes `wal_autocheckpoint` pages, inside the COMMIT that crossed the mark, with an fsync: 19 ms
for a 4 MB log on the 2-core machine. That commit holds the writers' turn
(studysite.lab.writes.SqliteWriter) all the while, so every learner's command saving behind it
waits too; labs of hundreds of pods, saved whole after a heavy command, crossed the mark often
(issue 33). So a process that writes labs checkpoints every CHECKPOINT_EVERY seconds on a
connection of its own, PASSIVE (it never waits for, nor holds up, a reader or a writer), outside
the writers' turn; the connections' own mark (settings: BACKSTOP_PAGES) is far enough that no
commit reaches it while this runs, and still bounds the log of a process that never starts it.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time

log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 1.0
# The connections' wal_autocheckpoint (settings.py), in 4 KiB pages: 80 MB of log.
BACKSTOP_PAGES = 20_000

_started: set[str] = set()
_lock = threading.Lock()


def ensure(database: str) -> None:
    """Start this process's checkpointer for the database file `database` (once per file)."""
    with _lock:
        if database in _started:
            return
        _started.add(database)
    threading.Thread(
        target=_checkpoint_forever, args=(database,), name="sqlite-checkpoint", daemon=True
    ).start()


def checkpoint(connection: sqlite3.Connection) -> tuple[int, int, int]:
    """One PASSIVE checkpoint: (busy, frames in the log, frames checkpointed)."""
    busy, frames, done = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(frames), int(done)


def _checkpoint_forever(database: str) -> None:
    connection: sqlite3.Connection | None = None
    while True:
        time.sleep(CHECKPOINT_EVERY)
        try:
            if connection is None:
                connection = sqlite3.connect(database, timeout=0, check_same_thread=False)
            checkpoint(connection)
        except sqlite3.Error:
            # Busy or gone for a moment: the next round tries again, on a fresh connection.
            log.debug("a checkpoint of %s failed", database, exc_info=True)
            if connection is not None:
                connection.close()
            connection = None
