"""awk's language, read into a tree (simulators.lab.awk runs it): patterns and actions, BEGIN
and END, statements (if, while, do, for, for-in, print, printf, next, exit, delete, break,
continue) and expressions with awk's precedence, concatenation included. Syntax errors have
gawk's two lines: the program's line, then a caret under the token and what was unexpected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Node = tuple[Any, ...]

KEYWORDS = frozenset(
    [
        "BEGIN",
        "END",
        "function",
        "func",
        "if",
        "else",
        "while",
        "for",
        "do",
        "break",
        "continue",
        "next",
        "nextfile",
        "exit",
        "return",
        "delete",
        "in",
        "getline",
        "print",
        "printf",
    ]
)
BUILTINS = frozenset(
    [
        "length",
        "substr",
        "index",
        "split",
        "sub",
        "gsub",
        "match",
        "sprintf",
        "tolower",
        "toupper",
        "int",
        "sqrt",
        "exp",
        "log",
        "sin",
        "cos",
        "atan2",
        "rand",
        "srand",
        "system",
        "close",
        "fflush",
    ]
)
_TOKEN = re.compile(
    r"""(?P<ws>[ \t]+|\\\n)|(?P<nl>\n)|(?P<comment>\#[^\n]*)
    |(?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+)
    |(?P<str>"(?:\\.|[^"\\\n])*")
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>\+\+|--|\+=|-=|\*=|/=|%=|\^=|\*\*=|\*\*|==|<=|>=|!=|!~|&&|\|\||>>|[-+*/%^!<>|?:~$(){}\[\];,=])""",
    re.X,
)
_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    '"': '"',
    "/": "/",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**="})


class AwkSyntaxError(Exception):
    """gawk's message: `awk: cmd. line:N: TEXT` then the caret line."""


@dataclass
class Tok:
    kind: str  # num, str, ere, name, func (name followed by "("), builtin, kw, op, nl, eof
    value: str
    pos: int


def unescape(text: str) -> str:
    return re.sub(
        r"\\([0-7]{1,3}|.)",
        lambda m: (
            chr(int(m.group(1), 8))
            if m.group(1)[0] in "01234567"
            else _ESCAPES.get(m.group(1), "\\" + m.group(1))
        ),
        text,
    )


def lex(source: str) -> list[Tok]:
    tokens: list[Tok] = []
    i = 0
    while i < len(source):
        prev = tokens[-1] if tokens else None
        if source[i] == "/" and not _ends_operand(prev):
            j = i + 1
            while j < len(source) and source[j] not in "/\n":
                j += 2 if source[j] == "\\" else 1
            if j >= len(source) or source[j] != "/":
                raise _error(source, i, "unterminated regexp")
            tokens.append(Tok("ere", source[i + 1 : j].replace("\\/", "/"), i))
            i = j + 1
            continue
        match = _TOKEN.match(source, i)
        if not match:
            raise _error(source, i, "invalid char '" + source[i] + "' in expression")
        kind = match.lastgroup or ""
        text = match.group()
        if kind == "name":
            if text in KEYWORDS:
                kind = "kw"
            elif text in BUILTINS:
                kind = "builtin"
            elif source.startswith("(", match.end()):
                kind = "func"
        if kind == "str":
            tokens.append(Tok("str", unescape(text[1:-1]), i))
        elif kind not in ("ws", "comment"):
            tokens.append(Tok(kind, text, i))
        i = match.end()
    tokens.append(Tok("eof", "", len(source)))
    return tokens


def _ends_operand(tok: Tok | None) -> bool:
    if tok is None:
        return False
    return tok.kind in ("num", "str", "ere", "name", "builtin") or tok.value in (
        ")",
        "]",
        "$",
        "++",
        "--",
    )


def _error(source: str, pos: int, what: str) -> AwkSyntaxError:
    line_no = source.count("\n", 0, pos) + 1
    start = source.rfind("\n", 0, pos) + 1
    end = source.find("\n", pos)
    line = source[start : end if end >= 0 else len(source)]
    prefix = f"awk: cmd. line:{line_no}: "
    return AwkSyntaxError(f"{prefix}{line}\n{prefix}{' ' * (pos - start)}^ {what}")


class Parser:
    """Recursive descent over the tokens; nodes are tuples whose first item names them."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = lex(source)
        self.i = 0
        self.no_gt = 0  # inside print's arguments, `>` is redirection
        self.within = ""  # "BEGIN" or "END" while their actions are read

    # -- helpers
    def peek(self, offset: int = 0) -> Tok:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def at(self, *values: str) -> bool:
        tok = self.peek()
        return tok.kind in ("op", "kw") and tok.value in values

    def take(self) -> Tok:
        tok = self.peek()
        self.i += 1
        return tok

    def expect(self, value: str) -> Tok:
        if not self.at(value):
            raise self.unexpected()
        return self.take()

    def unexpected(self) -> AwkSyntaxError:
        tok = self.peek()
        if tok.kind in ("eof", "nl"):
            return _error(self.source, tok.pos, "unexpected newline or end of string")
        return _error(self.source, tok.pos, "syntax error")

    def newlines(self) -> None:
        while self.peek().kind == "nl" or self.at(";"):
            self.take()

    def opt_newlines(self) -> None:
        while self.peek().kind == "nl":
            self.take()

    # -- program
    def program(self) -> tuple[list[Node], list[tuple[Node | None, Node | None]], list[Node]]:
        begin: list[Node] = []
        end: list[Node] = []
        rules: list[tuple[Node | None, Node | None]] = []
        self.newlines()
        while self.peek().kind != "eof":
            if self.at("BEGIN", "END"):
                which = self.take().value
                self.opt_newlines()
                if not self.at("{"):
                    raise _error(
                        self.source,
                        self.peek().pos,
                        "each rule must have a pattern or an action part",
                    )
                self.within = which
                (begin if which == "BEGIN" else end).append(self.block())
                self.within = ""
            elif self.at("function", "func"):
                raise _error(
                    self.source,
                    self.peek().pos,
                    "function definitions are not available in this lab",
                )
            else:
                pattern: Node | None = None
                if not self.at("{"):
                    pattern = self.expr()
                    if self.at(","):
                        self.take()
                        self.opt_newlines()
                        pattern = ("range", pattern, self.expr(), [False])
                action = self.block() if self.at("{") else None
                rules.append((pattern, action))
            ended_block = self.tokens[self.i - 1].value == "}"
            if not (ended_block or self.peek().kind in ("nl", "eof") or self.at(";")):
                raise self.unexpected()
            self.newlines()
        return begin, rules, end

    def block(self) -> Node:
        self.expect("{")
        body: list[Node] = []
        self.newlines()
        while not self.at("}"):
            if self.peek().kind == "eof":
                raise self.unexpected()
            body.append(self.statement())
            self.newlines()
        self.take()
        return ("block", body)

    def simple_end(self) -> None:
        if self.at(";") or self.peek().kind == "nl":
            self.take()
        elif not (self.at("}") or self.peek().kind == "eof"):
            raise self.unexpected()

    def statement(self) -> Node:
        tok = self.peek()
        if self.at("{"):
            return self.block()
        if self.at(";"):
            self.take()
            return ("block", [])
        if self.at("if"):
            self.take()
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            self.opt_newlines()
            then = self.statement()
            save = self.i
            self.newlines()
            if self.at("else"):
                self.take()
                self.opt_newlines()
                return ("if", cond, then, self.statement())
            self.i = save
            return ("if", cond, then, None)
        if self.at("while"):
            self.take()
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            if self.at(";"):
                self.take()
                return ("while", cond, ("block", []))
            self.opt_newlines()
            return ("while", cond, self.statement())
        if self.at("do"):
            self.take()
            self.opt_newlines()
            body = self.statement()
            self.newlines()
            self.expect("while")
            self.expect("(")
            cond = self.expr()
            self.expect(")")
            self.simple_end()
            return ("do", body, cond)
        if self.at("for"):
            return self.for_statement()
        if tok.kind == "kw" and tok.value in ("next", "nextfile") and self.within:
            line_no = self.source.count("\n", 0, tok.pos) + 1
            raise AwkSyntaxError(
                f"awk: cmd. line:{line_no}: error: `{tok.value}' used in {self.within} action"
            )
        if tok.kind == "kw" and tok.value in ("break", "continue", "next", "nextfile"):
            self.take()
            self.simple_end()
            return (tok.value,)
        if self.at("exit", "return"):
            self.take()
            value = (
                None if (self.at(";", "}") or self.peek().kind in ("nl", "eof")) else self.expr()
            )
            self.simple_end()
            return ("exit", value)
        if self.at("delete"):
            self.take()
            name = self.take()
            if name.kind != "name":
                raise _error(self.source, name.pos, "syntax error")
            index = None
            if self.at("["):
                self.take()
                index = self.expr_list("]")
            self.simple_end()
            return ("delete", name.value, index)
        if self.at("print", "printf"):
            return self.print_statement()
        node = self.expr()
        self.simple_end()
        return ("expr", node)

    def for_statement(self) -> Node:
        self.take()
        self.expect("(")
        if (
            self.peek().kind == "name"
            and self.peek(1).value == "in"
            and self.peek(2).kind == "name"
            and self.peek(3).value == ")"
        ):
            var = self.take().value
            self.take()
            array = self.take().value
            self.expect(")")
            self.opt_newlines()
            return ("forin", var, array, self.statement())
        init = None if self.at(";") else self.expr()
        self.expect(";")
        self.opt_newlines()
        cond = None if self.at(";") else self.expr()
        self.expect(";")
        self.opt_newlines()
        step = None if self.at(")") else self.expr()
        self.expect(")")
        if self.at(";"):
            self.take()
            return ("for", init, cond, step, ("block", []))
        self.opt_newlines()
        return ("for", init, cond, step, self.statement())

    def print_statement(self) -> Node:
        kind = self.take().value
        args: list[Node] = []
        self.no_gt += 1
        try:
            if not (self.at(";", "}", ">", ">>", "|") or self.peek().kind in ("nl", "eof")):
                if self.at("("):
                    # print (a, b) > "f": a parenthesised list, or an expression starting with (
                    save = self.i
                    self.take()
                    items = self.parenthesized(lambda: self.expr_list(")"))
                    if self.at(";", "}", ">", ">>", "|") or self.peek().kind in ("nl", "eof"):
                        args = items
                    else:
                        self.i = save
                        args = self.expr_list(None)
                else:
                    args = self.expr_list(None)
        finally:
            self.no_gt -= 1
        redirect = None
        if self.at(">", ">>", "|"):
            op = self.take().value
            redirect = (op, self.concat())
        self.simple_end()
        if kind == "printf" and not args:
            raise _error(self.source, self.peek().pos, "printf: no format")
        return (kind, args, redirect)

    def expr_list(self, close: str | None) -> list[Node]:
        items = [self.expr()]
        while self.at(","):
            self.take()
            self.opt_newlines()
            items.append(self.expr())
        if close is not None:
            self.expect(close)
        return items

    # -- expressions, lowest precedence first
    def expr(self) -> Node:
        return self.ternary()

    def ternary(self) -> Node:
        cond = self.or_()
        if self.at("?"):
            self.take()
            self.opt_newlines()
            yes = self.ternary()
            self.opt_newlines()
            self.expect(":")
            self.opt_newlines()
            return ("?", cond, yes, self.ternary())
        if self.at(*ASSIGN_OPS) and cond[0] in ("var", "field", "index"):
            op = self.take().value
            self.opt_newlines()
            return ("assign", op, cond, self.ternary())
        return cond

    def or_(self) -> Node:
        left = self.and_()
        while self.at("||"):
            self.take()
            self.opt_newlines()
            left = ("||", left, self.and_())
        return left

    def and_(self) -> Node:
        left = self.in_()
        while self.at("&&"):
            self.take()
            self.opt_newlines()
            left = ("&&", left, self.in_())
        return left

    def in_(self) -> Node:
        left = self.match()
        while self.at("in"):
            self.take()
            left = ("in", [left], self.take().value)
        return left

    def match(self) -> Node:
        left = self.comparison()
        while self.at("~", "!~"):
            op = self.take().value
            left = (op, left, self.comparison())
        return left

    def comparison(self) -> Node:
        left = self.concat()
        ops = ("<", "<=", "!=", "==", ">=") + (() if self.no_gt else (">",))
        if self.at(*ops):
            op = self.take().value
            return ("cmp", op, left, self.concat())
        return left

    def concat(self) -> Node:
        left = self.additive()
        while self._starts_operand():
            left = ("concat", left, self.additive())
        if self.at("|") and self.peek(1).value == "getline":
            raise _error(
                self.source,
                self.peek().pos,
                "`command | getline' is not available in this lab (no command runs here)",
            )
        return left

    def _starts_operand(self) -> bool:
        tok = self.peek()
        if tok.kind in ("num", "str", "ere", "name", "func", "builtin"):
            return True
        return (
            tok.kind == "op"
            and tok.value in ("$", "(", "!", "++", "--")
            and not (tok.value == "!" and self.peek(1).value == "=")
        )

    def additive(self) -> Node:
        left = self.multiplicative()
        while self.at("+", "-"):
            op = self.take().value
            left = ("arith", op, left, self.multiplicative())
        return left

    def multiplicative(self) -> Node:
        left = self.unary()
        while self.at("*", "/", "%"):
            op = self.take().value
            left = ("arith", op, left, self.unary())
        return left

    def unary(self) -> Node:
        if self.at("!"):
            self.take()
            return ("not", self.unary())
        if self.at("-", "+"):
            op = self.take().value
            return ("neg" if op == "-" else "plus", self.unary())
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        if self.at("^", "**"):
            self.take()
            return ("arith", "^", base, self.unary())
        return base

    def postfix(self) -> Node:
        if self.at("++", "--"):
            op = self.take().value
            target = self.postfix()
            if target[0] not in ("var", "field", "index"):
                raise self.unexpected()
            return ("incr", op, target, True)
        node = self.primary()
        if self.at("++", "--") and node[0] in ("var", "field", "index"):
            return ("incr", self.take().value, node, False)
        return node

    def primary(self) -> Node:
        tok = self.take()
        if tok.kind == "num":
            return (
                "num",
                float(int(tok.value, 16)) if tok.value[:2].lower() == "0x" else float(tok.value),
            )
        if tok.kind == "str":
            return ("str", tok.value)
        if tok.kind == "ere":
            return ("ere", tok.value)
        if tok.value == "$":
            return ("field", self.postfix_operand())
        if tok.value == "(":
            return self.parenthesized(self.group)
        if tok.value == "getline" and tok.kind != "str":
            return self.getline()
        if tok.kind == "builtin":
            args: list[Node] = []
            if self.at("("):
                self.take()
                if not self.at(")"):
                    args = self.parenthesized(lambda: self.expr_list(None))
                self.expect(")")
            elif tok.value != "length":
                raise self.unexpected()
            return ("call", tok.value, args)
        if tok.kind == "func":
            raise _error(self.source, tok.pos, f"function `{tok.value}' not defined")
        if tok.kind == "name":
            if self.at("["):
                self.take()
                return ("index", tok.value, self.expr_list("]"))
            return ("var", tok.value)
        self.i -= 1
        raise self.unexpected()

    def parenthesized[T](self, read: Callable[[], T]) -> T:
        """What `read` reads inside parentheses, where `>` compares even in print's arguments."""
        saved, self.no_gt = self.no_gt, 0
        try:
            return read()
        finally:
            self.no_gt = saved

    def group(self) -> Node:
        """After `(`: an expression and `)`, or `(a, b) in array`."""
        inner = self.expr()
        if self.at(","):  # (a, b) in array
            self.take()
            items = [inner, *self.expr_list(")")]
            if not self.at("in"):
                raise self.unexpected()
            self.take()
            return ("in", items, self.take().value)
        self.expect(")")
        return ("group", inner)

    def getline(self) -> Node:
        """After `getline`: an optional variable, field or element, then an optional `< FILE`
        (a primary: `getline line < "nodes.txt"`). `cmd | getline` is not parsed: no command
        runs on this host."""
        target = None
        if self.at("$") or (self.peek().kind == "name"):
            target = self.primary()
            if target[0] not in ("var", "field", "index"):
                raise self.unexpected()
        source = None
        if self.at("<"):
            self.take()
            source = self.primary()
        return ("getline", target, source)

    def postfix_operand(self) -> Node:
        if self.at("++", "--", "-", "!", "+"):
            return self.unary()
        return self.primary()
