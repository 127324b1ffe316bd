"""The API server's long-lived responses: watch streams, ``logs -f`` and exec over WebSocket.

``StreamingHandler`` is the base of the server's request handler: each method holds the
connection open (chunked transfer for watches and followed logs, a WebSocket for exec) and reads
the store under the world's lock between writes, so a stream never blocks other requests.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import struct
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING

from simulators.cluster.api import ApiError, Obj
from simulators.cluster.http_api import WatchCursor, check_exec, exec_command
from simulators.cluster.request import Target, number

if TYPE_CHECKING:
    from simulators.cluster.served import ServedCluster

WATCH_POLL_SECONDS = 0.1
_EXIT_TRAILER = re.compile(r"\n?command terminated with exit code (\d+)\n?$")
_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class StreamingHandler(BaseHTTPRequestHandler):
    """The streaming responses of ``simulators.cluster.server.Handler``."""

    world: ServedCluster  # set on the subclass by make_server

    def _wants_table(self) -> bool:
        return "as=Table" in (self.headers.get("Accept") or "")

    # ---- watch
    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _watch(self, target: Target, query: dict[str, str]) -> None:
        cursor = WatchCursor(self.world, target, query, self._wants_table())
        timeout = number(query, "timeoutSeconds") or 1800
        deadline = time.monotonic() + timeout
        # Selectors and the resourceVersion are checked before the stream starts, so a bad
        # one is a plain 400 or 422.
        cursor.check()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        self.wfile.flush()
        while time.monotonic() < deadline and not getattr(self.server, "stopping", False):
            lines, ended = cursor.step()
            try:
                for line in lines:
                    self._chunk(line)
            except OSError:
                return
            if ended:
                break
            time.sleep(WATCH_POLL_SECONDS)
        with contextlib.suppress(OSError):
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        self.close_connection = True

    def _follow_log(self, target: Target, query: dict[str, str], text: str) -> None:
        """``kubectl logs -f``: what is there, then each new line, until the pod or its log
        goes away (a deleted pod, a restarted container) or the client hangs up."""
        world = self.world
        name, namespace = target.name or "", target.namespace or "default"
        container = query.get("container") or None
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        full = ""
        with world.lock, contextlib.suppress(ApiError):
            full = world.api.logs(name, namespace, container=container)
        try:
            if text:
                self._chunk(text.encode())
            while not getattr(self.server, "stopping", False):
                time.sleep(WATCH_POLL_SECONDS)
                with world.lock:
                    try:
                        now = world.api.logs(name, namespace, container=container)
                    except ApiError:
                        break
                if not now.startswith(full):
                    break
                if len(now) > len(full):
                    self._chunk(now[len(full) :].encode())
                    full = now
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            pass
        self.close_connection = True

    # ---- exec over WebSocket
    def _exec(self, target: Target, query: dict[str, str]) -> None:
        command = exec_command(self.path)
        check_exec(command, self.headers.get("Upgrade"))
        offered = [p.strip() for p in (self.headers.get("Sec-WebSocket-Protocol") or "").split(",")]
        protocol = next(
            (p for p in ("v5.channel.k8s.io", "v4.channel.k8s.io") if p in offered), None
        )
        if protocol is None:
            raise ApiError(
                400,
                "BadRequest",
                "exec needs one of the protocols v5.channel.k8s.io, v4.channel.k8s.io",
            )
        with self.world.lock:
            try:
                output = self.world.api.exec(
                    target.name or "",
                    target.namespace or "default",
                    command,
                    container=query.get("container") or None,
                )
                status: Obj = {"metadata": {}, "status": "Success"}
            except ApiError as error:
                if error.code != 500:
                    raise
                output = ""
                status = {
                    "metadata": {},
                    "status": "Failure",
                    "message": error.message,
                    "reason": "InternalError",
                    "details": {"causes": [{"message": error.message}]},
                    "code": 500,
                }
        accept = base64.b64encode(
            hashlib.sha1((self.headers.get("Sec-WebSocket-Key", "") + _WS_GUID).encode()).digest()
        ).decode()
        self.send_response(HTTPStatus.SWITCHING_PROTOCOLS)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.send_header("Sec-WebSocket-Protocol", protocol)
        self.end_headers()
        # The lab's tools end a failed command's output with this line, as kubectl prints it;
        # over the wire the exit code travels in the status instead.
        trailer = _EXIT_TRAILER.search(output)
        if trailer is not None and status["status"] == "Success":
            output = output[: trailer.start()] + "\n" if trailer.start() else ""
            code = trailer.group(1)
            status = {
                "metadata": {},
                "status": "Failure",
                "message": f"command terminated with non-zero exit code: error executing "
                f"command {command}, exit code {code}",
                "reason": "NonZeroExitCode",
                "details": {"causes": [{"reason": "ExitCode", "message": code}]},
            }
        if output:
            self._ws_send(b"\x01" + output.encode())
        self._ws_send(b"\x03" + json.dumps(status).encode())
        self._ws_send(struct.pack("!H", 1000), opcode=0x8)
        self.close_connection = True

    def _ws_send(self, payload: bytes, opcode: int = 0x2) -> None:
        header = bytes([0x80 | opcode])
        size = len(payload)
        if size < 126:
            header += bytes([size])
        elif size < 65536:
            header += bytes([126]) + struct.pack("!H", size)
        else:
            header += bytes([127]) + struct.pack("!Q", size)
        self.wfile.write(header + payload)
        self.wfile.flush()
