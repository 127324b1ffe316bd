from __future__ import annotations

from django.apps import AppConfig


class StudyConfig(AppConfig):
    name = "studysite.study"
    label = "study"
    verbose_name = "Study tools"

    def ready(self) -> None:
        # The guide's study sections, the site search and the progress file each
        # get their parts from here; imported late so the app registry is ready.
        from studysite.study import extras, parts

        extras.register()
        parts.register()
