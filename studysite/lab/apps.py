from __future__ import annotations

from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "studysite.lab"
    label = "lab"

    def ready(self) -> None:
        # The progress file carries each ticket's saved lab; imported late so the
        # app registry is ready.
        from django.template.loader import render_to_string

        from simulators.lab import list_tickets
        from studysite.guide.pages import register_extra
        from studysite.lab import exam_progress, progress

        progress.register()
        exam_progress.register()
        register_extra(
            "lab",
            lambda: render_to_string("lab/_guide_extra.html", {"tickets": list_tickets()}),
        )
