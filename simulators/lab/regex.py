"""Regular expressions for the lab's tools (grep, sed, awk): POSIX basic and extended syntax
translated to RE2's, whose matching time is linear in the text, since a web worker must never
hang on a pattern a learner typed."""

from __future__ import annotations

import re
from typing import Protocol

import re2


class RegexError(Exception):
    pass


MAX_PATTERN = 512


class Match(Protocol):
    def start(self) -> int: ...
    def end(self) -> int: ...
    def span(self, group: int = 0) -> tuple[int, int]: ...
    def expand(self, template: str) -> str: ...


class Regex(Protocol):
    def search(self, text: str, pos: int = 0) -> Match | None: ...
    def finditer(self, text: str) -> list[Match]: ...
    def subn(self, repl: str, text: str, count: int = 0) -> tuple[str, int]: ...
    def fullmatch(self, text: str, pos: int = 0, endpos: int = ...) -> Match | None: ...


def compile_regex(pattern: str, ignore_case: bool = False, longest: bool = False) -> Regex:
    """RE2, whose matching time is linear in the text: no pattern can freeze the lab.

    RE2 lacks backreferences in the pattern (as GNU grep -E mostly does too) and
    reports them as an invalid expression. `longest`: POSIX's leftmost-longest match (what
    grep's -o prints) rather than Perl's leftmost-first. `.` matches a newline too, as in GNU
    sed's pattern space (after N or G) and gawk's records; `^` and `$` only at the text's ends.
    """
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignore_case
    options.longest_match = longest
    options.dot_nl = True
    options.max_mem = 8 << 20
    try:
        regex: Regex = re2.compile(pattern, options)
    except re2.error:
        raise RegexError("Invalid preceding regular expression") from None
    return regex


def translate(pattern: str, extended: bool) -> str:
    """A POSIX BRE (or ERE) as a Python regular expression."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            i += 2
            if not extended and nxt in "(){}+?|":
                out.append(nxt)
            elif extended and nxt in "(){}+?|":
                out.append("\\" + nxt)
            elif nxt == "n":
                out.append("\\n")
            elif nxt == "t":
                out.append("\\t")
            elif nxt.isdigit():
                out.append("\\" + nxt)
            elif nxt in "wWsSbB<>":
                out.append({"<": r"\b", ">": r"\b"}.get(nxt, "\\" + nxt))
            else:
                out.append(re.escape(nxt))
            continue
        if ch == "[":
            close = _bracket_end(pattern, i)
            if close < 0:
                raise RegexError("unterminated address regex")
            body = pattern[i + 1 : close]
            body = (
                body.replace("[:alpha:]", "a-zA-Z")
                .replace("[:digit:]", "0-9")
                .replace("[:alnum:]", "a-zA-Z0-9")
                .replace("[:space:]", r"\s")
                .replace("[:upper:]", "A-Z")
                .replace("[:lower:]", "a-z")
            )
            body = body.replace("\\", "\\\\")
            out.append("[" + body + "]")
            i = close + 1
            continue
        if not extended and ch in "(){}+?|":
            out.append("\\" + ch)
        else:
            out.append(ch)
        i += 1
    result = "".join(out)
    if len(result) > MAX_PATTERN:
        raise RegexError("regular expression too long for this lab")
    return result


def _bracket_end(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern):
        if pattern[i] == "[" and i + 1 < len(pattern) and pattern[i + 1] == ":":
            end = pattern.find(":]", i + 2)
            if end < 0:
                return -1
            i = end + 2
            continue
        if pattern[i] == "]":
            return i
        i += 1
    return -1
