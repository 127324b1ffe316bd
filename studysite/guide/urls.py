from __future__ import annotations

from django.urls import path

from studysite.guide import views

app_name = "guide"

urlpatterns = [
    path("guide/<slug:slug>/", views.section, name="section"),
    path("guide/<slug:slug>/read", views.mark_read, name="mark-read"),
    path("search/", views.search_page, name="search"),
]
