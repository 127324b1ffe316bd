"""kubectl's JSONPath: a port of client-go's util/jsonpath. This module evaluates (jsonpath.go);
jsonpath_parser parses (parser.go, node.go).

The whole grammar kubectl accepts: `{.a.b}`, `['k']`, `[0]`, slices `[1:3]` `[-1:]` `[::2]`,
`[*]`, unions `[0,2]`, `..` recursive descent, filters `[?(@.a=="x")]` with `==`, `!=`, `<`,
`>`, `<=`, `>=` or existence, `\\.` inside keys, `range`/`end`, quoted literals, numbers and
booleans. Missing keys print nothing (kubectl allows them); a value prints as Go prints it
(`8`, not `8.0`; maps and lists as compact JSON with sorted keys); `as_json` is
jsonpath-as-json. client-go has no `&&` in filters: the right-hand side then fails to parse.

Maps are walked in insertion order where Go's is random (wildcards, recursive descent).
Output is checked against the command's budget as it grows, since a short template
(`{@}{@}...`, nested ranges) can multiply a list many times over.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from simulators.lab import budget
from simulators.lab.gotext import go_quote
from simulators.lab.jsonpath_parser import JsonPathError, Node, Param, parse

__all__ = ["ExecutionError", "JsonPathError", "evaluate", "find", "go_quote", "go_sharp_v"]


# ------------------------------------------------------------------------- evaluation


_MISSING = object()


class _Engine:
    def __init__(self, root: Node) -> None:
        self.nodes = root.nodes
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        self.last_end = -1

    def find_results(self, data: Any, start: int = 0) -> list[list[Any]]:
        """FindResults: one list of values per top-level node; ranges repeat their body."""
        cur = [data]
        full: list[list[Any]] = []
        i = start
        while i < len(self.nodes):
            results = self.walk(cur, self.nodes[i])
            if 0 < self.end_range <= self.in_range:
                self.end_range -= 1
                self.last_end = i
                break
            if self.begin_range > 0:
                self.begin_range -= 1
                self.in_range += 1
                if results:
                    for value in results:
                        budget.check_time()
                        full.extend(self.find_results(value, i + 1))
                else:
                    self.find_results(None, i + 1)
                self.in_range -= 1
                if self.last_end > i:
                    i = self.last_end
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def walk(self, values: list[Any], node: Node) -> list[Any]:
        kind = node.kind
        if kind == "list":
            for child in node.nodes:
                values = self.walk(values, child)
            return values
        if kind == "text":
            return [node.value]
        if kind == "field":
            return _field(values, str(node.value))
        if kind == "array":
            return _array(values, node.value)
        if kind == "filter":
            return self._filter(values, node)
        if kind in ("int", "float", "bool"):
            return [node.value for _ in values]
        if kind == "wildcard":
            return [c for v in values for c in _children(v, strings=True)]
        if kind == "recursive":
            return _recursive(values)
        if kind == "union":
            return [r for sub in node.nodes for r in self.walk(values, sub)]
        if kind == "ident":
            if node.value == "range":
                self.begin_range += 1
                return values
            if node.value == "end":
                if self.in_range > 0:
                    self.end_range += 1
                    return []
                raise JsonPathError("not in range, nothing to end")
            raise JsonPathError(f"unrecognized identifier {node.value}")
        raise JsonPathError(f"unexpected Node {kind}")

    def _filter(self, values: list[Any], node: Node) -> list[Any]:
        assert node.left is not None and node.right is not None
        out: list[Any] = []
        for value in values:
            if not isinstance(value, list):
                raise JsonPathError(
                    f"{_go_value(value)} is not array or slice and cannot be filtered"
                )
            for item in value:
                lefts = self.walk([item], node.left)
                if node.value == "exists":
                    if lefts:
                        out.append(item)
                    continue
                if not lefts:
                    continue
                if len(lefts) > 1:
                    raise JsonPathError("can only compare one element at a time")
                rights = self.walk([item], node.right)
                if not rights:
                    continue
                if len(rights) > 1:
                    raise JsonPathError("can only compare one element at a time")
                if _compare(lefts[0], rights[0], str(node.value)):
                    out.append(item)
        return out


def _field(values: list[Any], name: str) -> list[Any]:
    out = []
    for value in values:
        if isinstance(value, dict):
            found = value.get(name, _MISSING)
            if found is not _MISSING:
                out.append(found)
    return out


def _array(values: list[Any], params: list[Param]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, list):
            raise JsonPathError(f"{_go_type(value)} is not array or slice")
        length = len(value)
        start = params[0].value if params[0].known else 0
        if start < 0:
            start += length
        stop = params[1].value if params[1].known else length
        if stop < 0 or (stop == 0 and params[1].derived):
            stop += length
        if stop == start:
            return out
        if start >= length or start < 0:
            raise JsonPathError(f"array index out of bounds: index {start}, length {length}")
        if stop > length or stop < 0:
            raise JsonPathError(f"array index out of bounds: index {stop - 1}, length {length}")
        if start > stop:
            raise JsonPathError(f"starting index {start} is greater than ending index {stop}")
        step = 1
        if params[2].known:
            if params[2].value <= 0:
                raise JsonPathError("step must be > 0")
            step = params[2].value
        out.extend(value[start:stop:step])
    return out


def _children(value: Any, strings: bool) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return list(value)
    if strings and isinstance(value, str):
        # Go indexes a string by byte: uint8 values, which have no children themselves.
        return list(value.encode())
    return []


def _recursive(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        children = _children(value, strings=True)
        if children:
            out.append(value)
            out.extend(_recursive(children))
    return out


def _compare(left: Any, right: Any, op: str) -> bool:
    """text/template's eq/ne/lt/gt/le/ge on two basic values."""
    if op not in ("<", ">", "==", "!=", "<=", ">="):
        raise JsonPathError(f"unrecognized filter operator {op}")
    numbers = (int, float)
    lnum = isinstance(left, numbers) and not isinstance(left, bool)
    rnum = isinstance(right, numbers) and not isinstance(right, bool)
    if op in ("==", "!="):
        if lnum and rnum:
            equal = left == right
        elif type(left) is not type(right) or isinstance(left, dict | list):
            raise JsonPathError("incompatible types for comparison")
        else:
            equal = left == right
        return equal if op == "==" else not equal
    if (
        isinstance(left, bool)
        or isinstance(right, bool)
        or not ((lnum and rnum) or (isinstance(left, str) and isinstance(right, str)))
    ):
        raise JsonPathError("incompatible types for comparison")
    if op == "<":
        return bool(left < right)
    if op == ">":
        return bool(left > right)
    if op == "<=":
        return bool(left <= right)
    return bool(left >= right)


# ------------------------------------------------------------------------- printing


def go_json(value: Any, indent: int | None = None) -> str:
    """encoding/json: sorted keys, whole numbers without `.0`, <, > and & escaped."""
    text = json.dumps(
        _whole(value),
        separators=(",", ":") if indent is None else (",", ": "),
        indent=indent,
        sort_keys=True,
        ensure_ascii=False,
    )
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _whole(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: _whole(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole(v) for v in value]
    return value


def go_float(value: float) -> str:
    """fmt's %v of a float64: the shortest form, an exponent below 1e-4 or from 1e21 on."""
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text or "E" in text:
        mantissa, _, exp = text.partition("e")
        sign = "-" if exp.startswith("-") else "+"
        digits = exp.lstrip("+-").rjust(2, "0")
        return f"{mantissa}e{sign}{digits}"
    return text


def _text(value: Any) -> str:
    if isinstance(value, dict | list):
        return go_json(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return go_float(value)
    return str(value)


def _go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    return "interface {}"


def _go_value(value: Any) -> str:
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_value(v)}" for k, v in sorted(value.items())) + "]"
    if value is None:
        return "<nil>"
    return _text(value)


@dataclass
class _Sink:
    parts: list[str] = field(default_factory=list)
    size: int = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        budget.check_output(self.size, "kubectl")


def check(template: str) -> Node:
    """The template parsed, as kubectl parses it when it makes its printer: JsonPathError
    before anything is read."""
    try:
        return parse(template)
    except JsonPathError as exc:
        raise JsonPathError(f"error parsing jsonpath {template}, {exc}") from None


def evaluate(template: str, data: Any, as_json: bool = False) -> str:
    """What `-o jsonpath=TEMPLATE` (or jsonpath-as-json) prints for `data`."""
    engine = _Engine(check(template))
    sink = _Sink()
    try:
        found = engine.find_results(data)
    except JsonPathError as exc:
        raise ExecutionError(str(exc)) from None
    for results in found:
        if as_json:
            sink.add(go_json(list(results), indent=4) + "\n")
            continue
        # Value by value, so a template that prints too much (`{..}` dumps every subtree) is
        # stopped by the budget as it grows, not after.
        for i, value in enumerate(results):
            sink.add((" " if i else "") + _text(value))
    return "".join(sink.parts)


class ExecutionError(JsonPathError):
    """A template that parsed but failed on the data (an index out of bounds, a filter on a
    map): kubectl prints the template and the data as Go's %#v sees them."""


def go_sharp_v(value: Any) -> str:
    """fmt's %#v of data decoded from JSON (maps' keys sorted, whole numbers as int64)."""
    if isinstance(value, dict):
        inner = ", ".join(f"{go_quote(str(k))}:{go_sharp_v(value[k])}" for k in sorted(value))
        return "map[string]interface {}{" + inner + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(go_sharp_v(v) for v in value) + "}"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, float):
        return go_float(value)
    return str(value)


def find(path: str, data: Any) -> list[Any]:
    """The values one path (`.a.b[*]`, no braces) selects, for custom-columns and --sort-by."""
    engine = _Engine(parse("{" + path + "}"))
    return [v for results in engine.find_results(data) for v in results]
