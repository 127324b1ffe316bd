"""bash 5.2's variable attributes and what reads them, on the admin host: declare's `-i`
(integer: each assignment an arithmetic expression, `+=` adds), `-r` (readonly), `-l` and
`-u` (case on assignment), `-n` (a nameref: reads and writes go to the name it holds) and
their `+` forms; the `readonly` builtin; `${!name}` (indirection), `${!prefix*}` and
`${!prefix@}` (the names set that start with a prefix); the transformations `${x@Q}`,
`@E`, `@U`, `@u`, `@L`, `@K`, `@k`, `@a` and `@A`; and what `[[ -v NAME ]]` / `test -v
NAME` (`a[1]`, `m[key]` too) and `-R NAME` ask (simulators.lab.conditions runs them). The
attributes live in ShellState.attributes (letters of "ilnru"; `x` is the exported list,
`a`/`A` the arrays), each name's kept with its value by a function's `local`. Errors are
bash's words.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from simulators.lab import environment, fs, shell_listing
from simulators.lab.builtins import ansi_c
from simulators.lab.environment import ShellState
from simulators.lab.shell_tokens import Refused
from simulators.lab.shell_xtrace import ansic_quote, prints

if TYPE_CHECKING:
    from simulators.lab.shell_expansion import Expansion

# The letters declare sets here, in the order ShellState.attributes keeps them.
KEPT = "inrlu"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRANSFORM = re.compile(r"(.*)@([QEULuKkaAP])", re.S)
# `@P`'s backslash escapes (bash's decode_prompt_string) that need no state: \e, \a, ...
_PROMPT_FIXED = {"e": "\x1b", "a": "\a", "n": "\n", "r": "\r", "\\": "\\", "s": "bash",
                 "v": "5.2", "V": "5.2.15", "[": "", "]": ""}  # fmt: skip
# An octal escape is three digits, or fewer where the text ends (bash's read_octal).
_OCTAL = re.compile(r"[0-7]{1,3}")
_PROMPT_ESCAPE = re.compile(r"\\([0-7]{3}|[0-7]{1,2}\Z|.)", re.S)
_PREFIXED = re.compile(r"!([A-Za-z_][A-Za-z0-9_]*)([*@])")
_ELEMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[(.+)\]", re.S)


def letters(state: ShellState, name: str) -> str:
    """`declare -p`'s attribute letters for `name` in bash's order (a A i n r x l u), ""
    for none."""
    return shell_listing.flags(state, name).strip("-")


def changed(current: str, on: set[str], off: set[str]) -> str:
    """A name's kept letters after declare's `-X` (`on`) and `+X` (`off`): `-l` and `-u`
    each turn the other off, and together neither is set."""
    kept = set(current) | (on & set(KEPT))
    if {"l", "u"} <= on:
        kept -= {"l", "u"}
    elif "u" in on:
        kept.discard("l")
    elif "l" in on:
        kept.discard("u")
    kept -= off
    return "".join(c for c in KEPT if c in kept)


def declared(state: ShellState, name: str) -> bool:
    """Whether `name` was declared (has attributes, or a value)."""
    return name in state.attributes or name in state.variables or name in state.arrays


def integer(state: ShellState, name: str) -> bool:
    return "i" in state.attributes.get(state.resolved(name), "")


def _wrap(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def assigned(shell: Expansion, name: str, value: str, append: bool) -> str:
    """The value `name=value` (`append`: `+=`) gives `name` with its attributes: an integer's
    the expression's value (added to what it holds); case is ShellState.set's."""
    state = shell.state
    current = state.value(name) if append else None
    if integer(state, name):
        number = shell.arithmetic(value) if value.strip() else 0
        if current and current.strip():  # what it held read as an expression too
            number = _wrap(number + shell.arithmetic(current))
        return str(number)
    return (current or "") + value


def element_value(shell: Expansion, name: str, value: str) -> str:
    """An integer array's element as it is set (an arithmetic expression's value)."""
    if not integer(shell.state, name):
        return value
    return str(shell.arithmetic(value) if value.strip() else 0)


# ---------------------------------------------------------------------------- reading


def indirect(shell: Expansion, text: str) -> str | None:
    """`${!name}`: the value of the parameter `name` holds (a nameref's: the name it holds);
    None where `text` is no such expansion."""
    name = text[1:]
    if not text.startswith("!") or not _NAME.fullmatch(name):
        return None
    state = shell.state
    if "n" in state.attributes.get(name, ""):
        return state.variables.get(name, "")
    target = state.value(name)
    if target is None and name in state.arrays:  # an array without element 0: nothing
        return ""
    if target is None:
        raise Refused(f"bash: {name}: invalid indirect expansion")
    valid = (
        _NAME.fullmatch(target)
        or target.isdigit()
        or target in ("@", "*", "#", "?", "$", "-", "!")
        or _ELEMENT.fullmatch(target)
    )
    if not valid:
        raise Refused(f"bash: {target}: invalid variable name")
    return shell._parameter(target)


def prefixed(shell: Expansion, text: str) -> tuple[list[str], bool] | None:
    """`${!prefix*}` and `${!prefix@}`: the names with a value that start with `prefix`, in
    bash's (sorted) order, and whether it is the `*` form; None for any other `text`."""
    found = _PREFIXED.fullmatch(text)
    if found is None:
        return None
    prefix, star = found.group(1), found.group(2) == "*"
    state = shell.state
    names = sorted(
        n
        for n in {*state.variables, *state.arrays}
        if n.startswith(prefix) and (n in state.variables or state.arrays[n].valued)
    )
    return names, star


def transform(shell: Expansion, text: str) -> str | None:
    """`${x@Q}` and the other transformations of a variable or an element (`${a[1]@U}`);
    None where `text` is none of them (`${a[@]@Q}` is `transform_list`'s)."""
    found = _TRANSFORM.fullmatch(text)
    if found is None:
        return None
    base, op = found.groups()
    state = shell.state
    if _NAME.fullmatch(base):
        if op == "a":
            return letters(state, state.resolved(base)) if declared(state, base) else ""
        if op == "A":
            return _assignment(state, state.resolved(base))
        value = state.value(base)
        if op == "P":
            return prompt(shell, value or "")
    elif _ELEMENT.fullmatch(base) and not base.endswith(("[@]", "[*]")):
        if op in ("a", "A"):
            name = base.partition("[")[0]
            return letters(state, name) if op == "a" and declared(state, name) else ""
        value = shell._set_value(base)
        if op == "P":
            return prompt(shell, value or "")
    else:
        return None
    return apply(value, op)


def apply(value: str | None, op: str) -> str:
    """One transformation (`op` a letter of QEULuKk) of a value (None: not set)."""
    if value is None:
        return ""
    if op in ("Q", "K", "k"):
        return single_quoted(value)
    if op == "E":
        return ansi_c(value)
    if op == "U":
        return value.upper()
    if op == "L":
        return value.lower()
    if op == "u":
        return value[:1].upper() + value[1:]
    return value


def transform_list(
    shell: Expansion, name: str, values: list[str], op: str, star: bool
) -> list[str]:
    """`${a[@]@Q}` and the rest, element by element; `@a` each element's array letters,
    `@A` the array as declare -p writes it (one word)."""
    state = shell.state
    if op == "a":
        return [letters(state, name) for _ in values]
    if op == "A":
        line = _assignment(state, name, whole=True)
        return [line] if line else []
    if op == "P":
        return [prompt(shell, value) for value in values]
    return [apply(value, op) for value in values]


def prompt(shell: Expansion, value: str) -> str:
    """`${x@P}`: `value` expanded as bash expands PS1: \\u, \\h, \\H, \\w, \\W, \\$, \\s,
    \\v, \\V, \\n, \\e, \\a, \\r, \\\\, \\NNN (octal: `\\033`), \\[ and \\] decoded (any
    other escape kept as typed), then, as `shopt -s promptvars` has it, `$x` and `$(...)` in
    the text typed (not in what the escapes gave) expanded."""
    state = shell.state
    home = state.variables.get("HOME", "")
    pwd = state.variables.get("PWD") or state.cwd
    host = state.variables.get("HOSTNAME", environment.HOSTNAME)
    decoded: dict[str, str] = {
        **_PROMPT_FIXED,
        "u": environment.USER,
        "h": host.partition(".")[0],
        "H": host,
        "w": fs.display(pwd, home),
        "W": "~" if home and pwd == home else pwd.rstrip("/").rpartition("/")[2] or "/",
        "$": "#" if state.variables.get("EUID") == "0" else "$",
    }
    pieces: list[str] = []
    at = 0
    for found in _PROMPT_ESCAPE.finditer(value):
        escape = found.group(1)
        octal = len(escape) > 1 or found.end() == len(value)
        given = (
            chr(int(escape, 8) & 0xFF)
            if octal and _OCTAL.fullmatch(escape)
            else decoded.get(escape)
        )
        if given is None:
            continue
        pieces.append(_prompt_vars(shell, value[at : found.start()]) + given)
        at = found.end()
    pieces.append(_prompt_vars(shell, value[at:]))
    return "".join(pieces)


def _prompt_vars(shell: Expansion, text: str) -> str:
    return shell._expand_text(text) if "$" in text or "`" in text else text


def single_quoted(value: str) -> str:
    """A value as bash's `@Q` writes it: in single quotes, or `$'...'` when it holds a
    character that does not print."""
    if not all(prints(char) for char in value):
        return ansic_quote(value)
    return "'" + value.replace("'", "'\\''") + "'"


def _assignment(state: ShellState, name: str, whole: bool = False) -> str:
    """`${x@A}`: `x='v'`, or with its attributes `declare -ir x='3'` (an array's element 0
    as `declare -a a='1'`); `whole` (`${a[@]@A}`): an array as `declare -p` writes it."""
    array = state.arrays.get(name)
    shown = letters(state, name)
    if array is not None and whole:
        return shell_listing.declared(state, name) or ""
    value = state.value(name) if array is not None else state.variables.get(name)
    if value is None:
        return f"declare -{shown} {name}" if shown else ""
    if shown:
        return f"declare -{shown} {name}={single_quoted(value)}"
    return f"{name}={single_quoted(value)}"


# ---------------------------------------------------------------------------- -v


def is_set(shell: Expansion, operand: str) -> bool:
    """`-v NAME`, `-v a[1]`, `-v m[key]`: whether the variable or element has a value."""
    state = shell.state
    if _NAME.fullmatch(operand):
        name = state.resolved(operand)
        array = state.arrays.get(name)
        if array is not None:
            return (0 if not array.assoc else "0") in array.items
        return name in state.variables
    found = _ELEMENT.fullmatch(operand)
    if found is None:
        return False
    name, sub = found.groups()
    array = state.arrays.get(state.resolved(name))
    if sub in ("@", "*"):
        return bool(array.items) if array is not None else state.value(name) is not None
    return shell._set_value(operand) is not None


def is_nameref(shell: Expansion, operand: str) -> bool:
    """`-R NAME`: whether `NAME` is a nameref that is set (holds a name)."""
    state = shell.state
    return "n" in state.attributes.get(operand, "") and operand in state.variables
