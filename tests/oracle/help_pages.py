"""The real kubectl's help pages for every command the lab serves, and their subcommands.

`pages(binary)` asks the real kubectl (the test oracle's binary) for `COMMAND --help` of every
command the lab's kubectl serves, and of their subcommands to any depth (read from each page's
"Available Commands"), and `global_pages(binary)` the two that belong to no command (`kubectl
--help`, `kubectl options`, the latter with the admin host's HOME). The lab prints the same
pages (simulators/lab/kubectl/help.py) from its copies in simulators/lab/kubectl/help/, which
this module writes:

    .venv/bin/python -m tests.oracle.help_pages --write

Run it when the oracle's kubectl changes version; tests/oracle/test_help_oracle.py then says
which pages differ from the binary's.
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys

from simulators.lab.environment import HOME
from simulators.lab.kubectl import VERBS
from simulators.lab.kubectl.help import GLOBAL_DIR, HELP_DIR, file_name
from simulators.lab.kubectl.unserved import ABSENT
from simulators.lab.kubectl.unserved import VERBS as UNSERVED
from tests.cluster_server import kubectl_binary
from tests.oracle.kubectl_examples import _help, _subcommands


@functools.cache
def pages(binary: str) -> dict[tuple[str, ...], str]:
    """Each served command path and its help page, as the binary prints it."""
    found: dict[tuple[str, ...], str] = {}
    waiting = [(verb,) for verb in sorted(VERBS) if verb not in UNSERVED and verb not in ABSENT]
    while waiting:
        command = waiting.pop(0)
        text = _help(binary, list(command))
        found[command] = text
        waiting += [(*command, sub) for sub in _subcommands(text)]
    return found


@functools.cache
def global_pages(binary: str) -> dict[str, str]:
    """`kubectl --help` ("kubectl") and `kubectl options` ("options"), as the binary prints them
    for the lab's user (HOME is in options' `--cache-dir`)."""
    env = {**os.environ, "HOME": HOME}
    return {
        name: subprocess.run(
            [binary, *argv], capture_output=True, text=True, env=env, timeout=60, check=True
        ).stdout
        for name, argv in (("kubectl", ["--help"]), ("options", ["options"]))
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the lab's copies")
    args = parser.parse_args()
    binary = kubectl_binary()
    if binary is None:
        sys.exit("the real kubectl is not installed (make setup-test)")
    found = pages(binary)
    if args.write:
        for old in HELP_DIR.glob("*.txt"):
            old.unlink()
        for command, text in found.items():
            (HELP_DIR / file_name(command)).write_text(text, encoding="utf-8")
        GLOBAL_DIR.mkdir(exist_ok=True)
        for name, text in global_pages(binary).items():
            (GLOBAL_DIR / f"{name}.txt").write_text(text, encoding="utf-8")
    print(f"{len(found)} pages, {sum(map(len, found.values())):,} characters")


if __name__ == "__main__":
    main()
