"""bash's `set -x` (xtrace) on the admin host: before a command runs, after its expansions,
its words on stderr behind PS4 (`+ echo 'a b'`), quoted as bash's xtrace quotes them
(print_cmd.c's xtrace_print_word_list and xtrace_print_assignment: a word holding one of
the shell's special characters single-quoted, one holding a character that does not print
as `$'...'`). PS4's first character is repeated once more for each `$(...)`, `eval` or
sourced file the command is inside (`++ echo in`); a new bash (`bash -x FILE`) starts again
at one. The `for` head, the `case` word (as typed), `(( ))` and the C-style `for`'s
expressions (expanded) are traced as bash traces them; `if`, `while`, groups and subshells
print nothing of their own. PS4 is used as it is, not expanded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from simulators.lab.shell import Shell
    from simulators.lab.shell_grammar import Compound

# sh_contains_shell_metas (lib/sh/shquote.c): these anywhere, `~` first or after `=` or `:`,
# `#` first.
_METAS = frozenset(" \t\n'\"\\|&;()<>!{}*[?]^$`")
_ESCAPES = {"\x1b": "E", "\a": "a", "\v": "v", "\b": "b", "\f": "f", "\n": "n", "\r": "r"}
_ESCAPES |= {"\t": "t", "\\": "\\", "'": "'"}


def on(shell: Shell) -> bool:
    return "xtrace" in shell.state.options


def needs_quotes(word: str) -> bool:
    for index, char in enumerate(word):
        if char in _METAS:
            return True
        if char == "~" and (index == 0 or word[index - 1] in "=:"):
            return True
        if char == "#" and index == 0:
            return True
    return False


def prints(char: str) -> bool:
    return char.isprintable() if char.isascii() else char.isprintable() or char == "\u00a0"


def quote(word: str, empty: str = "''") -> str:
    """A word as xtrace shows it (`empty` for an empty one: `''`, or nothing after `x=`)."""
    if not word:
        return empty
    if needs_quotes(word):
        return "'" + word.replace("'", "'\\''") + "'"
    if all(prints(char) for char in word):
        return word
    return ansic_quote(word)


def ansic_quote(word: str) -> str:
    """bash's ansic_quote: `$'...'` with C's escapes, octal for any other character that does
    not print (xtrace's words, `declare -p`'s values)."""
    out = []
    for char in word:
        if char in _ESCAPES:
            out.append("\\" + _ESCAPES[char])
        elif prints(char):
            out.append(char)
        else:
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", errors="replace"))
    return "$'" + "".join(out) + "'"


def indirection(shell: Shell) -> int:
    """bash's indirection level: the `$(...)`, `eval`s and sourced files running."""
    return shell.depth + shell.evals + shell.sourcing


def prefix(shell: Shell) -> str:
    """PS4, its first character repeated once more for each level of indirection."""
    ps4 = shell.state.variables.get("PS4", "+ ")
    return ps4[:1] * (indirection(shell) - shell.trace_base) + ps4


def command(shell: Shell, assignments: list[tuple[str, str]], argv: list[str]) -> list[str]:
    """A simple command's lines: each assignment (`+ x=1`), then its words."""
    start = prefix(shell)
    lines = [f"{start}{name}={quote(value, '')}" for name, value in assignments]
    if argv:
        lines.append(start + " ".join(quote(word) for word in argv))
    return lines


def assigned(shell: Shell, target: str, value: str | None) -> str:
    """An assignment's line as it is made: `+ a[1]=x`, `+ b+=y`; a list as typed (value None:
    `+ a=(x "y z")`)."""
    return prefix(shell) + target + ("" if value is None else quote(value, ""))


def compound(shell: Shell, compound: Compound, expression: str = "") -> str:
    """The line of a `for` turn (its words as typed), a `case` (its word as typed), or an
    arithmetic `expression` of `((...))` or a C-style `for` (expanded; empty is `1`)."""
    start = prefix(shell)
    if compound.kind == "for":
        words = compound.source if compound.words is not None else '"$@"'
        return f"{start}for {compound.name} in {words}"
    if compound.kind == "case":
        return f"{start}case {compound.source} in"
    if compound.kind == "cfor":  # the C-style `for`'s expressions, the blanks before them gone
        expression = expression.lstrip() or "1"
    return f"{start}(( {shell._expand_text(expression)} ))"
