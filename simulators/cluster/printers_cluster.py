"""Server-side printers of the kinds every cluster has beside workloads: PriorityClasses,
ResourceQuotas, LimitRanges, RBAC, Ingresses, CronJobs, storage and EndpointSlices
(printPriorityClass, printResourceQuota, printRoleBinding, ... in kube-apiserver's printers.go).
"""

from __future__ import annotations

from datetime import datetime

from simulators.cluster.api import Obj
from simulators.cluster.tablecells import (
    Cell,
    Printer,
    age,
    containers_cells,
    format_label_selector,
    metadata,
    since,
)

_ACCESS_MODES = {
    "ReadWriteOnce": "RWO",
    "ReadOnlyMany": "ROX",
    "ReadWriteMany": "RWX",
    "ReadWriteOncePod": "RWOP",
}


def _name(obj: Obj) -> str:
    return str(metadata(obj).get("name", ""))


def _created_at(obj: Obj) -> str:
    # "Created At" columns print the RFC 3339 timestamp itself (type "date").
    return str(metadata(obj).get("creationTimestamp") or "")


def _priority_class_row(obj: Obj, now: datetime) -> list[Cell]:
    return [
        _name(obj),
        int(obj.get("value") or 0),
        bool(obj.get("globalDefault")),
        age(obj, now),
        obj.get("preemptionPolicy") or "",
    ]


def _runtime_class_row(obj: Obj, now: datetime) -> list[Cell]:
    return [_name(obj), obj.get("handler") or "", age(obj, now)]


def _quota_row(obj: Obj, now: datetime) -> list[Cell]:
    status = obj.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        column = limits if resource.split(".")[0] == "limits" and "." in resource else requests
        column.append(f"{resource}: {used.get(resource, '0')}/{hard[resource]}")
    return [_name(obj), age(obj, now), ", ".join(requests), ", ".join(limits)]


def _subjects(obj: Obj) -> tuple[str, str, str]:
    users: list[str] = []
    groups: list[str] = []
    accounts: list[str] = []
    for subject in obj.get("subjects") or []:
        kind = subject.get("kind")
        if kind == "User":
            users.append(str(subject.get("name", "")))
        elif kind == "Group":
            groups.append(str(subject.get("name", "")))
        elif kind == "ServiceAccount":
            accounts.append(f"{subject.get('namespace', '')}/{subject.get('name', '')}")
    return ", ".join(users), ", ".join(groups), ", ".join(accounts)


def _binding_row(obj: Obj, now: datetime) -> list[Cell]:
    ref = obj.get("roleRef") or {}
    return [
        _name(obj),
        f"{ref.get('kind', '')}/{ref.get('name', '')}",
        age(obj, now),
        *_subjects(obj),
    ]


def _ingress_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    hosts = [rule.get("host") or "*" for rule in spec.get("rules") or []]
    addresses = [
        entry.get("ip") or entry.get("hostname") or ""
        for entry in ((status.get("loadBalancer") or {}).get("ingress") or [])
    ]
    return [
        _name(obj),
        spec.get("ingressClassName") or "<none>",
        ",".join(hosts) if hosts else "*",
        ",".join(addresses),
        "80, 443" if spec.get("tls") else "80",
        age(obj, now),
    ]


def _cronjob_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    job_spec = ((spec.get("jobTemplate") or {}).get("spec")) or {}
    names, images = containers_cells((job_spec.get("template") or {}).get("spec") or {})
    last = status.get("lastScheduleTime")
    return [
        _name(obj),
        spec.get("schedule", ""),
        spec.get("timeZone") or "<none>",
        "True" if spec.get("suspend") else "False",
        len(status.get("active") or []),
        since(last, now) if last else "<none>",
        age(obj, now),
        names,
        images,
        format_label_selector(job_spec.get("selector")),
    ]


def _storage_class_row(obj: Obj, now: datetime) -> list[Cell]:
    annotations = metadata(obj).get("annotations") or {}
    name = _name(obj)
    if (
        annotations.get("storageclass.kubernetes.io/is-default-class") == "true"
        or annotations.get("storageclass.beta.kubernetes.io/is-default-class") == "true"
    ):
        name += " (default)"
    return [
        name,
        obj.get("provisioner", ""),
        obj.get("reclaimPolicy") or "Delete",
        obj.get("volumeBindingMode") or "Immediate",
        "true" if obj.get("allowVolumeExpansion") else "false",
        age(obj, now),
    ]


def _pv_row(obj: Obj, now: datetime) -> list[Cell]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    claim = spec.get("claimRef") or {}
    phase = "Terminating" if metadata(obj).get("deletionTimestamp") else status.get("phase", "")
    return [
        _name(obj),
        str((spec.get("capacity") or {}).get("storage", "")),
        ",".join(_ACCESS_MODES.get(m, m) for m in spec.get("accessModes") or []),
        spec.get("persistentVolumeReclaimPolicy", ""),
        phase,
        f"{claim.get('namespace', '')}/{claim.get('name', '')}" if claim else "",
        spec.get("storageClassName", ""),
        spec.get("volumeAttributesClassName") or "<unset>",
        status.get("reason", ""),
        age(obj, now),
        spec.get("volumeMode") or "<unset>",
    ]


def _endpoint_slice_row(obj: Obj, now: datetime) -> list[Cell]:
    ports = [str(p.get("port")) for p in obj.get("ports") or [] if p.get("port") is not None]
    addresses = [a for e in obj.get("endpoints") or [] for a in e.get("addresses") or []]
    shown = ",".join(addresses[:3])
    if len(addresses) > 3:
        shown += f" + {len(addresses) - 3} more..."
    return [
        _name(obj),
        obj.get("addressType", ""),
        ",".join(ports) or "<unset>",
        shown or "<unset>",
        age(obj, now),
    ]


def _created(obj: Obj, now: datetime) -> list[Cell]:
    del now
    return [_name(obj), _created_at(obj)]


_NAME = ("Name", "string", 0)
_AGE = ("Age", "string", 0)
_CREATED_AT = (_NAME, ("Created At", "date", 0))
_BINDING = (
    _NAME,
    ("Role", "string", 0),
    _AGE,
    ("Users", "string", 1),
    ("Groups", "string", 1),
    ("ServiceAccounts", "string", 1),
)

CLUSTER_PRINTERS: dict[str, Printer] = {
    "priorityclasses.scheduling.k8s.io": (
        (
            _NAME,
            ("Value", "integer", 0),
            ("Global-Default", "boolean", 0),
            _AGE,
            ("PreemptionPolicy", "string", 0),
        ),
        _priority_class_row,
    ),
    "runtimeclasses.node.k8s.io": (
        (_NAME, ("Handler", "string", 0), _AGE),
        _runtime_class_row,
    ),
    "resourcequotas": (
        (_NAME, _AGE, ("Request", "string", 0), ("Limit", "string", 0)),
        _quota_row,
    ),
    "limitranges": (_CREATED_AT, _created),
    "roles.rbac.authorization.k8s.io": (_CREATED_AT, _created),
    "clusterroles.rbac.authorization.k8s.io": (_CREATED_AT, _created),
    "customresourcedefinitions.apiextensions.k8s.io": (_CREATED_AT, _created),
    "rolebindings.rbac.authorization.k8s.io": (_BINDING, _binding_row),
    "clusterrolebindings.rbac.authorization.k8s.io": (_BINDING, _binding_row),
    "ingresses.networking.k8s.io": (
        (
            _NAME,
            ("Class", "string", 0),
            ("Hosts", "string", 0),
            ("Address", "string", 0),
            ("Ports", "string", 0),
            _AGE,
        ),
        _ingress_row,
    ),
    "cronjobs.batch": (
        (
            _NAME,
            ("Schedule", "string", 0),
            ("Timezone", "string", 0),
            ("Suspend", "boolean", 0),
            ("Active", "integer", 0),
            ("Last Schedule", "string", 0),
            _AGE,
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ),
        _cronjob_row,
    ),
    "storageclasses.storage.k8s.io": (
        (
            _NAME,
            ("Provisioner", "string", 0),
            ("ReclaimPolicy", "string", 0),
            ("VolumeBindingMode", "string", 0),
            ("AllowVolumeExpansion", "string", 0),
            _AGE,
        ),
        _storage_class_row,
    ),
    "persistentvolumes": (
        (
            _NAME,
            ("Capacity", "string", 0),
            ("Access Modes", "string", 0),
            ("Reclaim Policy", "string", 0),
            ("Status", "string", 0),
            ("Claim", "string", 0),
            ("StorageClass", "string", 0),
            ("VolumeAttributesClass", "string", 0),
            ("Reason", "string", 0),
            _AGE,
            ("VolumeMode", "string", 1),
        ),
        _pv_row,
    ),
    "endpointslices.discovery.k8s.io": (
        (
            _NAME,
            ("AddressType", "string", 0),
            ("Ports", "string", 0),
            ("Endpoints", "string", 0),
            _AGE,
        ),
        _endpoint_slice_row,
    ),
}
