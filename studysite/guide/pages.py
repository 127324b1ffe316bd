"""Section pages rendered once per process: the same bytes for every learner.

Nothing on a section page depends on who reads it. What does (the read-state form with
its CSRF token, the contents list's read marks and the progress count) is fetched from
the section's learner endpoint (`/guide/<slug>/read`) once the page has loaded, and a
link to that endpoint stands in its place without JavaScript. The page therefore needs
no CSRF token and no CSP nonce (its scripts are files, allowed by `script-src 'self'`),
and studysite.guide.shared can answer it without entering Django.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from studysite.guide.context_processors import nav_links, search_url
from studysite.guide.sections import Section, load_guide

# Some sections carry an interactive part or data rendered from content/ YAML;
# their app registers a function that returns that HTML for the section's page.
_extras: dict[str, Callable[[], str]] = {}


def register_extra(slug: str, render: Callable[[], str]) -> None:
    _extras[slug] = render
    contents.cache_clear()
    section_page.cache_clear()


@dataclass(frozen=True)
class SharedPage:
    """A page that is the same for every learner, with the validator for revalidation."""

    text: str

    @functools.cached_property
    def body(self) -> bytes:
        return self.text.encode()

    @functools.cached_property
    def etag(self) -> str:
        return '"' + hashlib.blake2b(self.body, digest_size=12).hexdigest() + '"'


@functools.cache
def section_page(slug: str) -> SharedPage:
    guide = load_guide()
    section: Section = guide.by_slug[slug]
    previous, following = guide.neighbours(section)
    # What the context processors would add, minus anything about the request: without a
    # csrf_token in the context, base.html leaves out the body's hx-headers.
    context = {
        "guide_sections": guide.sections,
        "site_nav": nav_links(),
        "search_url": search_url(),
        "nav_current": "guide",
        "section": section,
        "previous": previous,
        "next": following,
        "extra": mark_safe(_extras[slug]()) if slug in _extras else "",
        "toc": contents(slug, None),
    }
    return SharedPage(render_to_string("guide/section.html", context))


@functools.lru_cache(maxsize=4096)
def contents(slug: str, read: frozenset[str] | None, oob: bool = False) -> SafeString:
    """The contents list; with a learner's read marks and count unless `read` is None.

    Few distinct sets of read sections occur in practice, so each is kept.
    """
    guide = load_guide()
    context = {
        "section": guide.by_slug[slug],
        "guide_sections": guide.sections,
        "read": read,
        "oob": oob,
    }
    return mark_safe(render_to_string("guide/_toc.html", context))
