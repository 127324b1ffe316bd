"""``ClusterAPI`` over a real Kubernetes API server, through the official ``kubernetes`` client.

The lab's tools and controllers speak ``ClusterAPI``; this is its second implementation, for
real-cluster mode: the same verbs as REST calls. It is tested against ``python -m simulators
apiserver``, which stands in for a real cluster.
"""

from __future__ import annotations

import builtins
import json
import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

from simulators.cluster.api import ApiError, Obj, ResourceInfo, WatchEvent
from simulators.cluster.registry import REGISTRY, Registry

_PATCH_CONTENT = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
}
_EXEC_STATUS = re.compile(r"exit code (\d+)")


class KubernetesCluster:
    """The cluster verbs as REST calls on an official-client ``ApiClient``."""

    def __init__(
        self,
        api_client: Any,
        *,
        registry: Registry = REGISTRY,
        watch_seconds: int = 1,
    ) -> None:
        self.client = api_client
        self.registry = registry
        self.watch_seconds = watch_seconds

    # ----------------------------------------------------------------- plumbing
    def _path(
        self,
        info: ResourceInfo,
        namespace: str | None,
        name: str | None = None,
        sub: str | None = None,
    ) -> str:
        base = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
        if info.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{info.plural}"
        if name is not None:
            base += f"/{quote(name, safe='')}"
        if sub:
            base += f"/{sub}"
        return base

    def _call(
        self,
        method: str,
        path: str,
        *,
        query: list[tuple[str, str]] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        accept: str = "application/json",
    ) -> bytes:
        url = self.client.configuration.host + path
        if query:
            url += "?" + urlencode(query)
        headers = {"Accept": accept, "Content-Type": content_type}
        headers.update(self._auth_headers())
        try:
            # The client's REST layer serialises the body itself (JSON for every +json type).
            response = self.client.rest_client.request(method, url, headers=headers, body=body)
        except Exception as error:  # the connection itself failed
            raise ApiError(
                503, "ServiceUnavailable", f"the cluster did not answer: {error}"
            ) from error
        response.read()
        raw: bytes = response.data or b""
        if response.status >= 400:
            raise _error(response.status, raw)
        return raw

    def _auth_headers(self) -> dict[str, str]:
        settings = self.client.configuration.auth_settings()
        headers: dict[str, str] = {}
        for setting in settings.values():
            if setting.get("in") == "header" and setting.get("value"):
                headers[str(setting["key"])] = str(setting["value"])
        return headers

    def _json(self, method: str, path: str, **kwargs: Any) -> Obj:
        raw = self._call(method, path, **kwargs)
        value = json.loads(raw) if raw else {}
        if not isinstance(value, dict):
            raise ApiError(500, "InternalError", "the cluster answered with something not JSON")
        return value

    # ----------------------------------------------------------------- ClusterAPI
    def resources(self) -> builtins.list[ResourceInfo]:
        return [info for info in self.registry.infos if info.plural != "bindings"]

    def resolve(self, word: str) -> ResourceInfo:
        return self.registry.resolve(word)

    def info(self, resource: str) -> ResourceInfo:
        return self.registry.by_key(resource)

    def now(self) -> datetime:
        return datetime.now(UTC)

    def get(self, resource: str, name: str, namespace: str | None = None) -> Obj:
        info = self.info(resource)
        return self._json("GET", self._path(info, namespace or "default", name))

    def list(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> Obj:
        info = self.info(resource)
        query = [
            (k, v)
            for k, v in (("labelSelector", label_selector), ("fieldSelector", field_selector))
            if v
        ]
        listed = self._json("GET", self._path(info, namespace), query=query)
        for item in listed.get("items") or []:
            # List items come without kind and apiVersion from a real API server.
            item.setdefault("apiVersion", info.api_version)
            item.setdefault("kind", info.kind)
        return listed

    def create(self, resource: str, obj: Obj, namespace: str | None = None) -> Obj:
        info = self.info(resource)
        ns = namespace or (obj.get("metadata") or {}).get("namespace") or "default"
        body = {"apiVersion": info.api_version, "kind": info.kind, **obj}
        return self._json("POST", self._path(info, ns), body=body)

    def update(
        self,
        resource: str,
        obj: Obj,
        namespace: str | None = None,
        *,
        subresource: str | None = None,
    ) -> Obj:
        info = self.info(resource)
        meta = obj.get("metadata") or {}
        ns = namespace or meta.get("namespace") or "default"
        body = {"apiVersion": info.api_version, "kind": info.kind, **obj}
        return self._json(
            "PUT", self._path(info, ns, str(meta.get("name", "")), subresource), body=body
        )

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
        content = _PATCH_CONTENT.get(patch_type)
        if content is None:
            raise ApiError(415, "UnsupportedMediaType", f"unknown patch type {patch_type!r}")
        return self._json(
            "PATCH",
            self._path(info, namespace or "default", name, subresource),
            body=patch,
            content_type=content,
        )

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
        options: Obj = {
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "propagationPolicy": propagation,
        }
        if grace_period is not None:
            options["gracePeriodSeconds"] = grace_period
        return self._json("DELETE", self._path(info, namespace or "default", name), body=options)

    def watch(
        self,
        resource: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        label_selector: str = "",
        field_selector: str = "",
    ) -> builtins.list[WatchEvent]:
        """The events after ``resource_version`` that arrive within ``watch_seconds``."""
        info = self.info(resource)
        query = [
            ("watch", "true"),
            ("resourceVersion", resource_version),
            ("timeoutSeconds", str(self.watch_seconds)),
        ]
        query += [
            (k, v)
            for k, v in (("labelSelector", label_selector), ("fieldSelector", field_selector))
            if v
        ]
        raw = self._call("GET", self._path(info, namespace), query=query)
        events: builtins.list[WatchEvent] = []
        for line in raw.decode().splitlines():
            if not line.strip():
                continue
            event = json.loads(line)
            if event.get("type") == "ERROR":
                status = event.get("object") or {}
                raise ApiError(
                    int(status.get("code", 500)),
                    str(status.get("reason", "InternalError")),
                    str(status.get("message", "watch failed")),
                )
            events.append(WatchEvent(str(event["type"]), event["object"]))
        return events

    def bind(self, name: str, namespace: str, node: str) -> None:
        body = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": namespace},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        }
        self._call("POST", self._path(self.info("pods"), namespace, name, "binding"), body=body)

    def evict(self, name: str, namespace: str) -> None:
        body = {
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"name": name, "namespace": namespace},
        }
        self._call("POST", self._path(self.info("pods"), namespace, name, "eviction"), body=body)

    def logs(
        self,
        name: str,
        namespace: str,
        *,
        container: str | None = None,
        tail: int | None = None,
        previous: bool = False,
    ) -> str:
        query: builtins.list[tuple[str, str]] = []
        if container:
            query.append(("container", container))
        if tail is not None:
            query.append(("tailLines", str(tail)))
        if previous:
            query.append(("previous", "true"))
        raw = self._call(
            "GET",
            self._path(self.info("pods"), namespace, name, "log"),
            query=query,
            accept="*/*",
        )
        return raw.decode()

    def exec(
        self,
        name: str,
        namespace: str,
        command: builtins.list[str],
        *,
        container: str | None = None,
    ) -> str:
        from kubernetes import client
        from kubernetes.stream import stream

        core = client.CoreV1Api(self.client)
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
            response = stream(core.connect_get_namespaced_pod_exec, name, namespace, **options)
            response.run_forever(timeout=60)
            output = str(response.read_stdout() or "") + str(response.read_stderr() or "")
            code = response.returncode
        except client.ApiException as error:
            raise _error(int(error.status or 500), (error.body or "").encode()) from error
        except Exception as error:  # the stream's own failures carry the server's message
            text = str(error)
            raise ApiError(500, "InternalError", text) from error
        if code:
            return f"{output.rstrip(chr(10))}\ncommand terminated with exit code {code}"
        return output


def _error(status: int, raw: bytes) -> ApiError:
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("kind") == "Status":
        return ApiError(
            int(body.get("code") or status),
            str(body.get("reason") or ""),
            str(body.get("message") or ""),
            dict(body.get("details") or {}),
        )
    return ApiError(status, "InternalError", raw.decode(errors="replace").strip())
