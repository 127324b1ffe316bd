"""A browser session's cooldown after a flood, seen by every process of the site.

After a flood (studysite.lab.consumers) the session's new sockets are refused for a few
seconds: a client that reconnects at once and floods again would otherwise cost the others a
lab opened and a burst of commands each time. Kept only in the process that closed the flood,
the cooldown did not hold on a server with several workers: the client's next socket landed on
another worker, which knew nothing of it, so on two workers a session sending the alias bomb
back to back got twice the commands one worker gave it, in twice the bursts (docs/performance.md,
round 64). So each cooldown is also a file in a directory every process of the site names alike
(process_lock.site_path), named by a digest of the session key (the key itself is a
credential) and dated (its modification time) when the cooldown ends: a socket's check is one
`stat`. Where the directory cannot be written, the process's own memory still holds the
cooldowns it started.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time

from studysite.lab.process_lock import site_path

# Past this many cooldowns started, a process clears the ended ones from memory and the directory.
PRUNE_EVERY = 1_000


class Cooldowns:
    """Cooldowns by session key, each ending at a wall-clock time (`time.time()`: every process
    reads the same clock, and a file's date is one)."""

    def __init__(self, suffix: str = "cooldowns") -> None:
        self.suffix = suffix
        self.lock = threading.Lock()
        self.local: dict[str, float] = {}
        self.started = 0
        self._directory = ""

    def directory(self) -> str:
        """The folder every process of the site keeps the cooldowns in: named once per process
        (a socket's check is then one `stat`), as the settings it is named by are fixed."""
        if not self._directory:
            self._directory = site_path(self.suffix)
        return self._directory

    def _file(self, key: str) -> str:
        return os.path.join(self.directory(), hashlib.sha256(key.encode()).hexdigest()[:32])

    def start(self, key: str, seconds: float, now: float | None = None) -> None:
        """The session's new sockets are refused for `seconds`, by every process."""
        until = (time.time() if now is None else now) + seconds
        with self.lock:
            self.local[key] = until
            self.started += 1
            prune = self.started % PRUNE_EVERY == 0
        try:
            os.makedirs(self.directory(), mode=0o700, exist_ok=True)
            path = self._file(key)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
            os.utime(path, (until, until))
        except OSError:
            pass  # this process's memory still holds it
        if prune:
            self.prune(until - seconds)

    def active(self, key: str, now: float | None = None) -> bool:
        """Whether a cooldown of this session, started by any process, has not ended."""
        now = time.time() if now is None else now
        if self.local.get(key, 0.0) > now:
            return True
        try:
            return os.stat(self._file(key)).st_mtime > now
        except OSError:
            return False

    def prune(self, now: float) -> None:
        """Forget the cooldowns that have ended."""
        with self.lock:
            self.local = {key: until for key, until in self.local.items() if until > now}
        with contextlib.suppress(OSError), os.scandir(self.directory()) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.stat().st_mtime <= now:
                        os.unlink(entry.path)
