from __future__ import annotations

from django.urls import path

from studysite.lab.consumers import LabConsumer

websocket_urlpatterns = [path("ws/lab/<slug:ticket>/", LabConsumer.as_asgi())]
