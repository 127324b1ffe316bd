"""The site's one way of answering htmx.

Views that look at `request.htmx` take an `HtmxHttpRequest` (django-htmx's typed request).
A response that can be either a whole page or a fragment says so with `Vary: HX-Request`, so no
cache hands a fragment to a browser that asked for the page, or the other way round.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def is_partial(request: HtmxHttpRequest) -> bool:
    """An htmx swap (not htmx restoring history, which needs the whole page)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def vary_on_htmx(response: HttpResponse) -> HttpResponse:
    patch_vary_headers(response, ["HX-Request"])
    return response


def render_page(
    request: HtmxHttpRequest,
    template: str,
    context: dict[str, Any],
    partial: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The whole page, or only its `partial` region (`template#partial`) for an htmx swap."""
    swap = partial is not None and is_partial(request)
    name = f"{template}#{partial}" if swap else template
    return vary_on_htmx(render(request, name, {**context, "swap": swap}, status=status))
