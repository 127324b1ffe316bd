"""Section pages rendered once, with holes for what depends on the request.

A section page is the same for every learner except for a few small pieces: the
CSRF token, the read-state form and the contents list's read marks. The whole page
is rendered once per section with a marker in each of those places and kept as
alternating literal text and named holes; a request fills the holes and joins the
pieces, which costs a small fraction of rendering the page's templates.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from studysite.guide.context_processors import nav_links, search_url
from studysite.guide.sections import Section, load_guide

# Some sections carry an interactive part or data rendered from content/ YAML;
# their app registers a function that returns that HTML for the section's page.
_extras: dict[str, Callable[[], str]] = {}

# Plain word characters, so that escaping (HTML or the JSON in hx-headers) keeps it intact.
HOLE = "@@hole-{}@@"
HOLE_PATTERN = re.compile(r"@@hole-([a-z-]+)@@")
CSRF, READ_STATE, TOC = "csrf", "read-state", "toc"


def register_extra(slug: str, render: Callable[[], str]) -> None:
    _extras[slug] = render
    contents.cache_clear()
    section_page.cache_clear()


def hole(name: str) -> SafeString:
    return mark_safe(HOLE.format(name))


@dataclass(frozen=True)
class CachedPage:
    """A rendered page cut at its holes: literal, hole name, literal, ..., literal."""

    pieces: tuple[str, ...]

    @classmethod
    def cut(cls, html: str) -> CachedPage:
        return cls(tuple(HOLE_PATTERN.split(html)))

    def fill(self, values: Mapping[str, str]) -> str:
        parts = list(self.pieces)
        for index in range(1, len(parts), 2):
            parts[index] = values[parts[index]]
        return "".join(parts)


@functools.cache
def section_page(slug: str) -> CachedPage:
    guide = load_guide()
    section: Section = guide.by_slug[slug]
    previous, following = guide.neighbours(section)
    # What the context processors would add, minus anything about the request.
    context = {
        "guide_sections": guide.sections,
        "site_nav": nav_links(),
        "search_url": search_url(),
        "nav_current": "guide",
        "csrf_token": hole(CSRF),
        "section": section,
        "previous": previous,
        "next": following,
        "extra": mark_safe(_extras[slug]()) if slug in _extras else "",
        "read_state_hole": hole(READ_STATE),
        "toc_hole": hole(TOC),
    }
    return CachedPage.cut(render_to_string("guide/section.html", context))


@functools.lru_cache(maxsize=4096)
def contents(slug: str, read: frozenset[str]) -> SafeString:
    """The contents list with this learner's read marks (few distinct sets: kept)."""
    guide = load_guide()
    context = {"section": guide.by_slug[slug], "guide_sections": guide.sections, "read": read}
    return mark_safe(render_to_string("guide/_toc.html", context))
