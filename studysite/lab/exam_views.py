"""The lab exam's pages (studysite.lab.exam): start, the tasks, the form's commands, the report.

Every page is the session's own: an attempt of another session is a 404. A page of an attempt
whose time is up finishes it first, so the server, not the browser's clock, ends the exam.
"""

from __future__ import annotations

import dataclasses
import json

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from simulators.lab import editor, load_ticket, streams
from studysite.htmx import HtmxHttpRequest, is_partial, vary_on_htmx
from studysite.lab import exam, store
from studysite.lab.models import ExamAttempt, ExamTask
from studysite.lab.page_extras import logged_in, pacing
from studysite.lab.views import transcript_tail
from studysite.limits import expensive
from studysite.sessions import existing_key, session_key
from studysite.study.flash import flash, pop_flash


def own_attempt(request: HttpRequest, attempt_id: int) -> ExamAttempt:
    found = ExamAttempt.objects.filter(pk=attempt_id, session_key=existing_key(request)).first()
    if found is None or not existing_key(request):
        raise Http404("No such exam attempt")
    return found


def own_task(attempt: ExamAttempt, position: int) -> ExamTask:
    task = attempt.tasks.filter(position=position).first()
    if task is None:
        raise Http404("No such task")
    return task


def clock(attempt: ExamAttempt) -> dict[str, object]:
    left = max(0, int((attempt.deadline - timezone.now()).total_seconds()))
    return {"attempt": attempt, "seconds_left": left, "time_left": exam.duration(left)}


@require_http_methods(["GET", "HEAD", "POST"])
def start(request: HttpRequest) -> HttpResponse:
    """The exam's front page (past attempts, the start form); a POST starts an attempt."""
    if request.method == "POST":
        minutes = exam.minutes_from(request.POST.get("minutes"))
        if minutes is None:
            flash(
                request,
                f"The exam's length must be {exam.MIN_MINUTES} to {exam.MAX_MINUTES:.0f} minutes.",
                kind="error",
            )
            return redirect("lab:exam-start")
        attempt = exam.start(session_key(request), minutes)
        return redirect("lab:exam-task", attempt.pk, 1)
    attempts = (
        [
            exam.finish_if_over(attempt)
            for attempt in ExamAttempt.objects.filter(session_key=existing_key(request))
        ]
        if existing_key(request)
        else []
    )
    rows = [(attempt, solved_count(attempt)) for attempt in attempts]
    context = {
        "rows": rows,
        "minutes": settings.LAB_EXAM_MINUTES,
        "tasks": min(exam.TASKS, len(exam.pool())),
        "refused": pop_flash(request),
    }
    return render(request, "lab/exam_start.html", context)


def solved_count(attempt: ExamAttempt) -> tuple[int, int]:
    results = [task.result or {} for task in attempt.tasks.all()]
    return sum(bool(result.get("solved")) for result in results), len(results)


@require_safe
def task_page(request: HttpRequest, attempt_id: int, position: int) -> HttpResponse:
    attempt = exam.finish_if_over(own_attempt(request, attempt_id))
    if attempt.finished is not None:
        return redirect("lab:exam-report", attempt.pk)
    task = own_task(attempt, position)
    ticket = load_ticket(task.ticket)
    opened = store.open_lab(exam.lab_key(attempt, position), task.ticket)
    with store.reading(opened) as lab:
        transcript, omitted = transcript_tail(lab)
        context = {
            **clock(attempt),
            "task": task,
            "tasks": list(attempt.tasks.all()),
            "ticket": ticket,
            "transcript": transcript,
            "omitted": omitted,
            "history": json.dumps(lab.history[-200:]),
            "logged_in": logged_in(lab),
            "refused": pop_flash(request),
            "editor": lab.editor,
            "prompt": lab.prompt,
            "command_url": reverse("lab:exam-command", args=[attempt.pk, position]),
            **pacing(),
        }
        return render(request, "lab/exam_task.html", context)


@require_POST
@expensive("lab-command")
def command(request: HtmxHttpRequest, attempt_id: int, position: int) -> HttpResponse:
    """A line from the form (or an editor's save), run in the task's lab if the clock allows."""
    attempt = own_attempt(request, attempt_id)
    task = own_task(attempt, position)
    here = reverse("lab:exam-task", args=[attempt.pk, position]) + "#transcript"
    line = request.POST.get("line", "")
    if not exam.accepts(attempt):
        if is_partial(request):
            # Shown in the transcript as the shell's answer; the line was not run.
            late = {"line": line[:80], "output": exam.TIME_UP}
            return vary_on_htmx(
                render(request, "lab/exam_task.html#command-result", {"result": late})
            )
        flash(request, exam.TIME_UP, kind="error")
        return vary_on_htmx(redirect(here))
    token = request.POST.get("editor_token")
    if token is not None:
        text = request.POST.get("editor_text", "").replace("\r\n", "\n")
        line = editor.save_line(token, text, request.POST.get("editor_path") or None)
    if "\ufffd" in line:
        return HttpResponse(
            "The command is not valid UTF-8 text.", status=400, content_type="text/plain"
        )
    opened = store.open_lab(exam.lab_key(attempt, position), task.ticket)
    version = opened.version
    result = store.apply(opened, line)
    store.fold(opened)
    if opened.version != version:
        exam.commanded(task)
    if not is_partial(request):
        if line.strip() and opened.version == version:
            flash(request, result.output, kind="error")
        return vary_on_htmx(redirect(here))
    if result.stream is not None:
        snapshot = "\n".join(filter(None, [result.output, streams.NOT_STREAMED]))
        result = dataclasses.replace(result, output=snapshot)
    context = {
        "result": result,
        "command_url": reverse("lab:exam-command", args=[attempt.pk, position]),
    }
    return vary_on_htmx(render(request, "lab/exam_task.html#command-result", context))


@require_POST
def finish(request: HttpRequest, attempt_id: int) -> HttpResponse:
    exam.finish(own_attempt(request, attempt_id))
    return redirect("lab:exam-report", attempt_id)


@require_safe
def report(request: HttpRequest, attempt_id: int) -> HttpResponse:
    attempt = exam.finish_if_over(own_attempt(request, attempt_id))
    if attempt.finished is None:
        return redirect("lab:exam-task", attempt.pk, 1)
    rows = exam.report(attempt)
    context = {
        "attempt": attempt,
        "rows": rows,
        "solved": sum(row.solved for row in rows),
        "total": len(rows),
        "used": exam.duration((attempt.finished - attempt.started).total_seconds()),
        # A command refused by the clock, sent from a task page that now leads here.
        "refused": pop_flash(request),
    }
    return render(request, "lab/exam_report.html", context)
