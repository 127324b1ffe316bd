"""kubectl options: the flags every command takes, as kubectl 1.36 prints them.

The page is the real kubectl's (help/global/options.txt, written by `python -m
tests.oracle.help_pages --write` with the admin host's HOME, so `--cache-dir` names
/home/admin/.kube/cache). kubectl prints it whatever the arguments; a flag that is not a global
one is refused with "Run 'kubectl options' without flags.", and `--help` prints nothing, as there;
-v's level shows on the page as kubectl read it (log_verbosity).
"""

from __future__ import annotations

import re

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import COMMON
from simulators.lab.kubectl.help import global_page
from simulators.lab.tool import Context, Output

HINT = "Run 'kubectl options' without flags."
# "    -n, --namespace='':" and "    --insecure-skip-tls-verify=false:", one a flag on the page.
_FLAG_LINE = re.compile(r"    (?:-(?P<short>\w), )?--(?P<long>[\w-]+)=(?P<default>.*):")


def _global_flags() -> list[Flag]:
    """Every global flag on the page (the lab's own first, under their keys), a boolean where
    its default is false, and the help flag: what kubectl's root command knows."""
    known = {flag.long for flag in COMMON}
    found = [
        Flag(m["long"], long=m["long"], short=m["short"] or "", takes_value=m["default"] != "false")
        for m in map(_FLAG_LINE.fullmatch, global_page("options").split("\n"))
        if m and m["long"] not in known
    ]
    return [*COMMON, *found]


# Every global flag: `kubectl options` and the root command take them and do nothing with them.
FLAGS = _global_flags()
# What cobra's Find knows when it looks for the command: the same, less the help flag.
ROOT_FLAGS = [flag for flag in FLAGS if flag.key != "help"]


def run(ctx: Context, parsed: Parsed) -> Output:
    """The page, with -v's level as kubectl set it before it read any flag (log_verbosity)."""
    text = global_page("options")
    level = log_verbosity(parsed.words)
    return Output(text.replace("    -v, --v=0:", f"    -v, --v={level}:", 1))


def log_verbosity(words: list[str]) -> int:
    """kubectl's GetLogVerbosity, which sets klog's level from the raw words before cobra
    reads them (what `kubectl options` then shows; the command's own name among them changes
    nothing): the word after the first `-v`/`--v`, or
    what follows the `=` of the first word holding `--v=`/`-v=`, up to `--`; a level klog's
    flag takes as it is (digits), else 0."""
    found = "0"
    for position, word in enumerate(words):
        if word == "--":
            break
        if word in ("-v", "--v"):
            found = words[position + 1] if position + 1 < len(words) else "0"
            break
        if "--v=" in word or "-v=" in word:
            value = word.split("=")[1]
            if value:
                found = value
                break
    return int(found) if found.isdigit() and int(found) < 2**31 else 0
