"""A server process sets the interpreter up for labs and many learners (studysite.interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from studysite.interpreter import (
    FULL_COLLECTION_AFTER,
    MMAP_THRESHOLD_BYTES,
    SWITCH_INTERVAL_SECONDS,
)
from studysite.lab import annex
from tests.live_server import REPO_ROOT

PROBE = (
    "import gc, json, sys, studysite.asgi;"
    " print(json.dumps([gc.get_threshold(), gc.get_freeze_count(), sys.getswitchinterval()]))"
)


def in_a_server_process(probe: str) -> Any:
    """What `probe` prints last, as JSON, run where the server's entry point was imported."""
    env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "x" * 50}
    found = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(found.stdout.strip().splitlines()[-1])


def test_the_server_entry_point_sets_the_collector_and_the_switch_interval() -> None:
    (young, older, full), frozen, switch = in_a_server_process(PROBE)
    assert (young, older) == (700, 10)
    assert full == FULL_COLLECTION_AFTER == 1000
    # Django and the content, loaded at start, are out of every walk.
    assert frozen > 50_000
    # A long command holds the interpreter's lock at most 1 ms before a waiting command gets it.
    assert switch == SWITCH_INTERVAL_SECONDS == 0.001


TEMPLATE_PROBE = (
    "import gc, json, studysite.asgi;"
    " from simulators.lab.world import template_world;"
    " before = gc.get_freeze_count();"
    " world = template_world('mig-single', 0);"
    " print(json.dumps([before, gc.get_freeze_count(), gc.is_tracked(world.api),"
    " any(o is world.api for o in gc.get_objects())]))"
)


def test_a_ticket_template_built_in_a_server_process_is_out_of_the_collectors_walks() -> None:
    before, after, tracked, walked = in_a_server_process(TEMPLATE_PROBE)
    # A template is a whole cluster of objects, never garbage: a full collection (a pause for
    # every learner in the process) need not walk it. Every ticket's, about 110,000 objects
    # unfrozen, took a full collection from 0 to 92 ms on the 2-core machine.
    assert after - before > 1_000
    assert tracked and not walked


# A block bigger than every free byte of the heap put together (mallinfo2's fordblks), so no
# free chunk can serve it, allocated after a block twice its size was freed: from a mapping of
# its own (hblkhd, the bytes held in mappings, grows by it) while the threshold stays fixed,
# from the heap's top once glibc has raised the threshold to the freed block's size. A smaller
# block proves nothing: any free chunk big enough serves it, whatever the threshold (a fixed
# 512 KiB did, once, on the CI machine).
MAPPED_PROBE = (
    "import ctypes, json{entry};"
    " fields = [(n, ctypes.c_size_t) for n in ('arena ordblks smblks hblks hblkhd usmblks"
    " fsmblks uordblks fordblks keepcost'.split())];"
    " Info = type('Info', (ctypes.Structure,), {{'_fields_': fields}});"
    " libc = ctypes.CDLL(None); libc.mallinfo2.restype = Info;"
    " size = libc.mallinfo2().fordblks + (1 << 20);"
    " big = bytearray(2 * size); del big;"
    " before = libc.mallinfo2().hblkhd; block = bytearray(size);"
    " print(json.dumps({{'size': size, 'mapped': libc.mallinfo2().hblkhd - before}}))"
)


def test_a_server_process_keeps_big_blocks_out_of_the_heap_after_a_bigger_one_was_freed() -> None:
    # A plain interpreter: glibc raised its threshold past the block's size when the bigger went.
    plain = in_a_server_process(MAPPED_PROBE.format(entry=""))
    assert 2 * plain["size"] <= 32 << 20  # glibc raises its threshold up to 32 MiB, no further
    assert plain["mapped"] == 0
    # A server process: the block has a mapping of its own, handed back when it is freed.
    served = in_a_server_process(MAPPED_PROBE.format(entry=", studysite.asgi"))
    assert served["mapped"] >= served["size"]


def test_the_lab_annex_starts_with_big_blocks_out_of_the_heap_from_its_first_allocation() -> None:
    # The annex never imports studysite.asgi: its web process starts it with glibc's variable.
    child = "import sys; print('{\"ready\": true}', flush=True); sys.stdin.readline(); "
    client = annex.Annex([sys.executable, "-c", child + MAPPED_PROBE.format(entry="")])
    try:
        child_process = client.call({"line": "probe"})
    finally:
        client.stop()
    assert child_process["mapped"] >= child_process["size"]


def test_the_production_script_fixes_the_threshold_from_the_servers_start() -> None:
    script = (REPO_ROOT / "scripts" / "serve-production").read_text()
    assert f"export MALLOC_MMAP_THRESHOLD_={MMAP_THRESHOLD_BYTES}\n" in script
