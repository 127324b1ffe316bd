"""Websocket routes. Each app that speaks websockets adds its own here."""

from __future__ import annotations

from django.urls import URLPattern, re_path

from studysite.lab.consumers import NoRouteConsumer
from studysite.lab.routing import websocket_urlpatterns as lab_patterns

# Last: any other path is refused at the handshake instead of raising in the router.
websocket_urlpatterns: list[URLPattern] = [*lab_patterns, re_path(r"", NoRouteConsumer.as_asgi())]
