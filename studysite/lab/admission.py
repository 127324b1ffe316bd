"""Admission to the command pool: sessions without history never hold up those with it.

A new browser session costs one page load, so a per-session share of processor time
(store.CpuShare) does nothing against many fresh sessions: twelve of them each scaling a
deployment to 400 (each command a full budget, paced) filled the pool's threads and held a
quiet learner's `kubectl get nodes` for seconds. Once a session has spent, its commands go to
the annex (studysite.lab.annex); it is the first, expensive command of each fresh session that
lands in the pool.

The rule: a session is *established* once it has sent LAB_ESTABLISHED_COMMANDS commands that are
not blank (counted in this process), or its lab's saved position says as much (written by
another process or an earlier visit). Commands of sessions not yet established run in at most
LAB_FRESH_SLOTS of the pool's threads at once, in arrival order; established sessions' commands
never wait for them. A newcomer's first commands then wait only behind other newcomers, and
only when that small lane is full: a class arriving together (a few ms a command) barely
notices, a crowd of fresh sessions sending the heaviest commands queues behind itself.
LAB_FRESH_SLOTS at the pool's size turns the rule off (every command competes as before).

A lab's first command runs in the annex once it is up (studysite.lab.annex.serves), counted
here all the same: newcomers arriving together cost this process their pages and sockets, and
their later commands take this lane.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator

from django.conf import settings

from simulators.lab import budget
from studysite.lab import store

# Sessions counted per process; past this many the counts start over (a forgotten session
# is fresh again until its lab's saved position, or ten more commands, says otherwise).
MAX_SESSIONS = 50_000


class Admission:
    """Per process: commands sent per session, and the fresh sessions' lane (per event loop)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.commands: dict[str, int] = {}
        self.lanes: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}

    def established(self, opened: store.OpenLab) -> bool:
        """Whether this lab's session has history: enough commands, sent here or saved."""
        needed = settings.LAB_ESTABLISHED_COMMANDS
        return opened.version >= needed or self.commands.get(opened.session_key, 0) >= needed

    def count(self, opened: store.OpenLab) -> None:
        with self.lock:
            if len(self.commands) >= MAX_SESSIONS:
                self.commands.clear()
            self.commands[opened.session_key] = self.commands.get(opened.session_key, 0) + 1

    def lane(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        with self.lock:
            lane = self.lanes.get(loop)
            if lane is None:
                for old in [other for other in self.lanes if other.is_closed()]:
                    del self.lanes[old]
                lane = self.lanes[loop] = asyncio.Semaphore(settings.LAB_FRESH_SLOTS)
            return lane

    @contextlib.asynccontextmanager
    async def turn(self, opened: store.OpenLab, line: str) -> AsyncIterator[budget.Pace]:
        """Hold this command's place in the pool: at once for an established session, else
        a slot of the fresh sessions' lane. Yields how the command gives way (store.FRESH_PACE for
        a fresh session's). The command is counted when it ends (see counted)."""
        async with self.counted(opened, line):
            if self.established(opened):
                yield store.PACE
            else:
                async with self.lane():
                    yield store.FRESH_PACE

    @contextlib.asynccontextmanager
    async def counted(self, opened: store.OpenLab, line: str) -> AsyncIterator[None]:
        """Count the command when it ends, wherever it ran, unless it is a blank line (Enter
        pressed ten times is no history; the lab does not keep it either)."""
        try:
            yield
        finally:
            if line.strip():
                self.count(opened)


admission = Admission()


def turn(opened: store.OpenLab, line: str) -> contextlib.AbstractAsyncContextManager[budget.Pace]:
    """The one call the terminal makes before it sends a command to the pool."""
    return admission.turn(opened, line)


def counted(opened: store.OpenLab, line: str) -> contextlib.AbstractAsyncContextManager[None]:
    """The one call the terminal makes around a command it sends to the annex."""
    return admission.counted(opened, line)
