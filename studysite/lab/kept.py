"""Labs open in this process: the holder every tab of a lab shares, the cache, the lab's lock.

Several holders (a page load, its websocket, a second tab, the form) share one `OpenLab` per
saved lab in this process. What a holder knows of its lab (the lab, the row's position, the log's
length and cost) is one frozen `Head`, replaced whole: a reader takes `opened.head` once and sees
a lab and a position that belong together, never the new lab with the old position while another
tab catches up with the database (studysite.lab.store) or folds.
"""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from simulators.lab import LabSession

log = logging.getLogger(__name__)

# Labs opened in this process stay in memory this long after their last use (a page load and
# its websocket, a reconnect), and always while a socket holds them; at most KEPT_LABS of them.
KEEP_SECONDS = 600.0
KEPT_LABS = 500
# A kept lab unused this long rests (LabSession.rest: its world and transcript compressed, a
# fifth of the memory, woken in 1-5 ms by its next command or page), checked this often.
REST_SECONDS = 20.0
# A lab whose socket closed, unused this long since (a reload reconnects well within it), is
# shelved (Kept.shelve_left): the class that just left holds no more of the process while the
# next one arrives.
LEFT_SECONDS = 2.0
REST_EVERY = 10.0
# After labs rested, what they and the closed sockets left is collected (give_back_memory) at
# most this often: a full collection stops every thread of the process for 12-57 ms, a stall
# every learner's command in flight meets (issue 33). A closed socket leaves its connection's
# objects (daphne's, autobahn's, asyncio's: about 13 KB) in reference cycles, which wait for
# it: with a collection a minute, a class's closed sockets were still held while the next
# class connected, and the server's RSS grew 30% over seven classes of bench_load (10 s: 22%).
COLLECT_EVERY = 10.0
# So many sockets closed since the last collection (a class leaving) wake the collector at once
# (at most every COLLECT_EVERY) instead of at its next round.
COLLECT_AFTER_CLOSED = 50


@dataclass(frozen=True)
class Head:
    """What a holder knows of a saved lab, as of one moment.

    `saved_id` 0: a lab only shown, not saved yet. `version` is the row's `next_position` as this
    holder last saw it (the one-writer check, studysite.lab.writes); `logged` and `replay_cost`
    are the log's since the snapshot; `stamp` the row's `updated`, its identity beside its pk
    (a pk can be reused after a delete). `behind`: another process (the annex) kept commands
    of this lab since this copy last ran one; the copy is reloaded before it is used again
    (studysite.lab.store.catch_up).
    """

    lab: LabSession
    exam_mode: bool
    saved_id: int
    session_key: str = ""
    ticket: str = ""
    version: int = 0
    logged: int = 0
    replay_cost: float = 0.0
    stamp: object = None
    behind: bool = False


class OpenLab:
    """A lab as its holders share it: a Head, replaced whole (see `moved` and `take`)."""

    __slots__ = ("__weakref__", "head")

    def __init__(
        self,
        lab: LabSession,
        exam_mode: bool,
        saved_id: int,
        session_key: str = "",
        ticket: str = "",
        version: int = 0,
        logged: int = 0,
        replay_cost: float = 0.0,
        stamp: object = None,
        behind: bool = False,
    ) -> None:
        self.head = Head(
            lab,
            exam_mode,
            saved_id,
            session_key,
            ticket,
            version,
            logged,
            replay_cost,
            stamp,
            behind,
        )

    def moved(self, **changes: Any) -> None:
        """Replace some of the head's fields, in one assignment."""
        self.head = dataclasses.replace(self.head, **changes)

    def take(self, other: OpenLab) -> None:
        """Become what `other` knows (a reload from the database), in one assignment."""
        self.head = other.head

    @property
    def lab(self) -> LabSession:
        return self.head.lab

    @property
    def exam_mode(self) -> bool:
        return self.head.exam_mode

    @property
    def saved_id(self) -> int:
        return self.head.saved_id

    @property
    def session_key(self) -> str:
        return self.head.session_key

    @property
    def ticket(self) -> str:
        return self.head.ticket

    @property
    def version(self) -> int:
        return self.head.version

    @property
    def logged(self) -> int:
        return self.head.logged

    @property
    def replay_cost(self) -> float:
        return self.head.replay_cost

    @property
    def stamp(self) -> object:
        return self.head.stamp


@dataclass(frozen=True)
class Shelved:
    """A kept lab no holder holds any more, let go of: its head's fields and the lab's saved
    form, compressed (LabSession.shelve). One block of 4-21 KB instead of the few hundred
    objects a lab at rest still is, allocated by the resting thread after its class left, not
    amid a class's peak. Opened again in 1-5 ms, about what waking a lab at rest costs, where
    the database would replay its log (14-48 ms). Figures: docs/performance.md, round 43."""

    packed: bytes
    exam_mode: bool
    saved_id: int
    session_key: str
    ticket: str
    version: int
    logged: int
    replay_cost: float
    stamp: object
    behind: bool

    @classmethod
    def of(cls, head: Head, packed: bytes) -> Shelved:
        fields = {f.name: getattr(head, f.name) for f in dataclasses.fields(head)}
        del fields["lab"]
        return cls(packed, **fields)

    def opened(self) -> OpenLab:
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        del fields["packed"]
        return OpenLab(LabSession.unshelve(self.packed), **fields)


class Kept:
    """Labs open in this process, by row: reused while the row is unchanged since.

    Opening a lab from the database parses its snapshot and replays its log (several ms, more
    for a long session); a page load and its websocket, a reconnect or a second tab find it here
    after one small query. Every holder shares the one OpenLab, so a command through any of
    them (under the lab's lock) is seen by all; a change saved by another process moves the
    row's position, and the next open loads it afresh. A lab whose socket closed and that then
    went idle is kept Shelved, opened again by the next holder that asks.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.recent: dict[int, tuple[float, OpenLab | Shelved]] = {}
        self.live: weakref.WeakValueDictionary[int, OpenLab] = weakref.WeakValueDictionary()
        self._rester: threading.Thread | None = None
        # Sockets closed since the last collection, and the event that wakes the rester.
        self._closed = 0
        self._wake = threading.Event()
        # The labs whose socket closed, and when: to shelve (see shelve_left).
        self._left: dict[int, float] = {}

    def get(self, pk: int, now: float) -> OpenLab | None:
        with self.lock:
            found = self.live.get(pk)
            if found is not None:
                self.recent.pop(pk, None)
                self.recent[pk] = (now, found)
                return found
            entry = self.recent.get(pk)
            if entry is None or not isinstance(entry[1], Shelved):
                return None
            shelved = entry[1]
            del self.recent[pk]
        # Opened outside the lock (1-5 ms); a holder asking meanwhile opens it from the
        # database, and the row's one-writer check keeps the two apart.
        try:
            opened = shelved.opened()
        except Exception:
            log.exception("a shelved lab could not be opened")  # the database has it
            return None
        with self.lock:
            found = self.live.setdefault(pk, opened)
            self.recent.pop(pk, None)
            self.recent[pk] = (now, found)
        return found

    def put(self, opened: OpenLab, now: float) -> None:
        self._start_resting()
        with self.lock:
            self.live[opened.saved_id] = opened
            self.recent.pop(opened.saved_id, None)
            self.recent[opened.saved_id] = (now, opened)
            # Oldest first (dicts keep insertion order and a use moves an entry to the end).
            for pk, (used, _) in list(self.recent.items()):
                if used > now - KEEP_SECONDS and len(self.recent) <= KEPT_LABS:
                    break
                del self.recent[pk]

    def used(self, pk: int, now: float) -> None:
        """Note that a command ran on this kept lab now (it stays awake a while longer)."""
        with self.lock:
            found = self.recent.pop(pk, None)
            if found is not None:
                self.recent[pk] = (now, found[1])

    def idle(self, now: float) -> list[tuple[int, OpenLab]]:
        """The labs held here, awake and unused for REST_SECONDS (a lab only a socket still
        holds, past KEEP_SECONDS or KEPT_LABS, counts as unused)."""
        with self.lock:
            recent = dict(self.recent)
            held = list(self.live.items())
        return [
            (pk, opened)
            for pk, opened in held
            if not opened.lab.at_rest and recent.get(pk, (0.0,))[0] <= now - REST_SECONDS
        ]

    def rest_idle(self, now: float) -> int:
        """Rest every idle lab (see idle) whose lock is free: one a command or a reader holds
        is busy, so not idle. How many rested."""
        rested = 0
        for pk, opened in self.idle(now):
            lock = lock_for(pk)
            if lock.acquire(blocking=False):
                try:
                    rested += opened.lab.rest()
                except Exception:
                    # That lab stays awake (its next command still runs); the others rest.
                    log.exception("a kept lab could not rest")
                finally:
                    lock.release()
        return rested

    def shelve_left(self, now: float) -> int:
        """Shelve every lab whose socket closed (see closed) and that was not used since, once
        LEFT_SECONDS passed and its lock is free, if nothing else holds it then (a second tab,
        a page in flight: it stays as it was, and is not tried again until its next socket
        closes). How many shelved."""
        with self.lock:
            due = [
                pk
                for pk, left in self._left.items()
                if max(left, self.recent.get(pk, (0.0,))[0]) <= now - LEFT_SECONDS
            ]
            for pk in due:
                del self._left[pk]
        return sum(self._shelve(pk) for pk in due)

    def _shelve(self, pk: int) -> int:
        with self.lock:
            opened = self.live.get(pk)
            if opened is None or self.recent.get(pk, (0.0, None))[1] is not opened:
                return 0  # let go of already (past KEEP_SECONDS or KEPT_LABS)
        lock = lock_for(pk)
        if not lock.acquire(blocking=False):
            return 0
        try:
            # A copy behind the database (its commands ran in the annex) is reloaded before its
            # next use (studysite.lab.store.catch_up): shelving it would encode it in vain. A
            # fresh session's whole lab is such a copy when its one command went there.
            behind = opened.head.behind
            packed = None if behind else opened.lab.shelve()
            if packed is None and not behind:
                return 0
            with self.lock:
                used = self.recent.get(pk, (0.0, None))
                if used[1] is not opened:
                    return 0  # used and let go of meanwhile, or past KEEP_SECONDS: dropped
                when = used[0]
                if packed is None:
                    del self.recent[pk]
                else:
                    self.recent[pk] = (when, Shelved.of(opened.head, packed))
                held = weakref.ref(opened)
                del used, opened
                # Held anywhere else, the lab stays: two copies of one lab would part ways.
                still = held()
                if still is not None:
                    self.recent[pk] = (when, still)
                    return 0
            return 1
        except Exception:
            log.exception("a kept lab could not be shelved")  # it stays as it was
            return 0
        finally:
            lock.release()

    def closed(self, pk: int = 0) -> None:
        """A lab socket closed: what the connection left (its protocol objects, in reference
        cycles) is owed to the collector, woken at once after COLLECT_AFTER_CLOSED of them.
        Its lab (``pk``) is shelved LEFT_SECONDS later if no other holder has it then, by the
        resting thread, not here: resting labs the moment their sockets closed slowed a class's
        first answers (docs/performance.md, round 42)."""
        with self.lock:
            if pk:
                if not self._left:
                    self._wake.set()  # the resting thread now wakes every LEFT_SECONDS
                self._left[pk] = time.monotonic()
            self._closed += 1
            if self._closed >= COLLECT_AFTER_CLOSED:
                self._wake.set()

    def _start_resting(self) -> None:
        """The thread that rests idle labs, one per process (started by its first kept lab:
        a forked worker starts its own)."""
        with self.lock:
            if self._rester is not None and self._rester.is_alive():
                return
            self._rester = threading.Thread(target=self._rest_forever, name="lab-rest", daemon=True)
            self._rester.start()

    def _rest_forever(self) -> None:
        owed, collected = False, time.monotonic()
        while True:
            self._wake.wait(LEFT_SECONDS if self._left else REST_EVERY)
            self._wake.clear()
            try:
                now = time.monotonic()
                with self.lock:
                    closed, self._closed = self._closed, 0
                shelved = self.shelve_left(now)
                owed = bool(self.rest_idle(now)) or bool(closed) or bool(shelved) or owed
                if owed and now - collected >= COLLECT_EVERY:
                    give_back_memory()
                    owed, collected = False, now
            except Exception:
                log.exception("resting idle labs failed")  # the thread goes on

    def drop(self, pk: int) -> None:
        with self.lock:
            self.recent.pop(pk, None)
            self.live.pop(pk, None)
            self._left.pop(pk, None)

    def clear(self) -> None:
        with self.lock:
            self.recent.clear()
            self.live.clear()
            self._left.clear()


kept = Kept()


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None  # not glibc: nothing to call
    return trim


_trim = _malloc_trim()


def give_back_memory() -> None:
    """Free what the labs that just rested, and the connections since closed, leave behind,
    and hand the heap's free pages back to the system.

    A closed websocket leaves reference cycles (its protocol, transport and queues, about
    10 KB each) that only a full collection frees, and the interpreter runs one rarely in a
    server process (studysite.interpreter): the server's RSS grew by 20 MiB over five classes of
    150 learners from them alone (tests/benchmarks/bench_load.py). A full collection
    here costs 10-35 ms (the templates are frozen out of it: studysite.interpreter), at most
    every COLLECT_EVERY while labs go idle. Then glibc's malloc_trim: a lab's objects over
    pymalloc's 512 bytes (an object's dicts, a command's output) come from malloc, whose arenas
    keep their holes."""
    gc.collect()
    if _trim is not None:
        _trim(0)


_locks: weakref.WeakValueDictionary[int, threading.Lock] = weakref.WeakValueDictionary()
_locks_guard = threading.Lock()


def lock_for(saved_id: int) -> threading.Lock:
    """The lab's lock in this process: its writers take turns in arrival order, and a reader
    (`reading`) waits for a command half run on it."""
    with _locks_guard:
        lock = _locks.get(saved_id)
        if lock is None:
            lock = threading.Lock()
            _locks[saved_id] = lock
        return lock


@contextmanager
def reading(opened: OpenLab) -> Iterator[LabSession]:
    """The lab held still while a page or a replay reads it: a lab kept in this process is
    shared by the learner's tabs, and a command running on it from another tab finishes first."""
    with lock_for(opened.saved_id):
        yield opened.lab
