"""Server-side tables, as kube-apiserver computes them for ``kubectl get``.

Built-in kinds follow kubernetes/pkg/printers/internalversion/printers.go (columns, wide columns,
cell formats); custom resources their CRD's ``additionalPrinterColumns``. The API server always
generates the wide cells and kubectl drops priority-1 columns unless ``-o wide``; ``table(...,
wide=False)`` drops them here instead, for callers that print directly.

This module builds the Table and holds the one registry of built-in printers; the printers
themselves are in ``printers_core`` (pods, nodes, events, services, ...) and
``printers_workloads`` (Deployments, Jobs, ...) and ``printers_cluster`` (PriorityClasses,
quotas, RBAC, storage, ...), their shared cell formats in ``tablecells``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from simulators.cluster.api import ClusterAPI, Obj, ResourceInfo
from simulators.cluster.printers_cluster import CLUSTER_PRINTERS
from simulators.cluster.printers_core import CORE_PRINTERS, pod_cells
from simulators.cluster.printers_workloads import SCALE_PRINTER, WORKLOAD_PRINTERS
from simulators.cluster.tablecells import (
    Cell,
    Printer,
    format_label_selector,
    format_labels,
    human_duration,
    metadata,
    since,
)

__all__ = [
    "format_label_selector",
    "format_labels",
    "human_duration",
    "pod_cells",
    "scale_table",
    "since",
    "table",
]

_NAME_DESC = (
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_AGE_DESC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. "
    "It is not guaranteed to be set in happens-before order across separate operations. Clients "
    "may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by "
    "the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)


# Every built-in kind's printer, by resource key.
_BUILTIN: dict[str, Printer] = {**CORE_PRINTERS, **WORKLOAD_PRINTERS, **CLUSTER_PRINTERS}


# --------------------------------------------------------------------- custom resources
def _json_path(obj: Any, path: str) -> Any:
    """The simple JSONPath CRD printer columns use (``.spec.a.b``, ``.status.x[0]``)."""
    current = obj
    for raw in path.strip().lstrip(".").split("."):
        if not raw:
            continue
        name, _, index = raw.partition("[")
        if name:
            if not isinstance(current, dict) or name not in current:
                return None
            current = current[name]
        if index:
            try:
                position = int(index.rstrip("]"))
            except ValueError:
                return None
            if not isinstance(current, list) or not -len(current) <= position < len(current):
                return None
            current = current[position]
    return current


def _custom_cell(kind: str, value: Any, now: datetime) -> Cell:
    if value is None:
        return None
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return str(value)
        return json.dumps(value, separators=(",", ":"))
    if kind == "integer":
        return (
            int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
        )
    if kind == "number":
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if kind == "boolean":
        return value if isinstance(value, bool) else None
    if kind == "date":
        return since(value, now) if isinstance(value, str) else None
    return value


def _custom_columns(info: ResourceInfo) -> list[dict[str, Any]]:
    return list(info.printer_columns) or [
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
    ]


# --------------------------------------------------------------------- the Table
def _definition(name: str, kind: str, priority: int, fmt: str = "", desc: str = "") -> Obj:
    if not desc:
        desc = _NAME_DESC if name == "Name" else _AGE_DESC if name == "Age" else ""
    return {
        "name": name,
        "type": kind,
        "format": fmt or ("name" if name == "Name" else ""),
        "description": desc,
        "priority": priority,
    }


def _row_object(obj: Obj, include: str) -> Obj | None:
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata(obj),
    }


def table(
    api: ClusterAPI,
    resource: str,
    objs: Iterable[Obj],
    wide: bool = False,
    *,
    include_object: str = "Object",
    resource_version: str = "",
) -> Obj:
    """A ``meta.k8s.io/v1`` Table of ``objs`` (objects of ``resource``)."""
    info = api.resolve(resource) if "." not in resource else _info(api, resource)
    now = api.now()
    columns: list[Obj]
    rows: list[Obj] = []
    builtin = _BUILTIN.get(info.key)
    if builtin is not None:
        defs, row_of = builtin
        columns = [_definition(name, kind, priority) for name, kind, priority in defs]
        for obj in objs:
            cells = row_of(obj, now)
            row: Obj = {"cells": cells, "object": _row_object(obj, include_object)}
            if info.kind == "Pod":
                phase = (obj.get("status") or {}).get("phase")
                if phase in ("Succeeded", "Failed"):
                    row["conditions"] = [
                        {
                            "type": "Completed",
                            "status": "True",
                            "reason": phase,
                            "message": "The pod has completed successfully."
                            if phase == "Succeeded"
                            else "The pod failed.",
                        }
                    ]
            rows.append(row)
    else:
        custom = _custom_columns(info)
        columns = [_definition("Name", "string", 0)] + [
            _definition(
                str(c["name"]),
                str(c.get("type", "string")),
                int(c.get("priority", 0)),
                str(c.get("format", "")),
                str(c.get("description", "")),
            )
            for c in custom
        ]
        for obj in objs:
            cells = [metadata(obj).get("name", "")] + [
                _custom_cell(str(c.get("type", "string")), _json_path(obj, str(c["jsonPath"])), now)
                for c in custom
            ]
            rows.append({"cells": cells, "object": _row_object(obj, include_object)})
    if not wide:
        keep = [i for i, c in enumerate(columns) if not c["priority"]]
        columns = [columns[i] for i in keep]
        for row in rows:
            row["cells"] = [row["cells"][i] for i in keep if i < len(row["cells"])]
    result: Obj = {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version} if resource_version else {},
        "columnDefinitions": columns,
        "rows": rows,
    }
    return result


def scale_table(
    api: ClusterAPI,
    scales: Iterable[Obj],
    *,
    include_object: str = "Object",
    resource_version: str = "",
) -> Obj:
    """A Table of autoscaling/v1 Scales (the ``scale`` subresource), in printers.go's columns."""
    defs, row_of = SCALE_PRINTER
    now = api.now()
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version} if resource_version else {},
        "columnDefinitions": [_definition(name, kind, prio) for name, kind, prio in defs],
        "rows": [
            {"cells": row_of(scale, now), "object": _row_object(scale, include_object)}
            for scale in scales
        ],
    }


def _info(api: ClusterAPI, resource: str) -> ResourceInfo:
    for info in api.resources():
        if info.key == resource:
            return info
    return api.resolve(resource)
