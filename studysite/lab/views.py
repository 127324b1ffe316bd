from __future__ import annotations

import dataclasses
import json

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from simulators.lab import (
    ChecklistItem,
    LabSession,
    Ticket,
    editor,
    list_tickets,
    streams,
)
from simulators.lab.results import TranscriptEntry
from studysite.htmx import HtmxHttpRequest, is_partial, vary_on_htmx
from studysite.lab import annex, cluster, kinds, store
from studysite.lab.consumers import REPLAY_BYTES
from studysite.lab.page_extras import logged_in, next_ticket, pacing
from studysite.limits import expensive
from studysite.sessions import page_key, session_key, with_cookie
from studysite.study.flash import flash, pop_flash


def checklist_context(items: list[ChecklistItem]) -> dict[str, object]:
    return {"items": items, "done": sum(item.done for item in items)}


def find_ticket(ticket_id: str) -> Ticket:
    ticket = kinds.find(ticket_id)
    if ticket is None:
        raise Http404("No such ticket")
    return ticket


def transcript_tail(lab: LabSession) -> tuple[list[TranscriptEntry], bool]:
    """The transcript's last entries that fit the replay limit, and whether any were left out."""
    entries = lab.transcript
    size, start = 0, len(entries)
    while start > 0 and size + entries[start - 1].size <= REPLAY_BYTES:
        start -= 1
        size += entries[start].size + len(entries[start].line)
    return entries[start:], start > 0


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    # A minted key (no row until the learner types): a page load without a cookie writes nothing.
    progress = store.progress(page_key(request))
    rows = [(ticket, progress.get(ticket.id)) for ticket in list_tickets()]
    context = {"rows": rows, **cluster.mode_context()}
    return with_cookie(request, render(request, "lab/index.html", context))


@require_safe
def ticket_page(request: HttpRequest, ticket_id: str) -> HttpResponse:
    ticket = find_ticket(ticket_id)
    opened = store.peek_lab(page_key(request), ticket_id)
    with store.reading(opened) as lab:
        transcript, omitted = transcript_tail(lab)
        context = {
            "ticket": ticket,
            # Plain values, never the lab: a rendered template's context is a reference cycle
            # (Django's Context and its ContextDicts), freed only by a full collection, and a
            # lab held there (a page's lab not yet saved, a world since rested) waited with it.
            "hints": lab.hints(),
            "answer_key": lab.answer_key(),
            "transcript": transcript,
            "omitted": omitted,
            "checklist": checklist_context(lab.checklist()),
            "history": json.dumps(lab.history[-200:]),
            "exam_mode": opened.exam_mode,
            "logged_in": logged_in(lab),
            "next_ticket": next_ticket(ticket_id),
            **cluster.mode_context(),
            "on_real_cluster": kinds.kind_of(ticket_id).real_cluster,
            "refused": pop_flash(request),
            # An editor the last command opened: the form shows its buffer in a textarea.
            "editor": lab.editor,
            "prompt": lab.prompt,
            **pacing(),
        }
        return with_cookie(request, render(request, "lab/ticket.html", context))


@require_POST
@expensive("lab-command")
def command(request: HtmxHttpRequest, ticket_id: str) -> HttpResponse:
    ticket, key = find_ticket(ticket_id), session_key(request)
    line = request.POST.get("line", "")
    token = request.POST.get("editor_token")
    if token is not None:
        # The form's editor (a textarea): its save is the line an editor's save makes.
        text = request.POST.get("editor_text", "").replace("\r\n", "\n")
        line = editor.save_line(token, text, request.POST.get("editor_path") or None)
    if "\ufffd" in line:
        # Django decodes a form's invalid UTF-8 (a lone surrogate's bytes) as U+FFFD.
        return HttpResponse(
            "The command is not valid UTF-8 text.", status=400, content_type="text/plain"
        )
    opened = store.peek_lab(key, ticket_id)
    # Judged on the line as the lab keeps it (store.apply's own check): NUL dropped.
    refused = store.refusal(opened, store.as_typed(line), store.cpu_share)
    result = refused or annex.apply_anywhere(opened, line)
    store.fold(opened)
    if not is_partial(request):
        if line.strip() and refused is not None:
            # Not kept (too long, or the session's processor share is spent): the transcript
            # the redirect shows would not have it, so say why on the page.
            flash(request, result.output, kind="error")
        return vary_on_htmx(redirect(reverse("lab:ticket", args=[ticket_id]) + "#transcript"))
    if result.stream is not None:
        # The form shows one snapshot of a streaming command, and says so.
        snapshot = "\n".join(filter(None, [result.output, streams.NOT_STREAMED]))
        result = dataclasses.replace(result, output=snapshot)
    context = {"ticket": ticket, "checklist": checklist_context(result.checklist), "result": result}
    context |= {"logged_in": logged_in(opened.lab), "next_ticket": next_ticket(ticket_id)}
    return vary_on_htmx(render(request, "lab/ticket.html#command-result", context))


@require_http_methods(["GET", "HEAD", "POST"])
def reset(request: HttpRequest, ticket_id: str) -> HttpResponse:
    ticket = find_ticket(ticket_id)
    if request.method == "POST":
        store.reset_lab(session_key(request), ticket_id)
        return redirect("lab:ticket", ticket_id)
    return render(request, "lab/reset.html", {"ticket": ticket})


@require_POST
def exam_mode(request: HttpRequest, ticket_id: str) -> HttpResponse:
    find_ticket(ticket_id)
    store.set_exam_mode(session_key(request), ticket_id, request.POST.get("exam") == "1")
    return redirect("lab:ticket", ticket_id)
