"""CPython's cyclic garbage collector, set for a server that keeps labs in memory.

A server process keeps every open lab (a whole cluster of JSON objects) so that a command
need not load it again. CPython's collector, by default, walks every tracked object of the
process whenever enough new objects have outlived two younger collections: with 150 learners
typing, that came to a full walk about once a second, 200-400 ms each, and every learner's
command waited for it (p99 180-400 ms against 21-38 ms without). The labs are trees of
dicts and lists that plain reference counting frees; the collector is for reference cycles,
which the young generations still catch at once.

So a server process freezes what it loaded at start (Django, the content, the modules: never
garbage) out of the collector's walks, and takes a full walk after a hundred times more young
collections than the default. Measured by tests/benchmarks/bench_load.py.
"""

from __future__ import annotations

import gc

# Young (second generation) collections between two full ones; CPython's default is 10.
FULL_COLLECTION_AFTER = 1000


def settle_collector_for_serving() -> None:
    gc.collect()
    gc.freeze()
    first, second, _ = gc.get_threshold()
    gc.set_threshold(first, second, FULL_COLLECTION_AFTER)
