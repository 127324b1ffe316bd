"""The mock cluster served as a Kubernetes REST API on 127.0.0.1 (python -m simulators apiserver).

Enough of kube-apiserver for the real kubectl and the official Python client: version,
discovery, resources and subresources, watch streams, Table output, Status errors, exec over
WebSocket (``v5.channel.k8s.io``/``v4.channel.k8s.io``), and ``GET /lab/v1/checklist``. One lock
guards the store; the world steps once per change and at least once a second.

This module routes requests and answers the verbs; ``discovery`` holds the discovery and OpenAPI
documents, ``request`` the path and query parsing and the store-free answers, ``streaming`` the
watch, ``logs -f`` and exec responses.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from email.utils import formatdate
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from simulators.cluster import access, documents, limits, protobuf, unsupported
from simulators.cluster.api import ApiError, Obj
from simulators.cluster.discovery import (
    KUBERNETES_VERSION,
    api_group,
    api_group_list,
    api_resource_list,
    api_versions,
    openapi_group_version,
    openapi_root,
)
from simulators.cluster.fields import check_fields
from simulators.cluster.patches import apply_patch
from simulators.cluster.printers import scale_table, table
from simulators.cluster.request import (
    PATCH_TYPES,
    REVIEWS,
    Target,
    check_kind,
    flag,
    method_not_allowed,
    number,
    object_table,
    parse_resource_path,
    path_not_found,
    scale_of,
)
from simulators.cluster.served import ServedCluster
from simulators.cluster.store import MockCluster
from simulators.cluster.streaming import StreamingHandler

TICK_SECONDS = 1.0

log = logging.getLogger(__name__)


def _nothing() -> None:
    return None


# --------------------------------------------------------------------- the handler
def _dry_run(method: str, query: dict[str, str], body: Callable[[], Any]) -> bool:
    """A server-side dry run: `?dryRun=All`, or for a DELETE its DeleteOptions' `dryRun:
    [All]` in the body, where kubectl puts it (`kubectl delete --dry-run=server` sends no
    query)."""
    if query.get("dryRun") == "All":
        return True
    if method != "DELETE":
        return False
    options = body()
    return isinstance(options, dict) and options.get("dryRun") == ["All"]


class Handler(StreamingHandler):
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
    def _send_json(self, code: int, body: Any, content_type: str = "application/json") -> None:
        self._send_bytes(code, json.dumps(body, separators=(",", ":")).encode(), content_type)

    def _send_bytes(self, code: int, data: bytes, content_type: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        self.wfile.write(data)

    def _send_text(self, code: int, text: str) -> None:
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, error: ApiError) -> None:
        self._send_json(error.code, error.status())

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

    def _body(self) -> Any:
        raw = self._raw_body
        if not raw:
            return None
        if raw.startswith(protobuf.MAGIC):
            return protobuf.decode(raw)
        try:
            return documents.load_json(raw)
        except documents.DocumentError as error:
            raise ApiError(400, "BadRequest", str(error)) from None
        except ValueError:
            try:
                return documents.load_yaml(raw)
            except documents.DocumentError as error:
                raise ApiError(400, "BadRequest", str(error)) from None
            except Exception as error:
                raise ApiError(
                    400, "BadRequest", "the request body is not valid JSON or YAML"
                ) from error

    def _query(self) -> dict[str, str]:
        query = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
        return {k: v[-1] for k, v in query.items()}

    def _dispatch(self, method: str) -> None:
        # The whole body is read first: an error answered before reading it would leave it in
        # the connection, to be taken for the next request.
        try:
            self._raw_body = self._read_body()
        except ApiError as error:  # over the limit: answered unkept, the connection closed
            self.close_connection = True
            self._discard_body()
            with contextlib.suppress(OSError):
                self._send_error(error)
            return
        try:
            self._route(method)
        except ApiError as error:
            self._send_error(error)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as error:  # a request must never see a traceback
            message = f"Internal error occurred: {type(error).__name__}: {error}"
            with contextlib.suppress(OSError):
                self._send_error(ApiError(500, "InternalError", message))

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

    # ---- routing
    def _route(self, method: str) -> None:
        path = unquote(urlsplit(self.path).path).rstrip("/") or "/"
        world = self.world
        api = world.api
        parts = [p for p in path.split("/") if p]
        if method == "GET" and path == "/version":
            self._send_json(200, KUBERNETES_VERSION)
            return
        if method == "GET" and path in ("/healthz", "/livez", "/readyz"):
            self._send_text(200, "ok")
            return
        if method == "GET" and path == "/lab/v1/checklist":
            with world.lock:
                items = world.checklist(api)
            self._send_json(200, {"items": items})
            return
        if method == "GET" and path == "/api":
            self._send_json(200, api_versions(self.headers.get("Host", "127.0.0.1")))
            return
        if method == "GET" and path == "/openapi/v3":
            self._send_json(200, openapi_root(api))
            return
        if method == "GET" and parts[:2] == ["openapi", "v3"]:
            rest = parts[2:]
            if rest[:1] == ["api"] and len(rest) == 2:
                document = openapi_group_version(api, "", rest[1])
            elif rest[:1] == ["apis"] and len(rest) == 3:
                document = openapi_group_version(api, rest[1], rest[2])
            else:
                document = None
            if document is None:
                raise path_not_found()
            self._send_json(200, document)
            return
        if method == "GET" and path == "/apis":
            self._send_json(200, api_group_list(api))
            return
        if parts[:1] == ["api"] and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        elif parts[:1] == ["apis"] and len(parts) == 2:
            document = api_group(api, parts[1])
            if document is None:
                raise path_not_found()
            self._send_json(200, document)
            return
        else:
            raise path_not_found()
        if not rest:
            if method != "GET":
                raise method_not_allowed()
            listing = api_resource_list(api, group, version)
            if listing is None:
                raise path_not_found()
            self._send_json(200, listing)
            return
        if method == "POST" and len(rest) == 1 and (group, version, rest[0]) in REVIEWS:
            body = self._body()
            with world.lock:
                answer = access.review(api, REVIEWS[(group, version, rest[0])], body, self._who())
            self._send_json(201, answer)
            return
        if group == "" and len(rest) == 3 and rest[0] == "namespaces" and rest[2] == "bindings":
            self._binding(method, rest[1], None)
            return
        target = parse_resource_path(api, group, version, rest)
        self._resource(method, target)

    def _who(self) -> access.Identity:
        """Whom the request acts as: the admin may impersonate anyone (kubectl --as)."""
        user = self.headers.get("Impersonate-User")
        if not user:
            return access.ADMIN
        return access.impersonated(user, self.headers.get_all("Impersonate-Group") or [])

    # ---- resources
    def _resource(self, method: str, target: Target) -> None:
        world = self.world
        api = world.api
        query = self._query()
        if (who := self._who()) != access.ADMIN:
            asked = access.request_verb(method, target.name, flag(query.get("watch")))
            if target.subresource in ("exec", "attach", "portforward"):
                asked = "create"  # a websocket's GET is authorized as the POST it replaces
            with world.lock:
                access.authorize(
                    api, who, asked, target.info, target.namespace, target.name, target.subresource
                )
        info = target.info
        key = info.key
        advance: Callable[[], None] = world.advance
        if method in ("POST", "PUT", "PATCH", "DELETE") and _dry_run(method, query, self._body):
            # A server-side dry run goes through every rule on a copy that is then dropped.
            with world.lock:
                api = api.dry_run()
            advance = _nothing
        if target.subresource == "log":
            if method != "GET":
                raise method_not_allowed()
            tail = number(query, "tailLines")
            with world.lock:
                text = api.logs(
                    target.name or "",
                    target.namespace or "default",
                    container=query.get("container") or None,
                    tail=tail,
                    previous=flag(query.get("previous")),
                )
            limit = number(query, "limitBytes")
            if limit is not None and limit > 0:  # the kubelet cuts the log at limitBytes
                text = text.encode("utf-8")[:limit].decode("utf-8", errors="replace")
            if flag(query.get("follow")) and not flag(query.get("previous")):
                self._follow_log(target, query, text)
            else:
                self._send_text(200, text)
            return
        if target.subresource in unsupported.SUBRESOURCES:
            raise unsupported.refuse(unsupported.SUBRESOURCES[target.subresource])
        if target.subresource == "exec":
            self._exec(target, query)
            return
        if target.subresource == "binding":
            self._binding(method, target.namespace or "default", target.name)
            return
        if target.subresource == "eviction":
            if method != "POST":
                raise method_not_allowed()
            self._body()
            with world.lock:
                api.evict(target.name or "", target.namespace or "default")
            advance()
            self._send_json(
                201,
                {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"},
            )
            return
        if target.subresource == "scale":
            self._scale(method, target, api, advance)
            return
        if target.subresource == "token":
            if method != "POST":
                raise method_not_allowed()
            request = self._body()
            with world.lock:
                answer = access.token_request(
                    api, target.namespace or "default", target.name or "", request
                )
            self._send_json(201, answer)
            return
        sub = target.subresource
        if sub is None:
            verb = {
                ("GET", True): "list",
                ("GET", False): "get",
                ("POST", True): "create",
                ("PUT", False): "update",
                ("PATCH", False): "patch",
                ("DELETE", False): "delete",
                ("DELETE", True): "deletecollection",
            }.get((method, target.name is None))
            if verb is None or verb not in info.verbs:
                raise ApiError(
                    405,
                    "MethodNotAllowed",
                    "the server does not allow this method on the requested resource",
                )
        if target.name is None:
            if method == "GET":
                if flag(query.get("watch")):
                    self._watch(target, query)
                    return
                with world.lock:
                    # Serialised under the lock straight from the store: no copies.
                    items = api.select(
                        key,
                        target.namespace,
                        label_selector=query.get("labelSelector", ""),
                        field_selector=query.get("fieldSelector", ""),
                    )
                    if self._wants_table():
                        body: Obj = table(
                            api,
                            key,
                            items,
                            wide=True,
                            include_object=query.get("includeObject", "Metadata"),
                            resource_version=api.resource_version,
                        )
                    else:
                        body = {
                            "apiVersion": info.api_version,
                            "kind": info.list_kind,
                            "metadata": {"resourceVersion": api.resource_version},
                            "items": items,
                        }
                    data = json.dumps(body, separators=(",", ":")).encode()
                self._send_bytes(200, data)
                return
            if method == "POST":
                body = self._body()
                if not isinstance(body, dict):
                    raise ApiError(400, "BadRequest", "the request body must be an object")
                check_kind(info, body)
                if key == "pods":
                    unsupported.check_pod(body)
                if query.get("fieldValidation") == "Strict":
                    check_fields(info, body)
                with world.lock:
                    created = api.create(key, body, target.namespace)
                advance()
                self._send_json(201, created)
                return
            if method == "DELETE":
                with world.lock:
                    listed = api.list(
                        key,
                        target.namespace,
                        label_selector=query.get("labelSelector", ""),
                        field_selector=query.get("fieldSelector", ""),
                    )
                    for item in listed["items"]:
                        meta = item["metadata"]
                        with contextlib.suppress(ApiError):
                            api.delete(key, meta["name"], meta.get("namespace"))
                advance()
                self._send_json(200, listed)
                return
            raise method_not_allowed()
        name = target.name
        if method == "GET":
            with world.lock:
                obj = api.get(key, name, target.namespace)
                # The status subresource answers with the object, and its table as the
                # object's own (KEP-2590: StatusREST's ConvertToTable is the store's).
                if self._wants_table() and sub in (None, "status"):
                    obj = object_table(api, key, obj, query)
            self._send_json(200, obj)
            return
        if method == "PUT":
            body = self._body()
            if not isinstance(body, dict):
                raise ApiError(400, "BadRequest", "the request body must be an object")
            check_kind(info, body)
            meta = body.setdefault("metadata", {})
            if meta.get("name", name) != name:
                raise ApiError(
                    400,
                    "BadRequest",
                    f"the name of the object ({meta.get('name')}) does not match the name on "
                    f"the URL ({name})",
                )
            meta["name"] = name
            if query.get("fieldValidation") == "Strict":
                check_fields(info, body)
            with world.lock:
                updated = api.update(key, body, target.namespace, subresource=sub)
            advance()
            self._send_json(200, updated)
            return
        if method == "PATCH":
            content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
            patch_type = PATCH_TYPES.get(content_type)
            if patch_type is None:
                raise ApiError(
                    415,
                    "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types "
                    "include: application/json-patch+json, application/merge-patch+json, "
                    "application/strategic-merge-patch+json",
                )
            body = self._body()
            if (
                query.get("fieldValidation") == "Strict"
                and patch_type != "json"
                and isinstance(body, dict)
            ):
                check_fields(info, body)
            with world.lock:
                patched = api.patch(
                    key, name, body, target.namespace, patch_type=patch_type, subresource=sub
                )
            advance()
            self._send_json(200, patched)
            return
        if method == "DELETE":
            options = self._body() or {}
            grace = options.get("gracePeriodSeconds") if isinstance(options, dict) else None
            if not isinstance(grace, int | None):
                raise ApiError(400, "BadRequest", "gracePeriodSeconds must be an integer")
            grace = number(query, "gracePeriodSeconds") if grace is None else grace
            propagation = (
                (options.get("propagationPolicy") if isinstance(options, dict) else None)
                or query.get("propagationPolicy")
                or "Background"
            )
            with world.lock:
                deleted = api.delete(
                    key,
                    name,
                    target.namespace,
                    propagation=str(propagation),
                    grace_period=grace,
                )
            advance()
            self._send_json(200, deleted)
            return
        raise method_not_allowed()

    def _scale(
        self, method: str, target: Target, api: MockCluster, advance: Callable[[], None]
    ) -> None:
        """The ``scale`` subresource: an autoscaling/v1 Scale over ``spec.replicas``, on `api`
        (a dry run's copy, or the world's store), then `advance`."""
        world = self.world
        key, name, ns = target.info.key, target.name or "", target.namespace

        if method == "GET":
            with world.lock:
                scale = scale_of(api.get(key, name, ns))
                if self._wants_table():
                    include = self._query().get("includeObject", "Metadata")
                    version = scale["metadata"].get("resourceVersion", "")
                    scale = scale_table(
                        api, [scale], include_object=include, resource_version=version
                    )
                self._send_json(200, scale)
            return
        if method not in ("PUT", "PATCH"):
            raise method_not_allowed()
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        body = self._body()
        with world.lock:
            current = scale_of(api.get(key, name, ns))
            if method == "PUT":
                wanted = body if isinstance(body, dict) else {}
            else:
                wanted = apply_patch(current, body, PATCH_TYPES.get(content_type, "merge"))
            replicas = (wanted.get("spec") or {}).get("replicas")
            if not isinstance(replicas, int) or replicas < 0:
                raise ApiError(
                    422,
                    "Invalid",
                    f'Scale.autoscaling "{name}" is invalid: spec.replicas: Invalid value: '
                    f"{replicas}: must be greater than or equal to 0",
                )
            updated = api.patch(key, name, {"spec": {"replicas": replicas}}, ns)
        advance()
        self._send_json(200, scale_of(updated))

    def _binding(self, method: str, namespace: str, name: str | None) -> None:
        if method != "POST":
            raise method_not_allowed()
        body = self._body() or {}
        pod = name or str((body.get("metadata") or {}).get("name", ""))
        node = str((body.get("target") or {}).get("name", ""))
        if not node:
            raise ApiError(422, "Invalid", 'Binding "" is invalid: target.name: Required value')
        with self.world.lock:
            self.world.api.bind(pod, namespace, node)
        self.world.advance()
        self._send_json(
            201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
        )


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
