"""kubectl's JSONPath: a port of client-go's util/jsonpath (parser.go, jsonpath.go).

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
import re
from dataclasses import dataclass, field
from typing import Any

from simulators.lab import budget


class JsonPathError(Exception):
    pass


# ------------------------------------------------------------------------- nodes


@dataclass
class _Node:
    kind: str  # list text field array filter int float bool wildcard recursive union ident
    value: Any = None
    nodes: list[_Node] = field(default_factory=list)
    left: _Node | None = None
    right: _Node | None = None


@dataclass
class _Param:
    value: int = 0
    known: bool = False
    derived: bool = False


_DICT_KEY = re.compile(r"^'([^']*)'$")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.S)
EOF = ""


class _Parser:
    def __init__(self, text: str) -> None:
        self.input = text
        self.pos = 0
        self.start = 0
        self.width = 0
        self.root = _Node("list")

    def consume(self) -> str:
        value = self.input[self.start : self.pos]
        self.start = self.pos
        return value

    def next(self) -> str:
        if self.pos >= len(self.input):
            self.width = 0
            return EOF
        self.width = 1
        self.pos += 1
        return self.input[self.pos - 1]

    def peek(self) -> str:
        r = self.next()
        self.backup()
        return r

    def backup(self) -> None:
        self.pos -= self.width

    def parse(self) -> _Node:
        # A loop where client-go recurses: parseText -> parseInsideAction -> parseRightDelim.
        cur: _Node | None = None
        while True:
            if cur is None:
                cur = self.parse_text()
                if cur is None:
                    return self.root
            cur = self.inside_action(cur)

    def parse_text(self) -> _Node | None:
        """Text up to the next `{`; the new action's list node, or None at the end."""
        while True:
            if self.input.startswith("{", self.pos):
                if self.pos > self.start:
                    self.root.nodes.append(_Node("text", self.consume()))
                self.pos += 1
                self.consume()
                node = _Node("list")
                self.root.nodes.append(node)
                return node
            if self.next() == EOF:
                break
        if self.pos > self.start:
            self.root.nodes.append(_Node("text", self.consume()))
        return None

    def inside_action(self, cur: _Node) -> _Node | None:
        """One step inside an action: the list to go on with, None when the action closed."""
        rest = self.input[self.pos :]
        if rest.startswith("}"):
            self.pos += 1
            self.consume()
            return None
        if rest.startswith("[?("):
            self.parse_filter(cur)
            return cur
        if rest.startswith(".."):
            self.parse_recursive(cur)
            return cur
        r = self.next()
        if r == EOF or r in "\r\n":
            raise JsonPathError("unclosed action")
        if r == " " or r in "@$":
            self.consume()
        elif r == "[":
            self.parse_array(cur)
        elif r in "\"'":
            self.parse_quote(cur, r)
        elif r == ".":
            self.parse_field(cur)
        elif r in "+-" or r.isdigit():
            self.backup()
            self.parse_number(cur)
        elif r == "_" or r.isalnum():
            self.backup()
            self.parse_identifier(cur)
        else:
            raise JsonPathError(f"unrecognized character in action: {_go_rune(r)}")
        return cur

    def parse_identifier(self, cur: _Node) -> None:
        while True:
            r = self.next()
            if _terminator(r):
                self.backup()
                break
        value = self.consume()
        if value in ("true", "false"):
            cur.nodes.append(_Node("bool", value == "true"))
        else:
            cur.nodes.append(_Node("ident", value))

    def parse_recursive(self, cur: _Node) -> None:
        if cur.nodes and cur.nodes[-1].kind == "recursive":
            raise JsonPathError("invalid multiple recursive descent")
        self.pos += 2
        self.consume()
        cur.nodes.append(_Node("recursive"))
        r = self.peek()
        if r and (r == "_" or r.isalnum()):
            self.parse_field(cur)

    def parse_number(self, cur: _Node) -> None:
        if self.peek() in ("+", "-"):
            self.next()
        while True:
            r = self.next()
            if r != "." and not r.isdigit():
                self.backup()
                break
        value = self.consume()
        if re.fullmatch(r"[+-]?\d+", value):
            cur.nodes.append(_Node("int", int(value)))
            return
        try:
            cur.nodes.append(_Node("float", float(value)))
        except ValueError:
            raise JsonPathError(f"cannot parse number {value}") from None

    def parse_array(self, cur: _Node) -> None:
        while True:
            r = self.next()
            if r == EOF or r == "\n":
                raise JsonPathError("unterminated array")
            if r == "]":
                break
        text = self.consume()[1:-1]
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            cur.nodes.append(_Node("union", nodes=[_action(f"[{p.strip(' ')}]") for p in parts]))
            return
        key = _DICT_KEY.match(text)
        if key:
            cur.nodes.extend(_action(f".{key.group(1)}").nodes)
            return
        match = _SLICE.match(text)
        if not match:
            raise JsonPathError(f"invalid array index {text}")
        params = [_Param(), _Param(), _Param()]
        for i, raw in enumerate(match.groups()):
            value = raw or ""
            if value:
                if i > 0:
                    value = value[1:]
                if i > 0 and not value:
                    params[i].known = False
                else:
                    try:
                        params[i] = _Param(int(value), True)
                    except ValueError:
                        raise JsonPathError(f"array index {value} is not a number") from None
            elif i == 1:
                params[i] = _Param(params[0].value + 1, True, True)
        cur.nodes.append(_Node("array", params))

    def parse_filter(self, cur: _Node) -> None:
        self.pos += 3
        self.consume()
        begin = end = False
        pair = ""
        while True:
            r = self.next()
            if r == EOF or r == "\n":
                raise JsonPathError("unterminated filter")
            if r in "\"'":
                if not begin:
                    begin, pair = True, r
                    continue
                if self.input[self.pos - 2] != "\\" and r == pair:
                    end = True
            elif r == ")" and begin == end:
                break
        if self.next() != "]":
            raise JsonPathError("unclosed array expect ]")
        text = self.consume()[:-2]
        match = _FILTER.match(text)
        if match is None:
            cur.nodes.append(_Node("filter", "exists", left=_action(text), right=_Node("list")))
        else:
            left, right = _action(match.group(1)), _action(match.group(3))
            cur.nodes.append(_Node("filter", match.group(2), left=left, right=right))

    def parse_quote(self, cur: _Node, end: str) -> None:
        while True:
            r = self.next()
            if r == EOF or r == "\n":
                raise JsonPathError("unterminated quoted string")
            if r == end and self.input[self.pos - 2] != "\\":
                break
        value = self.consume()
        cur.nodes.append(_Node("text", _unquote(value)))

    def parse_field(self, cur: _Node) -> None:
        self.consume()
        while True:
            r = self.next()
            if r == "\\":
                self.next()
            elif _terminator(r):
                self.backup()
                break
        value = self.consume()
        if value == "*":
            cur.nodes.append(_Node("wildcard"))
        else:
            cur.nodes.append(_Node("field", value.replace("\\", "")))


def _terminator(r: str) -> bool:
    return r == EOF or r in " \t\r\n.,[]$@{}"


def _go_rune(r: str) -> str:
    """%#U: U+003F '?'."""
    return f"U+{ord(r):04X} '{r}'"


_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}


def _unquote(value: str) -> str:
    """strconv.Unquote extended to single quotes (client-go's UnquoteExtend)."""
    body = value[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(body):
            raise JsonPathError(f"unquote string {value} error invalid syntax")
        esc = body[i + 1]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            i += 2
        elif esc in "uU" and i + 2 < len(body):
            width = 4 if esc == "u" else 8
            digits = body[i + 2 : i + 2 + width]
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:
                raise JsonPathError(f"unquote string {value} error invalid syntax") from None
            i += 2 + width
        else:
            raise JsonPathError(f"unquote string {value} error invalid syntax")
    return "".join(out)


def _action(text: str) -> _Node:
    """parseAction: the list node of `{text}`."""
    root = _Parser("{" + text + "}").parse()
    return root.nodes[0]


def parse(template: str) -> _Node:
    return _Parser(template).parse()


# ------------------------------------------------------------------------- evaluation


_MISSING = object()


class _Engine:
    def __init__(self, root: _Node) -> None:
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

    def walk(self, values: list[Any], node: _Node) -> list[Any]:
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

    def _filter(self, values: list[Any], node: _Node) -> list[Any]:
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


def _array(values: list[Any], params: list[_Param]) -> list[Any]:
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


def evaluate(template: str, data: Any, as_json: bool = False) -> str:
    """What `-o jsonpath=TEMPLATE` (or jsonpath-as-json) prints for `data`."""
    try:
        root = parse(template)
    except JsonPathError as exc:
        raise JsonPathError(f"error parsing jsonpath {template}, {exc}") from None
    engine = _Engine(root)
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


def go_quote(text: str) -> str:
    """strconv.Quote: a double-quoted Go string literal."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


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
