"""bash's parameter operators on a variable's value: `${v#pat}` `${v##pat}` `${v%pat}`
`${v%%pat}` (the shortest or longest prefix or suffix matching a glob pattern taken off),
`${v/pat/rep}` `${v//pat/rep}` `${v/#pat/rep}` `${v/%pat/rep}` (the first, every, a leading or
a trailing longest match replaced), `${v^}` `${v^^}` `${v,}` `${v,,}` (case), and `${v:off}`
`${v:off:len}` (a substring, each an arithmetic expression; a negative offset after a space
or in parentheses counts from the end). Patterns are globs run on RE2 (simulators.lab.regex:
linear in the value, leftmost-longest as bash's replacements are); a scan over prefixes or
suffixes checks the command's budget."""

from __future__ import annotations

import re
from collections.abc import Callable

from simulators.lab import budget
from simulators.lab.regex import Regex, compile_regex

# NAME, then the operator, then its word (a pattern, a replacement, offsets).
OPERATOR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(##|#|%%|%|//|/|\^\^|\^|,,|,|:)(.*)", re.S)


class BadSubstitution(Exception):
    """bash's `bad substitution` for an operator's word it cannot read."""


def apply(
    value: str,
    operator: str,
    word: str,
    expand: Callable[[str], str],
    evaluate: Callable[[str], int] | None = None,
) -> str:
    """The value after `operator` with its `word` (`expand` expands $VAR and $(...) in a
    pattern or a replacement first)."""
    if operator == ":":
        return _substring(value, word, evaluate or _number)
    if operator in ("^", "^^", ",", ",,"):
        change = str.upper if operator[0] == "^" else str.lower
        return change(value) if len(operator) == 2 else change(value[:1]) + value[1:]
    if operator in ("/", "//"):
        pattern, _, replacement = word.partition("/")
        return _replace(value, pattern, expand(replacement), every=operator == "//", expand=expand)
    glob = _glob(expand(word))
    if operator in ("#", "##"):
        ends = range(len(value) + 1) if operator == "#" else range(len(value), -1, -1)
        for end in ends:
            _tick(end)
            if glob.fullmatch(value, 0, end):
                return value[end:]
        return value
    starts = range(len(value), -1, -1) if operator == "%" else range(len(value) + 1)
    for start in starts:
        _tick(start)
        if glob.fullmatch(value, start):
            return value[:start]
    return value


def _replace(
    value: str, pattern: str, replacement: str, every: bool, expand: Callable[[str], str]
) -> str:
    anchor = pattern[:1] if pattern[:1] in ("#", "%") and not every else ""
    glob = _glob(expand(pattern[len(anchor) :]))

    def made(matched: str) -> str:
        # bash 5.2's patsub_replacement (on by default): `&` is the match, `\&` an &.
        return re.sub(r"\\&|&", lambda m: "&" if len(m.group()) == 2 else matched, replacement)

    if anchor == "#":
        for end in range(len(value), -1, -1):
            _tick(end)
            if glob.fullmatch(value, 0, end):
                return made(value[:end]) + value[end:]
        return value
    if anchor == "%":
        for start in range(len(value) + 1):
            _tick(start)
            if glob.fullmatch(value, start):
                return value[:start] + made(value[start:])
        return value
    if not value:  # an empty value is replaced where the pattern matches nothing (`*`)
        return made("") if glob.fullmatch(value) else value
    out: list[str] = []
    at = 0
    for match in glob.finditer(value):
        start, end = match.span()
        if end == start:
            continue  # bash replaces no empty match
        out += [value[at:start], made(value[start:end])]
        _tick(len(out))
        at = end
        if not every:
            break
    return "".join(out) + value[at:]


def _substring(value: str, word: str, evaluate: Callable[[str], int]) -> str:
    """`${v:offset:length}`: each an arithmetic expression (`evaluate`), empty as 0."""
    offset_text, sep, length_text = word.partition(":")
    offset = evaluate(offset_text) if offset_text.strip() else 0
    start = max(0, len(value) + offset) if offset < 0 else min(offset, len(value))
    if not length_text.strip():
        return "" if sep else value[start:]
    length = evaluate(length_text)
    end = len(value) + length if length < 0 else start + length
    if end < start:
        raise BadSubstitution(f"{length_text.strip()}: substring expression < 0")
    return value[start:end]


def _number(text: str) -> int:
    stripped = text.strip().strip("()").strip()
    body = stripped[1:] if stripped[:1] in "+-" else stripped
    if not body.isdigit() or len(body) > 9:
        raise BadSubstitution(f"{text.strip()}: arithmetic is not available in this lab")
    return int(stripped)


def _glob(pattern: str) -> Regex:
    """A glob (`*`, `?`, `[...]` with `!` or `^`, a backslash quoting) as an RE2 regex."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif char == "[" and (end := _class_end(pattern, i)) > 0:
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            body = body.replace("\\", "\\\\")
            body = "\\]" + body[1:] if body.startswith("]") else body
            out.append("[" + ("^" if negate else "") + body + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return compile_regex("".join(out), longest=True)


def _class_end(pattern: str, start: int) -> int:
    """Where a bracket expression that starts at `start` closes (-1: it does not)."""
    i = start + 1
    if i < len(pattern) and pattern[i] in ("!", "^"):
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern):
        if pattern.startswith("[:", i):
            close = pattern.find(":]", i + 2)
            i = close + 2 if close >= 0 else i + 1
            continue
        if pattern[i] == "]":
            return i
        i += 1
    return -1


def _tick(step: int) -> None:
    if step % 256 == 0:
        budget.check_time()
