"""A server process sets the interpreter up for labs and many learners (studysite.interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from studysite.interpreter import FULL_COLLECTION_AFTER, SWITCH_INTERVAL_SECONDS
from tests.live_server import REPO_ROOT

PROBE = (
    "import gc, json, sys, studysite.asgi;"
    " print(json.dumps([gc.get_threshold(), gc.get_freeze_count(), sys.getswitchinterval()]))"
)


def test_the_server_entry_point_sets_the_collector_and_the_switch_interval() -> None:
    env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "x" * 50}
    found = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    (young, older, full), frozen, switch = json.loads(found.stdout.strip().splitlines()[-1])
    assert (young, older) == (700, 10)
    assert full == FULL_COLLECTION_AFTER == 1000
    # Django and the content, loaded at start, are out of every walk.
    assert frozen > 50_000
    # A long command holds the interpreter's lock at most 1 ms before a waiting command gets it.
    assert switch == SWITCH_INTERVAL_SECONDS == 0.001
