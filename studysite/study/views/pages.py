"""The reference (filtered as you type) and the exam traps."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from studysite.htmx import HtmxHttpRequest
from studysite.study.content import load_study
from studysite.study.reference import clean_query, filter_items
from studysite.study.views.common import page


@require_safe
def reference(request: HtmxHttpRequest) -> HttpResponse:
    query = clean_query(request.GET.get("q", ""))
    items = load_study().reference
    context = {"study_tool": "reference", "query": query, "total": len(items)}
    context["items"] = filter_items(items, query)
    return page(request, "study/reference.html", context, "results")


@require_safe
def traps(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "study/traps.html", {"study_tool": "traps", "study": load_study()})
