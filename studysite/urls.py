from __future__ import annotations

from django.urls import include, path

from studysite.health import healthz
from studysite.study.views.home import home

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # The home page reads every tool's progress, so the study app serves it.
    path("", home, name="home"),
    path("", include("studysite.guide.urls")),
    path("", include("studysite.lab.urls")),
    path("", include("studysite.study.urls")),
    path("", include("studysite.simulator.urls")),
]

handler404 = "studysite.errors.not_found"
handler500 = "studysite.errors.server_error"
