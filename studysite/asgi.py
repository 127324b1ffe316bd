"""ASGI entry point: HTTP through Django, websockets through Channels.

Both pass through the site-wide limits first (studysite.limits): request bodies
are refused before they are buffered, and websockets need an exact origin. In front
of everything, the guide's section pages (the same bytes for every learner) are
replayed from Django's first answer without entering Django (studysite.guide.shared); other
pages are rendered by the page process, a child of this one (studysite.pageserver).
The interpreter is then set for a long-running server (studysite.interpreter).
"""

from __future__ import annotations

import os
import sys

from django.core.asgi import get_asgi_application
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studysite.settings")

# Django must be set up before anything imports models. A bad environment variable stops the
# server with one line naming it, not a traceback from deep inside the server's import.
try:
    django_asgi_app = get_asgi_application()
except ImproperlyConfigured as error:
    sys.exit(f"error: {error}")

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.sessions import SessionMiddlewareStack

from studysite.guide.sections import load_guide
from studysite.guide.shared import SharedPages
from studysite.interpreter import tune_for_serving
from studysite.limits import (
    BodyLimitMiddleware,
    ExactOriginValidator,
    limit_daphne_bodies,
    limit_daphne_websockets,
)
from studysite.pageserver import PageServer, start_with_the_server
from studysite.routing import websocket_urlpatterns

limit_daphne_bodies()
limit_daphne_websockets()

application = SharedPages(
    ProtocolTypeRouter(
        {
            "http": BodyLimitMiddleware(PageServer(django_asgi_app)),
            "websocket": ExactOriginValidator(
                SessionMiddlewareStack(URLRouter(websocket_urlpatterns))
            ),
        }
    ),
    paths=lambda: (section.url for section in load_guide().sections),
)

# Last: everything loaded so far lives as long as the process.
tune_for_serving()
start_with_the_server()
