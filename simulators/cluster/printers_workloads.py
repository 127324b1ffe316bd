"""Server-side printers of the workload kinds: Deployments, ReplicaSets, DaemonSets,
StatefulSets, ControllerRevisions and Jobs (printDeployment, printReplicaSet, ... in
kube-apiserver's printers.go).
"""

from __future__ import annotations

from datetime import datetime

from simulators.cluster.api import Obj
from simulators.cluster.clock import parse_time
from simulators.cluster.tablecells import (
    Cell,
    Printer,
    age,
    containers_cells,
    format_label_selector,
    format_labels,
    human_duration,
    metadata,
    since,
    template_spec,
)


def _deployment_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    names, images = containers_cells(template_spec(obj))
    return [
        metadata(obj).get("name", ""),
        f"{int(status.get('readyReplicas') or 0)}/{int(spec.get('replicas') or 0)}",
        int(status.get("updatedReplicas") or 0),
        int(status.get("availableReplicas") or 0),
        age(obj, now),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]


def _controllerrevision_row(obj: Obj, now: datetime) -> list[Cell]:
    """printControllerRevision: the controller as `kind.group/name` in lower case."""
    controller = "<none>"
    for ref in metadata(obj).get("ownerReferences") or []:
        if ref.get("controller"):
            group = str(ref.get("apiVersion", "")).rpartition("/")[0]
            kind = str(ref.get("kind", ""))
            controller = f"{kind}.{group}".lower() if group else kind.lower()
            controller += f"/{ref.get('name', '')}"
    return [metadata(obj).get("name", ""), controller, int(obj.get("revision") or 0), age(obj, now)]


def _replicaset_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    names, images = containers_cells(template_spec(obj))
    return [
        metadata(obj).get("name", ""),
        int(spec.get("replicas") or 0),
        int(status.get("replicas") or 0),
        int(status.get("readyReplicas") or 0),
        age(obj, now),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]


def _daemonset_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    names, images = containers_cells(template_spec(obj))
    return [
        metadata(obj).get("name", ""),
        int(status.get("desiredNumberScheduled") or 0),
        int(status.get("currentNumberScheduled") or 0),
        int(status.get("numberReady") or 0),
        int(status.get("updatedNumberScheduled") or 0),
        int(status.get("numberAvailable") or 0),
        format_labels(template_spec(obj).get("nodeSelector")),
        age(obj, now),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]


def _statefulset_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    names, images = containers_cells(template_spec(obj))
    return [
        metadata(obj).get("name", ""),
        f"{int(status.get('readyReplicas') or 0)}/{int(spec.get('replicas') or 0)}",
        age(obj, now),
        names,
        images,
    ]


def _job_condition(obj: Obj, kind: str) -> bool:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return bool(condition.get("status") == "True")
    return False


def _job_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    succeeded = int(status.get("succeeded") or 0)
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{spec['completions']}"
    elif int(spec.get("parallelism") or 0) > 1:
        completions = f"{succeeded}/1 of {spec['parallelism']}"
    else:
        completions = f"{succeeded}/1"
    start, end = status.get("startTime"), status.get("completionTime")
    duration = ""
    if start and not end:
        duration = since(start, now)
    elif start and end:
        duration = human_duration((parse_time(end) - parse_time(start)).total_seconds())
    if _job_condition(obj, "Complete"):
        state = "Complete"
    elif _job_condition(obj, "Failed"):
        state = "Failed"
    elif metadata(obj).get("deletionTimestamp"):
        state = "Terminating"
    elif _job_condition(obj, "Suspended"):
        state = "Suspended"
    elif _job_condition(obj, "FailureTarget"):
        state = "FailureTarget"
    else:
        state = "Running"
    names, images = containers_cells(template_spec(obj))
    return [
        metadata(obj).get("name", ""),
        state,
        completions,
        duration,
        age(obj, now),
        names,
        images,
        format_label_selector(spec.get("selector")),
    ]


def _scale_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        metadata(obj).get("name", ""),
        int(spec.get("replicas") or 0),
        int(status.get("replicas") or 0),
        age(obj, now),
    ]


# An autoscaling/v1 Scale (a workload's scale subresource), as printers.go prints one.
SCALE_PRINTER: Printer = (
    (
        ("Name", "string", 0),
        ("Desired", "integer", 0),
        ("Available", "integer", 0),
        ("Age", "string", 0),
    ),
    _scale_row,
)

WORKLOAD_PRINTERS: dict[str, Printer] = {
    "deployments.apps": (
        (
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Up-to-date", "string", 0),
            ("Available", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _deployment_row,
    ),
    "replicasets.apps": (
        (
            ("Name", "string", 0),
            ("Desired", "integer", 0),
            ("Current", "integer", 0),
            ("Ready", "integer", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _replicaset_row,
    ),
    "daemonsets.apps": (
        (
            ("Name", "string", 0),
            ("Desired", "integer", 0),
            ("Current", "integer", 0),
            ("Ready", "integer", 0),
            ("Up-to-date", "integer", 0),
            ("Available", "integer", 0),
            ("Node Selector", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _daemonset_row,
    ),
    "statefulsets.apps": (
        (
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
        ),
        _statefulset_row,
    ),
    "controllerrevisions.apps": (
        (
            ("Name", "string", 0),
            ("Controller", "string", 0),
            ("Revision", "integer", 0),
            ("Age", "string", 0),
        ),
        _controllerrevision_row,
    ),
    "jobs.batch": (
        (
            ("Name", "string", 0),
            ("Status", "string", 0),
            ("Completions", "string", 0),
            ("Duration", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _job_row,
    ),
}
