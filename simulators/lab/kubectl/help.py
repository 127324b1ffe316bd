"""kubectl's own help pages: `kubectl COMMAND --help`, `-h` and `kubectl help COMMAND`.

The pages in help/ are kubectl 1.36's own output for every command the lab serves and each of
their subcommands (`create deployment`, `set image`, `rollout undo`, `config view`, ...), one
file a page, written by `python -m tests.oracle.help_pages --write` from the real binary and
compared with it by tests/oracle/test_help_oracle.py. A page lists every flag kubectl has, the
few the lab refuses (an attached `run`, for one) included, as the real page does.

A command path is found by its words, a subcommand's alias too (`create deploy` is `create
deployment`: each page's "Aliases:" block), the longest path the words begin with winning, as
cobra finds the command before it reads the flag: `kubectl get pods --help` is get's page.

help/global/ holds the two pages that belong to no command: `kubectl --help` (kubectl.txt) and
`kubectl options` (options.txt).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from simulators.lab.gotext import go_sharp_quote

HELP_DIR = Path(__file__).with_name("help")
GLOBAL_DIR = HELP_DIR / "global"
_WORD = re.compile(r"[a-z][a-z0-9-]*")


def file_name(command: tuple[str, ...]) -> str:
    """The file of a command path's page: `create_deployment.txt`."""
    return "_".join(command) + ".txt"


@functools.cache
def _index() -> dict[tuple[str, ...], Path]:
    """Every command path, and each alias of its last word, to its page's file."""
    files = sorted(HELP_DIR.glob("*.txt"))
    paths = {tuple(path.stem.split("_")): path for path in files}
    index = dict(paths)
    for command, path in paths.items():
        text = path.read_text(encoding="utf-8")
        if "\nAliases:\n" not in text and not text.startswith("Aliases:\n"):
            continue
        names = text.split("Aliases:\n", 1)[1].split("\n", 1)[0]
        for alias in (name.strip() for name in names.split(",")):
            index.setdefault((*command[:-1], alias), path)
    return index


def _found(words: list[str]) -> Path | None:
    """The page's file of the longest command path `words` begin with that has one."""
    path: list[str] = []
    for word in words:
        if not _WORD.fullmatch(word):
            break
        path.append(word)
    index = _index()
    for end in range(len(path), 0, -1):
        found = index.get(tuple(path[:end]))
        if found is not None:
            return found
    return None


def page(words: list[str]) -> str | None:
    """The help page of the longest command path `words` begins with (without its final
    newline), or None when the first word names no command the lab has a page for."""
    found = _found(words)
    return None if found is None else found.read_text(encoding="utf-8").removesuffix("\n")


def command_path(words: list[str]) -> tuple[str, ...]:
    """The command `words` name, by its own names (`create deploy` is create deployment), as
    cobra's CommandPath names it in "See 'kubectl create deployment --help'"; the first word
    alone when it has no page."""
    found = _found(words)
    return tuple(found.stem.split("_")) if found is not None else tuple(words[:1])


@functools.cache
def global_page(name: str) -> str:
    """`kubectl --help` ("kubectl") or `kubectl options` ("options"), without the final newline."""
    return (GLOBAL_DIR / f"{name}.txt").read_text(encoding="utf-8").removesuffix("\n")


def unknown_topic(words: list[str]) -> str:
    """What `kubectl help WORDS` writes to stderr when WORDS name no command: cobra's "Unknown
    help topic" with the words as Go's %#q prints a slice of them, then the root command's usage
    (its page without the description above it)."""
    usage = global_page("kubectl").split("\n", 3)[3]
    return f"Unknown help topic [{' '.join(map(go_sharp_quote, words))}]\n\n{usage}"
