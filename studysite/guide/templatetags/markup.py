"""Markdown in templates, through the site's one renderer (sanitised).

The texts are the site's own (a ticket's story and its hints, on every lab page), so each is
rendered once per process: the same text always renders to the same HTML.
"""

from __future__ import annotations

import functools

from django import template
from django.utils.safestring import SafeString, mark_safe

from studysite.markdown import render_inline, render_markdown

register = template.Library()


@register.filter
def markdown(source: str) -> SafeString:
    return _markdown(str(source))


@register.filter
def markdown_inline(source: str) -> SafeString:
    return _markdown_inline(str(source))


@functools.lru_cache(maxsize=512)
def _markdown(source: str) -> SafeString:
    return mark_safe(render_markdown(source))


@functools.lru_cache(maxsize=512)
def _markdown_inline(source: str) -> SafeString:
    return mark_safe(render_inline(source))
