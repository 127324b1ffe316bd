"""ASGI entry point: HTTP through Django, websockets through Channels.

Both pass through the site-wide limits first (studysite.limits): request bodies
are refused before they are buffered, and websockets need an exact origin.
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studysite.settings")

# Django must be set up before anything imports models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402

from studysite.limits import (  # noqa: E402
    BodyLimitMiddleware,
    ExactOriginValidator,
    limit_daphne_bodies,
)
from studysite.routing import websocket_urlpatterns  # noqa: E402

limit_daphne_bodies()

application = ProtocolTypeRouter(
    {
        "http": BodyLimitMiddleware(django_asgi_app),
        "websocket": ExactOriginValidator(SessionMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
