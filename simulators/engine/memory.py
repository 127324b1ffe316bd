"""The cycle's one concession to CPython's memory manager.

A cycle on a large cluster allocates hundreds of thousands of small objects that all
survive it (events, actions, the session's node and job states). CPython's cyclic
garbage collector counts those allocations and, each time enough have survived, walks
every tracked object of the process: at 5,000 nodes and 50,000 pods that was 30-40% of
the cycle, with nothing to collect (the cycle builds no garbage cycles worth freeing
early). `collector_paused` holds the collector off for the length of one cycle; the
objects it leaves behind are collected by the next automatic collection as usual. Two
threads running cycles at once leave the collector enabled when both are done.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic garbage collector inside the block; leave it as it was after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
