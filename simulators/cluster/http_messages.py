"""The cluster's REST API's messages without a transport (simulators.cluster.http_api): a
request (method, target, headers, body), an answer (code, content type, body, or a long-lived
``Stream``), and how kube-apiserver encodes them: compact JSON, or Go's indented form for a
request it pretty-prints for (``?pretty=true``, a ``curl``, ``Wget`` or browser User-Agent),
an error as a Status in Go's field order."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from simulators.cluster.api import ApiError, Obj
from simulators.cluster.discovery import (
    api_resource_list,
)
from simulators.cluster.request import (
    Target,
    path_not_found,
)
from simulators.cluster.store import MockCluster

JSON = "application/json"
TEXT = "text/plain"
# What kube-apiserver 1.31 decodes a create or an update from (its 415 lists them).
BODY_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
SUCCESS: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
_PRETTY_AGENTS = ("curl", "Wget", "Mozilla/5.0")
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


class Headers:
    """A request's headers: names matched without case, a name given more than once kept."""

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        self.pairs = [(str(name), str(value)) for name, value in pairs]

    def get(self, name: str, default: str | None = None) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.pairs if k.lower() == wanted), default)

    def get_all(self, name: str) -> list[str]:
        wanted = name.lower()
        return [v for k, v in self.pairs if k.lower() == wanted]


@dataclass(frozen=True)
class Request:
    """One request: `target` is the request line's path and query as sent."""

    method: str
    target: str
    headers: Headers = field(default_factory=Headers)
    body: bytes = b""

    @property
    def path(self) -> str:
        return unquote(urlsplit(self.target).path)

    @property
    def query(self) -> dict[str, str]:
        """The query as the server reads it: each parameter's last value."""
        query = parse_qs(urlsplit(self.target).query, keep_blank_values=True)
        return {k: v[-1] for k, v in query.items()}


@dataclass(frozen=True)
class Stream:
    """A long-lived answer the adapter serves itself: a watch (`watch`), a followed log
    (`follow`, `text` what the log holds now) or exec over a WebSocket (`exec`)."""

    kind: str
    target: Target
    query: dict[str, str]
    text: str = ""


@dataclass(frozen=True)
class Response:
    """An answer: `cache` says whether it carries `Cache-Control: no-cache, private` (every
    JSON answer does, the plain-text ones do not); `stream` a long-lived one's."""

    code: int
    body: bytes = b""
    content_type: str = JSON
    cache: bool = True
    stream: Stream | None = None


class StatusError(ApiError):
    """An error whose Status has an empty `details: {}` in Go's form (a path's 403)."""

    empty_details = True


# --------------------------------------------------------------------- encoding
def pretty_wanted(request: Request) -> bool:
    """Whether kube-apiserver indents its JSON for this request (negotiation.isPrettyPrint):
    `?pretty=` as a Go bool, else a curl, Wget or browser User-Agent."""
    if "pretty" in urlsplit(request.target).query:
        value = request.query.get("pretty", "")
        if value:
            return value in _TRUE
    agent = request.headers.get("User-Agent") or ""
    return agent.startswith(_PRETTY_AGENTS)


def go_json(body: Any) -> bytes:
    """Go's json.MarshalIndent(body, "", "  "): UTF-8 as it is, `<`, `>`, `&`, U+2028 and
    U+2029 escaped, no newline at the end."""
    text = json.dumps(body, indent=2, ensure_ascii=False)
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text.encode("utf-8", errors="surrogatepass")


def encode(body: Any, pretty: bool) -> bytes:
    """The JSON of an answer: compact, as the server has always written it, or (pretty) as
    Go marshals an API object: its TypeMeta (`kind`, `apiVersion`) first."""
    if pretty:
        if isinstance(body, dict) and "kind" in body:
            first = {k: body[k] for k in ("kind", "apiVersion") if k in body}
            body = {**first, **{k: v for k, v in body.items() if k not in first}}
        return go_json(body)
    return json.dumps(body, separators=(",", ":")).encode()


def go_status(error: ApiError) -> Obj:
    """The error's Status as Go's metav1.Status marshals it: its fields in the struct's order,
    the empty ones left out, `details` when the error has any (or says it has, empty)."""
    status: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure"}
    if error.message:
        status["message"] = error.message
    if error.reason:
        status["reason"] = error.reason
    details = {
        key: error.details[key]
        for key in ("name", "group", "kind", "uid", "causes", "retryAfterSeconds")
        if error.details.get(key)
    }
    if "causes" in details:
        details["causes"] = [
            {k: cause[k] for k in ("reason", "message", "field") if cause.get(k)}
            for cause in details["causes"]
            if isinstance(cause, dict)
        ]
    if details or getattr(error, "empty_details", False):
        status["details"] = details
    if error.code:
        status["code"] = error.code
    return status


def error_response(error: ApiError, request: Request, api: MockCluster | None = None) -> Response:
    """The answer to a failed request. Pretty (what curl sees): kube-apiserver's own, where a
    path no handler serves is Go's plain `404 page not found` outside the API's groups."""
    if not pretty_wanted(request):
        return Response(error.code, encode(error.status(), False))
    if error.code == 404 and error.details == path_not_found().details:
        if api is not None and not _served_group_version(api, request.path):
            return Response(404, b"404 page not found\n", "text/plain; charset=utf-8", False)
        error = StatusError(404, "NotFound", "the server could not find the requested resource")
    return Response(error.code, go_json(go_status(error)))


def internal_error(error: Exception, request: Request) -> Response:
    """A request must never see a traceback: kube-apiserver's 500."""
    message = f"Internal error occurred: {type(error).__name__}: {error}"
    return error_response(ApiError(500, "InternalError", message), request)


def _served_group_version(api: MockCluster, path: str) -> bool:
    """Whether `path` is under a group version the API serves (its go-restful web service
    answers a 404 as a Status; the rest of the server as Go's http.NotFound)."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"] and len(parts) >= 2:
        return api_resource_list(api, "", parts[1]) is not None
    if parts[:1] == ["apis"] and len(parts) >= 3:
        return api_resource_list(api, parts[1], parts[2]) is not None
    return False
