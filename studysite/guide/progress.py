"""Which guide sections this browser has marked as read, kept in its session."""

from __future__ import annotations

from django.http import HttpRequest

READ_KEY = "guide_read"


def read_sections(request: HttpRequest) -> set[str]:
    return set(request.session.get(READ_KEY, []))


def set_read(request: HttpRequest, slug: str, read: bool) -> set[str]:
    sections = read_sections(request)
    if read:
        sections.add(slug)
    else:
        sections.discard(slug)
    request.session[READ_KEY] = sorted(sections)
    return sections
