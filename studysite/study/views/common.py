"""What every study view shares: htmx-aware rendering and friendly errors."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers


class Problem(Exception):
    """Input that names nothing we have (an unknown id, a tampered form): a clear page."""

    def __init__(self, message: str, back_url: str, back_label: str, status: int = 404) -> None:
        super().__init__(message)
        self.back_url, self.back_label, self.status = back_url, back_label, status


def friendly[**P](
    view: Callable[Concatenate[HttpRequest, P], HttpResponse],
) -> Callable[Concatenate[HttpRequest, P], HttpResponse]:
    """Turn a Problem raised by the view into a page that says what went wrong."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except Problem as problem:
            context = {"message": str(problem), "back_url": problem.back_url}
            context["back_label"] = problem.back_label
            return render(request, "study/problem.html", context, status=problem.status)

    return wrapper


def is_partial(request: HttpRequest) -> bool:
    """An htmx swap (not htmx restoring history, which needs the whole page)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def form_error_status(request: HttpRequest) -> int:
    # htmx swaps only 2xx responses; without it a re-shown form is a 400.
    return 200 if is_partial(request) else 400


def page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    partial: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The whole page, or only its `partial` region for an htmx request."""
    swap = partial is not None and is_partial(request)
    name = f"{template}#{partial}" if swap else template
    response = render(request, name, {**context, "swap": swap}, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response
