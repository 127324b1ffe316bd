"""`python -m simulators fairshare|reclaim|cycle|lab|apiserver ...`."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "lab":
        # Imported here so the engine's commands work before the lab module exists.
        import importlib

        try:
            lab_cli = importlib.import_module("simulators.lab.cli")
        except ImportError as error:
            print(f"error: the lab terminal is not available: {error}", file=sys.stderr)
            return 2
        return int(lab_cli.main(args[1:]))
    if args and args[0] == "scheduler":
        return int(__import__("simulators.scheduler.cli", fromlist=["main"]).main(args[1:]))
    if args and args[0] == "apiserver":
        from simulators.cluster.serve import main as apiserver_main

        return apiserver_main(args[1:])
    from simulators.engine.cli import main as engine_main

    try:
        return engine_main(args)
    except Exception as error:
        print(f"error: {type(error).__name__}: {' '.join(str(error).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
