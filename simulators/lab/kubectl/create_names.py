"""What every create generator shares: its signature, the one NAME it takes, --image, pflag's
StringSlice and Int32 flags, and the usage line a flag's mistake ends with."""

from __future__ import annotations

import re
from collections.abc import Callable

from simulators.cluster.api import Obj
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError

OPTIONS_LINE = (
    'Use "kubectl options" for a list of global command-line options (applies to all commands).'
)
Generator = Callable[[str, Parsed, list[str]], tuple[str, Obj]]
# strconv.ParseInt's base-0 syntax: a sign, then a 0x/0o/0b prefix or a leading 0 (octal).
_GO_INT = re.compile(
    r"[+-]?(0[xX](_?[0-9a-fA-F])+|0[oO](_?[0-7])+|0[bB](_?[01])+|0(_?[0-7])*|[1-9](_?[0-9])*)"
)


def usage_line(command: str) -> str:
    return f"See 'kubectl {command} -h' for help and examples"


def one_name(command: str, names: list[str]) -> str:
    if len(names) != 1:
        raise KubectlError(
            f"error: exactly one NAME is required, got {len(names)}\n{usage_line(command)}"
        )
    return names[0]


def image_flag(parsed: Parsed) -> list[str]:
    images = parsed.all("image")
    if not images:
        raise KubectlError('error: required flag(s) "image" not set')
    return images


def string_slice(parsed: Parsed, key: str) -> list[str]:
    """pflag's StringSlice: every use of the flag, each split at commas (an empty use adds
    nothing)."""
    return [part for value in parsed.all(key) if value for part in value.split(",")]


def go_int(text: str, bits: int) -> int:
    """strconv.ParseInt(text, 0, bits); ValueError carries its reason ("invalid syntax",
    "value out of range")."""
    if not _GO_INT.fullmatch(text):
        raise ValueError("invalid syntax")
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").replace("_", "")
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        value = int(digits, 8)
    else:
        value = int(digits, 0)
    value *= sign
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise ValueError("value out of range")
    return value


def int_flag(command: str, parsed: Parsed, key: str, default: int, bits: int = 32) -> int:
    """An IntVar/Int32Var flag's value (`default` when not given), or pflag's error and the
    command's usage line."""
    text = parsed.value(key)
    if text is None:
        return default
    try:
        return go_int(text, bits)
    except ValueError as exc:
        shown = "-r, --replicas" if key == "replicas" else f"--{key}"
        raise KubectlError(
            f'error: invalid argument "{text}" for "{shown}" flag: strconv.ParseInt: parsing '
            f"\"{text}\": {exc}\nSee 'kubectl {command} --help' for usage."
        ) from None
