"""bash's pattern matching, one rule for every place that matches a pattern: `case`, `[[ == ]]`
and `[[ != ]]` (simulators.lab.conditions), and the names a glob matches (simulators.lab.
shell_expansion), letters in either case under nocasematch and nocaseglob (simulators.lab.
shell_shopt)."""

from __future__ import annotations

import fnmatch


def matches(text: str, pattern: str, nocase: bool = False) -> bool:
    """Whether `text` matches the bash pattern `pattern` whole; with `nocase`, letters in
    either case."""
    if nocase:
        return fnmatch.fnmatchcase(text.casefold(), pattern.casefold())
    return fnmatch.fnmatchcase(text, pattern)
