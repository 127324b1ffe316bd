from __future__ import annotations

from django.urls import path

from studysite.simulator import views

app_name = "simulator"

urlpatterns = [
    path("simulator/", views.simulator, name="page"),
]
