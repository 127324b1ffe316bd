"""The lab part of a progress export (issue 30): nine tickets opened, three solved by their
answer keys, six with one command each. Prints the part's size as the labs' whole states
(before: every lab's cluster, 300 KB each) beside their seeds and typed lines (now), and the
processor time an import spends replaying them. Goal: the export at most 200 KB. Prints, never
asserts.

    .venv/bin/python -m tests.benchmarks.bench_export
"""

from __future__ import annotations

import json
import os
import time


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studysite.settings")
    import django

    django.setup()
    from simulators.lab import LabSession, list_tickets, load_ticket
    from studysite.lab.progress import exported, replayed

    tickets = [summary.id for summary in list_tickets()][:9]
    solved = ("mig-single", "mig-mixed", "pending-workspace")
    labs: list[tuple[str, LabSession]] = []
    for ticket in tickets:
        lab = LabSession.new(ticket, seed=1)
        if ticket in solved:
            for index in range(len(load_ticket(ticket).answer_key)):
                lab.run(lab.answer_key()[index])
        else:
            lab.run("kubectl get pods -A")
        labs.append((ticket, lab))
    whole = [{"ticket": t, "exam_mode": False, "state": lab.to_json()} for t, lab in labs]
    typed = [exported(t, False, lab) for t, lab in labs]
    whole_bytes, typed_bytes = len(json.dumps(whole)), len(json.dumps(typed))
    started = time.process_time()
    for entry in typed:
        replayed(entry["ticket"], json.loads(json.dumps(entry)))
    replay_ms = (time.process_time() - started) * 1000
    print(f"labs: {len(labs)} ({len(solved)} solved by their answer keys)")
    print(f"lab part as whole states (before): {whole_bytes:>10,} bytes")
    print(f"lab part as seed + typed lines:    {typed_bytes:>10,} bytes (goal <= 204,800)")
    print(f"import replay of all labs: {replay_ms:.0f} ms of CPU")


if __name__ == "__main__":
    main()
