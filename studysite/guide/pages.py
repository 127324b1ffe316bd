"""The parts of a section page that do not depend on the request, rendered once.

A section page is these cached parts around a small live region (the read-state
form with its CSRF token). The contents list depends on which sections the reader
has marked read, so that set is part of the key.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from studysite.guide.sections import Section, load_guide

# Some sections carry an interactive part or data rendered from content/ YAML;
# their app registers a function that returns that HTML for the section's page.
_extras: dict[str, Callable[[], str]] = {}


def register_extra(slug: str, render: Callable[[], str]) -> None:
    _extras[slug] = render
    section_parts.cache_clear()


@dataclass(frozen=True)
class SectionParts:
    top: SafeString
    pager: SafeString
    toc: SafeString


@functools.lru_cache(maxsize=4096)
def section_parts(slug: str, read: frozenset[str]) -> SectionParts:
    guide = load_guide()
    section: Section = guide.by_slug[slug]
    previous, following = guide.neighbours(section)
    context = {
        "section": section,
        "guide_sections": guide.sections,
        "read": read,
        "previous": previous,
        "next": following,
        "extra": _extras[slug]() if slug in _extras else "",
    }
    return SectionParts(
        top=mark_safe(render_to_string("guide/_section_top.html", context)),
        pager=mark_safe(render_to_string("guide/_section_pager.html", context)),
        toc=mark_safe(render_to_string("guide/_toc.html", context)),
    )
