"""The verbs the lab's cluster cannot serve: one line naming the limit (``unsupported.LIMITS``).

``port-forward``, ``attach``, ``cp`` and ``debug`` need a process inside a pod, and so does an
interactive ``run`` (``-i``/``--stdin``, alone or as ``-it``): the lab's kubectl says so in the
words the API server uses for the real kubectl, before parsing anything else.
"""

from __future__ import annotations

from simulators.cluster.unsupported import limit
from simulators.lab.tool import Output

VERBS = ("port-forward", "attach", "cp", "debug")


def _interactive(args: list[str]) -> bool:
    for arg in args:
        if arg == "--":
            return False
        if arg in ("--stdin", "--stdin=true") or (
            arg.startswith("-") and not arg.startswith("--") and "i" in arg[1:].split("=")[0]
        ):
            return True
    return False


def refusal(verb: str, args: list[str]) -> Output | None:
    """``error: <the lab's limit>`` for a verb it cannot serve, else None."""
    if verb in VERBS:
        return Output.error(f"error: {limit(verb)}")
    if verb == "run" and _interactive(args):
        return Output.error(f"error: {limit('run -i')}")
    return None
