"""The cluster API on a real cluster, through the official ``kubernetes`` client.

The second implementation of :class:`simulators.cluster.api.ClusterAPI` (the first is the mock
store). The client does what it is good at (kubeconfig or in-cluster config, TLS, tokens and
their refresh); every request goes through its ``ApiClient`` as raw JSON, so objects stay the
API's own dicts, exactly as the mock hands them out.

Safe by default, for a lab that lets learners type commands against a shared cluster:

- read-only unless ``allow_writes``: a write is refused before it leaves the process, with the
  API server's own Forbidden wording, so the lab's kubectl prints what kubectl prints;
- ``namespaces``: an allow-list; namespaced requests elsewhere (and cluster-wide lists of
  namespaced kinds) are refused the same way; cluster-scoped kinds stay readable;
- errors carry no cluster address or credential: a connection failure is the API server's
  ``ServiceUnavailable`` wording, never the client's exception text.
"""

from __future__ import annotations

import builtins
import json
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote

from simulators.cluster.api import ALL_VERBS, ApiError, Obj, ResourceInfo, WatchEvent
from simulators.cluster.registry import REGISTRY, Registry

# The user named in refusals: never the real identity of the credentials in use.
LEARNER = "lab-learner"
UNAVAILABLE = "the server is currently unable to handle the request"
WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})

_PATCH_TYPES = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
}


class KubeError(Exception):
    """The cluster cannot be used at all (no kubeconfig, no in-cluster service account)."""


def load_client(kubeconfig: str | None = None, context: str | None = None) -> Any:
    """An official ``ApiClient``: ``kubeconfig`` (or ``$KUBECONFIG``/~/.kube/config), else the
    in-cluster service account. The message of a failure names no path or address."""
    from kubernetes import client, config

    configuration = client.Configuration()
    path = kubeconfig or os.environ.get("KUBECONFIG") or ""
    try:
        if path or os.path.exists(os.path.expanduser("~/.kube/config")):
            config.load_kube_config(  # type: ignore[no-untyped-call]
                path or None, context=context, client_configuration=configuration
            )
        else:
            config.load_incluster_config(  # type: ignore[no-untyped-call]
                client_configuration=configuration
            )
    except Exception as error:  # the loaders raise several types, all mean "not configured"
        raise KubeError(
            "no usable cluster configuration (set KUBECONFIG or run in a pod with a service "
            f"account): {type(error).__name__}"
        ) from None
    return client.ApiClient(configuration)


def _forbidden(info: ResourceInfo, verb: str, name: str, namespace: str | None) -> ApiError:
    """The API server's RBAC refusal, as kubectl prints it."""
    group = info.group
    what = f'{info.key} "{name}"' if name else info.key
    if info.namespaced and namespace:
        where = f'in the namespace "{namespace}"'
    else:
        where = "at the cluster scope"
    return ApiError(
        403,
        "Forbidden",
        f'{what} is forbidden: User "{LEARNER}" cannot {verb} resource "{info.plural}" '
        f'in API group "{group}" {where}',
        {"name": name, "group": group, "kind": info.plural},
    )


def _forbidden_sub(info: ResourceInfo, sub: str, verb: str, name: str, namespace: str) -> ApiError:
    return ApiError(
        403,
        "Forbidden",
        f'{info.key} "{name}" is forbidden: User "{LEARNER}" cannot {verb} resource '
        f'"{info.plural}/{sub}" in API group "{info.group}" in the namespace "{namespace}"',
        {"name": name, "group": info.group, "kind": info.plural},
    )


def _error_from(status: int, body: bytes) -> ApiError:
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict) and data.get("kind") == "Status":
        return ApiError(
            int(data.get("code") or status),
            str(data.get("reason") or "Unknown"),
            str(data.get("message") or ""),
            dict(data.get("details") or {}),
        )
    text = body.decode("utf-8", errors="replace").strip()[:500]
    reason = {
        400: "BadRequest",
        401: "Unauthorized",
        403: "Forbidden",
        404: "NotFound",
        405: "MethodNotAllowed",
        409: "Conflict",
        410: "Gone",
        415: "UnsupportedMediaType",
        422: "Invalid",
        429: "TooManyRequests",
    }.get(status, "InternalError")
    return ApiError(status, reason, text or f"the server responded with status {status}")


class KubernetesCluster:
    """``ClusterAPI`` over a real (or the mock's HTTP) API server, for trusted programs (the
    scheduler, tests): writes allowed unless ``allow_writes=False``. The lab uses KubeCluster."""

    def __init__(
        self,
        client: Any,
        *,
        allow_writes: bool = True,
        namespaces: tuple[str, ...] | None = None,
        clock: Callable[[], datetime] | None = None,
        timeout: float = 30.0,
        registry: Registry | None = None,
        watch_seconds: int = 1,
    ) -> None:
        self.client = client
        self.watch_seconds = watch_seconds
        self.allow_writes = allow_writes
        # None: every namespace. Otherwise the allow-list.
        self.namespaces = None if namespaces is None else tuple(namespaces)
        self._clock = clock or (lambda: datetime.now(UTC))
        # The server's clock minus ours, from its Date header: events and leases written by
        # this client carry the cluster's time even when the two clocks disagree.
        self._offset = timedelta(0)
        self._timeout = timeout
        # None: discovered from the server on first use.
        self._registry: Registry | None = registry

    @classmethod
    def from_config(cls, kubeconfig: str | None = None, **kwargs: Any) -> KubernetesCluster:
        return cls(load_client(kubeconfig), **kwargs)

    # ------------------------------------------------------------------ transport
    def _open(
        self,
        method: str,
        path: str,
        *,
        query: list[tuple[str, str]] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        accept: str = "application/json",
        timeout: float | None = None,
    ) -> Any:
        headers = {"Accept": accept, "Content-Type": content_type}
        try:
            serialized = self.client.param_serialize(
                method,
                path,
                query_params=query or [],
                header_params=headers,
                body=body,
                auth_settings=["BearerToken"],
            )
            return self.client.call_api(
                *serialized, _request_timeout=timeout if timeout is not None else self._timeout
            )
        except Exception:
            # urllib3's and the client's exceptions carry the server's address: never shown.
            raise ApiError(503, "ServiceUnavailable", UNAVAILABLE) from None

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._open(method, path, **kwargs)
        self._learn_clock(response)
        try:
            data = response.read()
        except Exception:
            raise ApiError(503, "ServiceUnavailable", UNAVAILABLE) from None
        if response.status >= 400:
            raise _error_from(int(response.status), data)
        if not data:
            return {}
        try:
            return json.loads(data)
        except ValueError:
            return data.decode("utf-8", errors="replace")

    def _learn_clock(self, response: Any) -> None:
        try:
            stamp = parsedate_to_datetime(str(response.headers.get("Date") or ""))
        except (TypeError, ValueError):
            return
        offset = stamp - self._clock()
        # The header has whole seconds: keep the old offset while it is within that.
        if abs((offset - self._offset).total_seconds()) > 1.5:
            self._offset = offset

    # ------------------------------------------------------------------ discovery
    @property
    def registry(self) -> Registry:
        if self._registry is None:
            self._registry = Registry(tuple(self._discover()))
        return self._registry

    def _discover(self) -> list[ResourceInfo]:
        infos: list[ResourceInfo] = []
        documents: list[tuple[str, str, Obj]] = [("", "v1", self._call("GET", "/api/v1"))]
        groups = self._call("GET", "/apis").get("groups") or []
        for group in groups:
            preferred = (group.get("preferredVersion") or {}).get("version")
            versions = [str(v.get("version")) for v in group.get("versions") or []]
            # The preferred version first: a resource served in several versions is known by
            # it, as kubectl resolves it; the others add what only they serve.
            for version in sorted(versions, key=lambda v: v != preferred):
                try:
                    doc = self._call("GET", f"/apis/{group['name']}/{version}")
                except ApiError:
                    continue  # an aggregated API that is down: kubectl skips it too
                documents.append((str(group["name"]), version, doc))
        seen: set[tuple[str, str]] = set()
        for group_name, version, doc in documents:
            entries = doc.get("resources") or []
            subs: dict[str, list[str]] = {}
            for entry in entries:
                plural, _, sub = str(entry.get("name", "")).partition("/")
                if sub:
                    subs.setdefault(plural, []).append(sub)
            for entry in entries:
                name = str(entry.get("name", ""))
                if "/" in name or not name or (group_name, name) in seen:
                    continue
                seen.add((group_name, name))
                known = _known(group_name, version, name)
                infos.append(
                    ResourceInfo(
                        group_name,
                        version,
                        str(entry.get("kind", "")),
                        name,
                        str(entry.get("singularName") or str(entry.get("kind", "")).lower()),
                        tuple(entry.get("shortNames") or ()),
                        bool(entry.get("namespaced")),
                        tuple(entry.get("verbs") or ALL_VERBS),
                        tuple(entry.get("categories") or ()),
                        tuple(subs.get(name, ())),
                        known.printer_columns if known else (),
                        custom=known.custom if known else False,
                    )
                )
        return infos

    def _known_registry(self) -> Registry:
        """Discovery, or while the server cannot be reached the mock's registry, so a command
        fails on its request with the server's error rather than on an unknown type."""
        try:
            return self.registry
        except ApiError as error:
            if error.code != 503:
                raise
            return REGISTRY

    def resources(self) -> builtins.list[ResourceInfo]:
        return list(self.registry.infos)

    def resolve(self, word: str) -> ResourceInfo:
        return self._known_registry().resolve(word)

    def info(self, resource: str) -> ResourceInfo:
        return self._known_registry().by_key(resource)

    def now(self) -> datetime:
        return self._clock() + self._offset

    # ------------------------------------------------------------------ guards
    def _check(self, info: ResourceInfo, verb: str, name: str, namespace: str | None) -> None:
        if verb in WRITE_VERBS and not self.allow_writes:
            raise _forbidden(info, verb, name, namespace)
        if self.namespaces is None:
            return
        if info.namespaced:
            if not namespace or namespace not in self.namespaces:
                raise _forbidden(info, verb, name, namespace)
        elif verb in WRITE_VERBS and not (
            info.plural == "namespaces" and verb == "create" and name in self.namespaces
        ):
            # Cluster-scoped objects are shared by everyone: learners read them, never change
            # them (a learner's own namespace may be created).
            raise _forbidden(info, verb, name, None)

    def _path(self, info: ResourceInfo, namespace: str | None, name: str = "") -> str:
        base = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
        if info.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{info.plural}"
        if name:
            base += f"/{quote(name, safe='')}"
        return base

    def _namespace(self, info: ResourceInfo, namespace: str | None) -> str | None:
        if not info.namespaced:
            return None
        return namespace or "default"

    # ------------------------------------------------------------------ verbs
    def get(self, resource: str, name: str, namespace: str | None = None) -> Obj:
        info = self.info(resource)
        ns = self._namespace(info, namespace)
        self._check(info, "get", name, ns)
        return dict(self._call("GET", self._path(info, ns, name)))

    def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> Obj:
        info = self.info(resource)
        ns = namespace if info.namespaced else None
        self._check(info, "list", "", ns)
        query = [("labelSelector", label_selector)] if label_selector else []
        if field_selector:
            query.append(("fieldSelector", field_selector))
        data = dict(self._call("GET", self._path(info, ns), query=query))
        # Lists leave apiVersion/kind off their items; the lab's tools (as kubectl does) want
        # them on every object.
        for item in data.get("items") or []:
            item.setdefault("apiVersion", info.api_version)
            item.setdefault("kind", info.kind)
        return data

    def create(self, resource: str, obj: Obj, namespace: str | None = None) -> Obj:
        info = self.info(resource)
        ns = self._namespace(info, namespace or obj.get("metadata", {}).get("namespace"))
        self._check(info, "create", str(obj.get("metadata", {}).get("name") or ""), ns)
        body = {"apiVersion": info.api_version, "kind": info.kind, **obj}
        return dict(self._call("POST", self._path(info, ns), body=body))

    def update(
        self,
        resource: str,
        obj: Obj,
        namespace: str | None = None,
        *,
        subresource: str | None = None,
    ) -> Obj:
        info = self.info(resource)
        meta = obj.get("metadata", {})
        name = str(meta.get("name") or "")
        ns = self._namespace(info, namespace or meta.get("namespace"))
        self._check(info, "update", name, ns)
        path = self._path(info, ns, name) + (f"/{subresource}" if subresource else "")
        body = {"apiVersion": info.api_version, "kind": info.kind, **obj}
        return dict(self._call("PUT", path, body=body))

    def patch(
        self,
        resource: str,
        name: str,
        patch: Any,
        namespace: str | None = None,
        *,
        patch_type: str = "merge",
        subresource: str | None = None,
    ) -> Obj:
        info = self.info(resource)
        ns = self._namespace(info, namespace)
        self._check(info, "patch", name, ns)
        if patch_type not in _PATCH_TYPES:
            raise ApiError(415, "UnsupportedMediaType", f"unknown patch type {patch_type!r}")
        path = self._path(info, ns, name) + (f"/{subresource}" if subresource else "")
        return dict(self._call("PATCH", path, body=patch, content_type=_PATCH_TYPES[patch_type]))

    def delete(
        self,
        resource: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation: str = "Background",
        grace_period: int | None = None,
    ) -> Obj:
        info = self.info(resource)
        ns = self._namespace(info, namespace)
        self._check(info, "delete", name, ns)
        options: Obj = {"kind": "DeleteOptions", "apiVersion": "v1"}
        options["propagationPolicy"] = propagation
        if grace_period is not None:
            options["gracePeriodSeconds"] = grace_period
        return dict(self._call("DELETE", self._path(info, ns, name), body=options))

    def watch(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        label_selector: str = "",
        field_selector: str = "",
    ) -> builtins.list[WatchEvent]:
        """What changed after ``resource_version`` within about a second (a real watch)."""
        return list(
            self.stream(
                resource,
                namespace,
                resource_version=resource_version,
                label_selector=label_selector,
                field_selector=field_selector,
                timeout_seconds=self.watch_seconds,
            )
        )

    def stream(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        label_selector: str = "",
        field_selector: str = "",
        timeout_seconds: int = 30,
    ) -> Iterator[WatchEvent]:
        """A watch stream: events as they arrive, until the server ends it after
        ``timeout_seconds``. A too-old ``resource_version`` raises ApiError 410 (relist)."""
        info = self.info(resource)
        ns = namespace if info.namespaced else None
        self._check(info, "watch", "", ns)
        query = [("watch", "1"), ("timeoutSeconds", str(timeout_seconds))]
        query.append(("allowWatchBookmarks", "true"))
        if resource_version:
            query.append(("resourceVersion", resource_version))
        if label_selector:
            query.append(("labelSelector", label_selector))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        response = self._open(
            "GET", self._path(info, ns), query=query, timeout=timeout_seconds + 10
        )
        if response.status >= 400:
            raise _error_from(int(response.status), response.read())
        raw = response.response
        buffer = b""
        try:
            for chunk in raw.stream(4096, decode_content=True):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        yield _watch_event(line)
            if buffer.strip():
                yield _watch_event(buffer)
        except ApiError:
            raise
        except Exception:
            raise ApiError(503, "ServiceUnavailable", UNAVAILABLE) from None
        finally:
            raw.release_conn()

    # ------------------------------------------------------------------ subresources
    def bind(self, name: str, namespace: str, node: str) -> None:
        info = self.info("pods")
        if not self.allow_writes:
            raise _forbidden_sub(info, "binding", "create", name, namespace)
        self._check(info, "get", name, namespace)
        body = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": namespace},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        }
        self._call("POST", self._path(info, namespace, name) + "/binding", body=body)

    def evict(self, name: str, namespace: str) -> None:
        info = self.info("pods")
        if not self.allow_writes:
            raise _forbidden_sub(info, "eviction", "create", name, namespace)
        self._check(info, "get", name, namespace)
        body = {
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"name": name, "namespace": namespace},
        }
        self._call("POST", self._path(info, namespace, name) + "/eviction", body=body)

    def logs(
        self,
        name: str,
        namespace: str,
        *,
        container: str | None = None,
        tail: int | None = None,
        previous: bool = False,
    ) -> str:
        info = self.info("pods")
        self._check(info, "get", name, namespace)
        query: builtins.list[tuple[str, str]] = []
        if container:
            query.append(("container", container))
        if tail is not None:
            query.append(("tailLines", str(tail)))
        if previous:
            query.append(("previous", "true"))
        response = self._open(
            "GET", self._path(info, namespace, name) + "/log", query=query, accept="*/*"
        )
        data = response.read()
        if response.status >= 400:
            raise _error_from(int(response.status), data)
        return bytes(data).decode("utf-8", errors="replace")

    def exec(
        self,
        name: str,
        namespace: str,
        command: builtins.list[str],
        *,
        container: str | None = None,
    ) -> str:
        info = self.info("pods")
        if not self.allow_writes:
            raise _forbidden_sub(info, "exec", "create", name, namespace)
        self._check(info, "get", name, namespace)
        from kubernetes import client as k8s
        from kubernetes.stream import stream

        options: dict[str, Any] = {
            "command": command,
            "stderr": True,
            "stdin": False,
            "stdout": True,
            "tty": False,
            "_preload_content": False,
        }
        if container:
            options["container"] = container
        try:
            core = k8s.CoreV1Api(self.client)
            response = stream(core.connect_get_namespaced_pod_exec, name, namespace, **options)
            response.run_forever(timeout=60)
            output = str(response.read_stdout() or "") + str(response.read_stderr() or "")
            code = response.returncode
        except k8s.ApiException as error:
            if not error.status:
                raise ApiError(503, "ServiceUnavailable", UNAVAILABLE) from None
            raise _error_from(int(error.status), (error.body or "").encode()) from None
        except Exception:
            raise ApiError(503, "ServiceUnavailable", UNAVAILABLE) from None
        if code:
            # The lab's convention: kubectl's last line for a command that failed.
            return f"{output.rstrip(chr(10))}\ncommand terminated with exit code {code}"
        return output


class KubeCluster(KubernetesCluster):
    """The lab's kube backend: read-only unless ``allow_writes``, as real-cluster mode starts."""

    def __init__(self, client: Any, *, allow_writes: bool = False, **options: Any) -> None:
        super().__init__(client, allow_writes=allow_writes, **options)


def _watch_event(line: bytes) -> WatchEvent:
    try:
        data = json.loads(line)
    except ValueError:
        raise ApiError(500, "InternalError", "the watch stream sent malformed data") from None
    event_type = str(data.get("type", ""))
    obj = data.get("object") or {}
    if event_type == "ERROR":
        code = int(obj.get("code") or 500)
        raise ApiError(code, str(obj.get("reason") or "Expired"), str(obj.get("message") or ""))
    return WatchEvent(event_type, obj)


def _known(group: str, version: str, plural: str) -> ResourceInfo | None:
    """The mock's description of the same resource (printer columns of the CRDs it knows)."""
    for info in REGISTRY.infos:
        if info.group == group and info.plural == plural and info.version == version:
            return info
    return None
