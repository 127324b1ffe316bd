"""A server process sets the garbage collector for keeping labs (studysite.memory)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from studysite.memory import FULL_COLLECTION_AFTER
from tests.live_server import REPO_ROOT

PROBE = (
    "import gc, json, studysite.asgi;"
    " print(json.dumps([gc.get_threshold(), gc.get_freeze_count()]))"
)


def test_the_server_entry_point_freezes_its_start_and_spaces_out_full_collections() -> None:
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
    (young, older, full), frozen = json.loads(found.stdout.strip().splitlines()[-1])
    assert (young, older) == (700, 10)
    assert full == FULL_COLLECTION_AFTER == 1000
    # Django and the content, loaded at start, are out of every walk.
    assert frozen > 50_000
