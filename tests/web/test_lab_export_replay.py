"""A lab travels as what the learner did: its ticket, seed and typed lines (issue 30).

Nine labs opened and three solved (with answer keys that replace many of the cluster's objects)
export in at most 200 KB, and import into a fresh browser with every lab where it was:
transcript, checklist and cluster equal to the originals."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from django.conf import LazySettings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from simulators.lab import LabSession, list_tickets, load_ticket
from studysite.lab import store
from studysite.lab.models import SavedLab
from studysite.lab.progress import exported, replayed
from studysite.study.progress import MAX_FILE_BYTES

pytestmark = pytest.mark.django_db

SOLVED = ("mig-single", "mig-mixed", "pending-workspace")
EXPORT_LIMIT = 200 * 1024


@pytest.fixture
def generous(settings: LazySettings) -> None:
    # Answer keys typed back to back: past a learner's pace, not past a command's budget.
    settings.EXPENSIVE_CPU_SECONDS_PER_MINUTE = 10_000
    settings.LAB_SESSION_CPU_MS_PER_SECOND = 100_000


def nine_labs(client: Client) -> list[str]:
    """Nine tickets opened, three of them solved by their answer keys, through the form."""
    tickets = [ticket.id for ticket in list_tickets()][:9]
    assert set(SOLVED) <= set(tickets)
    for ticket in tickets:
        client.get(f"/lab/{ticket}/")
        count = len(load_ticket(ticket).answer_key) if ticket in SOLVED else 1
        for index in range(count):
            # Pod names filled in as the world is now (a drain renames them).
            lab = store.peek_lab(client.session.session_key, ticket).lab
            line = lab.answer_key()[index] if ticket in SOLVED else "kubectl get pods -A"
            assert client.post(f"/lab/{ticket}/command", {"line": line}).status_code == 302
    return tickets


def as_seen(session_key: str) -> dict[str, Any]:
    """Every lab of the session as a learner sees it: transcript, checklist, cluster."""
    return {
        row.ticket: {
            "transcript": [(e.line, e.output, e.step) for e in lab.transcript],
            "checklist": [(item.id, item.done) for item in lab.checklist()],
            "cluster": lab.world.to_json(),
            "history": lab.history,
        }
        for row, lab in store.saved_labs(session_key)
    }


def test_nine_labs_three_solved_export_small_and_import_into_a_fresh_browser_equal(
    client: Client, generous: None
) -> None:
    tickets = nine_labs(client)
    before = as_seen(client.session.session_key)
    assert all(all(done for _, done in before[ticket]["checklist"]) for ticket in SOLVED)
    raw = client.get("/progress/export").content
    assert len(raw) <= EXPORT_LIMIT, f"the export is {len(raw):,} bytes"
    assert "{pod:" not in raw.decode()
    labs = json.loads(raw)["parts"]["lab"]
    assert sorted(entry["ticket"] for entry in labs) == sorted(tickets)
    assert all("typed" in entry and "state" not in entry for entry in labs)
    store.kept.clear()
    fresh = Client()
    fresh.get("/")
    response = fresh.post("/progress/import", {"file": SimpleUploadedFile("p.json", raw)})
    assert response.status_code == 302, response.content.decode()[:500]
    store.kept.clear()  # as another process sees them: from the database
    after = as_seen(fresh.session.session_key)
    assert sorted(after) == sorted(before)
    for ticket in tickets:
        assert after[ticket] == before[ticket], ticket
    # And the imported labs carry on: the next command runs on the same cluster.
    fresh.post("/lab/mig-single/command", {"line": "kubectl get nodes -L nvidia.com/mig.config"})
    page = fresh.get("/lab/mig-single/").content.decode()
    assert "all-1g.10gb" in page


def test_replaying_each_tickets_answer_key_from_its_seed_and_lines_equals_the_live_lab() -> None:
    for summary in list_tickets():
        ticket = load_ticket(summary.id)
        live = LabSession.new(ticket.id, seed=2)
        for index in range(len(ticket.answer_key)):
            live.run(live.answer_key()[index])
        entry = exported(ticket.id, False, live)
        assert "typed" in entry, ticket.id
        again = replayed(ticket.id, json.loads(json.dumps(entry)))
        assert again.world.to_json() == live.world.to_json(), ticket.id
        assert [e.output for e in again.transcript] == [e.output for e in live.transcript]
        assert again.checklist() == live.checklist(), ticket.id


def test_a_lab_whose_command_ran_out_of_its_budget_travels_whole(settings: LazySettings) -> None:
    from simulators.lab import budget

    lab = LabSession.new("mig-single", seed=1)
    lab.run("kubectl get nodes")
    tight = budget.Limits(cpu_seconds=0.000_001, output_bytes=1 << 20, line_bytes=1 << 16)
    with budget.metered(budget.Meter(tight)):
        lab.run("kubectl get pods -A -o yaml")
    entry = exported("mig-single", False, lab)
    assert "typed" not in entry and entry["state"]["ticket_id"] == "mig-single"


def test_an_import_over_the_limit_says_both_sizes_and_changes_nothing(
    client: Client, generous: None
) -> None:
    client.post("/lab/mig-single/command", {"line": "kubectl cordon gpu-node2"})
    document = json.loads(client.get("/progress/export").content)
    document["padding"] = "x" * MAX_FILE_BYTES
    raw = json.dumps(document).encode()
    response = client.post("/progress/import", {"file": SimpleUploadedFile("p.json", raw)})
    body = response.content.decode()
    assert f"{len(raw):,} bytes" in body and f"{MAX_FILE_BYTES:,} bytes" in body
    assert "Nothing was imported." in body
    assert SavedLab.objects.count() == 1
    assert "node/gpu-node2 cordoned" in client.get("/lab/mig-single/").content.decode()


def test_an_imported_line_list_that_is_not_lines_is_refused_as_damaged(client: Client) -> None:
    client.post("/lab/mig-single/command", {"line": "kubectl cordon gpu-node2"})
    document = json.loads(client.get("/progress/export").content)
    document["parts"]["lab"][0]["typed"] = [["kubectl get nodes", "yes"]]
    raw = json.dumps(document).encode()
    body = client.post("/progress/import", {"file": SimpleUploadedFile("p.json", raw)})
    assert "The saved lab for ticket mig-single in that file is damaged." in body.content.decode()
    assert "node/gpu-node2 cordoned" in client.get("/lab/mig-single/").content.decode()


def test_a_file_whose_labs_take_too_long_to_replay_is_refused_and_changes_nothing(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studysite.lab import progress as lab_progress

    client.post("/lab/mig-single/command", {"line": "kubectl cordon gpu-node2"})
    raw = client.get("/progress/export").content
    monkeypatch.setattr(lab_progress, "MAX_IMPORT_REPLAY_SECONDS", 0.0)
    body = client.post("/progress/import", {"file": SimpleUploadedFile("p.json", raw)})
    assert "The saved lab for mig-single takes more than the lab's budget to replay." in (
        html.unescape(body.content.decode())
    )
    assert SavedLab.objects.count() == 1
    assert "node/gpu-node2 cordoned" in client.get("/lab/mig-single/").content.decode()


def test_an_editors_save_a_streams_steps_and_a_here_document_replay_from_the_typed_lines() -> None:
    from simulators.lab import editor, streams
    from simulators.lab.session import INTERRUPT

    live = LabSession.new("image-pull", seed=3)
    opened = live.run("vi notes.txt").editor
    assert opened is not None
    live.run(editor.save_line(opened.token, "kept across the export\n"))
    watch = live.run("kubectl get pods -A -w").stream
    assert watch is not None
    for _ in range(3):
        live.run(streams.step_line(watch))
    live.run("cat <<EOF > more.txt")
    live.run("a line")
    live.run("EOF")
    live.run("echo 'unfinished")
    live.run(INTERRUPT)
    live.run("hint", hints=False)
    entry = json.loads(json.dumps(exported("image-pull", True, live)))
    again = replayed("image-pull", entry)
    assert again.world.to_json() == live.world.to_json()
    assert [(e.line, e.output) for e in again.transcript] == [
        (e.line, e.output) for e in live.transcript
    ]
    assert again.history == live.history and again.prompt == live.prompt
    assert "kept across the export" in again.run("cat notes.txt").output
