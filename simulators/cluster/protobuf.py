"""Kubernetes protobuf request bodies, decoded into the JSON objects the API server would see.

kubectl's typed clients (``create <generator>``, ``auth can-i``, ``drain``'s evictions, ``create
token``) send ``application/vnd.kubernetes.protobuf``: the magic ``k8s\\x00`` then a
``runtime.Unknown`` (``typeMeta`` {apiVersion, kind}, ``raw``: the object's message). There is no
negotiation that makes them send JSON: client-go falls back to JSON after a 415 only for CBOR.

The fields of every message come from ``data/protobuf_fields.json``, generated from
k8s.io/api's ``generated.proto`` and ``types.go`` (Apache-2.0, The Kubernetes Authors) by
``scripts/k8s_protobuf_tables.py``: ``{message: {number: [json_name, type, flags]}}``. The
decoder turns the wire format into what the Go struct would marshal to JSON: a zero scalar is
dropped unless the Go field is a pointer (``p``) or has no ``omitempty`` (``k``); a struct is
kept even when empty (as encoding/json keeps it); an embedded struct (``i``) is flattened into
its parent; ``Time``, ``MicroTime``, ``Duration``, ``Quantity``, ``IntOrString``,
``RawExtension`` and ``FieldsV1`` become their JSON forms.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from simulators.cluster.api import ApiError, Obj

MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
_TABLES = Path(__file__).with_name("data") / "protobuf_fields.json"
_META = "k8s.io.apimachinery.pkg.apis.meta.v1."
_INTEGERS = {"int32", "int64", "uint32", "uint64"}
Table = dict[str, dict[str, list[str]]]


@cache
def tables() -> Table:
    data: Table = json.loads(_TABLES.read_text(encoding="utf-8"))
    return data


def _unsupported(what: str) -> ApiError:
    return ApiError(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - {what}; accepted media types "
        "include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    )


def _bad(error: Exception) -> ApiError:
    return ApiError(400, "BadRequest", f"the protobuf body could not be decoded: {error}")


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ValueError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _wire(buf: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value): an int for varints and fixed ones, bytes otherwise."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 2:
            length, pos = _varint(buf, pos)
            if pos + length > len(buf):
                raise ValueError("truncated field")
            value, pos = buf[pos : pos + length], pos + length
        elif wire == 1:
            value, pos = buf[pos : pos + 8], pos + 8
        elif wire == 5:
            value, pos = buf[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"wire type {wire} is not supported")
        yield number, wire, value


def _raw(value: Any) -> bytes:
    """A length-delimited field's bytes; anything else where bytes belong is a malformed body."""
    if not isinstance(value, bytes):
        raise ValueError("a length-delimited field was expected")
    return value


def _number(value: Any) -> int:
    if not isinstance(value, int):
        raise ValueError("a varint field was expected")
    return value


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _go_duration(nanoseconds: int) -> str:
    # metav1.Duration marshals as Go's time.Duration.String() (whole seconds: "1h0m0s").
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    total = abs(nanoseconds)
    seconds, rest = divmod(total, 1_000_000_000)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    fraction = f".{rest:09d}".rstrip("0") if rest else ""
    if hours:
        return f"{sign}{hours}h{minutes}m{seconds}{fraction}s"
    if minutes:
        return f"{sign}{minutes}m{seconds}{fraction}s"
    return f"{sign}{seconds}{fraction}s"


def _special(kind: str, buf: bytes) -> Any:
    """The JSON of the messages that marshal as something other than their fields."""
    fields = {number: value for number, _wire_type, value in _wire(buf)}
    name = kind.rpartition(".")[2]
    if name in ("Time", "MicroTime"):
        seconds = _signed(_number(fields.get(1, 0)))
        if seconds <= 0:
            return None  # the zero time: Go marshals null, and it is left out here
        moment = datetime.fromtimestamp(seconds, UTC)
        if name == "MicroTime":
            micros = _number(fields.get(2, 0)) // 1000
            return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{micros:06d}Z"
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if name == "Duration":
        return _go_duration(_signed(_number(fields.get(1, 0))))
    if name == "Quantity":
        return _raw(fields.get(1, b"")).decode()
    if name == "IntOrString":
        if _number(fields.get(1, 0)) == 1:
            return _raw(fields.get(3, b"")).decode()
        return _int32(_number(fields.get(2, 0)))
    # RawExtension and FieldsV1: JSON bytes
    raw = _raw(fields.get(1, b""))
    return json.loads(raw) if raw else None


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _scalar(kind: str, wire: int, value: Any) -> Any:
    if kind == "string":
        return _raw(value).decode()
    if kind == "bytes":
        return base64.b64encode(_raw(value)).decode()
    if kind == "bool":
        return bool(_number(value))
    if kind == "int32":
        return _int32(_number(value))
    if kind in _INTEGERS:
        return _signed(_number(value)) if kind == "int64" else _number(value)
    if kind == "double":
        return struct.unpack("<d", _raw(value))[0]
    if kind == "float":
        return struct.unpack("<f", _raw(value))[0]
    raise ValueError(f"type {kind} is not supported")


def _packed(kind: str, buf: bytes) -> list[Any]:
    values: list[Any] = []
    pos = 0
    while pos < len(buf):
        if kind == "double":
            values.append(struct.unpack("<d", buf[pos : pos + 8])[0])
            pos += 8
            continue
        raw, pos = _varint(buf, pos)
        values.append(_scalar(kind, 0, raw))
    return values


def _value(kind: str, wire: int, value: Any) -> Any:
    table = tables()
    if kind in table:
        return message(kind, _raw(value))
    if "." in kind:
        return _special(kind, _raw(value))
    return _scalar(kind, wire, value)


def _is_zero(value: Any) -> bool:
    return value is None or (not isinstance(value, dict | list) and not value)


def message(name: str, buf: bytes) -> Obj:
    """Decode one message of the table into the JSON object its Go struct marshals to."""
    fields = tables()[name]
    out: Obj = {}
    for number, wire, value in _wire(buf):
        entry = fields.get(str(number))
        if entry is None:
            continue  # a field this table does not know: the real server drops it too
        json_name, kind, flags = entry
        if kind.startswith("map:"):
            _key_kind, value_kind = kind[4:].split(":", 1)
            item = {n: v for n, _w, v in _wire(_raw(value))}
            key = _raw(item.get(1, b"")).decode()
            entry_value = _value(value_kind, 2, item[2]) if 2 in item else ""
            out.setdefault(json_name, {})[key] = entry_value
            continue
        if "r" in flags:
            if wire == 2 and kind not in ("string", "bytes") and "." not in kind:
                out.setdefault(json_name, []).extend(_packed(kind, _raw(value)))
            else:
                out.setdefault(json_name, []).append(_value(kind, wire, value))
            continue
        decoded = _value(kind, wire, value)
        if "i" in flags and isinstance(decoded, dict):
            out.update(decoded)
            continue
        if decoded is None or (_is_zero(decoded) and "p" not in flags and "k" not in flags):
            continue
        out[json_name] = decoded
    return out


def _package(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    if kind in ("DeleteOptions", "Status"):
        return _META + kind
    short = group.split(".")[0] if group else "core"
    return f"k8s.io.api.{short}.{version}.{kind}"


def decode(raw: bytes) -> Obj:
    """A ``k8s\\x00`` body as the JSON object it encodes; 415 for a kind without a table."""
    try:
        envelope = {n: v for n, _w, v in _wire(raw[len(MAGIC) :])}
        type_meta = {n: v for n, _w, v in _wire(_raw(envelope.get(1, b"")))}
        api_version = _raw(type_meta.get(1, b"")).decode()
        kind = _raw(type_meta.get(2, b"")).decode()
    except (ValueError, UnicodeDecodeError) as error:
        raise _bad(error) from error
    if envelope.get(3) or envelope.get(4):
        raise _unsupported("encoded content is not supported")
    name = _package(api_version, kind)
    if name not in tables():
        raise _unsupported(f"{kind} in version {api_version or '<none>'} has no protobuf form here")
    try:
        body = message(name, _raw(envelope.get(2, b"")))
    except (ValueError, UnicodeDecodeError, KeyError, struct.error, RecursionError) as error:
        raise _bad(error) from error
    return {"kind": kind, "apiVersion": api_version, **body}
