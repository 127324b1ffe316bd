"""What every create generator shares: its signature, the one NAME it takes, --image and
--from-literal."""

from __future__ import annotations

import base64
from collections.abc import Callable

from simulators.cluster.api import Obj
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError

OPTIONS_LINE = (
    'Use "kubectl options" for a list of global command-line options (applies to all commands).'
)
Generator = Callable[[str, Parsed, list[str]], tuple[str, Obj]]


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


def literals(parsed: Parsed, encode: bool) -> dict[str, str]:
    """--from-literal's key=value pairs (base64-encoded values for a Secret's data)."""
    data: dict[str, str] = {}
    for literal in parsed.all("from-literal"):
        key, sep, value = literal.partition("=")
        if not sep or not key:
            raise KubectlError(f"error: invalid literal source {literal}, expected key=value")
        data[key] = base64.b64encode(value.encode()).decode() if encode else value
    return data
