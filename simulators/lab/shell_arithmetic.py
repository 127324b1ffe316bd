"""bash's `$(( ))` arithmetic: 64-bit signed integers that wrap, numbers in decimal, octal
(`017`), hex (`0x1f`) and `BASE#DIGITS`, variables (unset or empty is 0; a value that is an
expression is evaluated, to a bounded depth) and arrays' elements (`a[i+1]`, the subscript an
expression of its own), and bash's operators with its precedence:
`++ --` (before and after a name), `+ - ! ~`, `**`, `* / %`, `+ -`, `<< >>`, `< <= > >=`,
`== !=`, `&`, `^`, `|`, `&&`, `||`, `?:`, `= += -= *= /= %= <<= >>= &= ^= |=`, `,`.
Errors are bash's: `division by 0`, `syntax error`, with the token where it stopped."""

from __future__ import annotations

import re
from collections.abc import Callable

from simulators.lab import budget
from simulators.lab.shell_scan import subscript_end

_TOKEN = re.compile(
    r"\s*(?:(?P<number>\d+#[0-9A-Za-z@_]+|0[xX][0-9A-Fa-f]*|\d+)|(?P<name>[A-Za-z_]\w*)|"
    r"(?P<op>\*\*=?|<<=|>>=|\+\+|--|&&|\|\||[<>=!]=|<<|>>|[-+*/%&|^]=|[-+*/%<>=!~&|^?:,()]))"
)
_BINARY: list[set[str]] = [
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"<<", ">>"},
    {"+", "-"}, {"*", "/", "%"},
]  # fmt: skip
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", "**="}
MAX_DEPTH = 32
# Parentheses and unary operators nested deeper than this are refused, not followed.
MAX_NESTING = 24


class ArithmeticError_(Exception):
    """bash's words for an expression it cannot evaluate."""


def _wrap(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


class Evaluator:
    """One expression over the shell's variables (`get` and `set`)."""

    def __init__(
        self, get: Callable[[str], str], set_: Callable[[str, str], None], depth: int = 0
    ) -> None:
        self.get, self.setter, self.depth = get, set_, depth
        self.noeval = 0  # inside the side && or || or ?: does not take: no effects, no errors
        self.nesting = 0

    def set(self, name: str, value: str) -> None:
        if not self.noeval:
            self.setter(name, value)

    def evaluate(self, text: str) -> int:
        if self.depth > MAX_DEPTH:
            raise ArithmeticError_("expression recursion level exceeded")
        self.text = text
        self.operand_at = 0  # the right operand's first token, for an error in it
        self.starts: list[int] = []
        self.tokens = self.lex(text)
        self.i = 0
        if not self.tokens:
            return 0
        try:
            value = self.comma()
        except RecursionError:  # a deep stack already: refused like too deep an expression
            raise ArithmeticError_(
                f"{self.text.lstrip()}: expression nested too deep for this lab"
            ) from None
        if self.i < len(self.tokens):
            raise self.error("syntax error in expression")
        return value

    def lex(self, text: str) -> list[tuple[str, str]]:
        tokens: list[tuple[str, str]] = []
        at = 0
        while at < len(text):
            match = _TOKEN.match(text, at)
            if match is None or match.end() == at:
                if text[at:].strip() == "":
                    break
                raise ArithmeticError_(
                    f"{text.lstrip()}: syntax error: invalid arithmetic operator (error token is "
                    f'"{text[at:].lstrip()}")'
                )
            kind = match.lastgroup or "op"
            value, start, at = match.group(kind), match.start(kind), match.end()
            if kind == "name" and text.startswith("[", at):
                # An array's element (`a[i+1]`): the name with its subscript, read by `get`.
                close = subscript_end(text, at + 1)
                if close < 0:
                    raise ArithmeticError_(f"{text.lstrip()}: bad array subscript")
                value, at = text[start : close + 1], close + 1
            after = text[at : at + 1]
            if (
                value in ("++", "--")
                and not (after.isalpha() or after == "_")
                and not (tokens and tokens[-1][0] == "name")
            ):
                # bash's readtok: ++ and -- only beside a name; else one sign (`---a`: - --a).
                value, at = value[0], start + 1
            tokens.append((kind, value))
            self.starts.append(start)
        return tokens

    def error(self, what: str, back: int = 0, at: int | None = None) -> ArithmeticError_:
        """bash's message; its error token is where it stopped: the token read last (`back`
        1, as after an operand), the next one, or token `at` (a right operand's first), and
        the rest of the text after it."""
        if at is None:  # bash reads a token ahead: that one, or at the end the last one
            at = min(self.i, len(self.tokens) - 1) if back else self.i
        rest = self.text[self.starts[at] :] if at < len(self.starts) else ""
        return ArithmeticError_(f'{self.text.lstrip()}: {what} (error token is "{rest}")')

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise self.error("syntax error: operand expected", back=1)
        self.i += 1
        return self.tokens[self.i - 1]

    # -- precedence, lowest first
    def comma(self) -> int:
        value = self.assignment()
        while self.peek() == ",":
            self.i += 1
            value = self.assignment()
        return value

    def assignment(self) -> int:
        if (
            self.i + 1 < len(self.tokens)
            and self.tokens[self.i][0] == "name"
            and self.tokens[self.i + 1][1] in _ASSIGN
        ):
            name = self.tokens[self.i][1]
            operator = self.tokens[self.i + 1][1]
            self.i += 2
            before = self.variable(name) if operator != "=" else 0  # read first, as bash does
            at = self.i
            value = self.assignment()
            self.operand_at = at
            if operator != "=":
                value = self.apply(operator[:-1], before, value)
            self.set(name, str(value))
            return value
        value = self.conditional()
        if self.peek() in _ASSIGN:
            raise self.error("attempted assignment to non-variable")
        return value

    def conditional(self) -> int:
        condition = self.binary(0)
        if self.peek() != "?":
            return condition
        self.i += 1
        self.noeval += not condition
        yes = self.comma()
        self.noeval -= not condition
        if self.peek() != ":":
            raise self.error("syntax error in expression")
        self.i += 1
        self.noeval += bool(condition)
        no = self.conditional()
        self.noeval -= bool(condition)
        return yes if condition else no

    def binary(self, level: int) -> int:
        if level == len(_BINARY):
            return self.power()
        value = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            operator = self.take()[1]
            decided = (operator == "&&" and not value) or (operator == "||" and bool(value))
            self.noeval += decided
            at = self.i
            right = self.binary(level + 1)
            self.noeval -= decided
            if decided:
                value = int(operator == "||")
                continue
            self.operand_at = at
            value = self.apply(operator, value, right)
        return value

    def power(self) -> int:
        base = self.unary()
        if self.peek() == "**":
            self.i += 1
            exponent = self.power()  # right to left
            return self.apply("**", base, exponent)
        return base

    def unary(self) -> int:
        self.nesting += 1
        try:
            if self.nesting > MAX_NESTING:
                raise ArithmeticError_(
                    f"{self.text.lstrip()}: expression nested too deep for this lab"
                )
            return self.unary_operand()
        finally:
            self.nesting -= 1

    def unary_operand(self) -> int:
        operator = self.peek()
        if operator in ("+", "-", "!", "~"):
            self.i += 1
            value = self.unary()
            return {"+": value, "-": _wrap(-value), "!": int(not value), "~": _wrap(~value)}[
                str(operator)
            ]
        if operator in ("++", "--"):
            self.i += 1
            if self.i >= len(self.tokens) or self.tokens[self.i][0] != "name":
                return self.unary()  # before no name: two signs, `--3` is 3
            kind, name = self.take()
            if kind != "name":
                raise self.error("syntax error: operand expected")
            value = _wrap(self.variable(name) + (1 if operator == "++" else -1))
            self.set(name, str(value))
            return value
        return self.postfix()

    def postfix(self) -> int:
        kind, value = self.take()
        if kind == "number":
            return self.number(value)
        if kind == "name":
            current = self.variable(value)
            if self.peek() in ("++", "--"):
                step = 1 if self.take()[1] == "++" else -1
                self.set(value, str(_wrap(current + step)))
            return current
        if value == "(":
            inner = self.comma()
            if self.peek() != ")":
                raise self.error("missing `)'")
            self.i += 1
            return inner
        self.i -= 1
        raise self.error("syntax error: operand expected")

    def apply(self, operator: str, left: int, right: int) -> int:
        budget.check_time()
        if operator in ("/", "%") and right == 0:
            if self.noeval:
                return 0
            raise self.error("division by 0", at=self.operand_at)
        if operator == "**":
            if right < 0:  # refused even where it does not take, as bash refuses it
                raise self.error("exponent less than 0", back=1)
            return _wrap(pow(left, right, 1 << 64))
        if operator == "/":
            quotient = abs(left) // abs(right)
            return _wrap(quotient if (left < 0) == (right < 0) else -quotient)
        if operator == "%":
            remainder = abs(left) % abs(right)
            return _wrap(-remainder if left < 0 else remainder)
        if operator in ("<<", ">>"):
            shift = right & 63
            return _wrap(left << shift) if operator == "<<" else left >> shift
        table: dict[str, Callable[[int, int], int]] = {
            "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
            "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
            "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
            ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
            "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
            "&&": lambda a, b: int(bool(a) and bool(b)),
            "||": lambda a, b: int(bool(a) or bool(b)),
        }  # fmt: skip
        return _wrap(table[operator](left, right))

    def number(self, text: str) -> int:
        base, digits = 10, text
        if "#" in text:
            base_text, digits = text.split("#", 1)
            base = int(base_text)
            if not 2 <= base <= 64:
                raise self.error("invalid arithmetic base")
        elif text[:2] in ("0x", "0X"):
            base, digits = 16, text[2:] or "0"
        elif len(text) > 1 and text.startswith("0"):
            base = 8
        value = 0
        alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"
        for char in digits:
            digit = alphabet.index(char) if base > 36 else alphabet.index(char.lower())
            if digit >= base:
                raise ArithmeticError_(
                    f'{text}: value too great for base (error token is "{text}")'
                )
            value = _wrap(value * base + digit)
        return value

    def variable(self, name: str) -> int:
        if self.noeval:
            return 0  # bash reads no variable where the expression does not take
        value = self.get(name).strip()
        if not value:
            return 0
        if re.fullmatch(r"-?\d+", value):
            return _wrap(int(value)) if len(value) < 40 else 0
        inner = Evaluator(self.get, self.setter, self.depth + 1)
        inner.nesting, inner.noeval = self.nesting, self.noeval  # one bound for all of it
        return inner.evaluate(value)
