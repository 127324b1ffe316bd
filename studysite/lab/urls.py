from __future__ import annotations

from django.urls import path

from studysite.lab import views

app_name = "lab"

urlpatterns = [
    path("lab/", views.index, name="index"),
    path("lab/<slug:ticket_id>/", views.ticket_page, name="ticket"),
    path("lab/<slug:ticket_id>/command", views.command, name="command"),
    path("lab/<slug:ticket_id>/reset", views.reset, name="reset"),
    path("lab/<slug:ticket_id>/exam", views.exam_mode, name="exam"),
]
