"""Markdown in templates, through the site's one renderer (sanitised)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from studysite.markdown import render_inline, render_markdown

register = template.Library()


@register.filter
def markdown(source: str) -> SafeString:
    return mark_safe(render_markdown(str(source)))


@register.filter
def markdown_inline(source: str) -> SafeString:
    return mark_safe(render_inline(str(source)))
