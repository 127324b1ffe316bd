"""Regenerate simulators/cluster/data/openapi_schemas.json: the OpenAPI v3 component schemas of
the kinds the lab serves, as kube-apiserver publishes them under /openapi/v3.

    python scripts/k8s_openapi_schemas.py API_DIR APIMACHINERY_DIR KAI_SCHEDULER_DIR

Built-in kinds come from k8s.io/api and apimachinery (Apache-2.0, The Kubernetes Authors): each
message of ``generated.proto`` is a schema; its doc comments become descriptions the way
kube-openapi formats Go comments (``fmtRawDoc``: generator markers and TODO lines dropped,
lines joined with spaces, paragraphs and indented lines kept, nothing after ``---``); a field
is required without ``+optional`` and without ``omitempty``; ``patchStrategy`` and
``patchMergeKey`` tags and ``+listType``/``+listMapKey``/``+mapType`` markers become the
``x-kubernetes-*`` extensions kubectl apply reads; string types marked ``+enum`` get their
values and "Possible enum values".
KAI Scheduler's Queue and PodGroup come from its CRDs (Apache-2.0, NVIDIA).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scripts.k8s_protobuf_tables import MACHINERY

KINDS = {
    # (group, version, kind): proto message
    ("", "v1", kind): f"k8s.io.api.core.v1.{kind}"
    for kind in [
        "ConfigMap",
        "Endpoints",
        "Event",
        "LimitRange",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Pod",
        "ResourceQuota",
        "Secret",
        "Service",
        "ServiceAccount",
    ]
}
KINDS.update(
    {
        ("apps", "v1", k): f"k8s.io.api.apps.v1.{k}"
        for k in ["ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"]
    }
)
KINDS.update({("batch", "v1", k): f"k8s.io.api.batch.v1.{k}" for k in ["Job", "CronJob"]})
KINDS.update(
    {
        ("coordination.k8s.io", "v1", "Lease"): "k8s.io.api.coordination.v1.Lease",
        ("discovery.k8s.io", "v1", "EndpointSlice"): "k8s.io.api.discovery.v1.EndpointSlice",
        ("networking.k8s.io", "v1", "Ingress"): "k8s.io.api.networking.v1.Ingress",
        ("node.k8s.io", "v1", "RuntimeClass"): "k8s.io.api.node.v1.RuntimeClass",
        ("policy", "v1", "PodDisruptionBudget"): "k8s.io.api.policy.v1.PodDisruptionBudget",
        ("scheduling.k8s.io", "v1", "PriorityClass"): "k8s.io.api.scheduling.v1.PriorityClass",
        ("storage.k8s.io", "v1", "StorageClass"): "k8s.io.api.storage.v1.StorageClass",
    }
)
KINDS.update(
    {
        ("rbac.authorization.k8s.io", "v1", k): f"k8s.io.api.rbac.v1.{k}"
        for k in ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]
    }
)
SCALAR = {
    "string": {"type": "string"},
    "bytes": {"type": "string", "format": "byte"},
    "int32": {"type": "integer", "format": "int32"},
    "int64": {"type": "integer", "format": "int64"},
    "bool": {"type": "boolean"},
    "double": {"type": "number", "format": "double"},
}
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
SPECIAL: dict[str, dict[str, Any]] = {
    META + "Time": {"type": "string", "format": "date-time"},
    META + "MicroTime": {"type": "string", "format": "date-time"},
    META + "Duration": {"type": "string"},
    META + "FieldsV1": {"type": "object"},
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {
        "oneOf": [{"type": "string"}, {"type": "number"}]
    },
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
        "type": "string",
        "format": "int-or-string",
    },
    "io.k8s.apimachinery.pkg.runtime.RawExtension": {"type": "object"},
}
TYPE_META = {
    "apiVersion": {
        "description": "APIVersion defines the versioned schema of this representation of an "
        "object. Servers should convert recognized schemas to the latest internal value, and may "
        "reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/"
        "sig-architecture/api-conventions.md#resources",
        "type": "string",
    },
    "kind": {
        "description": "Kind is a string value representing the REST resource this object "
        "represents. Servers may infer this from the endpoint the client submits requests to. "
        "Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/"
        "devel/sig-architecture/api-conventions.md#types-kinds",
        "type": "string",
    },
}
FIELD = re.compile(
    r"^\s*(optional|repeated)?\s*(map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)"
)
GO_FIELD = re.compile(r"^\s*(\w+)\s+(\*?)([\w.\[\]*]+)\s*`([^`]*)`")
EMBEDDED = re.compile(r"^\s*()(\*?)([\w.]+)\s*`([^`]*)`")
TAG = re.compile(r'(\w+):"([^"]*)"')


def openapi_name(proto: str) -> str:
    return "io.k8s." + proto.lstrip(".")[len("k8s.io.") :]


def fmt_raw_doc(lines: list[str]) -> str:
    """kube-openapi's fmtRawDoc: a Go doc comment as an OpenAPI description."""
    text = "\n".join(lines).split("---")[0]
    out = ""
    for line in text.split("\n"):
        line = line.rstrip(" ")
        leading = line.lstrip(" ")
        if not line:
            out = out[:-1] if out else out
            out += "\n\n"
        elif leading.startswith("TODO") or leading.startswith("+"):
            continue
        elif line.startswith((" ", "\t")):
            out = out[:-1] if out else out
            out += "\n" + line + "\n"
        else:
            out += line + " "
    return out.strip("\n").rstrip(" ").replace('\\"', '"')


def markers(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lines:
        text = line.strip()
        if text.startswith("+"):
            key, _, value = text[1:].partition("=")
            found[key] = value
    return found


def read_proto(path: Path, package: str) -> dict[str, Any]:
    messages: dict[str, Any] = {}
    comment: list[str] = []
    current: dict[str, Any] | None = None
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if line.startswith("//"):
            comment.append(line[2:][1:] if line[2:].startswith(" ") else line[2:])
            continue
        if line.startswith("message "):
            name = line.split()[1]
            current = {"doc": comment, "fields": []}
            messages[f"{package}.{name}"] = current
        elif current is not None and (match := FIELD.match(line)):
            label, type_, key, value, name, number = match.groups()
            current["fields"].append(
                {
                    "name": name,
                    "number": int(number),
                    "type": type_,
                    "map": (key, value) if key else None,
                    "repeated": label == "repeated",
                    "doc": comment,
                }
            )
        elif line == "}":
            current = None
        comment = []
    return messages


def qualify(name: str, package: str) -> str:
    name = name.lstrip(".")
    if name in SCALAR or "." in name:
        return name
    return f"{package}.{name}"


def read_go(path: Path) -> tuple[dict[tuple[str, int], dict[str, str]], dict[str, list[str]]]:
    """Struct tags per (struct, protobuf number), and the Go type of each; +enum types."""
    tags: dict[tuple[str, int], dict[str, str]] = {}
    text = path.read_text()
    for struct in re.finditer(r"^type (\w+) struct \{(.*?)^\}", text, re.S | re.M):
        for line in struct.group(2).splitlines():
            match = GO_FIELD.match(line) or EMBEDDED.match(line)
            if not match:
                continue
            found = dict(TAG.findall(match.group(4)))
            pb = found.get("protobuf", "").split(",")
            if len(pb) > 1 and pb[1].isdigit():
                found["gotype"] = match.group(3).lstrip("[]*").rpartition(".")[2]
                found["pointer"] = match.group(2)
                tags[(struct.group(1), int(pb[1]))] = found
    enums: dict[str, list[str]] = {}
    for match in re.finditer(r"// \+enum\n(?://.*\n)*type (\w+) string", text):
        enums[match.group(1)] = []
    values: dict[str, list[tuple[str, str]]] = {name: [] for name in enums}
    comment: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            comment.append(stripped[2:].strip())
            continue
        match = re.match(r'^(\w+)\s+(\w+)\s*=\s*"([^"]*)"', stripped)
        if match and match.group(2) in values:
            words = " ".join(c for c in comment if c and not c.startswith("+"))
            if words.startswith(match.group(1) + " "):
                words = words[len(match.group(1)) + 1 :]
            values[match.group(2)].append((match.group(3), words))
        comment = []
    return tags, {k: [f"{v}\t{c}" for v, c in sorted(set(vs))] for k, vs in values.items()}


def schema_of_type(type_: str, package: str) -> dict[str, Any]:
    name = qualify(type_, package)
    if name in SCALAR:
        return dict(SCALAR[name])
    return {"$ref": f"#/components/schemas/{openapi_name(name)}"}


def build(api_root: Path, machinery_root: Path) -> dict[str, Any]:
    messages: dict[str, Any] = {}
    go: dict[str, tuple[dict[tuple[str, int], dict[str, str]], dict[str, list[str]]]] = {}
    folders = {
        "k8s.io.api." + ".".join(p.parent.relative_to(api_root).parts): p.parent
        for p in api_root.glob("*/*/generated.proto")
    }
    folders.update({pkg: machinery_root / folder for pkg, folder in MACHINERY.items()})
    for package, folder in folders.items():
        messages.update(read_proto(folder / "generated.proto", package))
        if (folder / "types.go").exists():
            go[package] = read_go(folder / "types.go")
    schemas: dict[str, Any] = {}
    todo = list(KINDS.values())
    while todo:
        proto = todo.pop()
        name = openapi_name(proto)
        if name in schemas:
            continue
        if name in SPECIAL:
            message = messages.get(proto, {"doc": []})
            schemas[name] = {"description": fmt_raw_doc(message["doc"]), **SPECIAL[name]}
            continue
        message = messages[proto]
        package, _, short = proto.rpartition(".")
        tags, enums = go.get(package, ({}, {}))
        schema: dict[str, Any] = {"description": fmt_raw_doc(message["doc"]), "type": "object"}
        properties: dict[str, Any] = {}
        required: list[str] = []
        for field in message["fields"]:
            tag = tags.get((short, field["number"]), {})
            json_tag = tag.get("json", field["name"]).split(",")
            json_name = json_tag[0] or field["name"]
            doc = field["doc"]
            mark = markers(doc)
            prop: dict[str, Any]
            if field["map"]:
                value = qualify(field["map"][1], package)
                if value not in SCALAR:
                    todo.append(value)
                prop = {"type": "object", "additionalProperties": schema_of_type(value, package)}
            else:
                kind = qualify(field["type"], package)
                item = schema_of_type(field["type"], package)
                if kind not in SCALAR:
                    todo.append(kind)
                    special = openapi_name(kind) in SPECIAL
                    item = {"allOf": [item]}
                    if not special and (field["repeated"] or not tag.get("pointer")):
                        item["default"] = {}
                prop = {"type": "array", "items": item} if field["repeated"] else item
                go_type = tag.get("gotype", "")
                if go_type in enums and kind == "string" and enums[go_type]:
                    values = enums[go_type]
                    prop["enum"] = [v.split("\t")[0] for v in values]
                    lines = ["Possible enum values:"]
                    for entry in values:
                        value, words = entry.split("\t")
                        lines.append(f" - `{json.dumps(value)}`" + (f" {words}" if words else ""))
                    doc_text = fmt_raw_doc(doc)
                    prop["description"] = (doc_text + "\n\n" if doc_text else "") + "\n".join(lines)
            if "description" not in prop:
                text = fmt_raw_doc(doc)
                if text:
                    prop = {"description": text, **prop}
            if tag.get("patchStrategy"):
                prop["x-kubernetes-patch-strategy"] = tag["patchStrategy"]
            if tag.get("patchMergeKey"):
                prop["x-kubernetes-patch-merge-key"] = tag["patchMergeKey"]
            if mark.get("listType"):
                prop["x-kubernetes-list-type"] = mark["listType"]
            if "listMapKey" in mark:
                keys = [
                    line.strip()[len("+listMapKey=") :]
                    for line in doc
                    if line.strip().startswith("+listMapKey=")
                ]
                prop["x-kubernetes-list-map-keys"] = keys
            if mark.get("mapType"):
                prop["x-kubernetes-map-type"] = mark["mapType"]
            if json_tag[0] == "" and "$ref" in json.dumps(prop):
                # An embedded struct: its properties are the parent's (kube-openapi inlines).
                schema.setdefault("x-inline", []).append(
                    openapi_name(qualify(field["type"], package))
                )
                continue
            properties[json_name] = prop
            if (
                "optional" not in mark
                and "omitempty" not in json_tag[1:]
                and "required" not in mark
            ) or "required" in mark:
                required.append(json_name)
        if proto in KINDS.values():
            properties.update(TYPE_META)  # metav1.TypeMeta, inline, has no protobuf field
        if properties:
            schema["properties"] = dict(sorted(properties.items()))
        if required:
            schema["required"] = sorted(set(required))
        for (group, version, kind), kind_proto in KINDS.items():
            if kind_proto == proto:
                schema["x-kubernetes-group-version-kind"] = [
                    {"group": group, "kind": kind, "version": version}
                ]
        schemas[name] = schema
    # Embedded structs: their properties go into the embedding schema.
    for schema in schemas.values():
        for inline in schema.pop("x-inline", []):
            source = schemas[inline]
            schema.setdefault("properties", {}).update(source.get("properties", {}))
            schema["properties"] = dict(sorted(schema["properties"].items()))
            if source.get("required"):
                schema["required"] = sorted(
                    set(schema.get("required", [])) | set(source["required"])
                )
    return schemas


def crd_schemas(kai_root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for plural in ("queues", "podgroups"):
        crd = yaml.safe_load(
            (
                kai_root / f"deployments/kai-scheduler/crds/scheduling.run.ai_{plural}.yaml"
            ).read_text()
        )
        spec = crd["spec"]
        for version in spec["versions"]:
            if not version.get("storage"):
                continue
            schema = dict(version["schema"]["openAPIV3Schema"])
            schema["x-kubernetes-group-version-kind"] = [
                {"group": spec["group"], "kind": spec["names"]["kind"], "version": version["name"]}
            ]
            group = ".".join(reversed(spec["group"].split(".")))
            name = f"{group}.{version['name']}.{spec['names']['kind']}"
            out[name] = schema
    return out


def main() -> None:
    api_root, machinery_root, kai_root = (Path(a) for a in sys.argv[1:4])
    schemas = build(api_root, machinery_root)
    schemas.update(crd_schemas(kai_root))
    out = Path(__file__).resolve().parents[1] / "simulators/cluster/data/openapi_schemas.json"
    text = json.dumps(dict(sorted(schemas.items())), separators=(",", ":"))
    out.write_text(text.replace(',"io.k8s', ',\n"io.k8s') + "\n", encoding="utf-8")
    print(f"{len(schemas)} schemas, {len(text)} bytes -> {out}")


if __name__ == "__main__":
    main()
