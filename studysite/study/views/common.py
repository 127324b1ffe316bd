"""What every study view shares: htmx-aware rendering and friendly errors."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate

from django.http import HttpResponse
from django.shortcuts import render

from studysite.htmx import HtmxHttpRequest, is_partial, render_page

__all__ = ["Problem", "form_error_status", "friendly", "is_partial", "page"]


class Problem(Exception):
    """Input that names nothing we have (an unknown id, a tampered form): a clear page."""

    def __init__(self, message: str, back_url: str, back_label: str, status: int = 404) -> None:
        super().__init__(message)
        self.back_url, self.back_label, self.status = back_url, back_label, status


def friendly[**P](
    view: Callable[Concatenate[HtmxHttpRequest, P], HttpResponse],
) -> Callable[Concatenate[HtmxHttpRequest, P], HttpResponse]:
    """Turn a Problem raised by the view into a page that says what went wrong."""

    @functools.wraps(view)
    def wrapper(request: HtmxHttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except Problem as problem:
            context = {"message": str(problem), "back_url": problem.back_url}
            context["back_label"] = problem.back_label
            return render(request, "study/problem.html", context, status=problem.status)

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature


def form_error_status(request: HtmxHttpRequest) -> int:
    # htmx swaps only 2xx responses; without it a re-shown form is a 400.
    return 200 if is_partial(request) else 400


# The study views' name for the site's htmx-aware render.
page = render_page
