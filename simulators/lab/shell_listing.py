"""How bash 5.2 prints a variable or an array back as shell input: `declare -p`'s lines
(`declare -a a=([0]="x" [1]="y z")`, `declare -A m=([k]="v" )`, `declare -x PATH="..."`),
`export -p`'s and `set`'s (`a=([0]="x")`). A value is double-quoted with `\\` before `"`, `\\`,
`$` and `` ` `` (sh_double_quote), or written as `$'...'` when it holds a character that does
not print (ansic_quote); an associative array's key is quoted when it holds one of the
shell's special characters (assoc_to_assign)."""

from __future__ import annotations

from simulators.lab.environment import Array, ShellState
from simulators.lab.shell_xtrace import ansic_quote, needs_quotes, prints

# A key that is `@` or `*` alone is quoted too (it would stand for every element).
_ALL = frozenset({"@", "*"})


def quoted(value: str) -> str:
    """A value as `declare -p` writes it."""
    if not all(prints(char) for char in value):
        return ansic_quote(value)
    return '"' + "".join("\\" + c if c in '"\\$`' else c for c in value) + '"'


def _key(key: str) -> str:
    if not all(prints(char) for char in key):
        return ansic_quote(key)
    return quoted(key) if needs_quotes(key) or key in _ALL else key


def elements(array: Array) -> str:
    """`([0]="x" [1]="y")`; an associative array's with a blank before its `)`, as bash's."""
    if array.assoc:
        keys = array.in_order()
        return "(" + "".join(f"[{_key(str(k))}]={quoted(array.items[k])} " for k in keys) + ")"
    return "(" + " ".join(f"[{k}]={quoted(array.items[k])}" for k in array.in_order()) + ")"


def flags(state: ShellState, name: str) -> str:
    """`declare`'s attribute letters for `name` in bash's order (a A i n r x l u; `-` for
    none, so `declare --`)."""
    array = state.arrays.get(name)
    kept = state.attributes.get(name, "")
    letters = ("A" if array.assoc else "a") if array is not None else ""
    letters += "".join(c for c in "inr" if c in kept)
    letters += "x" if name in state.exported else ""
    return letters + "".join(c for c in "lu" if c in kept) or "-"


def declared(state: ShellState, name: str) -> str | None:
    """`declare -p NAME`'s line; None if the name is neither a variable nor an array."""
    array = state.arrays.get(name)
    if array is not None:
        value = f"={elements(array)}" if array.valued else ""
        return f"declare -{flags(state, name)} {name}{value}"
    if name in state.variables:
        return f"declare -{flags(state, name)} {name}={quoted(state.variables[name])}"
    if name in state.exported or name in state.attributes:  # declared, not set
        return f"declare -{flags(state, name)} {name}"
    return None


def names(state: ShellState) -> list[str]:
    """Every variable's and array's name, in the order bash lists them."""
    return sorted({*state.variables, *state.arrays, *state.attributes})


def set_line(state: ShellState, name: str) -> str | None:
    """`set`'s line for an array (`a=([0]="x")`); None for a variable (simulators.lab.shell_options
    writes those) or an array without a value."""
    array = state.arrays.get(name)
    if array is None or not array.valued:
        return None
    return f"{name}={elements(array)}"
