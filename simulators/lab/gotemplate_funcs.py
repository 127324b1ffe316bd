"""Go's text/template builtins as kubectl's go-template runs them (text/template's funcs.go):
and, or, not, len, index, print, printf, println, the comparisons, and kubectl's exists and
base64decode; with the fmt printing they share (`printed` is %v, `sprintf` Printf's verbs).

Values are as gotemplate.py hands them over: JSON decoded, every number a float64 (printed as Go
prints one), a missing map key `NO_VALUE` (missingkey=default prints `<no value>`).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


class TemplateError(Exception):
    pass


NO_VALUE = object()  # a missing map key (missingkey=default)


def go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "float64"
    return "interface {}"


@dataclass(frozen=True)
class Func:
    name: str


def truth(value: Any) -> bool:
    if value is NO_VALUE or value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | str | list | dict):
        return bool(value)
    return True


def call(name: str, args: list[Any]) -> Any:
    if name == "len":
        (value,) = _arity(name, args, 1)
        if not isinstance(value, str | list | dict):
            raise TemplateError(f"error calling len: len of type {go_type(value)}")
        return len(value)
    if name == "index":
        if not args:
            raise TemplateError("wrong number of args for index: want at least 1 got 0")
        value = args[0]
        for key in args[1:]:
            if isinstance(value, list):
                if not isinstance(key, int | float) or not 0 <= int(key) < len(value):
                    raise TemplateError(f"error calling index: index out of range: {printed(key)}")
                value = value[int(key)]
            elif isinstance(value, dict):
                value = value.get(str(key), NO_VALUE)
            elif value is NO_VALUE or value is None:
                raise TemplateError("error calling index: index of untyped nil")
            else:
                raise TemplateError(
                    f"error calling index: can't index item of type {go_type(value)}"
                )
        return value
    if name == "not":
        (value,) = _arity(name, args, 1)
        return not truth(value)
    if name == "and":
        result: Any = NO_VALUE
        for value in args:
            result = value
            if not truth(value):
                break
        return result
    if name == "or":
        result = NO_VALUE
        for value in args:
            result = value
            if truth(value):
                break
        return result
    if name in ("eq", "ne", "lt", "le", "gt", "ge"):
        return _compare(name, args)
    if name == "print":
        return _sprint(args)
    if name == "println":
        return " ".join(printed(a) for a in args) + "\n"
    if name == "printf":
        if not args or not isinstance(args[0], str):
            raise TemplateError("wrong number of args for printf: want at least 1 got 0")
        return sprintf(args[0], args[1:])
    if name == "exists":
        if not args:
            return False
        value = args[0]
        for key in args[1:]:
            if not isinstance(value, dict) or key not in value:
                return False
            value = value[key]
        return True
    if name == "base64decode":
        (value,) = _arity(name, args, 1)
        try:
            return base64.b64decode(str(value), validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            raise TemplateError("error calling base64decode: illegal base64 data") from None
    raise TemplateError(f'function "{name}" not defined')


def _arity(name: str, args: list[Any], count: int) -> list[Any]:
    if len(args) != count:
        raise TemplateError(f"wrong number of args for {name}: want {count} got {len(args)}")
    return args


def _compare(name: str, args: list[Any]) -> bool:
    if len(args) < 2:
        raise TemplateError(f"wrong number of args for {name}: want 2 got {len(args)}")
    left = args[0]

    def norm(v: Any) -> Any:
        return None if v is NO_VALUE else v

    def one(right: Any) -> bool:
        a, b = norm(left), norm(right)
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
        if not numeric and type(a) is not type(b):
            raise TemplateError(f"error calling {name}: incompatible types for comparison")
        if name == "eq":
            return bool(a == b)
        if name == "ne":
            return bool(a != b)
        if isinstance(a, dict | list | bool) or a is None:
            raise TemplateError(f"error calling {name}: invalid type for comparison")
        return bool({"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[name])

    if name == "eq":
        return any(one(r) for r in args[1:])
    return one(args[1])


# ------------------------------------------------------------------------- printing


def go_float(value: float) -> str:
    """fmt's %v of a float64: strconv's 'g' with the shortest digits, which takes an
    exponent below 1e-4 and from 1e6 on (`1e+06`, a known kubectl surprise)."""
    if value == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(float(value))).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(str(d) for d in digits)
    exp = len(text) + exponent - 1
    prefix = "-" if sign else ""
    if exp < -4 or exp >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp < 0:
        return f"{prefix}0.{'0' * (-exp - 1)}{text}"
    if len(text) <= exp + 1:
        return prefix + text + "0" * (exp + 1 - len(text))
    return f"{prefix}{text[: exp + 1]}.{text[exp + 1 :]}"


def printed(value: Any, top: bool = True) -> str:
    """fmt.Sprint of a value as text/template prints it."""
    if value is NO_VALUE:
        return "<no value>"
    if value is None:
        return "<nil>" if not top else "<no value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        inner = " ".join(f"{k}:{printed(value[k], False)}" for k in sorted(value))
        return f"map[{inner}]"
    if isinstance(value, list):
        return "[" + " ".join(printed(v, False) for v in value) + "]"
    return str(value)


def _sprint(args: list[Any]) -> str:
    """fmt.Sprint: a space between operands when neither is a string."""
    out = ""
    for i, arg in enumerate(args):
        if i and not isinstance(arg, str) and not isinstance(args[i - 1], str):
            out += " "
        out += printed(arg, False)
    return out


_VERB = re.compile(r"%([-+# 0]*)(\d+|\*)?(?:\.(\d+))?([a-zA-Z%])")


def sprintf(fmt: str, args: list[Any]) -> str:
    """fmt.Sprintf for %s %v %d %f %q %t %x %% with flags, width and precision."""
    out: list[str] = []
    pos = 0
    index = 0
    for m in _VERB.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        flags, width, precision, verb = m.groups()
        if verb == "%":
            out.append("%")
            continue
        if index >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        arg = args[index]
        index += 1
        text = _format_verb(verb, arg, precision)
        if width and width != "*":
            size = int(width)
            if "-" in flags:
                text = text.ljust(size)
            elif "0" in flags and verb in "dfx":
                text = text.rjust(size, "0")
            else:
                text = text.rjust(size)
        out.append(text)
    out.append(fmt[pos:])
    if index < len(args):
        extra = ", ".join(f"{go_type(a)}={printed(a, False)}" for a in args[index:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


def _format_verb(verb: str, arg: Any, precision: str | None) -> str:
    if verb in ("s", "v"):
        text = printed(arg, False) if arg is not NO_VALUE else "<nil>"
        return text[: int(precision)] if precision and verb == "s" else text
    if verb == "d":
        if isinstance(arg, int | float) and not isinstance(arg, bool) and float(arg).is_integer():
            return str(int(arg))
        return f"%!d({go_type(arg)}={printed(arg, False)})"
    if verb == "f":
        if isinstance(arg, int | float) and not isinstance(arg, bool):
            return f"{float(arg):.{int(precision) if precision else 6}f}"
        return f"%!f({go_type(arg)}={printed(arg, False)})"
    if verb == "q":
        return '"' + printed(arg, False).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if verb == "t":
        return printed(arg, False) if isinstance(arg, bool) else f"%!t({go_type(arg)})"
    if verb == "x":
        if isinstance(arg, str):
            return arg.encode().hex()
        if isinstance(arg, int | float) and float(arg).is_integer():
            return format(int(arg), "x")
    return f"%!{verb}({go_type(arg)}={printed(arg, False)})"
