"""awk's values: strings, numbers and input's strnums, and the conversions, comparisons and
formats between them (POSIX awk's rules, gawk's output for NaN and infinities)."""

from __future__ import annotations

import math
import re
from typing import Any

_NUMERIC = re.compile(r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*")
_LEADING = re.compile(r"\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)")
# gawk reads no number from a string that starts with 0x (without --non-decimal-data): 0,
# never the -0 that its sign and first digit would give.
_HEX = re.compile(r"\s*[-+]?0[xX]")
_FORMAT = re.compile(r"%([-+ #0]*)(\*|[1-9]\d*)?(?:\.(\*|\d+))?([cdiouxXeEfFgGs%])")


class AwkError(Exception):
    """A fatal error: gawk's `awk: cmd. line:1: fatal: ...`, exit status 2."""


class StrNum(str):
    """Input text that looks numeric compares as a number (POSIX's strnum)."""


class Unset(str):
    """A variable or element never assigned: "" as a string and 0 as a number, so both
    `count == 0` and `name == ""` hold (POSIX's uninitialized value)."""


UNSET = Unset("")


def num(value: Any) -> float:
    if isinstance(value, float):
        return value
    match = _LEADING.match(value)
    if not match or len(match.group(1)) > 400 or _HEX.match(value):
        return 0.0
    return float(match.group(1))


def text(value: Any, fmt: str = "%.6g") -> str:
    if isinstance(value, str):
        return value
    if value == int(value) if math.isfinite(value) else False:
        return str(int(value))
    if not math.isfinite(value):
        # gawk 5 writes the sign of an infinity or a NaN always, whatever the format.
        return ("-" if math.copysign(1, value) < 0 else "+") + ("nan" if value != value else "inf")
    return str(fmt % value)


def truth(value: Any) -> bool:
    if isinstance(value, float):
        return value != 0
    if isinstance(value, StrNum) and _NUMERIC.fullmatch(value):
        return num(value) != 0
    return bool(value != "")


def looks_numeric(value: Any) -> bool:
    return isinstance(value, (float, Unset)) or (
        isinstance(value, StrNum) and bool(_NUMERIC.fullmatch(value))
    )


def format_values(fmt: str, values: list[Any], convfmt: str) -> str:
    """printf and sprintf: C's conversions, widths capped for the lab."""
    out: list[str] = []
    pos = 0
    index = 0

    def take() -> Any:
        nonlocal index
        index += 1
        return values[index - 1] if index - 1 < len(values) else ""

    for match in _FORMAT.finditer(fmt):
        out.append(fmt[pos : match.start()])
        pos = match.end()
        flags, width, precision, conv = match.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(int(num(take())))
        if precision == "*":
            precision = str(int(num(take())))
        spec = "%" + flags + (str(min(abs(int(width)), 4096)) if width else "")
        if precision is not None:
            spec += "." + str(min(int(precision), 4096))
        value = take()
        if conv in "dioxXueEfFgG" and not math.isfinite(num(value)):
            out.append(text(num(value)))  # gawk: the sign and inf or nan, width or not
        elif conv in "dioxXu":
            out.append((spec + {"i": "d", "u": "d"}.get(conv, conv)) % int(num(value)))
        elif conv in "eEfFgG":
            out.append((spec + conv) % num(value))
        elif conv == "c":
            out.append((spec + "s") % _character(value))
        else:
            out.append((spec + "s") % text(value, convfmt))
    out.append(fmt[pos:])
    return "".join(out)


def _character(value: Any) -> str:
    """%c in a UTF-8 locale, as gawk: a number (an input field that looks like one included) is
    the character of that code point; a negative one is a lone byte, which a UTF-8 terminal
    shows as U+FFFD; a string is its first character, and the empty string a NUL."""
    if looks_numeric(value):
        code = int(num(value))
        return chr(code) if 0 <= code < 0x110000 else "\ufffd"
    return text(value)[:1] or "\0"


def replacement(template: str, matched: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch == "\\" and i + 1 < len(template) and template[i + 1] in "&\\":
            out.append(template[i + 1])
            i += 2
            continue
        out.append(matched if ch == "&" else ch)
        i += 1
    return "".join(out)


def re_split(regex: Any, line: str) -> list[str]:
    parts: list[str] = []
    last = 0
    for match in regex.finditer(line):
        if match.end() == match.start():
            continue
        parts.append(line[last : match.start()])
        last = match.end()
    parts.append(line[last:])
    return parts


def whole(value: float) -> int:
    """A number made an integer as gawk's substr does: toward zero, infinities bounded."""
    if not math.isfinite(value):
        return 0 if math.isnan(value) else (1 << 30 if value > 0 else -(1 << 30))
    return int(max(-(1 << 30), min(1 << 30, value)))


def arith(op: str, a: float, b: float) -> float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "%"):
        if b == 0:
            raise AwkError("division by zero attempted" + (" in `%'" if op == "%" else ""))
        return a / b if op == "/" else math.fmod(a, b)
    try:
        result = a**b
    except (OverflowError, ZeroDivisionError):
        return math.inf
    return result if isinstance(result, float) else math.nan


def compare(op: str, a: Any, b: Any) -> bool:
    if looks_numeric(a) and looks_numeric(b):
        x: Any = num(a)
        y: Any = num(b)
    else:
        x, y = text(a), text(b)
    result: bool = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[
        op
    ]
    return result
