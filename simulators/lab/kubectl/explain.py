"""kubectl explain: a kind's or a field's documentation from the served OpenAPI v3 schemas.

The same schemas the API server publishes (``simulators.cluster.openapi``), printed as kubectl
1.36's ``plaintext`` template does (k8s.io/kubectl/pkg/explain/v2/templates/plaintext.tmpl):
the GROUP/KIND/VERSION header, ``FIELD: name <type>`` and its enum for a field path, the
DESCRIPTION (the field's and then its type's, wrapped at 76 columns by go-wordwrap and
indented 4), and FIELDS (``name<TAB><type>``, `` -required-``, ``enum: ...`` and the wrapped
description; with ``--recursive`` one line per field and its enum, nested fields indented two
spaces, a type met again on its own path not expanded).
"""

from __future__ import annotations

from typing import Any

from simulators.cluster import openapi
from simulators.cluster.api import ApiError, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON, KubectlError
from simulators.lab.tool import Context, Output

FLAGS = [
    *COMMON,
    Flag("recursive", long="recursive"),
    Flag("api-version", long="api-version", takes_value=True),
    Flag("output", long="output", short="o", takes_value=True),
]
PREFIX = openapi.PREFIX
NO_RESOURCE = (
    'error: You must specify the type of resource to explain. Use "kubectl api-resources" for '
    "a complete list of supported resources."
)


def wrap(text: str, limit: int) -> str:
    """mitchellh/go-wordwrap's WrapString: breaks at spaces, keeps newlines and long words."""
    out: list[str] = []
    current = 0
    word: list[str] = []
    space: list[str] = []
    for char in text:
        if char == "\n":
            out.extend(space)
            out.extend(word)
            space, word = [], []
            out.append(char)
            current = 0
        elif char.isspace() and char != "\u00a0":
            if not space or word:
                current += len(space) + len(word)
                out.extend(space)
                out.extend(word)
                space, word = [], []
            space.append(char)
        else:
            word.append(char)
            if current + len(space) + len(word) > limit and len(word) < limit:
                out.append("\n")
                current = 0
                space = []
    if not word:
        if current + len(space) <= limit:
            out.extend(space)
    else:
        out.extend(space)
        out.extend(word)
    return "".join(out)


def indent(text: str, n: int) -> str:
    pad = " " * n
    return pad + text.replace("\n", "\n" + pad)


class _Doc:
    def __init__(self, schemas: dict[str, Obj]) -> None:
        self.schemas = schemas

    def ref(self, node: Any) -> Obj | None:
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(ref, str) or not ref.startswith(PREFIX):
            return None
        return self.schemas.get(ref[len(PREFIX) :])

    def resolved(self, node: Obj) -> Obj:
        return self.ref(node) or node

    def type_guess(self, node: Obj) -> str:
        if node.get("items"):
            return "[]" + self.type_guess(node["items"])
        extra = node.get("additionalProperties")
        if extra and isinstance(extra, dict):
            return "map[string]" + self.type_guess(extra)
        all_of = node.get("allOf")
        if all_of and not node.get("properties") and len(all_of) == 1:
            return self.type_guess(all_of[0])
        if "$ref" in node:
            target = self.ref(node)
            if not target or not target.get("type") or target.get("type") == "object":
                return str(node["$ref"]).split("/")[-1].split(".")[-1] or "Object"
            return str(target["type"])
        if node.get("type") == "object":
            return "Object"
        return str(node.get("type") or "Object")

    def description(self, node: Obj) -> str:
        node = self.resolved(node)
        text = f"{node['description']}\n" if node.get("description") else ""
        for part in node.get("allOf") or []:
            text += self.description(part)
        if node.get("items"):
            text += self.description(node["items"])
        extra = node.get("additionalProperties")
        if extra and isinstance(extra, dict):
            text += self.description(extra)
        return text

    def field_list(
        self, node: Obj, level: int, recursive: bool, history: frozenset[str] = frozenset()
    ) -> str:
        ref = str(node.get("$ref") or "")
        if ref and ref in history:
            return ""
        history = history | {ref}
        resolved = self.resolved(node)
        out = ""
        properties = resolved.get("properties") or {}
        required = resolved.get("required") or []
        for name in sorted(properties):
            out += self.field_detail(name, properties[name], name in required, level, recursive)
            if recursive:
                out += self.field_list(properties[name], level + 1, recursive, history)
        for part in resolved.get("allOf") or []:
            out += self.field_list(part, level, recursive, history)
        if resolved.get("items"):
            out += self.field_list(resolved["items"], level, recursive, history)
        extra = resolved.get("additionalProperties")
        if extra and isinstance(extra, dict):
            out += self.field_list(extra, level, recursive, history)
        return out

    def field_detail(self, name: str, field: Obj, required: bool, level: int, short: bool) -> str:
        pad = level * 2
        line = indent(name, pad) + f"\t<{self.type_guess(field)}>"
        if required:
            line += " -required-"
        line += "\n"
        if field.get("enum"):
            line += enum_line(field["enum"], pad, long=False, limit=4)
        if short:
            return line
        body = field.get("description") or "<no description>"
        return line + indent(wrap(body, 78 - pad), pad + 2) + "\n\n"

    def output(self, node: Obj, path: list[str], recursive: bool) -> str | None:
        """The template's "output": None where the path leads nowhere."""
        resolved = self.resolved(node)
        if not path:
            text = "DESCRIPTION:\n"
            text += indent(wrap(self.description(resolved) or "<empty>", 76), 4) + "\n"
            fields = self.field_list(resolved, 1, recursive)
            if fields:
                text += "FIELDS:\n" + fields
            return text
        properties = resolved.get("properties") or {}
        if path[0] in properties:
            sub = properties[path[0]]
            head = ""
            if len(path) == 1:
                head = f"FIELD: {path[0]} <{self.type_guess(sub)}>\n"
                head += enum_line(sub.get("enum") or [], 0, long=True, limit=-1) + "\n\n"
            rest = self.output(sub, path[1:], recursive)
            return None if rest is None else head + rest
        if resolved.get("items"):
            return self.output(resolved["items"], path, recursive)
        extra = resolved.get("additionalProperties")
        if extra and isinstance(extra, dict):
            return self.output(extra, path, recursive)
        for part in resolved.get("allOf") or []:
            found = self.output(part, path, recursive)
            if found:
                return found
        return None


def enum_line(values: list[Any], pad: int, *, long: bool, limit: int) -> str:
    if not values:
        return ""
    text = "ENUM:" if long else " " * pad + "enum: "
    for index, value in enumerate(values):
        if limit > -1 and index >= limit:
            text += ", ...."
            break
        if index > 0 and not long:
            text += ", "
        elif long:
            text += "\n    "
        text += '""' if value == "" else str(value)
    return text if long else text + "\n"


def run(ctx: Context, parsed: Parsed) -> Output:
    if not parsed.positionals:
        return Output.error(NO_RESOURCE)
    output = parsed.value("output") or "plaintext"
    if output not in ("plaintext", "plaintext-openapiv2"):
        raise KubectlError(
            f"error: unsupported output format: {output}. Supported formats: plaintext, "
            "plaintext-openapiv2"
        )
    # kubectl tries the longest prefix that names a resource ("deployments.apps.spec").
    parts = parsed.positionals[0].split(".")
    api = ctx.world.api
    info = None
    fields: list[str] = []
    for cut in range(len(parts), 0, -1):
        try:
            info = api.resolve(".".join(parts[:cut]))
        except ApiError:
            continue
        fields = parts[cut:]
        break
    if info is None:
        raise KubectlError(f'the server doesn\'t have a resource type "{parts[0]}"')
    doc = _Doc(openapi.components([info]))
    schema = openapi.schema_of(info)
    if schema is None:
        raise KubectlError(f"error: GVR ({_gvr(info)}) not found in OpenAPI schema")
    header = f"GROUP:      {info.group}\n" if info.group else ""
    header += f"KIND:       {info.kind}\nVERSION:    {info.version}\n\n"
    body = doc.output(schema, fields, parsed.has("recursive"))
    if body is None:
        # kubectl has printed the header when it finds the field missing.
        return Output.error(f'{header}error: field "{fields[-1]}" does not exist')
    return Output(header + body)


def _gvr(info: Any) -> str:
    group = info.group
    return (
        f"{group}/{info.version}, Resource={info.plural}"
        if group
        else (f"/{info.version}, Resource={info.plural}")
    )
