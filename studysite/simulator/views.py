from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe
from django_htmx.http import push_url, reswap, retarget

from studysite.htmx import HtmxHttpRequest, is_partial, vary_on_htmx
from studysite.limits import expensive
from studysite.simulator.page import build_page
from studysite.simulator.query import parse_query, to_url
from studysite.simulator.state import Parsed


@require_safe
@expensive("simulator")
def simulator(request: HtmxHttpRequest) -> HttpResponse:
    """Parse the query, run the engine, render; htmx gets only the part that changed."""
    parsed = parse_query(dict(request.GET.lists()))
    partial = is_partial(request)
    if parsed.from_form and not partial:
        return redirect(to_url(parsed.state) + (f"#{parsed.anchor}" if parsed.anchor else ""))
    page = build_page(parsed)
    context = {"page": page, "oob": partial, "reshape": parsed.reshapes}
    response = vary_on_htmx(render(request, _template(parsed, partial), context))
    return _htmx_headers(response, parsed, page.share_url) if partial else response


def _template(parsed: Parsed, partial: bool) -> str:
    if not partial:
        return "simulator/page.html"
    return "simulator/page.html#simulator" if parsed.reshapes else "simulator/page.html#result"


def _htmx_headers(response: HttpResponse, parsed: Parsed, url: str) -> HttpResponse:
    if not parsed.embed:
        response = push_url(response, url)
    if parsed.reshapes:
        response = reswap(retarget(response, "#simulator"), "outerHTML")
    return response
