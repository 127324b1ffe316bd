"""The lab websocket driven in-process, as a browser would: origin, cookie, JSON frames."""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from studysite.asgi import application

HOST = b"127.0.0.1:8000"
ORIGIN = b"http://127.0.0.1:8000"


@database_sync_to_async
def new_session_key() -> str:
    store = SessionStore()
    store["started"] = True
    store.create()
    return str(store.session_key)


def communicator(
    ticket: str, key: str | None, origin: bytes = ORIGIN, path: str | None = None
) -> WebsocketCommunicator:
    headers = [(b"origin", origin), (b"host", HOST)]
    if key:
        headers.append((b"cookie", f"sessionid={key}".encode()))
    return WebsocketCommunicator(application, path or f"/ws/lab/{ticket}/", headers=headers)


async def receive(comm: WebsocketCommunicator, timeout: float = 20) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(await comm.receive_from(timeout=timeout))
    return frame


async def connect(ticket: str, key: str) -> tuple[WebsocketCommunicator, dict[str, Any]]:
    """An open terminal and its replay frame."""
    comm = communicator(ticket, key)
    connected, _ = await comm.connect(timeout=20)
    assert connected
    replay = await receive(comm)
    assert replay["type"] == "output" and replay["replay"] is True
    assert replay["checklist"]
    return comm, replay


async def run(comm: WebsocketCommunicator, line: str) -> str:
    """Send a line; its output."""
    await comm.send_to(text_data=json.dumps({"type": "line", "data": line}))
    output = await receive(comm)
    assert output["type"] == "output", output
    assert output["checklist"]
    return str(output["data"])
