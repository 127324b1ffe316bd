"""What every create generator shares: its signature, the one NAME it takes, --image."""

from __future__ import annotations

from collections.abc import Callable

from simulators.cluster.api import Obj
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError

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
