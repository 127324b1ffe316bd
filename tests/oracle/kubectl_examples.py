"""A corpus nobody on this project wrote: the examples of the real kubectl's own `--help`.

`examples()` asks the real kubectl (the test oracle's binary) for the help of every command the
lab serves and of their subcommands (read from each help's "Available Commands"), and takes the
example lines of each ("Examples:"; a line ending in a backslash goes on). `runnable` keeps
those a learner can type in the lab's terminal as they stand: no shell around them (a pipe, a
redirection, `$(...)`, a here-document), no placeholders (`[options]`, `CONTEXT_NAME`), nothing
that waits on a terminal (`--watch`, `-f` on logs, `-it`, `wait`) and nothing about the
kubeconfig, which is the test's, not the lab's. The names they use (`nginx`, `foo`,
`web-pod-13je7`) are kept: most are missing from the lab's world, so the examples check the
errors a learner meets as much as the outputs.
"""

from __future__ import annotations

import functools
import re
import shlex
import subprocess

from simulators.lab.kubectl import VERBS
from simulators.lab.kubectl.unserved import ABSENT
from simulators.lab.kubectl.unserved import VERBS as UNSERVED

# What needs a shell, a terminal or the kubeconfig (see the module's docstring).
_SHELL = (" | ", "<(", "$(", " > ", "<<", ">>")
_TERMINAL = ("--watch", " -w", "logs -f", "--follow", " -it", " -i ", "wait ", "--timeout")
_PLACEHOLDER = re.compile(r"\[|\b[A-Z][A-Z_]{3,}\b")


def _help(binary: str, command: list[str]) -> str:
    result = subprocess.run(
        [binary, *command, "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    return result.stdout


def _subcommands(text: str) -> list[str]:
    block = text.split("Available Commands:", 1)[1] if "Available Commands:" in text else ""
    names = []
    for line in block.split("\n")[1:]:
        if not line.startswith("  ") or not line.strip():
            break
        names.append(line.split()[0])
    return names


def _examples(text: str) -> list[str]:
    block = text.split("Examples:", 1)[1].split("\nOptions:", 1)[0] if "Examples:" in text else ""
    lines: list[str] = []
    current = ""
    for raw in block.split("\n"):
        line = raw.strip()
        if current:
            current = current[:-1] + " " + line
        elif line.startswith("kubectl "):
            current = line
        else:
            continue
        if not current.endswith("\\"):
            lines.append(re.sub(r"\s+", " ", current))
            current = ""
    return lines


@functools.cache
def examples(binary: str) -> tuple[str, ...]:
    """Every example line of the commands the lab serves, in kubectl's order, each once."""
    served = [c for c in sorted(VERBS) if c not in UNSERVED and c not in ABSENT]
    found: list[str] = []
    for verb in served:
        text = _help(binary, [verb])
        commands = [[verb]] + [[verb, sub] for sub in _subcommands(text)]
        for command in commands:
            page = text if command == [verb] else _help(binary, command)
            found += [line for line in _examples(page) if line not in found]
    return tuple(found)


def runnable(line: str) -> bool:
    """Whether the example runs as it stands in a terminal with no shell around kubectl."""
    if any(mark in line for mark in (*_SHELL, *_TERMINAL)) or _PLACEHOLDER.search(line):
        return False
    if line.split()[1] in ("config", "cluster-info") or line.startswith("kubectl -"):
        return False
    try:
        words = shlex.split(line)
    except ValueError:
        return False
    return not (words[1] == "logs" and ("-f" in words or "--follow" in words))
