"""The simulator as guide section 7 shows it: the default setup, rendered once.

The guide caches this HTML as it is, so it holds no CSRF token and nothing from a
request: a GET form (action /simulator/) that htmx keeps live in place.
"""

from __future__ import annotations

import functools

from django.template.loader import render_to_string

from studysite.simulator.page import build_page
from studysite.simulator.state import DEFAULT_STATE, Parsed


@functools.cache
def render_embed() -> str:
    page = build_page(Parsed(DEFAULT_STATE, embed=True))
    return str(render_to_string("simulator/embed.html", {"page": page, "oob": False}))
