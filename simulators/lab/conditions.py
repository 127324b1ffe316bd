"""bash's `test`, `[ ... ]` and `[[ ... ]]` on the admin host: strings, integers and the home
folder's files, with `!`, `-a`, `-o` and parentheses (`[[`: `==` and `!=` match a glob
pattern, `=~` an extended regex, on RE2). Status 0 true, 1 false, 2 for an expression bash
refuses, with bash's words. Run by the shell (Shell._call gives its Expansion), `-v NAME`
(`-v a[1]`, `-v m[key]`: set) and `-R NAME` (a nameref, set) are unary operators too, so
they join `&&`, `||`, `-a`, `-o`, `!` and parentheses; run by xargs, as coreutils' test,
they are not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulators.lab import fs, regex, shell_attributes
from simulators.lab.shell_match import matches
from simulators.lab.tool import Context, Output

if TYPE_CHECKING:
    from simulators.lab.shell_expansion import Expansion

_UNARY = frozenset({"-z", "-n", "-e", "-f", "-s", "-d", "-r", "-w", "-x", "-L", "-h", "-a", "-c"})
# bash's own, which read the shell (its variables: -v, -R; its options: -o): coreutils' test
# has none of them.
_VARIABLES = frozenset({"-v", "-R", "-o"})
_INTEGER = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_STRING = frozenset({"=", "==", "!=", "<", ">"})
# `!` and parentheses nested deeper than this are refused, not followed.
MAX_NESTING = 32


class _Bad(Exception):
    """An expression bash refuses (status 2), in its words."""


def test(ctx: Context, args: list[str], shell: Expansion | None = None) -> Output:
    return _answer(ctx, args, "test", False, shell)


def bracket(ctx: Context, args: list[str], shell: Expansion | None = None) -> Output:
    if not args or args[-1] != "]":
        return Output.error("bash: [: missing `]'", 2)
    return _answer(ctx, args[:-1], "[", False, shell)


def double_bracket(ctx: Context, args: list[str], shell: Expansion | None = None) -> Output:
    if not args or args[-1] != "]]":
        return Output.error("bash: syntax error in conditional expression", 2)
    return _answer(ctx, args[:-1], "[[", True, shell)


# The shell's builtins by name: Shell._call runs them with itself as `shell`.
BUILTINS = {"test": test, "[": bracket, "[[": double_bracket}


def _answer(
    ctx: Context, args: list[str], name: str, brackets: bool, shell: Expansion | None
) -> Output:
    try:
        return Output("", 0 if _Expression(ctx, args, brackets, shell).whole() else 1)
    except _Bad as bad:
        return Output.error(f"bash: {name}: {bad}" if str(bad) else f"bash: {name}: error", 2)


class _Expression:
    def __init__(
        self, ctx: Context, args: list[str], brackets: bool, shell: Expansion | None
    ) -> None:
        self.ctx, self.args, self.brackets, self.i = ctx, args, brackets, 0
        self.shell = shell
        self.nesting = 0
        # `[[`'s == and =~ under shopt's nocasematch.
        self.nocase = brackets and shell is not None and shell.state.on("nocasematch")

    def whole(self) -> bool:
        if not self.args:
            return False
        value = self.either()
        if self.i < len(self.args):
            raise _Bad(
                f"{self.args[self.i]}: unary operator expected"
                if self.i == 0
                else "too many arguments"
            )
        return value

    def take(self) -> str:
        if self.i >= len(self.args):
            raise _Bad("argument expected")
        self.i += 1
        return self.args[self.i - 1]

    def peek(self, ahead: int = 0) -> str | None:
        at = self.i + ahead
        return self.args[at] if at < len(self.args) else None

    def either(self) -> bool:
        value = self.both()
        while self.peek() in ("-o", "||"):
            self.i += 1
            value = self.both() or value
        return value

    def both(self) -> bool:
        value = self.negation()
        while self.peek() in ("-a", "&&") and self.i + 1 < len(self.args):
            self.i += 1
            value = self.negation() and value
        return value

    def negation(self) -> bool:
        self.nesting += 1
        try:
            if self.nesting > MAX_NESTING:
                raise _Bad("expression nested too deep for this lab")
            if self.peek() == "!" and self.peek(1) is not None:
                self.i += 1
                return not self.negation()
            return self.primary()
        finally:
            self.nesting -= 1

    def primary(self) -> bool:
        first = self.take()
        if first == "(" and self.peek(1) is not None:
            value = self.either()
            if self.take() != ")":
                raise _Bad("`)' expected")
            return value
        operator = self.peek()
        if operator is not None and (
            operator in _STRING or operator in _INTEGER or (self.brackets and operator == "=~")
        ):
            self.i += 1
            return self.binary(first, operator, self.take())
        if first in _UNARY and self.peek() is not None:
            return self.unary(first, self.take())
        if first in _VARIABLES and self.shell is not None and self.peek() is not None:
            return self.variable(first, self.take())
        return first != ""

    def variable(self, operator: str, operand: str) -> bool:
        """`-v NAME`: set (an element too); `-R NAME`: a nameref, set; `-o OPTION`: one of
        `set -o`'s options, on (a name that is none: false)."""
        assert self.shell is not None
        if operator == "-o":
            return operand in self.shell.state.options
        if operator == "-R":
            return shell_attributes.is_nameref(self.shell, operand)
        return shell_attributes.is_set(self.shell, operand)

    def unary(self, operator: str, operand: str) -> bool:
        if operator == "-z":
            return operand == ""
        if operator == "-n":
            return operand != ""
        state = self.ctx.world.state
        if operator in ("-L", "-h"):  # the link itself (lstat)
            return operand != "" and fs.locate(self.ctx, operand, follow=False).link is not None
        where = fs.locate(self.ctx, operand) if operand else fs.Located("", error=fs.NOT_FOUND)
        if where.error:
            return False
        if operator == "-d":
            return where.folder
        if operator in ("-e", "-a"):
            return where.exists
        if operator == "-r":  # the admin's own, or root's that others may read
            return where.exists and (fs.owned(where.path) or fs.allows(state, where.path, 4))
        if operator == "-w":  # the admin's own, or root's /tmp
            return where.exists and (
                fs.owned(where.path)
                or (where.folder and fs.writable(state, where.path))
                or (where.file and fs.allows(state, where.path, 2))  # /dev/null's rw-rw-rw-
            )
        if operator == "-f":  # a regular file: /dev/null is a character device (-c)
            return where.file and fs.device(where.path) is None
        if operator == "-c":
            return where.file and fs.device(where.path) is not None
        if operator == "-s":  # stat's size: /proc's files are empty
            return where.folder or (where.file and fs.size(state, where.path) > 0)
        if operator == "-x":  # the execute (or a folder's search) bit of the admin's class
            return where.exists and fs.allows(state, where.path, 1)
        return False

    def binary(self, left: str, operator: str, right: str) -> bool:
        if operator in _INTEGER:
            if self.brackets and self.shell is not None:  # `[[`: arithmetic expressions
                a, b = self.shell.arithmetic(left, "[["), self.shell.arithmetic(right, "[[")
            else:
                a, b = _integer(left), _integer(right)
            return {
                "-eq": a == b, "-ne": a != b, "-lt": a < b,
                "-le": a <= b, "-gt": a > b, "-ge": a >= b,
            }[operator]  # fmt: skip
        if operator == "=~":
            try:
                translated = regex.translate(right, extended=True)
                pattern = regex.compile_regex(f"(?i){translated}" if self.nocase else translated)
            except regex.RegexError:
                return False
            return pattern.search(left) is not None
        if operator in ("<", ">"):
            return left < right if operator == "<" else left > right
        same = matches(left, right, self.nocase) if self.brackets else left == right
        return same if operator in ("=", "==") else not same


def _integer(text: str) -> int:
    stripped = text.strip()
    body = stripped[1:] if stripped[:1] in "+-" else stripped
    if not body.isdigit() or len(body) > 19:
        raise _Bad(f"{text}: integer expression expected")
    return int(stripped)
