"""clientcmd's v1 types as the lab's kubeconfig (simulators.lab.kubeconfig) decodes and writes
them: each struct's JSON fields in order, encoding/json's first error decoding a file into them
(with Go's words), Go's base64, and a value as kubectl writes it back (`canon`)."""

from __future__ import annotations

import base64
import datetime
from typing import Any

# Each v1 struct's JSON fields in the struct's order: (spec, always written). A spec is a
# struct's name, a primitive's Go name, [spec] for a slice or ("map", spec) for a map.
_S, _B, _D, _RAW = "string", "bool", "[]uint8", "runtime.RawExtension"
_EXT = (["NamedExtension"], False)
STRUCTS: dict[str, dict[str, tuple[Any, bool]]] = {
    "Config": {
        "kind": (_S, True), "apiVersion": (_S, True), "preferences": ("Preferences", False),
        "clusters": (["NamedCluster"], True), "users": (["NamedAuthInfo"], True),
        "contexts": (["NamedContext"], True), "current-context": (_S, True), "extensions": _EXT,
    },
    "Preferences": {"colors": (_B, False), "extensions": _EXT},
    "NamedCluster": {"name": (_S, True), "cluster": ("Cluster", True)},
    "Cluster": {
        "server": (_S, True), "tls-server-name": (_S, False),
        "insecure-skip-tls-verify": (_B, False), "certificate-authority": (_S, False),
        "certificate-authority-data": (_D, False), "proxy-url": (_S, False),
        "disable-compression": (_B, False), "extensions": _EXT,
    },
    "NamedAuthInfo": {"name": (_S, True), "user": ("AuthInfo", True)},
    "AuthInfo": {
        "client-certificate": (_S, False), "client-certificate-data": (_D, False),
        "client-key": (_S, False), "client-key-data": (_D, False), "token": (_S, False),
        "tokenFile": (_S, False), "as": (_S, False), "as-uid": (_S, False),
        "as-groups": ([_S], False), "as-user-extra": (("map", [_S]), False),
        "username": (_S, False), "password": (_S, False),
        "auth-provider": ("AuthProviderConfig", False), "exec": ("ExecConfig", False),
        "extensions": _EXT,
    },
    "AuthProviderConfig": {"name": (_S, True), "config": (("map", _S), True)},
    "ExecConfig": {
        "command": (_S, True), "args": ([_S], True), "env": (["ExecEnvVar"], True),
        "apiVersion": (_S, False), "installHint": (_S, False),
        "provideClusterInfo": (_B, True), "interactiveMode": (_S, False),
    },
    "ExecEnvVar": {"name": (_S, True), "value": (_S, True)},
    "NamedContext": {"name": (_S, True), "context": ("Context", True)},
    "Context": {
        "cluster": (_S, True), "user": (_S, True), "namespace": (_S, False), "extensions": _EXT,
    },
    "NamedExtension": {"name": (_S, True), "extension": (_RAW, True)},
}  # fmt: skip
_POINTERS = {"auth-provider", "exec"}  # written whenever present, even empty
_PRIMITIVE = {_S: str, _B: bool}
_EMPTY: tuple[Any, ...] = (None, "", False, {}, [])


def _go_type(spec: Any) -> str:
    if isinstance(spec, list):
        return "[]" + _go_type(spec[0])
    if isinstance(spec, tuple):
        return "map[string]" + _go_type(spec[1])
    return f"v1.{spec}" if spec in STRUCTS else str(spec)


def json_kind(value: Any) -> str:
    """The JSON kind encoding/json names in its errors."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "string"


def check(value: Any, spec: Any, where: str) -> str | None:
    """encoding/json's first error decoding `value` (keys in sorted order, as the JSON that
    sigs.k8s.io/yaml makes of the YAML has them) into `spec`; `where` names the field as Go
    does ("Context.contexts.context.namespace")."""
    if value is None or spec == _RAW:
        return None
    wrong = f"json: cannot unmarshal {json_kind(value)} into Go struct field {where} of type "
    if isinstance(spec, list):
        if not isinstance(value, list):
            return wrong + _go_type(spec)
        return next((e for v in value if (e := check(v, spec[0], where))), None)
    if isinstance(spec, tuple):
        if not isinstance(value, dict):
            return wrong + _go_type(spec)
        return next((e for k in sorted(value) if (e := check(value[k], spec[1], where))), None)
    if spec == _D:
        if not isinstance(value, str):
            return wrong + _D
        decoded = go_b64decode(value)
        return decoded if isinstance(decoded, str) else None
    if spec in _PRIMITIVE:
        ok = isinstance(value, _PRIMITIVE[spec]) and (spec == _B or not isinstance(value, bool))
        return None if ok else wrong + spec
    if not isinstance(value, dict):
        return wrong + _go_type(spec)
    path = where.partition(".")[2]
    for key in sorted(value, key=str):
        field = STRUCTS[spec].get(str(key))
        if field is not None:
            error = check(value[key], field[0], f"{spec}.{path}.{key}".replace("..", "."))
            if error:
                return error
    return None


def go_b64decode(text: str) -> bytes | str:
    """Go's base64.StdEncoding.DecodeString: the bytes, or its error's text (newlines skipped,
    the offset of the first bad byte)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    out, si, n = bytearray(), 0, len(text)
    while si < n:
        quantum: list[int] = []
        while len(quantum) < 4:
            if si == n:
                if not quantum:
                    return bytes(out)
                return f"illegal base64 data at input byte {si - len(quantum)}"
            char, si = text[si], si + 1
            if char in "\r\n":
                continue
            if char != "=":
                if char not in alphabet:
                    return f"illegal base64 data at input byte {si - 1}"
                quantum.append(alphabet.index(char))
                continue
            if len(quantum) < 2:
                return f"illegal base64 data at input byte {si - 1}"
            if len(quantum) == 2:
                while si < n and text[si] in "\r\n":
                    si += 1
                if si == n:
                    return f"illegal base64 data at input byte {n}"
                if text[si] != "=":
                    return f"illegal base64 data at input byte {si - 1}"
                si += 1
            while si < n and text[si] in "\r\n":
                si += 1
            if si < n:
                return f"illegal base64 data at input byte {si}"
            break
        bits = sum(v << (18 - 6 * i) for i, v in enumerate(quantum))
        out += bits.to_bytes(3, "big")[: max(len(quantum) - 1, 0)]
    return bytes(out)


def canon(value: Any, spec: Any) -> Any:
    """A decoded value as kubectl writes it back: struct fields in order, empty optional ones
    dropped, data re-encoded, map keys sorted."""
    # An empty list or map stays so (Go keeps an empty slice from a nil one); optional empty
    # ones are dropped by their struct.
    if isinstance(spec, list):
        return None if value is None else [canon(v, spec[0]) for v in value]
    if isinstance(spec, tuple):
        return (
            None
            if value is None
            else {str(k): canon(value[k], spec[1]) for k in sorted(value, key=str)}
        )
    if spec == _D:
        decoded = go_b64decode(value or "")
        return base64.b64encode(decoded if isinstance(decoded, bytes) else b"").decode()
    if spec == _RAW:
        return plain(value)
    if spec in _PRIMITIVE:
        return value if value is not None else _PRIMITIVE[spec]()
    out: dict[str, Any] = {}
    source = value if isinstance(value, dict) else {}
    for field, (inner, required) in STRUCTS[spec].items():
        got = source.get(field)
        if field in _POINTERS and got is None:
            continue
        done = canon(got, inner)
        if required or field in _POINTERS or done not in _EMPTY:
            out[field] = done
    return out


def plain(value: Any) -> Any:
    """A parsed YAML value as sigs.k8s.io/yaml hands it on as JSON: keys as text and sorted,
    a date as its text, binary as its text."""
    if isinstance(value, dict):
        return {str(k): plain(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, bytes):  # !!binary: go-yaml decodes it to its text
        return value.decode("utf-8", errors="replace")
    return value


def go_value(value: Any, spec: Any) -> str:
    """fmt's %v of a decoded v1 value (a set pointer prints as some address)."""
    if isinstance(spec, list):
        return "[" + " ".join(go_value(v, spec[0]) for v in value or []) + "]"
    if isinstance(spec, tuple):
        pairs = sorted((value or {}).items())
        return "map[" + " ".join(f"{k}:{go_value(v, spec[1])}" for k, v in pairs) + "]"
    if spec == _D:
        decoded = go_b64decode(value or "")
        return (
            "[" + " ".join(str(b) for b in (decoded if isinstance(decoded, bytes) else b"")) + "]"
        )
    if spec == _B:
        return "true" if value else "false"
    if spec == _RAW:
        return "{[] <nil>}"
    if spec == _S:
        return str(value or "")
    fields = []
    for field, (inner, _) in STRUCTS[spec].items():
        got = (value or {}).get(field)
        if field in _POINTERS:
            fields.append("<nil>" if got is None else "0xc000012345")
        else:
            fields.append(go_value(got, inner))
    return "{" + " ".join(fields) + "}"
