"""kubectl's JSONPath subset.

`{.a.b}`, `['k']`, `[0]`, `[*]`, `\\.` inside keys, `range`/`end`, and string literals.

Missing keys print nothing, as with kubectl get (it allows missing keys).
The template has no regular expressions (kubectl's filters are not in the subset);
its output is checked against the command's budget as it grows, since a short
template (`{@}{@}...`, nested ranges) can multiply a list many times over.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from simulators.lab import budget


class JsonPathError(Exception):
    pass


@dataclass
class _Node:
    kind: str  # text, path, range
    text: str = ""
    body: list[_Node] | None = None


def _tokenize(template: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    i = 0
    buf = ""
    while i < len(template):
        ch = template[i]
        if ch == "{":
            if buf:
                parts.append(("text", buf))
                buf = ""
            depth_end = _find_close(template, i)
            if depth_end < 0:
                raise JsonPathError(f"error parsing jsonpath {template}, unclosed action")
            parts.append(("action", template[i + 1 : depth_end].strip()))
            i = depth_end + 1
            continue
        buf += ch
        i += 1
    if buf:
        parts.append(("text", buf))
    return parts


def _find_close(template: str, start: int) -> int:
    quote = ""
    i = start + 1
    while i < len(template):
        ch = template[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "}":
            return i
        i += 1
    return -1


def _parse(parts: list[tuple[str, str]], template: str) -> list[_Node]:
    stack: list[list[_Node]] = [[]]
    ranges: list[_Node] = []
    for kind, text in parts:
        if kind == "text":
            stack[-1].append(_Node("text", text))
        elif text.startswith("range ") or text == "range":
            node = _Node("range", text[5:].strip(), [])
            stack[-1].append(node)
            assert node.body is not None
            stack.append(node.body)
            ranges.append(node)
        elif text == "end":
            if len(stack) == 1:
                raise JsonPathError(f"error parsing jsonpath {template}, not in range")
            stack.pop()
            ranges.pop()
        elif text.startswith('"') and text.endswith('"') and len(text) >= 2:
            literal = text[1:-1].replace("\\t", "\t").replace("\\n", "\n").replace('\\"', '"')
            stack[-1].append(_Node("text", literal))
        else:
            stack[-1].append(_Node("path", text))
    if len(stack) != 1:
        raise JsonPathError(f"error parsing jsonpath {template}, unclosed range")
    return stack[0]


def _segments(path: str) -> list[str | int | None]:
    """Split a path into keys (str), indexes (int) and wildcards (None)."""
    segs: list[str | int | None] = []
    i = 0
    p = path.strip()
    if p.startswith("$"):
        p = p[1:]
    if p.startswith("@"):
        p = p[1:]
    while i < len(p):
        ch = p[i]
        if ch == ".":
            i += 1
            key = ""
            while i < len(p) and p[i] not in ".[":
                if p[i] == "\\" and i + 1 < len(p):
                    key += p[i + 1]
                    i += 2
                    continue
                key += p[i]
                i += 1
            if key == "*":
                segs.append(None)
            elif key:
                segs.append(key)
        elif ch == "[":
            close = p.find("]", i)
            if close < 0:
                raise JsonPathError(f"unterminated array in {path}")
            inner = p[i + 1 : close].strip()
            i = close + 1
            if inner == "*":
                segs.append(None)
            elif len(inner) >= 2 and inner[0] in "'\"" and inner[-1] == inner[0]:
                segs.append(inner[1:-1])
            else:
                try:
                    segs.append(int(inner))
                except ValueError:
                    raise JsonPathError(f"unrecognized character in action: {inner}") from None
        else:
            raise JsonPathError(f"unrecognized identifier {p[i:]}")
    return segs


def _walk(values: list[Any], segs: list[str | int | None]) -> list[Any]:
    for seg in segs:
        nxt: list[Any] = []
        for v in values:
            if seg is None:
                if isinstance(v, list):
                    nxt.extend(v)
                elif isinstance(v, dict):
                    nxt.extend(v.values())
            elif isinstance(seg, int):
                if isinstance(v, list) and -len(v) <= seg < len(v):
                    nxt.append(v[seg])
            elif isinstance(v, dict) and seg in v:
                nxt.append(v[seg])
        values = nxt
    return values


def _format(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        # encoding/json: sorted keys, UTF-8, <, > and & escaped.
        text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass
class _Sink:
    parts: list[str] = field(default_factory=list)
    size: int = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        budget.check_output(self.size, "kubectl")


def _run(nodes: list[_Node], data: Any, sink: _Sink) -> None:
    for node in nodes:
        if node.kind == "text":
            sink.add(node.text)
        elif node.kind == "path":
            values = _walk([data], _segments(node.text))
            sink.add(" ".join(_format(v) for v in values))
        else:
            assert node.body is not None
            for item in _walk([data], _segments(node.text)):
                # Nested ranges with empty bodies cost time without output.
                budget.check_time()
                _run(node.body, item, sink)


def evaluate(template: str, data: Any) -> str:
    sink = _Sink()
    _run(_parse(_tokenize(template), template), data, sink)
    return "".join(sink.parts)


def find(path: str, data: Any) -> list[Any]:
    """The values one path (`.a.b[*]`, no braces) selects, for custom-columns and --sort-by."""
    return _walk([data], _segments(path))
