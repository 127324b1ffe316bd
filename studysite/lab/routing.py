from __future__ import annotations

from django.conf import settings
from django.urls import URLPattern, path

from studysite.lab.consumers import EchoConsumer, LabConsumer
from studysite.lab.exam_consumers import ExamConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/lab/exam/<int:attempt>/<int:position>/", ExamConsumer.as_asgi()),
    path("ws/lab/<slug:ticket>/", LabConsumer.as_asgi()),
]
if settings.LAB_BENCH_ECHO:
    websocket_urlpatterns.append(path("ws/echo/", EchoConsumer.as_asgi()))
