"""Why a lab's snapshot has its own table: a command's one-writer update, side by side.

Every command runs `UPDATE lab_savedlab SET next_position = next_position + 1, ...` and
appends one log row, in one transaction, on SQLite as the site sets it (WAL,
synchronous=NORMAL). SQLite rewrites a whole row on update, so with the snapshot (the
`mig-single` lab's, about 260 KB of JSON) in that row, each command rewrote it. Prints the
processor time per command for both layouts and their ratio. Prints, never asserts.

    .venv/bin/python -m tests.benchmarks.bench_snapshot_row [--commands 3000]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path

from simulators.lab import LabSession

LABS = 300
COLUMNS = "next_position int, replay_cost real, done_items int, total_items int"


def per_command_ms(db: sqlite3.Connection, table: str, commands: int) -> float:
    started = time.process_time()
    for n in range(commands):
        db.execute("BEGIN IMMEDIATE")
        db.execute(
            f"UPDATE {table} SET next_position = next_position + 1, replay_cost = ?,"
            " done_items = ?, total_items = ? WHERE id = ?",
            (0.01, 1, 4, n % LABS),
        )
        db.execute("INSERT INTO log VALUES (?, ?, 'kubectl get nodes', 1)", (n % LABS, n))
        db.execute("COMMIT")
    return (time.process_time() - started) / commands * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=3000)
    args = parser.parse_args()
    state = json.dumps(LabSession.new("mig-single", seed=1).to_json())
    with tempfile.TemporaryDirectory() as folder:
        db = sqlite3.connect(Path(folder) / "bench.sqlite3", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"CREATE TABLE in_row (id integer primary key, state text, {COLUMNS})")
        db.execute(f"CREATE TABLE apart (id integer primary key, {COLUMNS})")
        db.execute("CREATE TABLE log (lab_id int, position int, line text, hints int)")
        for lab in range(LABS):
            db.execute("INSERT INTO in_row VALUES (?, ?, 0, 0, 0, 4)", (lab, state))
            db.execute("INSERT INTO apart VALUES (?, 0, 0, 0, 4)", (lab,))
        print(f"snapshot of {len(state) / 1024:.0f} KiB, {LABS} labs, {args.commands} commands")
        for _ in range(3):
            in_row = per_command_ms(db, "in_row", args.commands)
            apart = per_command_ms(db, "apart", args.commands)
            print(
                f"snapshot in the row: {in_row:.3f} ms   in its own table: {apart:.3f} ms"
                f"   ratio {in_row / apart:.1f}"
            )
        db.close()


if __name__ == "__main__":
    main()
