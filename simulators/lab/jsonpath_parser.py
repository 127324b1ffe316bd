"""client-go's JSONPath parser (util/jsonpath parser.go and node.go): a template's text to
the tree of nodes jsonpath.py evaluates, with client-go's error messages for what it refuses.

Node kinds: list, text, field, array (with its three slice `Param`s), filter, int, float, bool,
wildcard, recursive, union, ident. Quoted literals are unquoted as strconv.Unquote extended to
single quotes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


class JsonPathError(Exception):
    pass


# ------------------------------------------------------------------------- nodes


@dataclass
class Node:
    kind: str  # list text field array filter int float bool wildcard recursive union ident
    value: Any = None
    nodes: list[Node] = field(default_factory=list)
    left: Node | None = None
    right: Node | None = None


@dataclass
class Param:
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
        self.root = Node("list")

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

    def parse(self) -> Node:
        # A loop where client-go recurses: parseText -> parseInsideAction -> parseRightDelim.
        cur: Node | None = None
        while True:
            if cur is None:
                cur = self.parse_text()
                if cur is None:
                    return self.root
            cur = self.inside_action(cur)

    def parse_text(self) -> Node | None:
        """Text up to the next `{`; the new action's list node, or None at the end."""
        while True:
            if self.input.startswith("{", self.pos):
                if self.pos > self.start:
                    self.root.nodes.append(Node("text", self.consume()))
                self.pos += 1
                self.consume()
                node = Node("list")
                self.root.nodes.append(node)
                return node
            if self.next() == EOF:
                break
        if self.pos > self.start:
            self.root.nodes.append(Node("text", self.consume()))
        return None

    def inside_action(self, cur: Node) -> Node | None:
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

    def parse_identifier(self, cur: Node) -> None:
        while True:
            r = self.next()
            if _terminator(r):
                self.backup()
                break
        value = self.consume()
        if value in ("true", "false"):
            cur.nodes.append(Node("bool", value == "true"))
        else:
            cur.nodes.append(Node("ident", value))

    def parse_recursive(self, cur: Node) -> None:
        if cur.nodes and cur.nodes[-1].kind == "recursive":
            raise JsonPathError("invalid multiple recursive descent")
        self.pos += 2
        self.consume()
        cur.nodes.append(Node("recursive"))
        r = self.peek()
        if r and (r == "_" or r.isalnum()):
            self.parse_field(cur)

    def parse_number(self, cur: Node) -> None:
        if self.peek() in ("+", "-"):
            self.next()
        while True:
            r = self.next()
            if r != "." and not r.isdigit():
                self.backup()
                break
        value = self.consume()
        if re.fullmatch(r"[+-]?\d+", value):
            cur.nodes.append(Node("int", int(value)))
            return
        try:
            cur.nodes.append(Node("float", float(value)))
        except ValueError:
            raise JsonPathError(f"cannot parse number {value}") from None

    def parse_array(self, cur: Node) -> None:
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
            cur.nodes.append(Node("union", nodes=[_action(f"[{p.strip(' ')}]") for p in parts]))
            return
        key = _DICT_KEY.match(text)
        if key:
            cur.nodes.extend(_action(f".{key.group(1)}").nodes)
            return
        match = _SLICE.match(text)
        if not match:
            raise JsonPathError(f"invalid array index {text}")
        params = [Param(), Param(), Param()]
        for i, raw in enumerate(match.groups()):
            value = raw or ""
            if value:
                if i > 0:
                    value = value[1:]
                if i > 0 and not value:
                    params[i].known = False
                else:
                    try:
                        params[i] = Param(int(value), True)
                    except ValueError:
                        raise JsonPathError(f"array index {value} is not a number") from None
            elif i == 1:
                params[i] = Param(params[0].value + 1, True, True)
        cur.nodes.append(Node("array", params))

    def parse_filter(self, cur: Node) -> None:
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
            cur.nodes.append(Node("filter", "exists", left=_action(text), right=Node("list")))
        else:
            left, right = _action(match.group(1)), _action(match.group(3))
            cur.nodes.append(Node("filter", match.group(2), left=left, right=right))

    def parse_quote(self, cur: Node, end: str) -> None:
        while True:
            r = self.next()
            if r == EOF or r == "\n":
                raise JsonPathError("unterminated quoted string")
            if r == end and self.input[self.pos - 2] != "\\":
                break
        value = self.consume()
        cur.nodes.append(Node("text", _unquote(value)))

    def parse_field(self, cur: Node) -> None:
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
            cur.nodes.append(Node("wildcard"))
        else:
            cur.nodes.append(Node("field", value.replace("\\", "")))


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


def _action(text: str) -> Node:
    """parseAction: the list node of `{text}`."""
    root = _Parser("{" + text + "}").parse()
    return root.nodes[0]


def parse(template: str) -> Node:
    return _Parser(template).parse()
