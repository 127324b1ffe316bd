from __future__ import annotations

from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "studysite.lab"
    label = "lab"

    def ready(self) -> None:
        # The progress file carries each ticket's saved lab; imported late so the
        # app registry is ready.
        from studysite.lab import progress

        progress.register()
