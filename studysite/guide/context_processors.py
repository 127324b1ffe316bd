from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from studysite.guide.sections import load_guide


def site(request: HttpRequest) -> dict[str, Any]:
    return {"guide_sections": load_guide().sections}
