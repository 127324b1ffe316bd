from __future__ import annotations

from django.apps import AppConfig


class SimulatorConfig(AppConfig):
    name = "studysite.simulator"
    label = "simulator"

    def ready(self) -> None:
        from studysite.guide.pages import register_extra
        from studysite.simulator.embed import render_embed

        register_extra("quota-simulator", render_embed)
