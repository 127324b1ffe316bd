"""kubectl run's --overrides and --override-type (cmdutil.OverrideOptions, Overrider): the
generated Pod as JSON, patched by an RFC 7396 merge patch (the default), an RFC 6902 JSON patch
or a strategic merge patch (simulators.cluster.patches), then decoded into a Pod again as the
Go codec decodes it: a version and kind it knows, its fields' types, unknown fields dropped and
empty ones left out. Each failure is said in the words of the library that meets it: the
patch libraries' (evanphx/json-patch v4, strategicpatch) and encoding/json's.
"""

from __future__ import annotations

import json
import re
from typing import Any

from simulators.cluster import documents, fields, patches, schema
from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.lab.flags import Parsed
from simulators.lab.gotext import go_quote
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.quantities import canonical
from simulators.lab.kubectl.set_typed import typed

# What the Go codec says when the override leaves something that is not an object.
_NO_KIND = (
    "couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go value of "
    'type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string '
    '"json:\\"kind,omitempty\\"" }'
)


def override(cluster: ClusterAPI, parsed: Parsed, pod: Obj) -> Obj:
    """--overrides with --override-type (cmdutil.Overrider): the generated Pod as JSON, patched,
    then decoded into a Pod again (unknown fields dropped, empty ones left out)."""
    text = parsed.value("overrides") or ""
    if not text:
        return pod
    kind = parsed.value("override-type") or "merge"
    if kind == "merge":
        patch = _go_json(text, "Invalid JSON Patch")
        if isinstance(patch, list):
            raise KubectlError("error: " + _NO_KIND % "array")
        if not isinstance(patch, dict):
            raise KubectlError("error: Invalid JSON Patch")
        result: Any = patches.merge_patch(pod, patch)
    elif kind == "strategic":
        patch = _go_json(text, "invalid JSON document")
        if patch is not None and not isinstance(patch, dict):
            raise KubectlError("error: invalid JSON document")
        result = patches.strategic_merge(pod, patch or {})
    elif kind == "json":
        result = _json_patch(pod, _go_json(text))
    else:
        raise KubectlError(f"error: invalid override type: {kind}")
    return _decoded(cluster, result)


def _go_json(text: str, syntax: str = "") -> Any:
    """The override as encoding/json reads it: its syntax error in Go's words (or `syntax`,
    the words a patch library puts in their place)."""
    try:
        return documents.load_json(text)
    except documents.DocumentError as exc:
        raise KubectlError(f"error: {syntax or exc}") from None
    except json.JSONDecodeError as exc:
        raise KubectlError(f"error: {syntax or _syntax_error(text, exc)}") from None
    except ValueError as exc:  # NaN or Infinity: encoding/json's own line
        raise KubectlError(f"error: {syntax or exc}") from None


def _syntax_error(text: str, exc: json.JSONDecodeError) -> str:
    """encoding/json's SyntaxError for what Python's decoder stopped at."""
    rest = text[exc.pos :]
    if not rest.strip(" \t\r\n") or exc.msg.startswith("Unterminated string"):
        return "unexpected end of JSON input"
    found = text[exc.pos]
    char = _quote_char(found)
    if exc.msg.startswith("Expecting property name"):
        return f"invalid character {char} looking for beginning of object key string"
    if exc.msg.startswith("Expecting ':'"):
        return f"invalid character {char} after object key"
    if exc.msg.startswith("Expecting ','"):
        inside = _innermost(text[: exc.pos])
        after = "object key:value pair" if inside == "{" else "array element"
        return f"invalid character {char} after {after}"
    if exc.msg.startswith("Extra data"):
        return f"invalid character {char} after top-level value"
    if exc.msg.startswith("Invalid control character"):
        return f"invalid character {char} in string literal"
    if exc.msg.startswith("Invalid \\escape"):  # Go names the character after the backslash
        return f"invalid character {_quote_char(text[exc.pos + 1])} in string escape code"
    for word in ("true", "false", "null"):
        if found == word[0]:
            return _literal_error(text[exc.pos :], word)
    if found == "-":  # a minus sign with no digit after it
        return f"invalid character {_quote_char((text + ' ')[exc.pos + 1])} in numeric literal"
    return f"invalid character {char} looking for beginning of value"


def _quote_char(found: str) -> str:
    """encoding/json's quoteChar: a quote as it is, an apostrophe escaped, others as %q has
    them."""
    return {"'": "'\\''", '"': "'\"'"}.get(found, f"'{go_quote(found)[1:-1]}'")


def _literal_error(rest: str, word: str) -> str:
    """Where a literal (`tru]`) stops being `word`, in the scanner's words."""
    rest += " "  # at the end, the scanner is fed a space
    for i, expected in enumerate(word):
        if rest[i] != expected:
            return (
                f"invalid character {_quote_char(rest[i])} in literal {word} "
                f"(expecting {_quote_char(expected)})"
            )
    return f"invalid character {_quote_char(rest[len(word)])} after top-level value"


def _innermost(text: str) -> str:
    """The bracket open at the end of `text` (JSON strings skipped)."""
    stack: list[str] = []
    quoted = escaped = False
    for ch in text:
        if quoted:
            escaped, quoted = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else ""


def _json_patch(pod: Obj, operations: Any) -> Any:
    """An RFC 6902 patch as evanphx/json-patch (v4) applies it, in its words."""
    if operations is None:
        return pod
    if not isinstance(operations, list):
        raise KubectlError(
            f"error: json: cannot unmarshal {_go_kind(operations)} into Go value of type "
            "jsonpatch.Patch"
        )
    for op in operations:
        if not isinstance(op, dict):
            raise KubectlError(
                f"error: json: cannot unmarshal {_go_kind(op)} into Go value of type "
                "jsonpatch.Operation"
            )
    doc: Any = pod
    for op in operations:
        kind = op.get("op")
        if kind not in ("add", "remove", "replace", "move", "copy", "test"):
            raise KubectlError(
                f"error: Unexpected kind: {kind if isinstance(kind, str) else 'unknown'}"
            )
        try:
            doc = patches.json_patch(doc, [op])
        except ApiError as exc:
            # v4's replace sets a key an object does not have yet, as add does.
            last = str(op.get("path", "")).rsplit("/", 1)[-1]
            if op.get("op") == "replace" and "missing key" in exc.message and not last.isdigit():
                try:
                    doc = patches.json_patch(doc, [{**op, "op": "add"}])
                    continue
                except ApiError:
                    pass
            raise KubectlError(f"error: {_patch_error(op, exc.message)}") from None
    return doc


def _go_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "null"


def _patch_error(op: Obj, message: str) -> str:
    """evanphx/json-patch v4's words for an operation that does not apply (the lab's patches
    speak the API server's, which put it otherwise)."""
    message = message.removeprefix(
        "the server rejected our request due to an error in our request: "
    ).removeprefix("the server rejected our request: ")
    kind, path, source = (str(op.get(key, "")) for key in ("op", "path", "from"))
    if message.startswith("Unable to remove nonexistent key"):
        if kind == "move":
            return f"error in move for path: '{source.rsplit('/', 1)[-1]}': {message}"
        return f"error in remove for path: '{path}': {message}"
    if message.startswith("doc is missing path") or message.startswith(
        "remove operation does not apply"
    ):
        if kind in ("move", "copy"):
            return f"{kind} operation does not apply: doc is missing from path: {source}: " + (
                "missing value"
            )
        quoted = f'"{path}"' if kind != "replace" else path
        return f"{kind} operation does not apply: doc is missing path: {quoted}: missing value"
    if message.startswith("add operation does not apply: /"):  # an index past the list's end
        index = path.rsplit("/", 1)[-1]
        return (
            f"error in add for path: '{path}': Unable to access invalid index: {index}: invalid "
            "index referenced"
        )
    if message.startswith("replace operation does not apply: /"):
        return f"replace operation does not apply: doc is missing key: {path}: missing value"
    return message


def _decoded(cluster: ClusterAPI, result: Any) -> Obj:
    """The patched document decoded into a Pod, as the codec does: a version and kind it
    knows, its field types, unknown fields dropped; then encoded as Go encodes a Pod."""
    if not isinstance(result, dict):
        raise KubectlError("error: " + _NO_KIND % _go_kind(result))
    version, kind = str(result.get("apiVersion", "")), str(result.get("kind", ""))
    if (version, kind) != ("v1", "Pod"):
        raise KubectlError(
            f'error: no kind "{kind}" is registered for version "{version}" in scheme '
            '"pkg/scheme/scheme.go:28"'
        )
    info = cluster.resolve("pods")
    error = schema.type_error(info, result) or _type_error(result)
    if error is not None:
        raise KubectlError(f"error: {error}")
    for path in fields.unknown_fields("pods", result):
        _drop(result, path)
    return _quantities(typed(info, _omit_empty(result)))


def _quantities(pod: Obj) -> Obj:
    """Resource quantities as a decoded Quantity prints itself (`1` for the number 1, `500m`
    for 0.5, `1Gi` for `1024Mi`); one that is no quantity is left as written."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return pod
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    for container in containers:
        resources = container.get("resources") if isinstance(container, dict) else None
        for kind in ("limits", "requests"):
            amounts = resources.get(kind) if isinstance(resources, dict) else None
            if not isinstance(amounts, dict):
                continue
            for name, amount in amounts.items():
                if isinstance(amount, bool) or not isinstance(amount, int | float | str):
                    continue
                try:
                    amounts[name] = canonical(str(amount))
                except KubectlError:
                    continue
    return pod


# The string and bool fields of a Pod an override most often sets, with their Go types.
_POD_FIELDS = (
    ("restartPolicy", "v1.RestartPolicy"),
    ("dnsPolicy", "v1.DNSPolicy"),
    ("serviceAccountName", "string"),
    ("schedulerName", "string"),
    ("priorityClassName", "string"),
    ("runtimeClassName", "string"),
    ("hostNetwork", "bool"),
)
_CONTAINER_FIELDS = (
    ("name", "string"),
    ("image", "string"),
    ("imagePullPolicy", "v1.PullPolicy"),
    ("stdin", "bool"),
    ("tty", "bool"),
)


def _type_error(pod: Obj) -> str | None:
    """encoding/json's error for the first of those fields whose value is of another type."""
    spec = pod.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    found = [("PodSpec", f"spec.{key}", spec.get(key), kind) for key, kind in _POD_FIELDS]
    for container in spec.get("containers") or []:
        if isinstance(container, dict):
            found += [
                ("Container", f"spec.containers.{key}", container.get(key), kind)
                for key, kind in _CONTAINER_FIELDS
            ]
    for struct, path, value, kind in found:
        fits = isinstance(value, bool) if kind == "bool" else isinstance(value, str)
        if value is None or fits:
            continue
        return (
            f"json: cannot unmarshal {_go_kind(value)} into Go struct field {struct}.{path} of "
            f"type {kind}"
        )
    return None


def _drop(doc: Any, path: str) -> None:
    """Remove the field at a path such as `spec.containers[0].bogus`."""
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    for part in parts[:-1]:
        doc = doc[int(part[1:-1])] if part.startswith("[") else doc.get(part)
    if isinstance(doc, dict):
        doc.pop(parts[-1], None)


# Map fields (omitempty): an empty one is left out, unlike an empty struct (`resources: {}`).
_MAPS = frozenset({"labels", "annotations", "nodeSelector", "limits", "requests", "overhead"})


def _omit_empty(value: Any, key: str = "") -> Any:
    """Nulls, empty lists (but a pod's containers) and empty maps left out."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = _omit_empty(v, k)
            if v is None or (v == [] and k != "containers") or (v == {} and k in _MAPS):
                continue
            out[k] = v
        return out
    if isinstance(value, list):
        return [_omit_empty(v, key) for v in value]
    return value
