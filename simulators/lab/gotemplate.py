"""kubectl's `-o go-template=`: the subset of Go's text/template a learner writes.

Actions `{{ }}` (with `{{-`/`-}}` trimming and `{{/* comments */}}`); pipelines of fields
(`.a.b`, `$.a`, `$v.a`), variables (`$x := ...`), literals (strings with Go escapes, raw
strings, numbers, true/false/nil), parenthesised pipelines (`(index .items 0).metadata.name`)
and `|`; `if`/`else if`/`else`, `range` (with `$i, $v :=`, and `else`), `with`; functions
and, or, not, len, index, print, printf, println, eq, ne, lt, le, gt, ge, and kubectl's own
exists and base64decode.

The data is what kubectl gives the template: the object decoded from JSON, so every number is
a float64 and prints as Go prints one (`2`, `1e+06`); a missing key prints `<no value>`; maps
print as `map[k:v]` with sorted keys. Output is checked against the command's budget.

This module lexes, parses and executes (text/template's parse and exec); the functions and the
fmt printing they share are in gotemplate_funcs (funcs.go).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from simulators.lab import budget
from simulators.lab.gotemplate_funcs import (
    NO_VALUE,
    Func,
    TemplateError,
    call,
    go_type,
    printed,
    truth,
)
from simulators.lab.gotext import go_quote

__all__ = ["TemplateError", "evaluate"]

# ------------------------------------------------------------------------- lexing

_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.S)
_TOKEN = re.compile(
    r"""\s*(?:
      (?P<raw>`[^`]*`)
    | (?P<str>"(?:\\.|[^"\\])*")
    | (?P<char>'(?:\\.|[^'\\])')
    | (?P<assign>:=|=)
    | (?P<punct>[()|,])
    | (?P<var>\$[A-Za-z0-9_]*)
    | (?P<field>(?:\.[A-Za-z0-9_]+)+|\.)
    | (?P<num>[+-]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+))
    | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.X,
)


_ENDS_WORD = frozenset(" \t\r\n.,|:()")


@dataclass
class _Tok:
    kind: str
    text: str


def _tokens(text: str, source: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise TemplateError(
                f"error parsing template {source}, template: output:1: "
                f"unexpected {go_quote(text[pos:].strip()[:1])} in command"
            )
        kind = m.lastgroup or ""
        out.append(_Tok(kind, m.group(kind)))
        pos = m.end()
        if kind in ("var", "field", "word") and pos < len(text) and text[pos] not in _ENDS_WORD:
            # text/template's lexer: a name must end at a terminator (atTerminator).
            char = text[pos]
            shown = f"U+{ord(char):04X} {char!r}" if char.isprintable() else f"U+{ord(char):04X}"
            raise TemplateError(
                f"error parsing template {source}, template: output:1: bad character {shown}"
            )
        # A field right after a closing parenthesis or variable chains onto it.
    return out


# ------------------------------------------------------------------------- parsing


@dataclass
class _Node:
    kind: str  # text, action, if, range, with
    text: str = ""
    pipe: list[_Tok] = field(default_factory=list)
    body: list[_Node] = field(default_factory=list)
    other: list[_Node] = field(default_factory=list)  # else branch
    decl: list[str] = field(default_factory=list)  # variables a range/with/action declares


def _parse(template: str) -> list[_Node]:
    root: list[_Node] = []
    stack: list[tuple[_Node | None, list[_Node]]] = [(None, root)]
    pos = 0
    trim_next = False
    for m in _ACTION.finditer(template):
        text = template[pos : m.start()]
        if trim_next:
            text = text.lstrip()
        if m.group(1):
            text = text.rstrip()
        if text:
            stack[-1][1].append(_Node("text", text))
        pos = m.end()
        trim_next = bool(m.group(3))
        inner = m.group(2).strip()
        if inner.startswith("/*"):
            continue
        word, _, rest = inner.partition(" ")
        if word in ("if", "range", "with"):
            node = _Node(word)
            node.decl, node.pipe = _declared(rest, template)
            stack[-1][1].append(node)
            stack.append((node, node.body))
        elif word == "else":
            owner = stack[-1][0]
            if owner is None:
                raise TemplateError(_parse_error(template, "unexpected {{else}}"))
            stack[-1] = (owner, owner.other)
            if rest.strip().startswith(("if ", "with ")):
                # `else if` nests an if in the else branch, closed by the same {{end}}.
                sub_word, _, sub_rest = rest.strip().partition(" ")
                node = _Node(sub_word)
                node.decl, node.pipe = _declared(sub_rest, template)
                node.text = "chained"
                owner.other.append(node)
                stack.append((node, node.body))
        elif word == "end":
            if len(stack) == 1:
                raise TemplateError(_parse_error(template, "unexpected {{end}}"))
            while True:
                closed, _ = stack.pop()
                if closed is None or closed.text != "chained":
                    break
        else:
            decl, pipe = _declared(inner, template)
            stack[-1][1].append(_Node("action", pipe=pipe, decl=decl))
    text = template[pos:]
    if "{{" in text:
        raise TemplateError(_parse_error(template, _unclosed(text.partition("{{")[2])))
    if trim_next:
        text = text.lstrip()
    if text:
        stack[-1][1].append(_Node("text", text))
    if len(stack) != 1:
        raise TemplateError(_parse_error(template, "unexpected EOF"))
    return root


def _unclosed(inside: str) -> str:
    """What Go's lexer says of an action with no `}}`: the first brace it cannot lex (outside
    quotes), else that the action is unclosed."""
    bare = re.sub(r'"(?:\\.|[^"\\])*"|`[^`]*`', "", inside)
    brace = re.search(r"[{}]", bare)
    if brace is None:
        return "unclosed action"
    return f"bad character U+{ord(brace.group()):04X} '{brace.group()}'"


def _parse_error(template: str, what: str) -> str:
    return f"error parsing template {template}, template: output:1: {what}"


def _declared(text: str, template: str) -> tuple[list[str], list[_Tok]]:
    toks = _tokens(text, template)
    for i, tok in enumerate(toks):
        if tok.kind == "assign":
            names = [t.text for t in toks[:i] if t.kind == "var"]
            return names, toks[i + 1 :]
    if not toks:
        raise TemplateError(_parse_error(template, "missing value for command"))
    return [], toks


# ------------------------------------------------------------------------- evaluation


@dataclass
class _Scope:
    dot: Any
    root: Any
    vars: list[dict[str, Any]]

    def lookup(self, name: str) -> Any:
        if name == "$":
            return self.root
        for frame in reversed(self.vars):
            if name in frame:
                return frame[name]
        raise TemplateError(f'undefined variable "{name}"')


def _fields(value: Any, path: str) -> Any:
    for key in [k for k in path.split(".") if k]:
        if value is NO_VALUE or value is None:
            if value is None:
                raise TemplateError(f"nil pointer evaluating interface {{}}.{key}")
            return NO_VALUE
        if isinstance(value, dict):
            value = value.get(key, NO_VALUE)
        else:
            raise TemplateError(f"can't evaluate field {key} in type {go_type(value)}")
    return value


def _literal(tok: _Tok) -> Any:
    if tok.kind == "raw":
        return tok.text[1:-1]
    if tok.kind == "str":
        return _unquote(tok.text)
    if tok.kind == "num":
        text = tok.text
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        if text.lower().startswith(("0x", "+0x", "-0x")):
            return int(text, 16)
        return float(text)
    if tok.kind == "char":
        return ord(_unquote('"' + tok.text[1:-1] + '"'))
    raise TemplateError(f"unexpected {tok.text}")


def _unquote(text: str) -> str:
    try:
        return str(bytes(text[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode())
    except (UnicodeDecodeError, UnicodeEncodeError):
        return text[1:-1]


class _Engine:
    def __init__(self, template: str) -> None:
        self.template = template
        self.out: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.out.append(text)
        self.size += len(text)
        budget.check_output(self.size, "kubectl")

    def run(self, nodes: list[_Node], scope: _Scope) -> None:
        for node in nodes:
            if node.kind == "text":
                self.write(node.text)
            elif node.kind == "action":
                value = self.pipeline(node.pipe, scope)
                if node.decl:
                    scope.vars[-1][node.decl[0]] = value
                else:
                    self.write(printed(value))
            elif node.kind in ("if", "with"):
                value = self.pipeline(node.pipe, scope)
                if truth(value):
                    inner = _Scope(
                        value if node.kind == "with" else scope.dot, scope.root, [*scope.vars, {}]
                    )
                    if node.decl:
                        inner.vars[-1][node.decl[0]] = value
                    self.run(node.body, inner)
                else:
                    self.run(node.other, _Scope(scope.dot, scope.root, [*scope.vars, {}]))
            else:
                self.range(node, scope)

    def range(self, node: _Node, scope: _Scope) -> None:
        value = self.pipeline(node.pipe, scope)
        if isinstance(value, dict):
            pairs: list[tuple[Any, Any]] = [(k, value[k]) for k in sorted(value)]
        elif isinstance(value, list):
            pairs = list(enumerate(value))
        elif value is NO_VALUE or value is None:
            pairs = []
        elif isinstance(value, int) and not isinstance(value, bool):
            pairs = [(i, i) for i in range(value)]
        else:
            raise TemplateError(f"range can't iterate over {printed(value)}")
        if not pairs:
            self.run(node.other, _Scope(scope.dot, scope.root, [*scope.vars, {}]))
            return
        for key, item in pairs:
            budget.check_time()
            frame: dict[str, Any] = {}
            if len(node.decl) == 1:
                frame[node.decl[0]] = item
            elif len(node.decl) >= 2:
                frame[node.decl[0]] = key
                frame[node.decl[1]] = item
            self.run(node.body, _Scope(item, scope.root, [*scope.vars, frame]))

    def pipeline(self, toks: list[_Tok], scope: _Scope) -> Any:
        commands: list[list[_Tok]] = [[]]
        depth = 0
        for tok in toks:
            if tok.kind == "punct" and tok.text == "|" and depth == 0:
                commands.append([])
                continue
            if tok.kind == "punct" and tok.text == "(":
                depth += 1
            elif tok.kind == "punct" and tok.text == ")":
                depth -= 1
            commands[-1].append(tok)
        value: Any = NO_VALUE
        for i, command in enumerate(commands):
            value = self.command(command, scope, value if i else None, piped=i > 0)
        return value

    def operands(self, toks: list[_Tok], scope: _Scope) -> list[Any]:
        """Each operand's value; a parenthesised pipeline (and fields chained on it) is one."""
        values: list[Any] = []
        i = 0
        while i < len(toks):
            tok = toks[i]
            if tok.kind == "punct" and tok.text == "(":
                depth, j = 1, i + 1
                while j < len(toks) and depth:
                    if toks[j].text == "(" and toks[j].kind == "punct":
                        depth += 1
                    elif toks[j].text == ")" and toks[j].kind == "punct":
                        depth -= 1
                    j += 1
                value = self.pipeline(toks[i + 1 : j - 1], scope)
                i = j
            elif tok.kind == "field":
                value = scope.dot if tok.text == "." else _fields(scope.dot, tok.text)
                i += 1
                values.append(value)
                continue
            elif tok.kind == "var":
                value = scope.lookup(tok.text)
                i += 1
            else:
                if tok.kind != "word":
                    value = _literal(tok)
                elif tok.text in ("true", "false"):
                    value = tok.text == "true"
                elif tok.text == "nil":
                    value = None
                else:
                    value = Func(tok.text)
                values.append(value)
                i += 1
                continue
            # `.a.b` right after `)` or a variable chains onto it.
            while i < len(toks) and toks[i].kind == "field" and toks[i].text != ".":
                value = _fields(value, toks[i].text)
                i += 1
            values.append(value)
        return values

    def command(self, toks: list[_Tok], scope: _Scope, previous: Any, piped: bool) -> Any:
        """One command of a pipeline: a function call (given the previous result last when
        piped) or a single operand."""
        values = self.operands(toks, scope)
        if not values:
            raise TemplateError("empty command")
        head, args = values[0], values[1:]
        if isinstance(head, Func):
            if piped:
                args = [*args, previous]
            return call(head.name, args)
        if args or piped:
            raise TemplateError(f"can't give argument to non-function {printed(head)}")
        return head


def check(template: str) -> None:
    """Parse only, as kubectl parses the template when it makes its printer: TemplateError
    before anything is read."""
    _parse(template)


def evaluate(template: str, data: Any) -> str:
    """What `-o go-template=TEMPLATE` prints for `data` (numbers become float64, as in kubectl)."""
    nodes = _parse(template)
    engine = _Engine(template)
    root = _floats(data)
    engine.run(nodes, _Scope(root, root, [{"$": root}]))
    return "".join(engine.out)


def _floats(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value
