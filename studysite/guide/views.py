from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST, require_safe

from studysite.guide.pages import CSRF, READ_STATE, TOC, contents, section_page
from studysite.guide.progress import aread_sections, set_read
from studysite.guide.search import MAX_QUERY_LENGTH, search
from studysite.guide.sections import Section, load_guide
from studysite.htmx import HtmxHttpRequest, is_partial, render_page, vary_on_htmx


def find_section(slug: str) -> Section:
    section = load_guide().by_slug.get(slug)
    if section is None:
        raise Http404("No such section")
    return section


# Async: under ASGI this skips two thread hops that cost more than rendering the page
# (bench_guide: 0.5 -> 0.7 of the static file's requests per second). The page itself is
# rendered once per section (pages.py); a request fills in only this learner's pieces.
@require_safe
async def section(request: HttpRequest, slug: str) -> HttpResponse:
    current = find_section(slug)
    read = await aread_sections(request)
    token = get_token(request)
    sections = load_guide().sections
    state = {"section": current, "read": read, "guide_sections": sections, "csrf_token": token}
    page = section_page(slug).fill(
        {
            CSRF: token,
            READ_STATE: render_to_string("guide/section.html#read-state", state),
            TOC: contents(slug, frozenset(read)),
        }
    )
    return HttpResponse(page)


@require_POST
def mark_read(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    current = find_section(slug)
    read = set_read(request, slug, request.POST.get("read") == "1")
    if not is_partial(request):
        return vary_on_htmx(redirect(current.url))
    context = {"section": current, "read": read}
    return vary_on_htmx(render(request, "guide/section.html#read-state", context))


@require_safe
def search_page(request: HtmxHttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    context = {"query": query, "hits": search(query)}
    return render_page(request, "guide/search.html", context, partial="results")
