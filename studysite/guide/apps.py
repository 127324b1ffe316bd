from __future__ import annotations

from django.apps import AppConfig


class GuideConfig(AppConfig):
    name = "studysite.guide"
    label = "guide"
