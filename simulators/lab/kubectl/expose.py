"""kubectl expose TYPE/NAME --port=PORT [--target-port] [--name] [--type] [--protocol]: a
Service selecting what a Deployment, ReplicaSet, Pod or Service selects."""

from __future__ import annotations

from typing import Any

from simulators.cluster.api import ApiError, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import (
    COMMON,
    DRY_RUN,
    KubectlError,
    error_text,
    namespace,
    targets,
)
from simulators.lab.kubectl.create import submit
from simulators.lab.kubectl.filenames import FILE_FLAGS, file_objects
from simulators.lab.kubectl.printing import PRINT_FLAGS
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    DRY_RUN,
    Flag("port", long="port", takes_value=True),
    Flag("target-port", long="target-port", takes_value=True),
    Flag("name", long="name", takes_value=True),
    Flag("type", long="type", takes_value=True),
    Flag("protocol", long="protocol", takes_value=True),
    Flag("selector", long="selector", takes_value=True),
    *PRINT_FLAGS,
    *FILE_FLAGS,
]
_TYPES = {"clusterip": "ClusterIP", "nodeport": "NodePort", "loadbalancer": "LoadBalancer"}


def _selector(key: str, obj: Obj) -> dict[str, str] | None:
    spec = obj.get("spec") or {}
    if key == "pods":
        return dict((obj.get("metadata") or {}).get("labels") or {}) or None
    if key == "services":
        return dict(spec.get("selector") or {}) or None
    if key in ("deployments.apps", "replicasets.apps"):
        selector = spec.get("selector") or {}
        if selector.get("matchExpressions"):
            return None
        return dict(selector.get("matchLabels") or {}) or None
    return None


def _ports(key: str, obj: Obj) -> list[dict[str, Any]]:
    spec = obj.get("spec") or {}
    if key == "services":
        return list(spec.get("ports") or [])
    pod_spec = spec if key == "pods" else (spec.get("template") or {}).get("spec") or {}
    return [p for c in pod_spec.get("containers") or [] for p in c.get("ports") or []]


def run(ctx: Context, parsed: Parsed) -> Output:
    from_files = file_objects(ctx, parsed, "expose")
    if not parsed.positionals and from_files is None:
        raise KubectlError(
            "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n"
            "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
        )
    cluster = ctx.api
    ns = namespace(parsed)
    if from_files is not None:
        # A file's object is exposed as the file has it (kubectl reads no live copy).
        if not from_files:
            raise KubectlError("error: no objects passed to expose")
        info, obj = from_files[0]
        name = str((obj.get("metadata") or {}).get("name", ""))
    else:
        group = targets(cluster, parsed.positionals, verb="expose")[0]
        if not group.names:
            raise KubectlError("error: resource(s) were provided, but no name was specified")
        info, name = group.info, group.names[0]
        try:
            obj = cluster.get(info.key, name, group.scope(ns))
        except ApiError as exc:
            return Output(error_text(exc), 1)
    selector = _selector(info.key, obj)
    if selector is None:
        declared = obj.get("spec")
        has_selector = isinstance(declared, dict) and bool(declared.get("selector"))
        if info.key in ("deployments.apps", "replicasets.apps") and not has_selector:
            raise KubectlError(
                "error: couldn't retrieve selectors via --selector flag or introspection: "
                f"invalid {info.kind.lower()}: no selectors, therefore cannot be exposed"
            )
        if info.key in ("pods", "services", "deployments.apps", "replicasets.apps"):
            raise KubectlError(
                f"error: couldn't retrieve selectors via --selector flag or introspection: "
                f"the {info.kind} has no selector"
            )
        raise KubectlError(f"error: cannot expose a {info.kind}")
    protocol = parsed.value("protocol") or "TCP"
    port = parsed.value("port")
    ports: list[dict[str, Any]] = []
    if port:
        target = parsed.value("target-port") or port
        ports.append(
            {
                "port": int(port),
                "protocol": protocol,
                "targetPort": int(target) if target.isdigit() else target,
            }
        )
    else:
        found = _ports(info.key, obj)
        for i, p in enumerate(found):
            number = p.get("port") or p.get("containerPort")
            entry: dict[str, Any] = {
                "port": number,
                "protocol": p.get("protocol") or protocol,
                "targetPort": number,
            }
            if len(found) > 1:
                entry = {"name": f"port-{i + 1}", **entry}
            ports.append(entry)
        if not ports:
            raise KubectlError(
                "error: couldn't find port via --port flag or introspection\n"
                "See 'kubectl expose -h' for help and examples"
            )
    service_name = parsed.value("name") or name
    spec: dict[str, Any] = {"ports": ports, "selector": selector}
    kind = parsed.value("type")
    if kind:
        spec["type"] = _TYPES.get(kind.lower(), kind)
    metadata: dict[str, Any] = {"name": service_name}
    labels = (obj.get("metadata") or {}).get("labels")
    if labels:
        metadata = {"labels": dict(labels), **metadata}
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata,
        "spec": spec,
        "status": {"loadBalancer": {}},
    }
    return submit(ctx, parsed, "services", service, "exposed")
