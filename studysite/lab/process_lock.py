"""A lock across the server's processes: an exclusive `flock` of a file; and where the site's
processes keep what they share (site_path).

The kernel hands a released `flock` to the next waiter at once, where SQLite's own busy wait
sleeps in growing steps (studysite.lab.writes.SqliteWriter uses it for that). Each process opens
its own descriptor of the file (a forked worker's descriptor shared with its parent would share
its lock). Without `fcntl` (not POSIX) it holds nothing: each process still takes turns within
itself.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]


def site_path(suffix: str) -> str:
    """A path every process of this site names alike, and no other site's does: beside its
    SQLite database file, or in the temporary directory under a digest of its database's
    address (a server database, or SQLite in memory)."""
    database = settings.DATABASES["default"]
    name = str(database.get("NAME") or "")
    in_memory = not name or name == ":memory:" or "mode=memory" in name
    if str(database["ENGINE"]).endswith("sqlite3") and not in_memory:
        return f"{name}.{suffix}"
    where = f"{database.get('HOST')}:{database.get('PORT')}/{name}"
    digest = hashlib.sha256(where.encode()).hexdigest()[:16]
    return str(Path(tempfile.gettempdir()) / f"studysite-{suffix}-{os.getuid()}-{digest}")


class ProcessLock:
    """Exclusive locks of files, one descriptor per file and process. Not for threads: a
    process's threads must take turns on their own lock first (flock is per descriptor)."""

    def __init__(self) -> None:
        self.files: dict[tuple[str, int], int] = {}

    @contextmanager
    def held(self, path: str | None) -> Iterator[None]:
        """`path` locked while inside; None (or no flock here): nothing to lock."""
        descriptor = self._descriptor(path)
        if descriptor is None:
            yield
            return
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)

    def _descriptor(self, path: str | None) -> int | None:
        if fcntl is None or path is None:
            return None
        key = (path, os.getpid())
        if key not in self.files:
            self.files[key] = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        return self.files[key]


class Slots:
    """At most `count` holders at once across every process that names the same `stem` (the
    files `stem.0` .. `stem.N-1`, one exclusive `flock` each). A holder takes a free one if
    there is one, else waits its turn on one of them. One holder per process at a time (a
    process's descriptors are its own: not for threads)."""

    def __init__(self, stem: str, count: int) -> None:
        self.paths = [f"{stem}.{number}" for number in range(max(1, count))]
        self.files = ProcessLock()

    @contextmanager
    def held(self) -> Iterator[None]:
        descriptors = [
            descriptor
            for descriptor in (self.files._descriptor(path) for path in self.paths)
            if descriptor is not None
        ]
        if not descriptors:  # no flock here
            yield
            return
        taken = None
        for descriptor in descriptors:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            taken = descriptor
            break
        if taken is None:
            taken = descriptors[os.getpid() % len(descriptors)]
            fcntl.flock(taken, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(taken, fcntl.LOCK_UN)
