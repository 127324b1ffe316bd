"""Issue 33, finding 6: a websocket that floods the server without reading is closed and dropped.

Daphne reads a socket's frames as fast as they arrive and queues them for the application
without bound; the lab consumer counts frames as it handles them, so a client that never read
was never seen to flood: 1.95 M frames in 40 s, and the socket never closed. These tests flood
a real server process from a raw socket that never reads, as such a client does: granian with
one worker (`make serve`'s) and daphne (`manage.py runserver`'s).
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from collections.abc import Iterator

import pytest

from tests.reliability.server import Server, running_server

pytestmark = [pytest.mark.reliability, pytest.mark.own_server]

FRAME = json.dumps({"type": "complete", "line": "kubectl get n"}).encode()


@pytest.fixture(scope="module", params=[1, 0], ids=["granian-1-worker", "daphne"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    with running_server(workers=request.param) as live:
        yield live


def masked(payload: bytes) -> bytes:
    """One text frame as a client sends it (masked, under 126 bytes)."""
    mask = os.urandom(4)
    return (
        bytes([0x81, 0x80 | len(payload)])
        + mask
        + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    )


def open_raw(server: Server) -> socket.socket:
    """A lab websocket opened by hand, so that the test decides when (never) to read."""
    cookie = server.new_session()
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall(
        (
            f"GET /ws/lab/mig-single/ HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {server.origin}\r\nCookie: {cookie}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += raw.recv(1)
    assert head.startswith(b"HTTP/1.1 101")
    return raw


def flood(raw: socket.socket, seconds: float, per_send: int, pause: float = 0.0) -> float | None:
    """Send frames for up to `seconds` without reading; when the server dropped the socket."""
    burst, started = masked(FRAME) * per_send, time.monotonic()
    raw.settimeout(2)
    while time.monotonic() - started < seconds:
        try:
            raw.sendall(burst)
        except OSError:
            return time.monotonic() - started
        time.sleep(pause)
    return None


def close_code(raw: socket.socket) -> int | None:
    """The close code among what the server sent, if it sent a close frame."""
    raw.setblocking(False)
    data = b""
    try:
        while chunk := raw.recv(65536):
            data += chunk
    except OSError:
        pass
    at = data.find(b"\x88\x02")
    return int.from_bytes(data[at + 2 : at + 4], "big") if at >= 0 else None


def test_6_a_client_flooding_without_reading_is_closed_and_dropped(server: Server) -> None:
    raw = open_raw(server)
    before = server.cpu_seconds()
    dropped = flood(raw, 20, per_send=50)
    spent = server.cpu_seconds() - before
    assert dropped is not None and dropped < 10, "still reading the flood after 20 s"
    assert close_code(raw) == 4429
    assert spent < 5, f"the flood cost the server {spent:.1f} s of processor time"


def test_6_a_socket_closed_for_a_flood_is_no_longer_read(server: Server) -> None:
    # Fast enough for the consumer's own per-second limit, slow enough for it to keep up:
    # the consumer closes with 4429, and the socket is then dropped rather than read on.
    raw = open_raw(server)
    dropped = flood(raw, 20, per_send=5, pause=0.05)
    assert dropped is not None and dropped < 10, "still reading the socket after its close"
    assert close_code(raw) == 4429
