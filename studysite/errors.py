"""Friendly error pages that keep the site's navigation."""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "errors/404.html", {"suggestion": suggestion(request.path)}, status=404)


def suggestion(path: str) -> str:
    """Words from the missing address, to start a search with: /guide/mig-stuff/ -> mig stuff."""
    parts = [part for part in re.split(r"[/_\-.]+", path.lower()) if part.isalpha()]
    return " ".join(part for part in parts if part not in {"guide", "html", "www"})[:80]


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "errors/500.html", status=500)
