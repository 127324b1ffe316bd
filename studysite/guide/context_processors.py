from __future__ import annotations

import functools
from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from studysite.guide.sections import load_guide

# (key, label, URL name); the key is what a page marks as current.
NAV = [
    ("guide", "Guide", "home"),
    ("simulator", "Simulator", "simulator:page"),
    ("lab", "Lab", "lab:index"),
    ("quiz", "Quiz", "study:quiz"),
    ("cards", "Flashcards", "study:cards"),
    ("scenarios", "Scenarios", "study:scenarios"),
    ("reference", "Reference", "study:reference"),
    ("traps", "Traps", "study:traps"),
    ("progress", "Progress", "study:progress"),
]


@functools.cache
def nav_links() -> tuple[tuple[str, str, str], ...]:
    # Reversed once: the header is on every page, and fourteen reversals a request
    # were most of a guide page's render time.
    return tuple((key, label, reverse(name)) for key, label, name in NAV)


@functools.cache
def search_url() -> str:
    return reverse("guide:search")


def current_area(request: HttpRequest) -> str:
    match = request.resolver_match
    if match is None or match.url_name == "search":
        return ""
    return match.app_name if match.app_name in {"guide", "simulator", "lab"} else ""


def site(request: HttpRequest) -> dict[str, Any]:
    return {
        "guide_sections": load_guide().sections,
        "site_nav": nav_links(),
        "search_url": search_url(),
        "nav_current": current_area(request),
    }
