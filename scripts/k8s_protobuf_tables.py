"""Regenerate simulators/cluster/data/protobuf_fields.json from k8s.io/api and apimachinery.

    python scripts/k8s_protobuf_tables.py /path/to/kubernetes/api /path/to/kubernetes/apimachinery

Reads each package's ``generated.proto`` (message and field numbers, protobuf types) and its
``types.go`` (the JSON name, ``omitempty``, pointers and ``inline`` embedding from the struct
tags), and writes one compact table per message that the API server decodes a request body
with: ``{message: {number: [json_name, type, flags]}}``. ``type`` is a scalar (``string``,
``bytes``, ``int32``, ``int64``, ``bool``, ``double``) or a message's full name, ``map:<K>:<V>``
for a map; ``flags`` holds ``r`` (repeated), ``p`` (a Go pointer: zero values are kept), ``k``
(no ``omitempty``: zero values are kept) and ``i`` (inline: the message's fields go into the
parent object). Only the messages reachable from the kinds listed in ``ROOTS`` are kept.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

MACHINERY = {
    "k8s.io.apimachinery.pkg.apis.meta.v1": "pkg/apis/meta/v1",
    "k8s.io.apimachinery.pkg.api.resource": "pkg/api/resource",
    "k8s.io.apimachinery.pkg.util.intstr": "pkg/util/intstr",
    "k8s.io.apimachinery.pkg.runtime": "pkg/runtime",
}
# Handled by hand in simulators/cluster/protobuf.py (their JSON is not their fields).
SPECIAL = {
    "k8s.io.apimachinery.pkg.apis.meta.v1.Time",
    "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime",
    "k8s.io.apimachinery.pkg.apis.meta.v1.Duration",
    "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "k8s.io.apimachinery.pkg.api.resource.Quantity",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
    "k8s.io.apimachinery.pkg.runtime.RawExtension",
}
SCALARS = {"string", "bytes", "int32", "int64", "bool", "double", "float", "uint32", "uint64"}
ROOTS = [
    "k8s.io.api.core.v1." + kind
    for kind in [
        "Namespace",
        "Secret",
        "ConfigMap",
        "Service",
        "ServiceAccount",
        "ResourceQuota",
        "LimitRange",
        "Pod",
        "Node",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Endpoints",
        "Binding",
        "Event",
    ]
] + [
    "k8s.io.api.apps.v1.Deployment",
    "k8s.io.api.apps.v1.DaemonSet",
    "k8s.io.api.apps.v1.StatefulSet",
    "k8s.io.api.apps.v1.ReplicaSet",
    "k8s.io.api.batch.v1.Job",
    "k8s.io.api.batch.v1.CronJob",
    "k8s.io.api.rbac.v1.Role",
    "k8s.io.api.rbac.v1.RoleBinding",
    "k8s.io.api.rbac.v1.ClusterRole",
    "k8s.io.api.rbac.v1.ClusterRoleBinding",
    "k8s.io.api.networking.v1.Ingress",
    "k8s.io.api.policy.v1.PodDisruptionBudget",
    "k8s.io.api.policy.v1.Eviction",
    "k8s.io.api.scheduling.v1.PriorityClass",
    "k8s.io.api.storage.v1.StorageClass",
    "k8s.io.api.coordination.v1.Lease",
    "k8s.io.api.discovery.v1.EndpointSlice",
    "k8s.io.api.authentication.v1.TokenRequest",
    "k8s.io.api.authentication.v1.SelfSubjectReview",
    "k8s.io.api.authorization.v1.SelfSubjectAccessReview",
    "k8s.io.api.authorization.v1.SelfSubjectRulesReview",
    "k8s.io.api.autoscaling.v1.Scale",
    "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
]

MESSAGE = re.compile(r"^message (\w+) \{(.*?)^\}", re.S | re.M)
FIELD = re.compile(
    r"^\s*(optional|repeated)?\s*(map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)",
    re.M,
)
STRUCT = re.compile(r"^type (\w+) struct \{(.*?)^\}", re.S | re.M)
GO_FIELD = re.compile(r"^\s*(\w+)?\s*(\*?)[\w.\[\]*]+\s*`([^`]*)`", re.M)
TAG = re.compile(r'(\w+):"([^"]*)"')


def qualify(name: str, package: str) -> str:
    name = name.lstrip(".")
    if name in SCALARS or "." in name:
        return name
    return f"{package}.{name}"


def read_proto(text: str, package: str, out: dict[str, dict[int, list[str]]]) -> None:
    for match in MESSAGE.finditer(text):
        fields: dict[int, list[str]] = {}
        for field in FIELD.finditer(match.group(2)):
            label, type_, key, value, name, number = field.groups()
            if key:
                kind = f"map:{qualify(key, package)}:{qualify(value, package)}"
                flags = ""
            else:
                kind = qualify(type_, package)
                flags = "r" if label == "repeated" else ""
            fields[int(number)] = [name, kind, flags]
        out[f"{package}.{match.group(1)}"] = fields


def read_go(text: str, package: str, proto: dict[str, dict[int, list[str]]]) -> None:
    for match in STRUCT.finditer(text):
        message = proto.get(f"{package}.{match.group(1)}")
        if message is None:
            continue
        for field in GO_FIELD.finditer(match.group(2)):
            tags = dict(TAG.findall(field.group(3)))
            pb = tags.get("protobuf", "").split(",")
            if len(pb) < 2 or not pb[1].isdigit() or int(pb[1]) not in message:
                continue
            entry = message[int(pb[1])]
            json_tag = tags.get("json", "").split(",")
            if json_tag[0]:
                entry[0] = json_tag[0]
            flags = entry[2]
            if field.group(2):
                flags += "p"
            if "omitempty" not in json_tag[1:]:
                flags += "k"
            if json_tag[0] == "":  # embedded: Go flattens it into the parent object
                flags += "i"
            entry[2] = flags


def main(api_root: str, machinery_root: str) -> None:
    proto: dict[str, dict[int, list[str]]] = {}
    # Every k8s.io/api package: new fields may refer to other groups' (alpha) messages.
    packages_found = {
        "k8s.io.api." + ".".join(path.parent.relative_to(api_root).parts): str(
            path.parent.relative_to(api_root)
        )
        for path in Path(api_root).glob("*/*/generated.proto")
    }
    sources = [(Path(api_root), packages_found), (Path(machinery_root), MACHINERY)]
    for root, packages in sources:
        for package, folder in packages.items():
            read_proto((root / folder / "generated.proto").read_text(), package, proto)
    for root, packages in sources:
        for package, folder in packages.items():
            types = root / folder / "types.go"
            if types.exists():
                read_go(types.read_text(), package, proto)
    keep: dict[str, dict[int, list[str]]] = {}
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name in keep or name in SPECIAL or name in SCALARS:
            continue
        keep[name] = proto[name]
        for _json, kind, _flags in proto[name].values():
            for part in kind.split(":"):
                if part not in ("map", *SCALARS):
                    todo.append(part)
    tables = {
        name: {str(n): entry for n, entry in sorted(fields.items())}
        for name, fields in sorted(keep.items())
    }
    out = Path(__file__).resolve().parents[1] / "simulators/cluster/data/protobuf_fields.json"
    out.parent.mkdir(exist_ok=True)
    text = json.dumps(tables, separators=(",", ":"), sort_keys=False)
    out.write_text(text.replace('},"', '},\n"') + "\n", encoding="utf-8")
    print(f"{len(tables)} messages -> {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
