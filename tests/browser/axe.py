"""axe-core (shipped inside axe-playwright-python, so no download) over a page."""

from __future__ import annotations

from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

BLOCKING_IMPACTS = {"serious", "critical"}
_axe = Axe()


def blocking_violations(page: Page) -> list[dict[str, Any]]:
    results = _axe.run(
        page,
        options={
            "runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
        },
    )
    violations: list[dict[str, Any]] = results.response["violations"]
    return [
        {
            "id": violation["id"],
            "impact": violation["impact"],
            "help": violation["help"],
            "targets": [node["target"] for node in violation["nodes"]][:5],
        }
        for violation in violations
        if violation["impact"] in BLOCKING_IMPACTS
    ]
