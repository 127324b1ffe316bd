from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from studysite.guide.pages import section_parts
from studysite.guide.progress import aread_sections, read_sections, set_read
from studysite.guide.search import MAX_QUERY_LENGTH, search
from studysite.guide.sections import Section, load_guide


def find_section(slug: str) -> Section:
    section = load_guide().by_slug.get(slug)
    if section is None:
        raise Http404("No such section")
    return section


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    read = read_sections(request)
    return render(request, "guide/home.html", {"read": read})


# Async: under ASGI this skips two thread hops that cost more than rendering the page
# (bench_guide: 0.5 -> 0.7 of the static file's requests per second).
@require_safe
async def section(request: HttpRequest, slug: str) -> HttpResponse:
    current = find_section(slug)
    read = await aread_sections(request)
    parts = section_parts(slug, frozenset(read))
    context = {"section": current, "read": read, "parts": parts}
    return render(request, "guide/section.html", context)


@require_POST
def mark_read(request: HttpRequest, slug: str) -> HttpResponse:
    current = find_section(slug)
    read = set_read(request, slug, request.POST.get("read") == "1")
    if not request.htmx:
        return redirect(current.url)
    context = {"section": current, "read": read}
    return render(request, "guide/section.html#read-state", context)


@require_safe
def search_page(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    context = {"query": query, "hits": search(query)}
    template = "guide/search.html#results" if request.htmx else "guide/search.html"
    return render(request, template, context)
