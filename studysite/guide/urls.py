from __future__ import annotations

from django.urls import path

from studysite.guide import views

app_name = "guide"

urlpatterns = [
    path("guide/", views.index, name="index"),
    path("guide/<slug:slug>/", views.section, name="section"),
    # GET: the learner's read state (loaded into the section page); POST: change it.
    path("guide/<slug:slug>/read", views.read_state, name="mark-read"),
    path("search/", views.search_page, name="search"),
]
