"""The site header's navigation, rendered once per current area and kept."""

from __future__ import annotations

import functools
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from studysite.guide.context_processors import nav_links

register = template.Library()
CURRENT = mark_safe(' aria-current="page"')


@functools.cache
def nav_html(current: str) -> SafeString:
    # The header is on every page: a loop in the template language cost a guide page
    # more than the rest of its render together.
    items = format_html_join(
        "\n",
        '<li><a href="{}"{}>{}</a></li>',
        ((url, CURRENT if key == current else "", label) for key, label, url in nav_links()),
    )
    return format_html("<ul>\n{}\n</ul>", items)


@register.simple_tag(takes_context=True)
def site_nav(context: Any) -> SafeString:
    return nav_html(context.get("study_tool") or context.get("nav_current") or "")
