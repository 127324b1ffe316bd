"""The lab pages and the form fallback that works without websockets or JavaScript."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from simulators.lab import LabSession, list_tickets
from studysite.lab import store
from studysite.lab.models import LoggedCommand, SavedLab
from studysite.lab.saved import OVERDUE, SNAPSHOT_EVERY, fold_spread, restore

pytestmark = pytest.mark.django_db


def test_the_ticket_list_shows_every_ticket_and_progress(client: Client) -> None:
    body = client.get("/lab/").content.decode()
    for ticket in list_tickets():
        assert f'href="/lab/{ticket.id}/"' in body
    assert body.count("Not started") == len(list_tickets())


def test_the_ticket_list_shows_the_node_pool_ticket_with_its_summary_skills_and_time(
    client: Client,
) -> None:
    body = client.get("/lab/").content.decode()
    assert "A workspace asks for the L40S node pool, where its project has no quota" in body
    assert "<li>Node pools and per-pool quotas</li>" in body
    assert "about 15 minutes" in body
    guide = client.get("/guide/lab/").content.decode()
    assert "Eighteen tickets" in guide and 'href="/lab/node-pool-quota/"' in guide


def test_a_ticket_page_has_story_terminal_checklist_hints_and_a_hidden_answer_key(
    client: Client,
) -> None:
    response = client.get("/lab/mig-single/")
    body = response.content.decode()
    assert response.status_code == 200
    assert "1g.10gb slices" in body
    assert 'data-socket="/ws/lab/mig-single/"' in body
    assert "gpu-node2 takes new workloads again" in body
    assert "0 of 4 done" in body
    assert '<details class="answer-key">' in body
    assert "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite" in body
    assert "{pod:" not in body, "answer-key placeholders are filled in"


def test_the_lab_script_carries_the_csp_nonce_that_the_header_names(client: Client) -> None:
    response = client.get("/lab/mig-single/")
    nonce = response["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
    assert f'src="/static/js/lab.js" nonce="{nonce}"' in response.content.decode()


def test_an_unknown_ticket_is_a_404(client: Client) -> None:
    assert client.get("/lab/nope/").status_code == 404
    assert client.post("/lab/nope/command", {"line": "ls"}).status_code == 404


def test_the_form_fallback_runs_a_command_and_keeps_it(client: Client) -> None:
    client.get("/lab/mig-single/")
    response = client.post("/lab/mig-single/command", {"line": "kubectl cordon gpu-node2"})
    assert response.status_code == 302
    assert response["Location"] == "/lab/mig-single/#transcript"
    body = client.get("/lab/mig-single/").content.decode()
    assert "admin@kadmin:~$ kubectl cordon gpu-node2" in body
    assert "node/gpu-node2 cordoned" in body


def test_the_htmx_fallback_returns_the_new_transcript_entry_and_checklist(client: Client) -> None:
    response = client.post(
        "/lab/mig-single/command", {"line": "kubectl get nodes"}, headers={"HX-Request": "true"}
    )
    body = response.content.decode()
    assert "<html" not in body
    assert "admin@kadmin:~$ kubectl get nodes" in body and "gpu-node3" in body
    assert (
        'id="checklist-panel" class="checklist-panel" aria-labelledby="checklist-heading" '
        'hx-swap-oob="true"' in body
    )


def test_a_mistake_gets_the_real_tools_answer(client: Client) -> None:
    response = client.post(
        "/lab/mig-single/command", {"line": "emacs"}, headers={"HX-Request": "true"}
    )
    assert "bash: emacs: command not found" in response.content.decode()


def test_a_line_over_4_kib_gets_one_line_and_nothing_breaks(client: Client) -> None:
    response = client.post(
        "/lab/mig-single/command", {"line": "x" * 5000}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert "bash: line too long (over 4096 bytes)" in response.content.decode()


def test_reset_asks_first_then_starts_over(client: Client) -> None:
    client.post("/lab/mig-single/command", {"line": "kubectl cordon gpu-node2"})
    confirm = client.get("/lab/mig-single/reset").content.decode()
    assert "Yes, reset this ticket" in confirm
    assert "kubectl cordon gpu-node2" in client.get("/lab/mig-single/").content.decode()
    client.post("/lab/mig-single/reset")
    assert "node/gpu-node2 cordoned" not in client.get("/lab/mig-single/").content.decode()


def test_exam_mode_hides_the_hints_and_is_remembered(client: Client) -> None:
    client.post("/lab/mig-single/exam", {"exam": "1"})
    body = client.get("/lab/mig-single/").content.decode()
    assert "Exam mode: no hints, no Tab completion." in body
    assert "Hint 1" not in body and 'data-exam="1"' in body
    assert SavedLab.objects.get(ticket="mig-single").exam_mode is True


def test_progress_shows_on_the_ticket_list(client: Client) -> None:
    client.post("/lab/mig-single/command", {"line": "kubectl get nodes"})
    body = client.get("/lab/").content.decode()
    assert "0 of 4 checklist items done" in body


def test_a_long_session_is_kept_as_snapshot_plus_log_and_comes_back_exactly(
    client: Client, settings: Any
) -> None:
    # A hundred commands in a few seconds, under coverage on a busy machine, would meet the
    # per-client and per-session CPU budgets (tested on their own); here every command counts.
    settings.EXPENSIVE_CPU_SECONDS_PER_MINUTE = 10_000
    settings.LAB_SESSION_CPU_MS_PER_SECOND = 1_000_000
    lines = ["kubectl get nodes", "kubectl cordon gpu-node2", "hint", "kubectl uncordon gpu-node2"]
    typed = [lines[i % len(lines)] for i in range(SNAPSHOT_EVERY * 3 + 3)]
    for line in typed:
        assert client.post("/lab/mig-single/command", {"line": line}).status_code == 302
    saved = SavedLab.objects.get(ticket="mig-single")
    logged = LoggedCommand.objects.filter(lab=saved).count()
    snapshot = LabSession.from_json(saved.snapshot.data())
    # The snapshot is rewritten at least every SNAPSHOT_EVERY commands, give or take this lab's
    # spread (sooner when replaying the log would cost too much); snapshot plus log are every
    # line typed, in order.
    assert logged < SNAPSHOT_EVERY * fold_spread(saved.pk)
    assert len(snapshot.transcript) > 0
    assert len(snapshot.transcript) + logged == len(typed)
    restored, _ = restore(saved)
    assert [entry.line for entry in restored.transcript] == typed


def test_the_guides_lab_section_links_every_ticket(client: Client) -> None:
    body = client.get("/guide/lab/").content.decode()
    for ticket in list_tickets():
        assert f'href="/lab/{ticket.id}/"' in body


@pytest.mark.parametrize("ticket", [ticket.id for ticket in list_tickets()])
def test_every_ticket_can_be_solved_through_the_web_with_its_answer_key(
    client: Client, ticket: str
) -> None:
    client.get(f"/lab/{ticket}/")
    # Not saved until its first command: the page showed the lab peek_lab gives.
    for line in store.peek_lab(client.session.session_key, ticket).lab.answer_key():
        client.post(f"/lab/{ticket}/command", {"line": line})
    page = client.get(f"/lab/{ticket}/").content.decode()
    total = len(restore(SavedLab.objects.get(ticket=ticket))[0].checklist())
    assert f"{total} of {total} done" in page
    solved = f"1 of {len(list_tickets())} lab tickets solved"
    assert solved in client.get("/progress/").content.decode()


def test_a_nul_character_in_a_command_is_dropped_as_a_terminal_would(client: Client) -> None:
    client.get("/lab/mig-single/")
    response = client.post("/lab/mig-single/command", {"line": "kubectl get no\x00des"})
    assert response.status_code in (200, 302)
    saved = SavedLab.objects.get(ticket="mig-single")
    restored, _ = restore(saved)
    assert restored.transcript[-1].line == "kubectl get nodes"
    assert "gpu-node1" in restored.transcript[-1].output


def test_a_line_long_only_by_its_nul_characters_runs_and_is_not_refused(
    client: Client, settings: Any
) -> None:
    client.get("/lab/mig-single/")
    line = "kubectl get nodes" + "\x00" * settings.LAB_MAX_LINE_BYTES
    response = client.post("/lab/mig-single/command", {"line": line}, follow=True)
    assert "command-refused" not in response.content.decode()
    restored, _ = restore(SavedLab.objects.get(ticket="mig-single"))
    assert restored.transcript[-1].line == "kubectl get nodes"


def test_a_form_command_the_lab_does_not_keep_says_why_on_the_page(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    client.get("/lab/mig-single/")
    monkeypatch.setattr(store.cpu_share, "allows", lambda key, now: False)
    response = client.post("/lab/mig-single/command", {"line": "kubectl get nodes"}, follow=True)
    body = response.content.decode()
    assert 'role="alert" id="command-refused"' in body
    assert "your recent commands used a lot of processor time" in body
    # Said once: the next page is as before.
    assert "command-refused" not in client.get("/lab/mig-single/").content.decode()


def test_a_log_its_caller_never_folds_is_folded_by_a_command_at_twice_the_limits(
    settings: Any,
) -> None:
    settings.LAB_SESSION_CPU_MS_PER_SECOND = 1_000_000
    opened = store.open_lab("f" * 32, "mig-single")
    typed = ["kubectl get nodes"] * (SNAPSHOT_EVERY * 4)
    most = 0
    for line in typed:
        store.apply(opened, line)
        most = max(most, LoggedCommand.objects.filter(lab_id=opened.saved_id).count())
    assert most < SNAPSHOT_EVERY * fold_spread(opened.saved_id) * OVERDUE
    saved = SavedLab.objects.get(pk=opened.saved_id)
    restored, logged = restore(saved)
    assert logged == LoggedCommand.objects.filter(lab_id=opened.saved_id).count()
    assert [entry.line for entry in restored.transcript] == typed


def test_a_fold_after_another_writer_saved_is_skipped_without_encoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened = store.open_lab("9" * 32, "mig-single")
    store.apply(opened, "kubectl cordon gpu-node2")
    opened.moved(logged=SNAPSHOT_EVERY * 2)  # due
    # Another writer (the annex, another process) saves a command: this copy is behind.
    SavedLab.objects.filter(pk=opened.saved_id).update(next_position=opened.version + 1)
    encoded: list[object] = []
    monkeypatch.setattr(store.Snapshot, "of", lambda lab: encoded.append(lab))
    assert store.fold(opened) is False
    assert encoded == []
    assert LoggedCommand.objects.filter(lab_id=opened.saved_id).count() == 1


def test_labs_opened_together_fold_their_snapshots_at_different_commands() -> None:
    # A class that starts a ticket together would otherwise rewrite every snapshot at once.
    spreads = [fold_spread(lab_id) for lab_id in range(1, 301)]
    assert all(0.5 <= spread < 1.5 for spread in spreads)
    folds_at = sorted(int(SNAPSHOT_EVERY * spread) for spread in spreads)
    busiest = max(folds_at.count(command) for command in set(folds_at))
    assert busiest <= 300 // SNAPSHOT_EVERY + 2
