"""The mock cluster served as a Kubernetes REST API on 127.0.0.1 (python -m simulators apiserver).

Enough of kube-apiserver for the real kubectl and the official Python client: version,
discovery, resources and subresources, watch streams, Table output, Status errors, exec over
WebSocket (``v5.channel.k8s.io``/``v4.channel.k8s.io``), and ``GET /lab/v1/checklist``. One lock
guards the store; the world steps once per change and at least once a second.

This module is the transport: ``http_api`` routes requests and answers the verbs (the lab's
curl answers from it too), ``discovery`` holds the discovery and OpenAPI documents, ``request``
the path and query parsing and the store-free answers, ``streaming`` the watch, ``logs -f`` and
exec responses.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from email.utils import formatdate
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from simulators.cluster import access, http_api, http_messages, limits
from simulators.cluster.api import ApiError
from simulators.cluster.served import ServedCluster
from simulators.cluster.streaming import StreamingHandler

TICK_SECONDS = 1.0

log = logging.getLogger(__name__)


# --------------------------------------------------------------------- the handler
class Handler(StreamingHandler):
    """HTTP over ``http_api.respond``: read the request, answer it, serve a stream."""

    server_version = "kube-apiserver"
    protocol_version = "HTTP/1.1"
    _raw_body: bytes = b""
    # A buffered writer sends headers and body as one segment (flushed after each request);
    # unbuffered, the second small write waits for the client's delayed ACK: +40 ms a request.
    wbufsize = 1 << 16

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

    def date_time_string(self, timestamp: float | None = None) -> str:
        # The Date header is the cluster's clock, as a real API server's is: external clients
        # (the real-cluster scheduler) stamp their events with it.
        del timestamp
        return formatdate(self.world.api.now().timestamp(), usegmt=True)

    # ---- plumbing
    def _send(self, response: http_messages.Response) -> None:
        self.send_response(response.code)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        if response.cache:
            self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        self.wfile.write(response.body)

    def _read_body(self) -> bytes:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        if length > limits.MAX_REQUEST_BODY_BYTES:
            raise limits.request_too_large()
        return self.rfile.read(length) if length > 0 else b""

    def _discard_body(self) -> None:
        """Read a refused body in small pieces (a client still sending it would otherwise see
        a reset instead of the answer), up to a bound past which the connection just closes."""
        try:
            left = min(int(self.headers.get("Content-Length") or 0), limits.DISCARD_BYTES)
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 16))
                if not chunk:
                    break
                left -= len(chunk)
        except (OSError, ValueError):
            pass

    def _request(self, method: str) -> http_messages.Request:
        headers = http_messages.Headers(self.headers.items())
        return http_messages.Request(method, self.path, headers, self._raw_body)

    def _dispatch(self, method: str) -> None:
        # The whole body is read first: an error answered before reading it would leave it in
        # the connection, to be taken for the next request.
        request = self._request(method)
        try:
            self._raw_body = self._read_body()
        except ApiError as error:  # over the limit: answered unkept, the connection closed
            self.close_connection = True
            self._discard_body()
            with contextlib.suppress(OSError):
                self._send(http_messages.error_response(error, request))
            return
        request = self._request(method)
        try:
            response = http_api.respond(self.world, request, self._who())
            if response.stream is None:
                self._send(response)
            else:
                self._serve(response.stream)
        except ApiError as error:
            self._send(http_messages.error_response(error, request, self.world.api))
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as error:  # a request must never see a traceback
            with contextlib.suppress(OSError):
                self._send(http_messages.internal_error(error, request))

    def _serve(self, stream: http_messages.Stream) -> None:
        if stream.kind == "watch":
            self._watch(stream.target, stream.query)
        elif stream.kind == "follow":
            self._follow_log(stream.target, stream.query, stream.text)
        else:
            self._exec(stream.target, stream.query)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _who(self) -> access.Identity:
        """Whom the request acts as: the admin may impersonate anyone (kubectl --as)."""
        user = self.headers.get("Impersonate-User")
        if not user:
            return access.ADMIN
        return access.impersonated(user, self.headers.get_all("Impersonate-Group") or [])


# --------------------------------------------------------------------- the server
class ClusterServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    stopping = False


def make_server(world: ServedCluster, port: int = 0, host: str = "127.0.0.1") -> ClusterServer:
    handler = type("BoundHandler", (Handler,), {"world": world})
    return ClusterServer((host, port), handler)


def start_ticker(
    world: ServedCluster, server: ClusterServer, seconds: float = TICK_SECONDS
) -> threading.Thread:
    """Step the world at least once a second, so controllers move while nobody writes."""

    def tick() -> None:
        # A step is due a second after the last one, whoever made it: a request that changed
        # something stepped the world already.
        world.last_step = max(world.last_step, time.monotonic())
        while not server.stopping:
            due = world.last_step + seconds - time.monotonic()
            if due > 0:
                time.sleep(due)
            elif not server.stopping:
                # A step that fails (an object no controller can read) must not stop the
                # clock for good: ServedCluster.advance logs it, and it is tried again a tick later.
                world.advance()

    thread = threading.Thread(target=tick, name="cluster-ticker", daemon=True)
    thread.start()
    return thread


def kubeconfig(server_url: str) -> str:
    """A kubeconfig for the lab's cluster: plain http on loopback, no credentials."""
    return (
        "apiVersion: v1\n"
        "kind: Config\n"
        "clusters:\n"
        "- cluster:\n"
        f"    server: {server_url}\n"
        "  name: dgx-cluster\n"
        "contexts:\n"
        "- context:\n"
        "    cluster: dgx-cluster\n"
        "    user: kubernetes-admin\n"
        "  name: dgx-cluster\n"
        "current-context: dgx-cluster\n"
        "preferences: {}\n"
        "users:\n"
        "- name: kubernetes-admin\n"
        "  user: {}\n"
    )


def write_kubeconfig(path: Path, server_url: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(kubeconfig(server_url), encoding="utf-8")
