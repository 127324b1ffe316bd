"""The lab exam: five tickets on one clock, no hints, scored by their checklists at the end."""

from __future__ import annotations

import asyncio
import io
import json
import re
from datetime import timedelta

import pytest
from django.conf import LazySettings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from django.utils.html import escape

from simulators.lab import list_tickets, load_ticket
from studysite.lab import exam, store
from studysite.lab.models import ExamAttempt, SavedLab

pytestmark = pytest.mark.django_db

# The quickest tickets to solve by their answer keys, and three more for a pool of five.
QUICK = ["department-cap", "pending-workspace"]
POOL = [*QUICK, "inference-priority", "node-pool-quota", "gang-fragmentation"]


@pytest.fixture
def quick_pool(settings: LazySettings) -> None:
    settings.LAB_EXAM_TICKETS = POOL


def start(client: Client, minutes: str = "") -> ExamAttempt:
    response = client.post("/lab/exam/", {"minutes": minutes})
    attempt = ExamAttempt.objects.filter(session_key=client.session.session_key).first()
    assert attempt is not None
    assert response["Location"] == f"/lab/exam/{attempt.pk}/1/"
    return attempt


def position_of(attempt: ExamAttempt, ticket: str) -> int:
    return int(attempt.tasks.get(ticket=ticket).position)


def solve(client: Client, attempt: ExamAttempt, ticket: str) -> list[str]:
    """Type the task's answer key through the form (each line resolved in its world as it is
    then); returns the lines typed."""
    position = position_of(attempt, ticket)
    typed = []
    for index in range(len(load_ticket(ticket).answer_key)):
        lab = store.open_lab(exam.lab_key(attempt, position), ticket).lab
        line = lab.answer_key()[index]
        client.post(f"/lab/exam/{attempt.pk}/{position}/command", {"line": line})
        typed.append(line)
    return typed


def report_of(client: Client, attempt: ExamAttempt) -> str:
    return client.get(f"/lab/exam/{attempt.pk}/report").content.decode()


def section(report: str, ticket: str) -> str:
    """The report's section of one ticket."""
    title = escape(load_ticket(ticket).title)
    start = report.index(f": {title} — ")
    end = report.find('<section class="exam-task-report"', start)
    return report[start : end if end >= 0 else len(report)]


def test_an_attempt_draws_five_distinct_tickets_on_one_clock(client: Client) -> None:
    before = timezone.now()
    attempt = start(client)
    tickets = list(attempt.tasks.values_list("ticket", flat=True))
    assert len(tickets) == len(set(tickets)) == min(5, len(list_tickets()))
    assert set(tickets) <= {ticket.id for ticket in list_tickets()}
    assert attempt.deadline - attempt.started == timedelta(minutes=60)
    assert attempt.started >= before
    # Each task has a lab of its own, apart from the learner's practice labs.
    assert SavedLab.objects.filter(session_key__startswith="exam-").count() == len(tickets)
    assert not SavedLab.objects.filter(session_key=client.session.session_key).exists()


def test_the_clock_is_the_setting_or_the_learners_own(
    client: Client, settings: LazySettings
) -> None:
    settings.LAB_EXAM_MINUTES = 90
    assert 'value="90"' in client.get("/lab/exam/").content.decode()
    first = start(client)
    assert first.deadline - first.started == timedelta(minutes=90)
    second = start(client, "2.5")
    assert second.deadline - second.started == timedelta(minutes=2.5)
    response = client.post("/lab/exam/", {"minutes": "0"}, follow=True)
    assert "The exam&#x27;s length must be 0.25 to 600 minutes." in response.content.decode()
    assert ExamAttempt.objects.count() == 2


def test_a_task_shows_its_goals_and_never_its_hints_answer_key_or_checks(
    client: Client, quick_pool: None
) -> None:
    attempt = start(client)
    for task in attempt.tasks.all():
        ticket = load_ticket(task.ticket)
        page = client.get(f"/lab/exam/{attempt.pk}/{task.position}/").content.decode()
        assert escape(ticket.title) in page
        for item in ticket.checklist:
            assert escape(item.text) in page
        for hint in ticket.hints:
            assert escape(hint) not in page and hint not in page
        assert "Answer key" not in page and "answer-key" not in page
        for step in ticket.answer_key:
            if len(step) > 30:
                assert escape(step) not in page and step not in page
        assert "data-item=" not in page and "of 3 done" not in page
        assert 'data-exam="1"' in page
        assert f'data-socket="/ws/lab/exam/{attempt.pk}/{task.position}/"' in page
        # Every form that posts carries its CSRF token.
        assert page.count('method="post"') == page.count("csrfmiddlewaretoken") == 2
        # Free movement: every task is a link.
        for other in attempt.tasks.all():
            assert f'href="/lab/exam/{attempt.pk}/{other.position}/"' in page


def test_hints_are_off_in_an_exam_task(client: Client, quick_pool: None) -> None:
    attempt = start(client)
    client.post(f"/lab/exam/{attempt.pk}/1/command", {"line": "hint"})
    page = client.get(f"/lab/exam/{attempt.pk}/1/").content.decode()
    assert "hint: hints are off in exam mode" in page
    # The form's htmx answer is the transcript entry alone: no checklist swapped in.
    partial = client.post(
        f"/lab/exam/{attempt.pk}/1/command", {"line": "hint"}, headers={"HX-Request": "true"}
    ).content.decode()
    assert "hint: hints are off in exam mode" in partial
    assert "checklist" not in partial and "<html" not in partial


def test_another_browser_cannot_see_or_drive_an_attempt(client: Client) -> None:
    attempt = start(client)
    stranger = Client()
    stranger.get("/lab/")
    assert stranger.get(f"/lab/exam/{attempt.pk}/1/").status_code == 404
    response = stranger.post(f"/lab/exam/{attempt.pk}/1/command", {"line": "kubectl get nodes"})
    assert response.status_code == 404
    assert stranger.post(f"/lab/exam/{attempt.pk}/finish").status_code == 404
    assert stranger.get(f"/lab/exam/{attempt.pk}/report").status_code == 404


def test_two_tasks_solved_through_the_form_score_two_of_five_with_each_checks_finding(
    client: Client, quick_pool: None
) -> None:
    attempt = start(client)
    typed = {ticket: solve(client, attempt, ticket) for ticket in QUICK}
    client.post(
        f"/lab/exam/{attempt.pk}/{position_of(attempt, 'inference-priority')}/command",
        {"line": "runai project list"},
    )
    response = client.post(f"/lab/exam/{attempt.pk}/finish")
    assert response["Location"] == f"/lab/exam/{attempt.pk}/report"
    report = report_of(client, attempt)
    assert "2 of 5 tasks solved" in report
    for ticket in POOL:
        part = section(report, ticket)
        solved = ticket in QUICK
        assert (" — solved" if solved else " — not solved") in part
        for item in load_ticket(ticket).checklist:
            finding = "done" if solved else "not done"
            assert f'{escape(item.text)}: <strong class="check-finding">{finding}</strong>' in part
        # The model answer: the ticket's answer key.
        assert "Model answer" in part
        assert escape(load_ticket(ticket).answer_key[0]) in part
    for ticket, lines in typed.items():
        part = section(report, ticket)
        assert f"Your commands ({len(lines)})" in part
        assert re.search(r"Time spent \(first to last command\): \d+ (min \d\d )?s", part)
    assert "<code>runai project list</code>" in section(report, "inference-priority")
    # The labs go once scored; the report stays.
    assert not SavedLab.objects.filter(session_key__startswith="exam-").exists()
    assert "2 of 5 tasks solved" in report_of(client, attempt)
    listing = client.get("/lab/exam/").content.decode()
    assert "2 of 5 tasks solved" in listing


def test_a_late_finish_is_scored_as_of_the_deadline(client: Client, quick_pool: None) -> None:
    attempt = start(client)
    solve(client, attempt, "department-cap")
    ExamAttempt.objects.filter(pk=attempt.pk).update(
        deadline=timezone.now() - exam.GRACE - timedelta(seconds=1)
    )
    # Sent after the deadline and its grace: not run, and the form says why.
    position = position_of(attempt, "pending-workspace")
    response = client.post(
        f"/lab/exam/{attempt.pk}/{position}/command",
        {"line": "runai workspace delete nb-alice -p team-vision"},
        follow=True,
    )
    assert exam.TIME_UP in response.content.decode()
    late = client.post(
        f"/lab/exam/{attempt.pk}/{position}/command",
        {"line": "runai workspace list -p team-vision"},
        headers={"HX-Request": "true"},
    )
    assert exam.TIME_UP in late.content.decode() and late.status_code == 200
    # The page finished the exam: a finish now changes nothing.
    client.post(f"/lab/exam/{attempt.pk}/finish")
    report = report_of(client, attempt)
    assert "1 of 5 tasks solved" in report
    assert " — not solved" in section(report, "pending-workspace")
    assert "nb-alice" not in section(report, "pending-workspace").split("Model answer")[0]
    attempt.refresh_from_db()
    assert attempt.finished == attempt.deadline


def test_a_task_page_after_the_deadline_ends_the_exam_and_shows_the_report(
    client: Client, quick_pool: None
) -> None:
    attempt = start(client)
    ExamAttempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now())
    response = client.get(f"/lab/exam/{attempt.pk}/2/")
    assert response["Location"] == f"/lab/exam/{attempt.pk}/report"
    assert "0 of 5 tasks solved" in report_of(client, attempt)


def test_a_command_within_the_grace_still_counts(client: Client, quick_pool: None) -> None:
    attempt = start(client)
    ExamAttempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    attempt.refresh_from_db()
    assert exam.accepts(attempt)
    assert not exam.accepts(attempt, attempt.deadline + exam.GRACE + timedelta(seconds=1))


def test_the_attempt_survives_a_reload_and_an_export_and_import(
    client: Client, quick_pool: None
) -> None:
    attempt = start(client)
    solve(client, attempt, "department-cap")
    position = position_of(attempt, "department-cap")
    page = client.get(f"/lab/exam/{attempt.pk}/{position}/").content.decode()
    assert "runai training list -p team-rl" in page  # the transcript, after a reload
    document = json.loads(client.get("/progress/export").content)
    assert len(document["parts"]["lab-exam"]) == 1
    other = Client()
    other.post(
        "/progress/import",
        {"file": SimpleUploadedFile("p.json", json.dumps(document).encode())},
    )
    moved = ExamAttempt.objects.get(session_key=other.session.session_key)
    assert moved.token != attempt.token
    assert moved.deadline == attempt.deadline
    page = other.get(f"/lab/exam/{moved.pk}/{position}/").content.decode()
    assert "runai training list -p team-rl" in page
    solve(other, moved, "pending-workspace")
    other.post(f"/lab/exam/{moved.pk}/finish")
    assert "2 of 5 tasks solved" in report_of(other, moved)
    # A finished attempt travels with its report.
    document = json.loads(other.get("/progress/export").content)
    third = Client()
    third.post(
        "/progress/import",
        {"file": SimpleUploadedFile("p.json", json.dumps(document).encode())},
    )
    again = ExamAttempt.objects.get(session_key=third.session.session_key)
    report = report_of(third, again)
    assert "2 of 5 tasks solved" in report
    assert "runai training list -p team-rl" in section(report, "department-cap")


def test_a_damaged_attempt_in_the_file_is_refused(client: Client, quick_pool: None) -> None:
    start(client)
    document = json.loads(client.get("/progress/export").content)
    document["parts"]["lab-exam"][0]["tasks"][0]["ticket"] = "rm-rf"
    response = client.post(
        "/progress/import",
        {"file": SimpleUploadedFile("p.json", json.dumps(document).encode())},
    )
    assert "An exam task in that file names no ticket of this site." in response.content.decode()
    assert ExamAttempt.objects.count() == 1


def test_a_retake_draws_other_tickets_or_seeds(client: Client) -> None:
    first = start(client)
    second = start(client)
    draw = list(first.tasks.values_list("ticket", "seed"))
    again = list(second.tasks.values_list("ticket", "seed"))
    assert {t for t, _ in draw} != {t for t, _ in again} or {s for _, s in draw} != {
        s for _, s in again
    }
    # With more tickets than tasks, the retake starts with those the last attempt lacked.
    fresh = {ticket.id for ticket in list_tickets()} - {t for t, _ in draw}
    assert len(fresh & {t for t, _ in again}) == min(len(fresh), 5)


def test_the_lab_index_and_the_guide_link_the_exam(client: Client) -> None:
    assert 'href="/lab/exam/"' in client.get("/lab/").content.decode()
    assert 'href="/lab/exam/"' in client.get("/guide/lab/").content.decode()


def test_cleanlabs_keeps_a_live_sessions_exam_and_deletes_an_expired_ones(client: Client) -> None:
    from django.contrib.sessions.models import Session
    from django.core.management import call_command

    attempt = start(client)
    call_command("cleanlabs", stdout=io.StringIO())
    labs = SavedLab.objects.filter(session_key__startswith="exam-")
    assert labs.count() == attempt.tasks.count()
    Session.objects.all().delete()
    call_command("cleanlabs", stdout=io.StringIO())
    assert not SavedLab.objects.exists()
    assert not ExamAttempt.objects.filter(pk=attempt.pk).exists()


def test_every_task_of_an_exam_spends_the_share_of_the_learner_who_took_it() -> None:
    learner = "learner-key-0123456789abcdef"
    attempt = exam.start(learner, 60)
    share = store.CpuShare()
    share.charge(learner, 30.0)  # far past the burst: this learner must wait
    for task in attempt.tasks.all()[:2]:
        opened = store.open_lab(exam.lab_key(attempt, task.position), task.ticket)
        assert store.apply(opened, "kubectl get nodes", share).output == store.SLOW_DOWN
    other = store.open_lab("another-learner-0123456789abcd", "mig-single")
    assert store.apply(other, "kubectl get nodes", share).output != store.SLOW_DOWN


def test_a_tasks_learner_is_known_on_the_event_loop_without_asking_the_database() -> None:
    # The terminal asks whose share a command spends before it leaves the event loop.
    learner = "learner-key-abcdef0123456789"
    key = exam.lab_key(exam.start(learner, 60), 0)

    async def asked_on_the_loop() -> str:
        return store.account(key)

    assert asyncio.run(asked_on_the_loop()) == learner


@pytest.mark.django_db
def test_the_practice_and_exam_terminals_pace_their_lines_to_the_servers_frame_limit(
    client: Client, settings: LazySettings
) -> None:
    settings.LAB_MAX_FRAMES_PER_SECOND = 7
    practice = client.get("/lab/mig-single/").content.decode()
    attempt = start(client)
    task = client.get(f"/lab/exam/{attempt.pk}/1/").content.decode()
    for page in (practice, task):
        assert re.search(r'<div id="lab"[^>]*data-frames-per-second="7"', page)
    # Pages without a terminal are not told.
    assert "data-frames-per-second" not in client.get("/").content.decode()
