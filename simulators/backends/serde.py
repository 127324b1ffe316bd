"""Dataclasses to JSON values and back, driven by the type hints.

The lab's whole world is stored in the database as JSON and must round-trip
exactly, so every state class is a plain dataclass of JSON-friendly fields
(str, int, float, bool, None, lists, str-keyed dicts, other dataclasses).
One generic converter beats a hand-written to/from pair per class: adding a
field cannot silently drop out of the saved state.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import types
import typing
from typing import Any, Union, cast

JSON = Any  # a value json.dumps accepts; typed loosely because JSON is recursive


def to_json(value: object) -> JSON:
    """Convert a dataclass tree to plain JSON values (dicts keep field order)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot serialise {type(value).__name__}")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_json[T](cls: type[T], data: JSON) -> T:
    """Build an instance of ``cls`` (a dataclass) from :func:`to_json` output."""
    return cast(T, _convert(cls, data))


def _convert(tp: Any, data: JSON) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return copy.deepcopy(data)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if data is None and type(None) in args:
            return None
        non_none = [a for a in args if a is not type(None)]
        if len(non_none) == 1:
            return _convert(non_none[0], data)
        # Unions of plain scalars (e.g. str | int): the JSON value already has the type.
        return data
    if origin is list:
        (item,) = typing.get_args(tp)
        if not isinstance(data, list):
            raise ValueError(f"expected a list, got {type(data).__name__}")
        return [_convert(item, v) for v in data]
    if origin is dict:
        _key, val = typing.get_args(tp)
        if not isinstance(data, dict):
            raise ValueError(f"expected an object, got {type(data).__name__}")
        return {str(k): _convert(val, v) for k, v in data.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise ValueError(f"expected an object for {tp.__name__}")
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name in data:
                kwargs[f.name] = _convert(hints[f.name], data[f.name])
        return tp(**kwargs)
    if tp is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if tp in (str, int, float, bool):
        if not isinstance(data, tp):
            raise ValueError(f"expected {tp.__name__}, got {type(data).__name__}")
        return data
    return data
