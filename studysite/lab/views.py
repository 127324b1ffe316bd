from __future__ import annotations

import json

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from simulators.lab import ChecklistItem, Ticket, list_tickets, load_ticket
from studysite.lab import cluster, store
from studysite.lab.page_extras import logged_in, next_ticket
from studysite.sessions import session_key


def checklist_context(items: list[ChecklistItem]) -> dict[str, object]:
    return {"items": items, "done": sum(item.done for item in items)}


def find_ticket(ticket_id: str) -> Ticket:
    if ticket_id == cluster.EXPLORE_ID and cluster.real_mode():
        return cluster.EXPLORE
    if ticket_id not in {ticket.id for ticket in list_tickets()}:
        raise Http404("No such ticket")
    return load_ticket(ticket_id)


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    progress = store.progress(session_key(request))
    rows = [(ticket, progress.get(ticket.id)) for ticket in list_tickets()]
    return render(request, "lab/index.html", {"rows": rows, **cluster.mode_context()})


@require_safe
def ticket_page(request: HttpRequest, ticket_id: str) -> HttpResponse:
    ticket = find_ticket(ticket_id)
    opened = store.open_lab(session_key(request), ticket_id)
    context = {
        "ticket": ticket,
        "lab": opened.lab,
        "checklist": checklist_context(opened.lab.checklist()),
        "history": json.dumps(opened.lab.history[-200:]),
        "exam_mode": opened.exam_mode,
        "logged_in": logged_in(opened.lab),
        "next_ticket": next_ticket(ticket_id),
        **cluster.mode_context(),
        "on_real_cluster": ticket_id == cluster.EXPLORE_ID,
    }
    return render(request, "lab/ticket.html", context)


@require_POST
def command(request: HttpRequest, ticket_id: str) -> HttpResponse:
    ticket, key = find_ticket(ticket_id), session_key(request)
    opened = store.open_lab(key, ticket_id)
    line = request.POST.get("line", "")
    result = store.run_line(opened, line)
    store.record(opened, line)
    if not request.htmx:
        return redirect(reverse("lab:ticket", args=[ticket_id]) + "#transcript")
    context = {"ticket": ticket, "checklist": checklist_context(result.checklist), "result": result}
    context |= {"logged_in": logged_in(opened.lab), "next_ticket": next_ticket(ticket_id)}
    return render(request, "lab/ticket.html#command-result", context)


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
