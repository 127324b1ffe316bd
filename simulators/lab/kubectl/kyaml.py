"""KYAML, as `kubectl -o kyaml` prints it: a port of sigs.k8s.io/yaml/kyaml (kyaml/kyaml.go,
v1.6.0, the version kubectl 1.36 vendors), the non-compact path of Encoder.FromObject, as
cli-runtime's printers.KYAMLPrinter calls it once per object.

Contract: `to_kyaml(doc)` takes the JSON-like value the lab prints for `-o json` (dicts, lists,
str, int, float, bool, None) and returns one KYAML document: `---`, the value, a newline.
FromObject marshals to JSON and reads that JSON back as YAML nodes, so a map keeps the order of
its JSON (sorted keys for an unstructured object, `sort_keys=True`; a typed object's struct
order when the caller passes it ordered and `sort_keys=False`), and a number is printed as Go's
encoding/json wrote it (`8` for a whole float, `1e-7`, `1e+21`).

The rendering follows kyaml.go: strings always double-quoted (multi-line ones with YAML line
folding: `"\\` then one line per source line, each ending `\\n\\`), keys bare unless
needsQuotes/isTypeAmbiguous says otherwise, numbers/bools/null as they are, `{}` and `[]` when
empty, a trailing comma after every item, two spaces per level, and a list whose items are all
maps or lists "cuddled" (`[{`, `}, {`, `}]`). Comments and aliases never occur in JSON input.
"""

from __future__ import annotations

import calendar
import math
import re
import unicodedata
from decimal import Decimal
from typing import Any

from simulators.lab import budget
from simulators.lab.flags import parse_bool
from simulators.lab.kubectl.logs_options import parse_int

_FOLD = "\\\n"
# Escapes renderString overrides: the regular (value) map folds lines, the compact (key) one
# escapes them.
_REGULAR = {"\n": "\\n" + _FOLD, "\t": "\t"}
_COMPACT = {"\n": "\\n", "\t": "\\t"}
_NAMED = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\x00": "\\0",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
}
# unicode.IsSpace: Latin-1's six plus U+0085 and U+00A0, then the White_Space property.
_GO_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)


def to_kyaml(doc: Any, *, sort_keys: bool = True) -> str:
    """One KYAML document with its `---` header and trailing newline (Encoder.FromObject)."""
    out: list[str] = ["---\n"]
    _render(doc, 0, sort_keys, out)
    out.append("\n")
    return "".join(out)


def _render(value: Any, indent: int, sort_keys: bool, out: list[str]) -> None:
    if isinstance(value, dict):
        _render_mapping(value, indent, sort_keys, out)
    elif isinstance(value, list | tuple):
        _render_sequence(list(value), indent, sort_keys, out)
    elif isinstance(value, str):
        out.append(_render_string(value, indent + 1))
    else:
        out.append(_scalar(value))


def _scalar(value: Any) -> str:
    """A JSON number, bool or null as encoding/json writes it (renderScalar prints it as is)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json_float(value)
    raise TypeError(f"kyaml: cannot render {type(value).__name__}")


def json_float(value: float) -> str:
    """encoding/json's float64: 'f' format, or 'e' below 1e-6 / from 1e21 with e-07 as e-7."""
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    exact = Decimal(repr(value))  # repr gives the shortest digits that round-trip, as Go does
    if 1e-6 <= abs(value) < 1e21:
        return str(int(value)) if value.is_integer() else format(exact, "f")
    sign, digits, exponent = exact.as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = exponent + len(digits) - 1
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    exp = f"{'-' if power < 0 else '+'}{abs(power):02d}"
    if exp.startswith("-0"):
        exp = "-" + exp[2:]
    return f"{'-' if sign else ''}{mantissa}e{exp}"


def _render_mapping(value: dict[str, Any], indent: int, sort_keys: bool, out: list[str]) -> None:
    if not value:
        out.append("{}")
        return
    budget.check_time()
    out.append("{\n")
    pad = "  " * (indent + 1)
    for key in sorted(value) if sort_keys else value:
        # Mapping keys are always strings, quoted only when they must be (lazy and compact).
        out.append(f"{pad}{_render_key(str(key))}: ")
        _render(value[key], indent + 1, sort_keys, out)
        out.append(",\n")
    out.append("  " * indent + "}")


def _render_sequence(items: list[Any], indent: int, sort_keys: bool, out: list[str]) -> None:
    if not items:
        out.append("[]")
        return
    if all(isinstance(item, dict | list | tuple) for item in items):
        # Cuddled: a list of maps or lists, each item starting where the last one ended.
        out.append("[")
        for i, item in enumerate(items):
            if i:
                out.append(", ")
            _render(item, indent, sort_keys, out)
        out.append("]")
        return
    out.append("[\n" + "  " * indent)
    for item in items:
        out.append("  ")
        _render(item, indent + 1, sort_keys, out)
        out.append(",\n" + "  " * indent)
    out.append("]")


def _render_key(key: str) -> str:
    if "\n" not in key and not needs_quotes(key):
        return key
    return _quote(key, 0, _COMPACT, multi=False)


def _render_string(value: str, indent: int) -> str:
    """renderString for a value: always quoted, line-folded when it spans lines."""
    return _quote(value, indent, _REGULAR, multi="\n" in value)


def _quote(value: str, indent: int, overrides: dict[str, str], *, multi: bool) -> str:
    buf = ['"' + (_FOLD if multi else "")]
    pad = "  " * indent
    after_newline = multi
    for char in value:
        if 0xD800 <= ord(char) <= 0xDFFF:
            char = "\ufffd"  # encoding/json has already replaced what is not UTF-8
        if after_newline:
            # Leading whitespace of a folded line is kept by escaping it; others get a space.
            buf.append(pad + ("\\" if char in _GO_SPACE and char != "\n" else " "))
        text = overrides.get(char) or _escape(char)
        buf.append(text)
        after_newline = text.endswith("\n")
    if multi:
        buf.append(("" if after_newline else _FOLD) + pad)
    buf.append('"')
    return "".join(buf)


def _escape(char: str) -> str:
    if char in ('"', "\\"):
        return "\\" + char
    if _is_print(char):
        return char
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _is_print(char: str) -> bool:
    """unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space."""
    return char == " " or unicodedata.category(char)[0] in "LMNPS"


def needs_quotes(key: str) -> bool:
    """needsQuotes: empty, type-ambiguous, or anything but letters, numbers and `_` (with `-`,
    `.` and `/` allowed inside)."""
    if key == "" or is_type_ambiguous(key):
        return True
    last = len(key) - 1
    for i, char in enumerate(key):
        if char == "_" or unicodedata.category(char)[0] in "LN":
            continue
        if 0 < i < last and char in "-./":
            continue
        return True
    return False


_SEXAGESIMAL = re.compile(r"[+-]?[1-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?")
_YAML_WORDS = frozenset(
    ("null", "~", "", "true", "y", "yes", "on", "false", "n", "no", "off", ".inf", "-.inf")
) | {"+.inf", ".nan"}


def is_type_ambiguous(text: str) -> bool:
    """isTypeAmbiguous: would a YAML parser read the bare text as null, a bool, a number
    (Go's ParseInt base 0 or ParseFloat, underscores dropped), sexagesimal, or a timestamp?"""
    if (len(text) <= 5 and text.lower() in _YAML_WORDS) or parse_bool(text) is not None:
        return True
    bare = text.replace("_", "")
    if _go_parse_int(bare) or _go_parse_float(bare):
        return True
    return bool(_SEXAGESIMAL.fullmatch(text)) or _is_timestamp(text)


def _go_parse_int(text: str) -> bool:
    """strconv.ParseInt(text, 0, 64) succeeds (in int64's range)."""
    try:
        parse_int(text)
    except ValueError:
        return False
    return True


_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_HEX_FLOAT = re.compile(r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+")
_SPECIAL_FLOATS = frozenset(("inf", "infinity", "nan"))


def _go_parse_float(text: str) -> bool:
    """strconv.ParseFloat(text, 64) succeeds: well formed and not out of range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if body.lower() in _SPECIAL_FLOATS:
        return True
    try:
        if _DECIMAL.fullmatch(text):
            return math.isfinite(float(text))
        if _HEX_FLOAT.fullmatch(text):
            sign = "-" if text.startswith("-") else ""
            return math.isfinite(float.fromhex(sign + body))
    except OverflowError:
        return False
    return False


# The formats go-yaml v2 tries with time.Parse ("2006-1-2T15:4:5.999999999Z07:00", with a
# lower-case t, "2006-1-2 15:4:5.999999999", "2006-1-2"): one- or two-digit fields, an
# optional fraction (`.` or `,`), and a zone (Z or ±hh:mm) only after a T.
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9][0-9]?)-([0-9][0-9]?)"
    r"(?:(?P<sep>[Tt ])([0-9][0-9]?):([0-9][0-9]?):([0-9][0-9]?)(?:[.,][0-9]+)?"
    r"(?P<zone>Z|[+-]([0-9]{2}):([0-9]{2}))?)?"
)


def _is_timestamp(text: str) -> bool:
    match = _TIMESTAMP.fullmatch(text)
    if not match:
        return False
    year, month, day = (int(g) for g in match.group(1, 2, 3))
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return False
    if match.group("sep") is None:
        return True
    zone = match.group("zone")
    if (match.group("sep") == " ") != (zone is None):
        return False  # the T forms need a zone; the space form takes none
    hour, minute, second = (int(g) for g in match.group(5, 6, 7))
    if hour > 23 or minute > 59 or second > 59:
        return False
    return zone in (None, "Z") or (int(match.group(9)) <= 24 and int(match.group(10)) <= 60)
