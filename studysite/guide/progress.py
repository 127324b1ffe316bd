"""Which guide sections this browser has marked as read, kept in its session."""

from __future__ import annotations

from collections.abc import Sequence

from django.http import HttpRequest

from studysite.guide.sections import Section

READ_KEY = "guide_read"
# The section this browser's reader was last on: where home continues from.
LAST_KEY = "guide_last"


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


def visit(request: HttpRequest, slug: str) -> None:
    """Remember that the reader is on this section (only a section page's own request)."""
    if request.session.get(LAST_KEY) != slug:
        request.session[LAST_KEY] = slug


def last_section(request: HttpRequest) -> str | None:
    value = request.session.get(LAST_KEY)
    return value if isinstance(value, str) else None


def continue_reading(
    sections: Sequence[Section], read: set[str], last: str | None
) -> Section | None:
    """Where the reader goes on: the section they were last on while it is unread, else the
    next unread one after it (then from the start); None when every section is read."""
    slugs = [section.slug for section in sections]
    start = slugs.index(last) if last in slugs else 0
    for section in [*sections[start:], *sections[:start]]:
        if section.slug not in read:
            return section
    return None
