"""`python -m simulators COMMAND ...`: the engine and the lab without the web."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from typing import cast

# name -> (module with `main(argv) -> int`, one line for --help)
COMMANDS: dict[str, tuple[str, str]] = {
    "fairshare": ("simulators.engine.cli", "each queue's fair share of a pool (JSON in and out)"),
    "reclaim": ("simulators.engine.cli", "one reclaim action on a scene (JSON in and out)"),
    "cycle": ("simulators.engine.cli", "a whole scheduling cycle on a scene, with its events"),
    "lab": ("simulators.lab.cli", "the lab terminal on stdin/stdout: --ticket ID [--json]"),
    "apiserver": (
        "simulators.lab.apiserver",
        "a ticket's cluster as a Kubernetes API for your kubectl: --ticket ID [--kubeconfig P]",
    ),
    "scheduler": (
        "simulators.scheduler.cli",
        "the engine as runai-scheduler on a cluster: --kubeconfig PATH",
    ),
}

# The engine's commands take their own name as the first argument.
_WITH_NAME = {"fairshare", "reclaim", "cycle"}


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: python -m simulators COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<{width}}  {summary}" for name, (_m, summary) in COMMANDS.items()]
    lines += ["", "The engine's commands read JSON from FILE, or standard input without one."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    name = args[0]
    if name not in COMMANDS:
        print(f"error: unknown command {name!r}\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    command = cast(Callable[[list[str]], int], module.main)
    try:
        return int(command(args if name in _WITH_NAME else args[1:]))
    except Exception as error:
        # The last line of defence for the command line: one line, never a traceback.
        print(f"error: {type(error).__name__}: {' '.join(str(error).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
