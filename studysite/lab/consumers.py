"""The lab terminal's websocket: parse a frame, call the lab, send frames back.

Bound to the browser session (the cookie the page set); the origin is checked by
AllowedHostsOriginValidator in asgi.py. Limits: frame size and frames per second.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from simulators.lab import LabSession, list_tickets
from studysite.lab import cluster, store

CLOSE_NO_SESSION = 4401
CLOSE_UNKNOWN_TICKET = 4404
CLOSE_TOO_MANY = 4429
# A line may be 4 KiB; its JSON frame (quotes, escapes, the type) may be larger.
FRAME_OVERHEAD = 1024


class RateLimiter:
    """A token bucket: a burst of `rate` frames, refilled at `rate` per second."""

    def __init__(self, rate: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.tokens = float(rate)
        self.clock = clock
        self.last = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.rate, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def checklist_frame(lab: LabSession) -> dict[str, Any]:
    return {"type": "checklist", "items": [item.to_dict() for item in lab.checklist()]}


def replay_frame(lab: LabSession) -> dict[str, Any]:
    return {"type": "output", "data": lab.replay(), "replay": True}


class LabConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.ticket = self.scope["url_route"]["kwargs"]["ticket"]
        session = self.scope.get("session")
        self.session_key = session.session_key if session else None
        known = {ticket.id for ticket in list_tickets()}
        if cluster.real_mode():
            known.add(cluster.EXPLORE_ID)
        if self.ticket not in known:
            await self.close(code=CLOSE_UNKNOWN_TICKET)
        elif not self.session_key:
            await self.close(code=CLOSE_NO_SESSION)
        else:
            self.opened = await database_sync_to_async(store.open_lab)(
                self.session_key, self.ticket
            )
            self.limiter = RateLimiter(settings.LAB_MAX_FRAMES_PER_SECOND)
            await self.accept()
            await self.send_json(replay_frame(self.opened.lab))
            await self.send_json(checklist_frame(self.opened.lab))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.limiter.allow():
            await self.close(code=CLOSE_TOO_MANY)
            return
        if text_data is None or len(text_data) > settings.LAB_MAX_LINE_BYTES + FRAME_OVERHEAD:
            await self.send_error("frame refused: send JSON text of at most 4 KiB")
            return
        try:
            frame = json.loads(text_data)
        except ValueError:
            frame = None
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self.send_error("frame refused: not a JSON object with a type")
            return
        await self.dispatch_frame(frame)

    async def dispatch_frame(self, frame: dict[str, Any]) -> None:
        kind, lab = frame["type"], self.opened.lab
        if kind == "line" and isinstance(frame.get("data"), str):
            result = store.run_line(self.opened, frame["data"])
            output: dict[str, Any] = {"type": "output", "data": result.output}
            await self.send_json({**output, "clear": True} if result.clear else output)
            await self.send_json(checklist_frame(lab))
            # Kept before the next frame is read, but after the learner has the answer: the
            # server writes frames a loop turn or two later, and the database write runs in a
            # worker thread that competes for the GIL, so give the frames a head start
            # (measured with bench_lab: p50 3.2 ms -> 2.3 ms).
            await asyncio.sleep(0.002)
            await database_sync_to_async(store.record)(self.opened, frame["data"])
        elif kind == "complete" and isinstance(frame.get("line"), str):
            items = [] if self.opened.exam_mode else lab.complete(frame["line"])
            await self.send_json({"type": "completions", "items": items})
        elif kind == "reset":
            self.opened = await database_sync_to_async(store.reset_lab)(
                self.session_key, self.ticket
            )
            await self.send_json(replay_frame(self.opened.lab))
            await self.send_json(checklist_frame(self.opened.lab))
        else:
            await self.send_error(f"frame refused: unknown or incomplete frame {kind[:40]!r}")

    async def send_error(self, message: str) -> None:
        await self.send_json({"type": "error", "data": message})

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content))


class EchoConsumer(AsyncWebsocketConsumer):
    """A bare echo, routed only when LAB_BENCH_ECHO is on: the benchmark's baseline."""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.send(text_data=text_data)
