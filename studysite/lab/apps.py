from __future__ import annotations

from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "studysite.lab"
    label = "lab"
