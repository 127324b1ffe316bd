"""Where a construct the shell's lexer reads (simulators.lab.shell_syntax) ends: the `)` of a
`$(`, the `))` of a `$((`, the `}` of a `${`, the `]` of an array's subscript; quotes and
backslashes skipped. -1 where it does not end in the text."""

from __future__ import annotations

# $( ... ) inside $( ... ): deeper than this is refused rather than followed.
MAX_NESTING = 8


class ShellSyntaxError(Exception):
    """bash's own words for a line it cannot parse."""


def parameter_end(text: str, start: int) -> int:
    """Where the `}` closing a `${` whose inside starts at `start` is (-1: none): past nested
    `${...}`, quotes and backslashes (`${A:-${HOME}/x}`, `${A:-"}"}`)."""
    depth, at, n = 0, start, len(text)
    while at < n:
        ch = text[at]
        if ch == "\\":
            at += 2
            continue
        if ch == "'" or ch == '"':
            close = text.find(ch, at + 1)
            if close < 0:
                return -1
            at = close + 1
            continue
        if text.startswith("${", at):
            depth += 1
            at += 2
            continue
        if ch == "}":
            if depth == 0:
                return at
            depth -= 1
        at += 1
    return -1


def arithmetic_end(text: str, start: int) -> int:
    """Where the `))` closing a `$((` whose expression starts at `start` is (-1: none)."""
    depth = 0
    for at in range(start, len(text)):
        if text[at] == "(":
            depth += 1
        elif text[at] == ")":
            if depth == 0:
                return at if text.startswith("))", at) else -1
            depth -= 1
    return -1


def matching_paren(text: str, start: int) -> int:
    """Index of the `)` closing a `$(` whose body starts at `start`, or -1 (quotes skipped)."""
    depth = 1
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return -1
            i = end + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            depth += 1
            if depth > MAX_NESTING:
                raise ShellSyntaxError("bash: command substitution nested too deeply for this lab")
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def subscript_end(text: str, start: int) -> int:
    """Where the `]` closing a `[` whose inside starts at `start` is (-1: none): brackets nest,
    quotes, backslashes, `$(...)` and `${...}` are skipped."""
    depth, at, n = 0, start, len(text)
    while at < n:
        ch = text[at]
        if ch == "\\":
            at += 2
            continue
        if ch in "'\"":
            close = text.find(ch, at + 1)
            if close < 0:
                return -1
            at = close + 1
            continue
        if text.startswith("$(", at) or text.startswith("${", at):
            close = (matching_paren if ch == "$" and text[at + 1] == "(" else parameter_end)(
                text, at + 2
            )
            if close < 0:
                return -1
            at = close + 1
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            if depth == 0:
                return at
            depth -= 1
        at += 1
    return -1
