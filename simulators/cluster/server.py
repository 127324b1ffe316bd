"""The mock cluster served as a Kubernetes REST API on 127.0.0.1 (python -m simulators apiserver).

Enough of kube-apiserver for the real kubectl and the official Python client: version,
discovery, resources and subresources, watch streams, Table output, Status errors, exec over
WebSocket (``v5.channel.k8s.io``/``v4.channel.k8s.io``), and ``GET /lab/v1/checklist``. One lock
guards the store; the world steps once per change and at least once a second.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from simulators.cluster.api import ApiError, Obj, ResourceInfo
from simulators.cluster.fields import check_fields
from simulators.cluster.patches import apply_patch
from simulators.cluster.printers import format_label_selector, table
from simulators.cluster.store import MockCluster

KUBERNETES_VERSION = {
    "major": "1",
    "minor": "31",
    "gitVersion": "v1.31.4",
    "gitCommit": "a78aa47129b8539636eb86a9d00e31b2720fe06b",
    "gitTreeState": "clean",
    "buildDate": "2024-12-10T11:37:26Z",
    "goVersion": "go1.22.10",
    "compiler": "gc",
    "platform": "linux/amd64",
}
WATCH_POLL_SECONDS = 0.1
TICK_SECONDS = 1.0
_EXIT_TRAILER = re.compile(r"\n?command terminated with exit code (\d+)\n?$")
_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
ADMIN_USER = {
    "username": "kubernetes-admin",
    "groups": ["kubeadm:cluster-admins", "system:authenticated"],
}
ADMIN_REASON = (
    'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole '
    '"cluster-admin" to Group "kubeadm:cluster-admins"'
)
# Reviews are answered, never stored: (group, version, resource) -> kind.
_REVIEWS: dict[tuple[str, str, str], str] = {
    ("authorization.k8s.io", "v1", "selfsubjectaccessreviews"): "SelfSubjectAccessReview",
    ("authorization.k8s.io", "v1", "selfsubjectrulesreviews"): "SelfSubjectRulesReview",
    ("authentication.k8s.io", "v1", "selfsubjectreviews"): "SelfSubjectReview",
}
_PATCH_TYPES = {
    "application/merge-patch+json": "merge",
    "application/json-patch+json": "json",
    "application/strategic-merge-patch+json": "strategic",
}

Stepper = Callable[[MockCluster], None]
Checklist = Callable[[MockCluster], list[dict[str, Any]]]


def advance_clock_only(api: MockCluster) -> None:
    api.clock.advance()


@dataclass
class World:
    """The served cluster, how it steps, and where its checklist comes from."""

    api: MockCluster
    step: Stepper = advance_clock_only
    checklist: Checklist = field(default=lambda api: [])
    lock: threading.RLock = field(default_factory=threading.RLock)
    steps: int = 0
    files: dict[str, str] = field(default_factory=dict)  # the ticket's home-folder files

    last_step: float = 0.0  # time.monotonic() of the last step

    def advance(self) -> None:
        with self.lock:
            self.step(self.api)
            self.steps += 1
            self.last_step = time.monotonic()


# --------------------------------------------------------------------- discovery
def _groups(api: MockCluster) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for info in api.registry.infos:
        versions = groups.setdefault(info.group, [])
        if info.version not in versions:
            versions.append(info.version)
    for versions in groups.values():
        versions.sort(key=_version_rank)
    return groups


def _version_rank(version: str) -> tuple[int, int, int]:
    # Kubernetes' version priority: GA before beta before alpha, higher numbers first.
    match = re.match(r"v(\d+)(alpha|beta)?(\d*)", version)
    if not match:
        return (3, 0, 0)
    major, stage, minor = match.groups()
    stage_rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (stage_rank, -int(major), -int(minor or 0))


def api_group_list(api: MockCluster) -> Obj:
    groups = []
    for name, versions in _groups(api).items():
        if not name:
            continue
        entries = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
        groups.append({"name": name, "versions": entries, "preferredVersion": entries[0]})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def _subresource_entries(info: ResourceInfo) -> list[Obj]:
    entries: list[Obj] = []
    for sub in info.subresources:
        entry: Obj = {
            "name": f"{info.plural}/{sub}",
            "singularName": "",
            "namespaced": info.namespaced,
            "kind": info.kind,
            "verbs": ["get", "patch", "update"],
        }
        if sub == "log":
            entry["verbs"] = ["get"]
        elif sub == "exec":
            entry.update(kind="PodExecOptions", verbs=["create", "get"])
        elif sub == "binding":
            entry.update(kind="Binding", verbs=["create"])
        elif sub == "eviction":
            entry.update(kind="Eviction", group="policy", version="v1", verbs=["create"])
        elif sub == "scale":
            entry.update(kind="Scale", group="autoscaling", version="v1")
        entries.append(entry)
    return entries


def api_resource_list(api: MockCluster, group: str, version: str) -> Obj | None:
    infos = [i for i in api.registry.infos if i.group == group and i.version == version]
    if not infos:
        return None
    resources: list[Obj] = []
    for info in infos:
        entry: Obj = {
            "name": info.plural,
            "singularName": info.singular if info.plural != "bindings" else "binding",
            "namespaced": info.namespaced,
            "kind": info.kind,
            "verbs": list(info.verbs),
        }
        if info.short_names:
            entry["shortNames"] = list(info.short_names)
        if info.categories:
            entry["categories"] = list(info.categories)
        entry["storageVersionHash"] = base64.b64encode(
            hashlib.sha256(f"{group}/{version}/{info.kind}".encode()).digest()[:8]
        ).decode()
        resources.append(entry)
        resources.extend(_subresource_entries(info))
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": resources,
    }


# --------------------------------------------------------------------- OpenAPI v3
def openapi_root(api: MockCluster) -> Obj:
    """``/openapi/v3``: one document per group-version, as kubectl's discovery expects."""
    paths: Obj = {}
    for group, versions in _groups(api).items():
        for version in versions:
            prefix = f"apis/{group}/{version}" if group else f"api/{version}"
            digest = hashlib.sha256(prefix.encode()).hexdigest()[:32].upper()
            paths[prefix] = {"serverRelativeURL": f"/openapi/v3/{prefix}?hash={digest}"}
    return {"paths": paths}


def openapi_group_version(api: MockCluster, group: str, version: str) -> Obj | None:
    """A group-version's OpenAPI document, reduced to what kubectl reads from it: that every
    kind's PATCH takes ``fieldValidation`` (so kubectl leaves validation to the server) and no
    component schemas (so kubectl apply uses its built-in patch strategies)."""
    infos = [i for i in api.registry.infos if i.group == group and i.version == version]
    if not infos:
        return None
    base = f"/apis/{group}/{version}" if group else f"/api/{version}"
    parameters = [
        {"name": name, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
        for name in ("dryRun", "fieldManager", "fieldValidation", "force")
    ]
    paths: Obj = {}
    for info in infos:
        gvk = {"group": group, "version": version, "kind": info.kind}
        scope = f"{base}/namespaces/{{namespace}}" if info.namespaced else base
        operation = {
            "operationId": f"patch{info.kind}",
            "x-kubernetes-action": "patch",
            "x-kubernetes-group-version-kind": gvk,
            "parameters": parameters,
            "responses": {"200": {"description": "OK"}},
        }
        paths[f"{scope}/{info.plural}/{{name}}"] = {"patch": operation}
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": KUBERNETES_VERSION["gitVersion"]},
        "paths": paths,
        "components": {"schemas": {}},
    }


# --------------------------------------------------------------------- paths
@dataclass
class Target:
    info: ResourceInfo
    namespace: str | None
    name: str | None
    subresource: str | None


def parse_resource_path(api: MockCluster, group: str, version: str, parts: list[str]) -> Target:
    def lookup(plural: str) -> ResourceInfo | None:
        return api.registry.by_path(group, version, plural)

    namespace: str | None = None
    if (
        len(parts) >= 3
        and parts[0] == "namespaces"
        and (info := lookup(parts[2])) is not None
        and info.namespaced
    ):
        namespace = parts[1]
        parts = parts[2:]
    if not parts:
        raise _path_not_found()
    info = lookup(parts[0])
    if info is None:
        raise _path_not_found()
    name = parts[1] if len(parts) > 1 else None
    sub = parts[2] if len(parts) > 2 else None
    if len(parts) > 3 or (sub is not None and sub not in info.subresources):
        raise _path_not_found()
    return Target(info, namespace, name, sub)


def _path_not_found() -> ApiError:
    return ApiError(
        404,
        "NotFound",
        "the server could not find the requested resource",
        {"causes": [{"reason": "UnexpectedServerResponse", "message": "404 page not found"}]},
    )


def _number(query: dict[str, str], name: str) -> int | None:
    """An integer query parameter; a malformed one is the API server's 400."""
    text = query.get(name)
    if text in (None, ""):
        return None
    try:
        return int(str(text))
    except ValueError:
        raise ApiError(
            400, "BadRequest", f'invalid value "{text}" for parameter {name}: not an integer'
        ) from None


def _nothing() -> None:
    return None


def _bool(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes")


# --------------------------------------------------------------------- the handler
class Handler(BaseHTTPRequestHandler):
    server_version = "kube-apiserver"
    protocol_version = "HTTP/1.1"
    world: World  # set on the subclass by make_server
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
        return self.rfile.read(length) if length > 0 else b""

    def _body(self) -> Any:
        raw = self._raw_body
        if not raw:
            return None
        if raw.startswith(b"k8s\x00"):
            raise ApiError(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types "
                "include: application/json, application/yaml",
            )
        try:
            return json.loads(raw)
        except ValueError:
            try:
                import yaml

                return yaml.safe_load(raw)
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
        self._raw_body = self._read_body()
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
            host = self.headers.get("Host", "127.0.0.1")
            self._send_json(
                200,
                {
                    "kind": "APIVersions",
                    "versions": ["v1"],
                    "serverAddressByClientCIDRs": [
                        {"clientCIDR": "0.0.0.0/0", "serverAddress": host}
                    ],
                },
            )
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
                raise _path_not_found()
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
            versions = _groups(api).get(parts[1])
            if not versions:
                raise _path_not_found()
            entries = [{"groupVersion": f"{parts[1]}/{v}", "version": v} for v in versions]
            self._send_json(
                200,
                {
                    "kind": "APIGroup",
                    "apiVersion": "v1",
                    "name": parts[1],
                    "versions": entries,
                    "preferredVersion": entries[0],
                },
            )
            return
        else:
            raise _path_not_found()
        if not rest:
            if method != "GET":
                raise ApiError(405, "MethodNotAllowed", "the server does not allow this method")
            listing = api_resource_list(api, group, version)
            if listing is None:
                raise _path_not_found()
            self._send_json(200, listing)
            return
        if method == "POST" and len(rest) == 1 and (group, version, rest[0]) in _REVIEWS:
            self._review(_REVIEWS[(group, version, rest[0])])
            return
        if group == "" and len(rest) == 3 and rest[0] == "namespaces" and rest[2] == "bindings":
            self._binding(method, rest[1], None)
            return
        target = parse_resource_path(api, group, version, rest)
        self._resource(method, target)

    # ---- resources
    def _wants_table(self) -> bool:
        return "as=Table" in (self.headers.get("Accept") or "")

    def _resource(self, method: str, target: Target) -> None:
        world = self.world
        api = world.api
        query = self._query()
        info = target.info
        key = info.key
        advance: Callable[[], None] = world.advance
        if query.get("dryRun") == "All" and method in ("POST", "PUT", "PATCH", "DELETE"):
            # A server-side dry run goes through every rule on a copy that is then dropped.
            with world.lock:
                api = MockCluster.from_json(api.to_json(), api.registry)
            advance = _nothing
        if target.subresource == "log":
            if method != "GET":
                raise ApiError(405, "MethodNotAllowed", "the server does not allow this method")
            tail = _number(query, "tailLines")
            with world.lock:
                text = api.logs(
                    target.name or "",
                    target.namespace or "default",
                    container=query.get("container") or None,
                    tail=tail,
                    previous=_bool(query.get("previous")),
                )
            if _bool(query.get("follow")) and not _bool(query.get("previous")):
                self._follow_log(target, query, text)
            else:
                self._send_text(200, text)
            return
        if target.subresource == "exec":
            self._exec(target, query)
            return
        if target.subresource == "binding":
            self._binding(method, target.namespace or "default", target.name)
            return
        if target.subresource == "eviction":
            if method != "POST":
                raise ApiError(405, "MethodNotAllowed", "the server does not allow this method")
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
            self._scale(method, target)
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
                if _bool(query.get("watch")):
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
                self._check_kind(info, body)
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
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method")
        name = target.name
        if method == "GET":
            with world.lock:
                obj = api.get(key, name, target.namespace)
                if self._wants_table() and sub is None:
                    obj = table(
                        api,
                        key,
                        [obj],
                        wide=True,
                        include_object=query.get("includeObject", "Metadata"),
                        resource_version=obj["metadata"].get("resourceVersion", ""),
                    )
            self._send_json(200, obj)
            return
        if method == "PUT":
            body = self._body()
            if not isinstance(body, dict):
                raise ApiError(400, "BadRequest", "the request body must be an object")
            self._check_kind(info, body)
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
            patch_type = _PATCH_TYPES.get(content_type)
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
            grace = _number(query, "gracePeriodSeconds") if grace is None else grace
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
        raise ApiError(405, "MethodNotAllowed", "the server does not allow this method")

    def _scale(self, method: str, target: Target) -> None:
        """The ``scale`` subresource: an autoscaling/v1 Scale over ``spec.replicas``."""
        world = self.world
        api = world.api
        key, name, ns = target.info.key, target.name or "", target.namespace

        def scale_of(obj: Obj) -> Obj:
            meta = obj["metadata"]
            return {
                "kind": "Scale",
                "apiVersion": "autoscaling/v1",
                "metadata": {
                    k: meta[k]
                    for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                    if k in meta
                },
                "spec": {"replicas": int((obj.get("spec") or {}).get("replicas") or 0)},
                "status": {
                    "replicas": int((obj.get("status") or {}).get("replicas") or 0),
                    "selector": format_label_selector((obj.get("spec") or {}).get("selector")),
                },
            }

        if method == "GET":
            with world.lock:
                self._send_json(200, scale_of(api.get(key, name, ns)))
            return
        if method not in ("PUT", "PATCH"):
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method")
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        body = self._body()
        with world.lock:
            current = scale_of(api.get(key, name, ns))
            if method == "PUT":
                wanted = body if isinstance(body, dict) else {}
            else:
                wanted = apply_patch(current, body, _PATCH_TYPES.get(content_type, "merge"))
            replicas = (wanted.get("spec") or {}).get("replicas")
            if not isinstance(replicas, int) or replicas < 0:
                raise ApiError(
                    422,
                    "Invalid",
                    f'Scale.autoscaling "{name}" is invalid: spec.replicas: Invalid value: '
                    f"{replicas}: must be greater than or equal to 0",
                )
            updated = api.patch(key, name, {"spec": {"replicas": replicas}}, ns)
        world.advance()
        self._send_json(200, scale_of(updated))

    def _check_kind(self, info: ResourceInfo, body: Obj) -> None:
        kind = body.get("kind")
        if kind and kind != info.kind:
            raise ApiError(
                400,
                "BadRequest",
                f"the API version in the data ({body.get('apiVersion', '')}) does not match the "
                f"expected API version ({info.api_version})"
                if body.get("apiVersion") != info.api_version
                else f'{kind} in version "{info.version}" cannot be handled as a {info.kind}',
            )

    def _review(self, kind: str) -> None:
        """The lab's one user is a cluster admin: every access review says yes."""
        try:
            body = self._body()
        except ApiError:
            body = None  # protobuf from a typed client: the answer does not depend on it
        spec = body.get("spec") if isinstance(body, dict) else None
        group = "authentication.k8s.io" if kind == "SelfSubjectReview" else "authorization.k8s.io"
        review: Obj = {
            "kind": kind,
            "apiVersion": f"{group}/v1",
            "metadata": {"creationTimestamp": None},
        }
        if kind == "SelfSubjectReview":
            review["status"] = {"userInfo": dict(ADMIN_USER)}
        elif kind == "SelfSubjectRulesReview":
            review["spec"] = spec or {}
            review["status"] = {
                "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                "incomplete": False,
            }
        else:
            review["spec"] = spec or {}
            review["status"] = {"allowed": True, "reason": ADMIN_REASON}
        self._send_json(201, review)

    def _binding(self, method: str, namespace: str, name: str | None) -> None:
        if method != "POST":
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method")
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

    # ---- watch
    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _watch(self, target: Target, query: dict[str, str]) -> None:
        world = self.world
        api = world.api
        key = target.info.key
        name_selector = f"metadata.name={target.name}" if target.name else ""
        field_selector = ",".join(s for s in (query.get("fieldSelector", ""), name_selector) if s)
        label_selector = query.get("labelSelector", "")
        as_table = self._wants_table()
        timeout = _number(query, "timeoutSeconds") or 1800
        deadline = time.monotonic() + timeout
        with world.lock:
            # Validate selectors before the stream starts, so a bad one is a plain 400.
            api.list(
                key, target.namespace, label_selector=label_selector, field_selector=field_selector
            )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        self.wfile.flush()
        since = query.get("resourceVersion", "")
        # The watch-list protocol (client-go's WatchListClient, on in kubectl 1.36): the current
        # objects as ADDED events, then a bookmark that says the initial list is complete.
        initial = _bool(query.get("sendInitialEvents"))
        if initial:
            since = ""
        first = True
        while time.monotonic() < deadline and not getattr(self.server, "stopping", False):
            with world.lock:
                try:
                    events = api.watch(
                        key,
                        target.namespace,
                        resource_version=since,
                        label_selector=label_selector,
                        field_selector=field_selector,
                    )
                except ApiError as error:
                    self._chunk(
                        json.dumps({"type": "ERROR", "object": error.status()}).encode() + b"\n"
                    )
                    break
                latest = api.resource_version
                lines = []
                for event in events:
                    obj = event.object
                    if as_table:
                        obj = table(
                            api,
                            key,
                            [obj],
                            wide=True,
                            include_object=query.get("includeObject", "Metadata"),
                            resource_version=obj["metadata"].get("resourceVersion", ""),
                        )
                        if not first:
                            obj["columnDefinitions"] = []
                        first = False
                    lines.append(json.dumps({"type": event.type, "object": obj}).encode() + b"\n")
                if initial:
                    bookmark = {
                        "kind": target.info.kind,
                        "apiVersion": target.info.api_version,
                        "metadata": {
                            "resourceVersion": latest,
                            "annotations": {"k8s.io/initial-events-end": "true"},
                        },
                    }
                    lines.append(
                        json.dumps({"type": "BOOKMARK", "object": bookmark}).encode() + b"\n"
                    )
                    initial = False
            since = latest
            try:
                for line in lines:
                    self._chunk(line)
            except OSError:
                return
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
        if (self.headers.get("Upgrade") or "").lower() != "websocket":
            raise ApiError(
                400,
                "BadRequest",
                "Upgrade request required",
            )
        command = parse_qs(urlsplit(self.path).query).get("command", [])
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


# --------------------------------------------------------------------- the server
class ClusterServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    stopping = False


def make_server(world: World, port: int = 0, host: str = "127.0.0.1") -> ClusterServer:
    handler = type("BoundHandler", (Handler,), {"world": world})
    return ClusterServer((host, port), handler)


def start_ticker(
    world: World, server: ClusterServer, seconds: float = TICK_SECONDS
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
