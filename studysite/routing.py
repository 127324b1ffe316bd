"""Websocket routes. Each app that speaks websockets adds its own here."""

from __future__ import annotations

from django.urls import URLPattern

from studysite.lab.routing import websocket_urlpatterns as lab_patterns

websocket_urlpatterns: list[URLPattern] = [*lab_patterns]
