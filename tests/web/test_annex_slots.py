"""The idle cores the annexes of a site's web processes share (studysite.lab.annex.idle_slots).

Two web processes each start an annex; with both running the heaviest sessions' work, the quiet
learners' tail rose (docs/performance.md, round 54). An annex's idle work runs only in a slot,
and the slots are the machine's, not the process's.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.conf import settings

from studysite.lab import annex
from studysite.lab.process_lock import Slots

# Another process: takes a slot of STEM (argv[1], count argv[2]), says so, holds it until its
# stdin closes.
HOLDER = r"""
import sys
from studysite.lab.process_lock import Slots
with Slots(sys.argv[1], int(sys.argv[2])).held():
    print("holding", flush=True)
    sys.stdin.read()
"""
REPO = Path(__file__).resolve().parents[2]


def holder(stem: str, count: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, stem, str(count)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "holding"
    return process


def taken_within(slots: Slots, seconds: float) -> bool:
    """Whether this process gets a slot within `seconds` (the attempt goes on in a thread)."""
    got = threading.Event()

    def take() -> None:
        with slots.held():
            got.set()

    threading.Thread(target=take, daemon=True).start()
    return got.wait(seconds)


def test_an_annex_waits_for_the_one_slot_another_process_holds_and_gets_it_once_freed(
    tmp_path: Path,
) -> None:
    stem = str(tmp_path / "db.sqlite3.annex")
    other = holder(stem, 1)
    try:
        slots = Slots(stem, 1)
        start = time.monotonic()
        assert not taken_within(slots, 0.3)
        assert other.stdin is not None
        other.stdin.close()
        other.wait(timeout=10)
        assert taken_within(slots, 5)
        assert time.monotonic() - start < 10
    finally:
        other.kill()


def test_with_two_slots_a_second_process_runs_beside_the_first(tmp_path: Path) -> None:
    stem = str(tmp_path / "db.sqlite3.annex")
    other = holder(stem, 2)
    try:
        assert taken_within(Slots(stem, 2), 2)
    finally:
        other.kill()


def test_the_annexes_idle_work_waits_for_a_slot_another_annex_holds(tmp_path: Path) -> None:
    stem = str(tmp_path / "db.sqlite3.annex")
    other = holder(stem, 1)
    ran = threading.Event()
    with ThreadPoolExecutor(1) as idle:
        runner = annex.IdleRunner(idle, Slots(stem, 1))
        threading.Thread(target=runner, args=(ran.set,), daemon=True).start()
        try:
            assert not ran.wait(0.3)
        finally:
            other.kill()
        assert ran.wait(5)


def test_the_annexes_of_one_sites_web_processes_share_half_the_machines_cores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / "db.sqlite3"
    monkeypatch.setitem(settings.DATABASES["default"], "NAME", str(database))
    monkeypatch.setitem(settings.DATABASES["default"], "ENGINE", "django.db.backends.sqlite3")
    monkeypatch.setattr(annex.os, "cpu_count", lambda: 2)
    first, second = annex.idle_slots(), annex.idle_slots()
    assert first.paths == second.paths == [f"{database}.annex.0"]
    monkeypatch.setattr(annex.os, "cpu_count", lambda: 8)
    assert len(annex.idle_slots().paths) == 4
