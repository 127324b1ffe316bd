"""`/healthz` for a load balancer or an orchestrator: can this worker serve a learner?

It checks what a worker shares with the others, the database and the channel layer,
and answers 200 with JSON when both work, 503 naming what failed otherwise.
"""

from __future__ import annotations

import asyncio
import secrets

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

# A probe that hangs is as bad as one that fails: the balancer needs an answer.
CHECK_TIMEOUT_SECONDS = 3.0


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


async def check_channel_layer() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    # A round trip through the layer on a channel of its own. Not a process-local channel
    # (new_channel): channels_redis reads those through one loop shared with every open
    # socket of the worker, and the probe must not wait behind it.
    channel = f"healthz.{secrets.token_hex(8)}"
    await layer.send(channel, {"type": "healthz.ping"})
    message = await layer.receive(channel)
    if message.get("type") != "healthz.ping":
        raise RuntimeError("the channel layer returned a different message")


def describe(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return f"no answer within {CHECK_TIMEOUT_SECONDS:g} s"
    return f"{type(error).__name__}: {error}"[:200]


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    checks = {
        "database": sync_to_async(check_database, thread_sensitive=True)(),
        "channel_layer": check_channel_layer(),
    }
    results: dict[str, str] = {}
    for name, check in checks.items():
        try:
            await asyncio.wait_for(check, CHECK_TIMEOUT_SECONDS)
            results[name] = "ok"
        except Exception as error:  # any failure is an answer here, never a 500
            results[name] = describe(error)
    healthy = all(result == "ok" for result in results.values())
    return JsonResponse(
        {"status": "ok" if healthy else "failing", "checks": results},
        status=200 if healthy else 503,
    )
