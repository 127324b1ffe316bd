"""The cluster's REST API without a transport: a request (method, target, headers, body) in, a
status code, a content type and a body out, as kube-apiserver answers it.

One place for the API's HTTP semantics, shared by two clients: the HTTP server that the real
kubectl and the official client drive (``simulators.cluster.server``, a thin adapter over
``respond``) and the lab's ``curl`` (``simulators.lab.curl``), which calls ``respond`` on the
lab's own store. Long-lived answers (a watch, ``logs -f``, exec) come back as a ``Stream`` for
the adapter to serve: the server holds the connection open (``simulators.cluster.streaming``),
the lab prints what a stream would have sent by now (``WatchCursor`` for a watch's events).
The messages and their encoding are ``simulators.cluster.http_messages``; who asks and whether
they may, ``simulators.cluster.http_access``.

Who asks is the caller's to say (an ``access.Identity``): the server's requests are the admin's
unless they impersonate (kubectl ``--as``), the lab's curl authenticates a bearer token
(``http_access.authenticate``). Any identity but the admin is authorized first, as
kube-apiserver's filter chain does before it routes: from the path alone (``request_info``, its
RequestInfoFactory), so a path that does not exist is 403 to whom RBAC does not let see it.

JSON is written compact, as the server always wrote it; a request kube-apiserver pretty-prints
for (``?pretty=true``, or a ``curl``, ``Wget`` or browser User-Agent) gets Go's indented form,
with an error's Status in Go's field order and the 404 text of a path no handler serves.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

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
from simulators.cluster.http_access import authorize, request_info
from simulators.cluster.http_messages import (
    BODY_TYPES,
    SUCCESS,
    TEXT,
    Request,
    Response,
    Stream,
    encode,
    error_response,
    pretty_wanted,
)
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
from simulators.cluster.watchlog import check_resource_version


# --------------------------------------------------------------------- answering
def respond(
    world: ServedCluster, request: Request, who: access.Identity, *, lab_paths: bool = True
) -> Response:
    """The API's answer to `request` made by `who` (authenticated by the caller). Every
    refusal is a Status response; an unexpected exception is the caller's (internal_error),
    so that the lab's budget stops pass through. `lab_paths`: whether `/lab/v1/checklist` is
    served (not on the lab's own host, whose cluster is a kubeadm one)."""
    call = _Call(world, request, who, lab_paths)
    try:
        if len(request.body) > limits.MAX_REQUEST_BODY_BYTES:
            raise limits.request_too_large()
        with world.lock:
            authorize(world.api, who, request_info(request.method, request.path, request.query))
        return call.route()
    except ApiError as error:
        return error_response(error, request, world.api)


def _nothing() -> None:
    return None


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


class _Call:
    """One request being answered (the verbs of the former server handler, transport-free)."""

    def __init__(
        self, world: ServedCluster, request: Request, who: access.Identity, lab_paths: bool
    ) -> None:
        self.world = world
        self.request = request
        self.who = who
        self.lab_paths = lab_paths
        self.query = request.query
        self.pretty = pretty_wanted(request)

    # ---- plumbing
    def json(self, code: int, body: Any) -> Response:
        return Response(code, encode(body, self.pretty))

    def text(self, code: int, text: str) -> Response:
        return Response(code, text.encode(), TEXT, cache=False)

    def wants_table(self) -> bool:
        return "as=Table" in (self.request.headers.get("Accept") or "")

    def body(self) -> Any:
        raw = self.request.body
        if self.request.method in ("POST", "PUT") or raw:
            self.check_body_type()
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

    def check_body_type(self) -> None:
        """A create's or an update's body in a format the server does not decode (curl -d's
        default form encoding): kube-apiserver's 415. No Content-Type is JSON."""
        given = (self.request.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if self.request.method != "PATCH" and given and given not in BODY_TYPES:
            raise ApiError(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types "
                "include: " + ", ".join(BODY_TYPES),
            )

    # ---- routing
    def route(self) -> Response:
        method = self.request.method
        path = self.request.path.rstrip("/") or "/"
        world = self.world
        api = world.api
        parts = [p for p in path.split("/") if p]
        if method == "GET" and path == "/version":
            return self.json(200, KUBERNETES_VERSION)
        if method == "GET" and path in ("/healthz", "/livez", "/readyz"):
            return self.text(200, "ok")
        if method == "GET" and path == "/lab/v1/checklist" and self.lab_paths:
            with world.lock:
                items = world.checklist(api)
            return self.json(200, {"items": items})
        if method == "GET" and path == "/api":
            return self.json(200, api_versions(self.request.headers.get("Host", "127.0.0.1") or ""))
        if method == "GET" and path == "/openapi/v3":
            return self.json(200, openapi_root(api))
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
            return self.json(200, document)
        if method == "GET" and path == "/apis":
            return self.json(200, api_group_list(api))
        if parts[:1] == ["api"] and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        elif parts[:1] == ["apis"] and len(parts) == 2:
            document = api_group(api, parts[1])
            if document is None:
                raise path_not_found()
            return self.json(200, document)
        else:
            raise path_not_found()
        if not rest:
            if method != "GET":
                raise method_not_allowed()
            listing = api_resource_list(api, group, version)
            if listing is None:
                raise path_not_found()
            return self.json(200, listing)
        if method == "POST" and len(rest) == 1 and (group, version, rest[0]) in REVIEWS:
            body = self.body()
            with world.lock:
                answer = access.review(api, REVIEWS[(group, version, rest[0])], body, self.who)
            return self.json(201, answer)
        if group == "" and len(rest) == 3 and rest[0] == "namespaces" and rest[2] == "bindings":
            return self.binding(method, rest[1], None)
        target = parse_resource_path(api, group, version, rest)
        return self.resource(method, target)

    # ---- resources
    def resource(self, method: str, target: Target) -> Response:
        world = self.world
        api = world.api
        query = self.query
        info = target.info
        advance: Callable[[], None] = world.advance
        if method in ("POST", "PUT", "PATCH", "DELETE") and _dry_run(method, query, self.body):
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
                return Response(200, stream=Stream("follow", target, query, text))
            return self.text(200, text)
        if target.subresource in unsupported.SUBRESOURCES:
            raise unsupported.refuse(unsupported.SUBRESOURCES[target.subresource])
        if target.subresource == "exec":
            return Response(200, stream=Stream("exec", target, query))
        if target.subresource == "binding":
            return self.binding(method, target.namespace or "default", target.name)
        if target.subresource == "eviction":
            if method != "POST":
                raise method_not_allowed()
            self.body()
            with world.lock:
                api.evict(target.name or "", target.namespace or "default")
            advance()
            return self.json(201, SUCCESS)
        if target.subresource == "scale":
            return self.scale(method, target, api, advance)
        if target.subresource == "token":
            if method != "POST":
                raise method_not_allowed()
            request = self.body()
            with world.lock:
                answer = access.token_request(
                    api, target.namespace or "default", target.name or "", request
                )
            return self.json(201, answer)
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
            return self.collection(method, target, api, advance)
        return self.named(method, target, target.name, api, advance)

    def collection(
        self, method: str, target: Target, api: MockCluster, advance: Callable[[], None]
    ) -> Response:
        world, query, info, key = self.world, self.query, target.info, target.info.key
        if method == "GET":
            if flag(query.get("watch")):
                return Response(200, stream=Stream("watch", target, query))
            with world.lock:
                # Serialised under the lock straight from the store: no copies.
                items = api.select(
                    key,
                    target.namespace,
                    label_selector=query.get("labelSelector", ""),
                    field_selector=query.get("fieldSelector", ""),
                )
                if self.wants_table():
                    body: Obj = table(
                        api,
                        key,
                        items,
                        wide=True,
                        include_object=query.get("includeObject", "Metadata"),
                        resource_version=api.resource_version,
                    )
                else:
                    if self.pretty and not info.custom:
                        # A built-in type's list holds typed items: no TypeMeta of their own.
                        items = [
                            {k: v for k, v in item.items() if k not in ("kind", "apiVersion")}
                            for item in items
                        ]
                    body = {
                        "apiVersion": info.api_version,
                        "kind": info.list_kind,
                        "metadata": {"resourceVersion": api.resource_version},
                        "items": items,
                    }
                data = encode(body, self.pretty)
            return Response(200, data)
        if method == "POST":
            created = self.body()
            if not isinstance(created, dict):
                raise ApiError(400, "BadRequest", "the request body must be an object")
            check_kind(info, created)
            if key == "pods":
                unsupported.check_pod(created)
            if query.get("fieldValidation") == "Strict":
                check_fields(info, created)
            with world.lock:
                created = api.create(key, created, target.namespace)
            advance()
            return self.json(201, created)
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
            return self.json(200, listed)
        raise method_not_allowed()

    def named(
        self,
        method: str,
        target: Target,
        name: str,
        api: MockCluster,
        advance: Callable[[], None],
    ) -> Response:
        world, query, info, key = self.world, self.query, target.info, target.info.key
        sub = target.subresource
        if method == "GET":
            with world.lock:
                obj = api.get(key, name, target.namespace)
                # The status subresource answers with the object, and its table as the
                # object's own (KEP-2590: StatusREST's ConvertToTable is the store's).
                if self.wants_table() and sub in (None, "status"):
                    obj = object_table(api, key, obj, query)
            return self.json(200, obj)
        if method == "PUT":
            body = self.body()
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
            return self.json(200, updated)
        if method == "PATCH":
            content_type = (self.request.headers.get("Content-Type") or "").split(";")[0].strip()
            patch_type = PATCH_TYPES.get(content_type)
            if patch_type is None:
                raise ApiError(
                    415,
                    "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types "
                    "include: application/json-patch+json, application/merge-patch+json, "
                    "application/strategic-merge-patch+json",
                )
            body = self.body()
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
            return self.json(200, patched)
        if method == "DELETE":
            options = self.body() or {}
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
            return self.json(200, deleted)
        raise method_not_allowed()

    def scale(
        self, method: str, target: Target, api: MockCluster, advance: Callable[[], None]
    ) -> Response:
        """The ``scale`` subresource: an autoscaling/v1 Scale over ``spec.replicas``, on `api`
        (a dry run's copy, or the world's store), then `advance`."""
        world = self.world
        key, name, ns = target.info.key, target.name or "", target.namespace

        if method == "GET":
            with world.lock:
                scale = scale_of(api.get(key, name, ns))
                if self.wants_table():
                    include = self.query.get("includeObject", "Metadata")
                    version = scale["metadata"].get("resourceVersion", "")
                    scale = scale_table(
                        api, [scale], include_object=include, resource_version=version
                    )
                return self.json(200, scale)
        if method not in ("PUT", "PATCH"):
            raise method_not_allowed()
        content_type = (self.request.headers.get("Content-Type") or "").split(";")[0].strip()
        body = self.body()
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
        return self.json(200, scale_of(updated))

    def binding(self, method: str, namespace: str, name: str | None) -> Response:
        if method != "POST":
            raise method_not_allowed()
        body = self.body() or {}
        pod = name or str((body.get("metadata") or {}).get("name", ""))
        node = str((body.get("target") or {}).get("name", ""))
        if not node:
            raise ApiError(422, "Invalid", 'Binding "" is invalid: target.name: Required value')
        with self.world.lock:
            self.world.api.bind(pod, namespace, node)
        self.world.advance()
        return self.json(201, SUCCESS)


# --------------------------------------------------------------------- exec
def exec_command(target: str) -> list[str]:
    """An exec request's command: its `command` parameters in order."""
    return parse_qs(urlsplit(target).query).get("command", [])


def check_exec(command: list[str], upgrade: str | None) -> None:
    """What the server refuses before an exec's WebSocket opens: `kubectl cp` (tar over
    exec), and a request that asks for no WebSocket (curl's: the API's 400)."""
    if command[:1] == ["tar"]:
        raise unsupported.refuse("cp")  # kubectl cp is tar over exec
    if (upgrade or "").lower() != "websocket":
        raise ApiError(400, "BadRequest", "Upgrade request required")


# --------------------------------------------------------------------- watches
class WatchCursor:
    """A watch's events batch by batch, as the server streams them (``_watch``) and as the
    lab's curl prints the first batch: `check` before anything is sent (a bad selector or
    resourceVersion is a plain error), then `step` for each batch of lines."""

    def __init__(
        self, world: ServedCluster, target: Target, query: dict[str, str], as_table: bool
    ) -> None:
        self.world, self.target, self.query, self.as_table = world, target, query, as_table
        name_selector = f"metadata.name={target.name}" if target.name else ""
        self.field_selector = ",".join(
            s for s in (query.get("fieldSelector", ""), name_selector) if s
        )
        self.label_selector = query.get("labelSelector", "")
        self.since = query.get("resourceVersion", "")
        # The watch-list protocol (client-go's WatchListClient, on in kubectl 1.36): the
        # current objects as ADDED events, then a bookmark that says the initial list is
        # complete.
        self.initial = flag(query.get("sendInitialEvents"))
        if self.initial:
            self.since = ""
        self.first = True

    def check(self) -> None:
        """Validate the selectors and the resourceVersion (ApiError) before the stream."""
        with self.world.lock:
            self.world.api.list(
                self.target.info.key,
                self.target.namespace,
                label_selector=self.label_selector,
                field_selector=self.field_selector,
            )
        check_resource_version(self.target.info, self.query.get("resourceVersion", ""))

    def step(self) -> tuple[list[bytes], bool]:
        """The next batch of event lines, and whether the stream ends after it (an ERROR
        event: the history no longer reaches back)."""
        world, target = self.world, self.target
        api = world.api
        key = target.info.key
        with world.lock:
            try:
                events = api.watch(
                    key,
                    target.namespace,
                    resource_version=self.since,
                    label_selector=self.label_selector,
                    field_selector=self.field_selector,
                )
            except ApiError as error:
                line = json.dumps({"type": "ERROR", "object": error.status()}).encode() + b"\n"
                return [line], True
            latest = api.resource_version
            lines = []
            for event in events:
                obj = event.object
                if self.as_table:
                    obj = object_table(api, key, obj, self.query)
                    if not self.first:
                        obj["columnDefinitions"] = []
                    self.first = False
                lines.append(json.dumps({"type": event.type, "object": obj}).encode() + b"\n")
            if self.initial:
                bookmark = {
                    "kind": target.info.kind,
                    "apiVersion": target.info.api_version,
                    "metadata": {
                        "resourceVersion": latest,
                        "annotations": {"k8s.io/initial-events-end": "true"},
                    },
                }
                lines.append(json.dumps({"type": "BOOKMARK", "object": bookmark}).encode() + b"\n")
                self.initial = False
        self.since = latest
        return lines, False
