from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.views.decorators.http import require_http_methods, require_safe

from studysite.guide.pages import contents, section_page
from studysite.guide.progress import read_sections, set_read, visit
from studysite.guide.search import MAX_QUERY_LENGTH, search
from studysite.guide.sections import Section, load_guide
from studysite.htmx import HtmxHttpRequest, is_partial, render_page, vary_on_htmx


def find_section(slug: str) -> Section:
    section = load_guide().by_slug.get(slug)
    if section is None:
        raise Http404("No such section")
    return section


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    """/guide/ itself: the guide's contents, which the home page holds."""
    return redirect(reverse("home") + "#contents")


# Async: under ASGI this skips two thread hops that cost more than the view. The page is the
# same bytes for every learner (pages.py): public, revalidated by its ETag, and answered by
# studysite.guide.shared in front of Django once Django has served it.
@require_safe
async def section(request: HttpRequest, slug: str) -> HttpResponse:
    page = section_page(find_section(slug).slug)
    response = HttpResponse(page.body)
    response["ETag"] = page.etag
    patch_cache_control(response, public=True, no_cache=True)
    return get_conditional_response(request, etag=page.etag, response=response) or response


@require_http_methods(["GET", "HEAD", "POST"])
def read_state(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """This learner's part of a section page: read or not, the form to change it, progress."""
    current = find_section(slug)
    auto = False
    if request.method == "POST":
        read = set_read(request, slug, request.POST.get("read") == "1")
        auto = request.POST.get("auto") == "1" and slug in read
        if not is_partial(request):
            return vary_on_htmx(redirect("guide:mark-read", slug=slug))
    else:
        read = read_sections(request)
        if is_partial(request):  # the section page loading this reader's part
            visit(request, slug)
    context = {
        "section": current,
        "read": read,
        "auto": auto,
        "next": load_guide().neighbours(current)[1],
        "toc": contents(slug, frozenset(read), oob=is_partial(request)),
    }
    return render_page(request, "guide/read.html", context, partial="read-state")


@require_safe
def search_page(request: HtmxHttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    context = {"query": query, "hits": search(query)}
    return render_page(request, "guide/search.html", context, partial="results")
