"""The patterns and modes of the lab's `find` (simulators.lab.find_parse reads them): glibc's
fnmatch(3) as -name and -path use it (no flags or FNM_CASEFOLD: `*` matches `/` and a leading
dot), GNU regex's syntaxes as -regex uses them (emacs by default), both compiled to RE2 so that
no pattern a learner types can freeze the lab (simulators.lab.regex), and gnulib's
mode_compile and mode_adjust for -perm.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from simulators.lab.regex import Regex, RegexError, compile_regex, translate


def glob(pattern: str, fold: bool) -> Callable[[str], bool]:
    """fnmatch(3) without flags (or FNM_CASEFOLD) as a test of a whole string; a pattern
    glibc refuses (a trailing backslash, a bad class) matches nothing."""
    try:
        regex = compile_regex(_glob_regex(pattern), ignore_case=fold)
    except (RegexError, ValueError):
        return lambda text: False
    return lambda text: regex.fullmatch(text) is not None


def _glob_regex(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "\\":
            if i + 1 >= len(pattern):
                raise ValueError("trailing backslash")
            i += 1
            out.append(re.escape(pattern[i]))
        elif char == "[" and (end := _bracket(pattern, i)) > 0:
            out.append(_bracket_regex(pattern[i + 1 : end]))
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _bracket(pattern: str, start: int) -> int:
    """Where the bracket expression at `start` closes (-1: it does not, `[` is literal)."""
    i = start + 1
    if pattern[i : i + 1] in ("!", "^"):
        i += 1
    if pattern[i : i + 1] == "]":
        i += 1
    while i < len(pattern):
        if pattern[i] == "[" and pattern[i + 1 : i + 2] in (":", ".", "="):
            close = pattern.find(pattern[i + 1] + "]", i + 2)
            if close < 0:
                return -1
            i = close + 2
            continue
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] == "]":
            return i
        i += 1
    return -1


_CLASSES = {"alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print"}
_CLASSES |= {"graph", "cntrl", "xdigit"}


def _bracket_regex(body: str) -> str:
    negate = body[:1] in ("!", "^")
    body = body[1:] if negate else body
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "[" and body[i + 1 : i + 2] in (":", ".", "="):
            kind = body[i + 1]
            close = body.find(kind + "]", i + 2)
            name = body[i + 2 : close]
            if kind == ":":
                if name not in _CLASSES:
                    raise ValueError(f"bad class {name}")
                out.append(f"[:{name}:]")
            else:
                out.append(re.escape(name))
            i = close + 2
            continue
        if char == "\\" and i + 1 < len(body):
            i += 1
            char = body[i]
        if body[i + 1 : i + 2] == "-" and i + 2 < len(body):
            high = body[i + 2]
            if high == "\\" and i + 3 < len(body):
                high = body[i + 3]
                i += 1
            out.append(f"{_class_char(char)}-{_class_char(high)}")
            i += 3
            continue
        out.append(_class_char(char))
        i += 1
    return "[" + ("^" if negate else "") + "".join(out) + "]"


def _class_char(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


def compile_find_regex(pattern: str, kind: str, fold: bool) -> Regex:
    """-regex's pattern (GNU's emacs syntax by default: `\\(\\)` group, `\\|` alternates, `+`
    and `?` repeat, braces are characters) as RE2, matching a whole path."""
    if kind == "emacs":
        pattern = _emacs_as_basic(pattern)
    problem = _unbalanced(pattern, kind == "extended")
    if problem:
        raise RegexError(problem)
    try:
        return compile_regex(translate(pattern, kind == "extended"), ignore_case=fold)
    except RegexError as exc:
        message = str(exc)
        if "unterminated" in message:
            message = "Unmatched [, [^, [:, [., or [="
        raise RegexError(message) from None


def _unbalanced(pattern: str, extended: bool) -> str:
    """GNU regex's message for an unclosed group or bracket or a trailing backslash ("")."""
    depth = 0
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "[":
            i += 2 if pattern[i + 1 : i + 2] == "^" else 1
            i += 1 if pattern[i : i + 1] == "]" else 0
            while i < len(pattern) and pattern[i] != "]":
                i += 1
            if i >= len(pattern):
                return "Unmatched [, [^, [:, [., or [="
        elif char == "\\":
            if i + 1 >= len(pattern):
                return "Trailing backslash"
            i += 1
            if not extended and pattern[i] in "()":
                depth += 1 if pattern[i] == "(" else -1
        elif extended and char in "()":
            depth += 1 if char == "(" else -1 if depth else 0
        if depth < 0:
            return "Unmatched ) or \\)"
        i += 1
    return "Unmatched ( or \\(" if depth > 0 else ""


def _emacs_as_basic(pattern: str) -> str:
    """Emacs syntax as POSIX basic (GNU's): `+` `?` become `\\+` `\\?`, `\\{` a brace."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "[":
            end = pattern.find("]", i + (3 if pattern[i + 1 : i + 2] in ("^",) else 2))
            end = len(pattern) - 1 if end < 0 else end
            out.append(pattern[i : end + 1])
            i = end + 1
            continue
        if char == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "{}+?" else char + nxt)
            i += 2
            continue
        out.append("\\" + char if char in "+?" else char)
        i += 1
    return "".join(out)


# gnulib's modechange.c: a mode's changes as (op, flag, affected, value, mentioned).
Change = tuple[str, str, int, int, int]
_ALL = 0o7777


def mode_compile(text: str) -> list[Change] | None:
    """chmod's MODE (gnulib's mode_compile): None if it is not one."""
    if text[:1] in set("01234567"):
        if not re.fullmatch(r"[0-7]+", text) or int(text, 8) > _ALL:
            return None
        value = int(text, 8)
        mentioned = (value & 0o6000) | 0o1777 if len(text) < 5 else _ALL
        return [("=", "ordinary", _ALL, value, mentioned)]
    changes: list[Change] = []
    i = 0
    while True:
        affected = 0
        while i < len(text) and text[i] in "ugoa":
            affected |= {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": _ALL}[text[i]]
            i += 1
        if i >= len(text) or text[i] not in "=+-":
            return None
        while i < len(text) and text[i] in "=+-":
            op = text[i]
            i += 1
            mentioned = 0
            flag = "copy"
            if i < len(text) and text[i] in "01234567":
                octal = re.match(r"[0-7]+", text[i:])
                assert octal is not None
                digits = octal.group()
                i += len(digits)
                if int(digits, 8) > _ALL or affected or (i < len(text) and text[i] != ","):
                    return None
                affected = mentioned = _ALL
                value, flag = int(digits, 8), "ordinary"
            elif i < len(text) and text[i] in "ugo":
                value = {"u": 0o700, "g": 0o070, "o": 0o007}[text[i]]
                i += 1
            else:
                value, flag = 0, "ordinary"
                while i < len(text) and text[i] in "rwxXst":
                    letter = text[i]
                    if letter == "X":
                        flag = "x-if-any"
                    else:
                        value |= {"r": 0o444, "w": 0o222, "x": 0o111, "s": 0o6000, "t": 0o1000}[
                            letter
                        ]
                    i += 1
            shown = mentioned or (affected & value if affected else value)
            changes.append((op, flag, affected, value, shown))
        if i >= len(text):
            return changes
        if text[i] != ",":
            return None
        i += 1


def mode_adjust(changes: list[Change], folder: bool) -> int:
    """gnulib's mode_adjust from mode 0 with a umask of 0, as -perm computes its bits."""
    mode = 0
    for op, flag, affected, value, mentioned in changes:
        omit = (0o6000 if folder else 0) & ~mentioned
        if flag == "copy":
            value &= mode
            value |= (0o444 if value & 0o444 else 0) | (0o222 if value & 0o222 else 0)
            value |= 0o111 if value & 0o111 else 0
        elif flag == "x-if-any" and (mode & 0o111 or folder):
            value |= 0o111
        value &= (affected if affected else _ALL) & ~omit
        if op == "=":
            preserved = (~affected & _ALL if affected else 0) | omit
            mode = (mode & preserved) | value
        elif op == "+":
            mode |= value
        else:
            mode &= ~value
    return mode
