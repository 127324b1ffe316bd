"""CPython set for a server process that keeps labs in memory and answers many learners.

The collector. A server process keeps every open lab (a whole cluster of JSON objects) so that
a command need not load it again. CPython's collector, by default, walks every tracked object
of the process whenever enough new objects have outlived two younger collections: with 150
learners typing, that came to a full walk about once a second, long enough that every
learner's command waited for it and the tail grew several times over. The labs are trees
of dicts and lists that plain reference counting frees; the collector is for reference cycles,
which the young generations still catch at once. So a server process freezes what it loaded at
start (Django, the content, the modules: never garbage) out of the collector's walks, and takes
a full walk after a hundred times more young collections than the default. The ticket
worlds' templates (simulators.lab.world.template_world: never changed, only forked; 110,000
objects the collector tracks with every ticket's four seeds built) are frozen too, each as it
is built: with them, a full walk took 92 ms, without them 0 (and 17 ms with 150 learners' labs
awake), a stall every learner's command in flight meets (issue 33). What else is alive at
that moment is frozen with them: freed as usual by reference counting, never by the collector,
so a reference cycle among those objects stays; at most TEMPLATES builds a process.

The switch interval. Commands run in worker threads that share the interpreter's lock. A
learner's command gives the lock up at every database call and socket write, and waits to get
it back; while another learner's long command (a big YAML dump, sed over 512 KiB) holds it,
each such wait lasts up to the switch interval (5 ms by default). Handing over more often
shortens the tail that one session's worst commands add to the others' commands, at a small
cost at the median.

The allocator. glibc serves a block of 128 KiB or more (a command's long output, a lab's JSON,
a websocket frame) from a mapping of its own, handed back to the system when freed; but each
time it frees such a block it raises that threshold to the block's size (up to 32 MiB). After
the first big YAML dump, outputs of a few hundred KB came from the heap instead, between small
objects that outlive them, and left holes the heap can neither reuse whole nor hand back: the
server's resident memory grew class after class (issue 30). A server process fixes the
threshold at MMAP_THRESHOLD_BYTES (glibc's own starting value), which also turns the raising
off. Fixed from the process's start (glibc's MALLOC_MMAP_THRESHOLD_, SERVING_ENVIRONMENT: set
by scripts/serve-production for the server and by the server for the lab's annex) it did more
than fixed when the server imports studysite.asgi (mallopt, for a server started any other
way): +29-30% against +32-33% of RSS over bench_load's seven runs.

Measured by tests/benchmarks/bench_load.py; figures in docs/performance.md.
"""

from __future__ import annotations

import ctypes
import gc
import sys

from simulators.lab import world

# Young (second generation) collections between two full ones; CPython's default is 10.
FULL_COLLECTION_AFTER = 1000
SWITCH_INTERVAL_SECONDS = 0.001
# mallopt's parameter number for the threshold (glibc's malloc.h), and its value.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 128 * 1024
# The same, from a process's start: glibc reads it before the first allocation.
SERVING_ENVIRONMENT = {"MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD_BYTES)}


def tune_for_serving() -> None:
    gc.collect()
    gc.freeze()
    first, second, _ = gc.get_threshold()
    gc.set_threshold(first, second, FULL_COLLECTION_AFTER)
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    if gc.freeze not in world.template_built:
        world.template_built.append(gc.freeze)
    _fix_mmap_threshold()


def _fix_mmap_threshold() -> None:
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return  # not glibc: its own allocator, its own policy
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
