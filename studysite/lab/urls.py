from __future__ import annotations

from django.urls import path

from studysite.lab import exam_views, views

app_name = "lab"

urlpatterns = [
    path("lab/", views.index, name="index"),
    # Before lab/<ticket>/: "exam" is a slug too.
    path("lab/exam/", exam_views.start, name="exam-start"),
    path("lab/exam/<int:attempt_id>/report", exam_views.report, name="exam-report"),
    path("lab/exam/<int:attempt_id>/finish", exam_views.finish, name="exam-finish"),
    path("lab/exam/<int:attempt_id>/<int:position>/", exam_views.task_page, name="exam-task"),
    path(
        "lab/exam/<int:attempt_id>/<int:position>/command",
        exam_views.command,
        name="exam-command",
    ),
    path("lab/<slug:ticket_id>/", views.ticket_page, name="ticket"),
    path("lab/<slug:ticket_id>/command", views.command, name="command"),
    path("lab/<slug:ticket_id>/reset", views.reset, name="reset"),
    path("lab/<slug:ticket_id>/exam", views.exam_mode, name="exam"),
]
