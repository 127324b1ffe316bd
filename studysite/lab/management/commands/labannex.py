"""The lab's annex process (studysite.lab.annex): started by each web process, never by hand."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from studysite.lab import annex


class Command(BaseCommand):
    help = "Run lab commands sent on stdin, a JSON request a line (started by the web process)."
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        annex.main()
