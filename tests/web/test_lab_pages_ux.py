"""The lab pages as a learner meets them: the index, goals not fixes, exam mode, solving, login."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import yaml
from django.http import HttpResponse
from django.test import Client

from simulators.lab import LabError, list_tickets, load_ticket
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
FIX_WORDS = (
    "kubectl",
    "runai ",
    "label",
    "cordon",
    "delete",
    "suspend",
    "mig.config",
    "nvidia.com/",
)


def words(response: HttpResponse) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def test_the_lab_index_shows_each_tickets_summary_skills_and_time(client: Client) -> None:
    body = words(client.get("/lab/"))
    for summary in list_tickets():
        ticket = load_ticket(summary.id)
        assert ticket.summary and ticket.skills and ticket.minutes
        assert ticket.summary in body
        assert f"Estimated time about {ticket.minutes} minutes" in body
        assert "Skills " + " ".join(ticket.skills) in body


@pytest.mark.parametrize("ticket_id", [ticket.id for ticket in list_tickets()])
def test_checklist_items_state_the_goal_not_the_fix(ticket_id: str) -> None:
    for item in load_ticket(ticket_id).checklist:
        assert not any(word in item.text for word in FIX_WORDS), item.text


def test_exam_mode_hides_the_answer_key(client: Client) -> None:
    assert "Answer key for this ticket" in client.get("/lab/mig-single/").content.decode()
    client.post("/lab/mig-single/exam", {"exam": "1"})
    body = words(client.get("/lab/mig-single/"))
    assert "Answer key for this ticket" not in body
    assert "The answer key is hidden too." in body
    assert load_ticket("mig-single").answer_key[0] not in body


def test_a_solved_ticket_celebrates_and_offers_the_next_one(client: Client) -> None:
    ticket = load_ticket("pending-workspace")
    page = client.get("/lab/pending-workspace/").content.decode()
    assert re.search(r"data-solved-panel hidden", page)
    for line in ticket.answer_key:
        response = client.post("/lab/pending-workspace/command", {"line": line}, headers=HTMX)
    partial = response.content.decode()
    assert "Ticket solved!" in partial and "data-solved-panel hidden" not in partial
    following = list_tickets()[[t.id for t in list_tickets()].index(ticket.id) + 1]
    assert f'href="/lab/{following.id}/">Next ticket: {html.escape(following.title)}' in partial
    assert "data-solved-panel hidden" not in client.get("/lab/pending-workspace/").content.decode()


def test_the_last_ticket_solved_points_back_to_all_tickets(client: Client) -> None:
    last = list_tickets()[-1]
    body = client.get(f"/lab/{last.id}/").content.decode()
    assert "That was the last ticket." in body and "Next ticket:" not in body


def test_the_not_logged_in_notice_goes_away_after_runai_login(client: Client) -> None:
    page = client.get("/lab/validate-runai/").content.decode()
    assert re.search(r'id="login-note" class="login-note" data-login-note>', page)
    partial = client.post(
        "/lab/validate-runai/command", {"line": "runai login"}, headers=HTMX
    ).content.decode()
    assert re.search(r'id="login-note"[^>]*hx-swap-oob="true" hidden', partial)
    assert re.search(r"data-login-note hidden", client.get("/lab/validate-runai/").content.decode())
    client.post("/lab/validate-runai/command", {"line": "runai logout"})
    assert not re.search(
        r"data-login-note hidden", client.get("/lab/validate-runai/").content.decode()
    )


def test_a_logged_in_ticket_shows_no_login_notice(client: Client) -> None:
    assert "data-login-note hidden" in client.get("/lab/mig-single/").content.decode()


def test_the_transcript_is_marked_to_collapse_on_a_phone(client: Client) -> None:
    body = client.get("/lab/mig-single/").content.decode()
    assert '<details id="transcript" class="transcript" open data-collapse-on-phone>' in body


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("skills", "MIG", "skills must be a list of text"), ("minutes", "ten", "minutes must be")],
)
def test_a_ticket_with_malformed_index_fields_is_refused(
    tmp_path: Path, field: str, value: str, message: str
) -> None:
    source = yaml.safe_load((REPO_ROOT / "content/tickets/mig-single.yaml").read_text())
    source[field] = value
    (tmp_path / "tickets").mkdir()
    (tmp_path / "tickets/mig-single.yaml").write_text(yaml.safe_dump(source))
    with pytest.raises(LabError, match=message):
        load_ticket("mig-single", tmp_path)
