"""bash's arrays on the admin host, as bash 5.2 has them: indexed ones (`a=(x "y z" *.yaml)`,
`a+=(more)`, `a[i+1]=v` with an arithmetic subscript, negative ones counting from the end,
sparse) and associative ones (`declare -A m; m[key]=v`), and what reads them: `${a[1]}`,
`$a` (element 0), `${a[@]}` and `${a[*]}` (in double quotes one word per element, or the
elements joined with IFS's first character), `${#a[@]}`, `${#a[2]}`, `${!a[@]}`,
`${a[@]:1:2}`, and the parameter operators (simulators.lab.shell_parameters) element by
element; `$@` and `$*` read the same way (`${@:2}`, `"${@/x/y}"`). Also `unset 'a[1]'`,
arithmetic on elements (`((a[i]++))`), `read -a`'s array and PIPESTATUS. The arrays live in
the session's ShellState (environment.Array), bounded by MAX_ELEMENTS and MAX_ARRAY_BYTES;
the assignments are simulators.lab.shell_assign's, `declare` and `mapfile`
simulators.lab.shell_declare's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simulators.lab import builtins, shell_attributes, shell_parameters
from simulators.lab.environment import Array, Key, ShellState
from simulators.lab.shell_scan import subscript_end
from simulators.lab.shell_syntax import word_parts
from simulators.lab.shell_tokens import Refused
from simulators.lab.tool import Output

if TYPE_CHECKING:
    from simulators.lab.shell_expansion import Expansion

_REF = re.compile(r"([#!]?)([A-Za-z_][A-Za-z0-9_]*)\[")
_POSITIONAL = re.compile(r"(#?)([@*])(.*)", re.S)
_OPERATOR = re.compile(r"(##|#|%%|%|//|/|\^\^|\^|,,|,)(.*)", re.S)
DEFAULTS = (":-", "-", ":=", "=", ":+", "+", ":?", "?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Ref:
    """`${PREFIX NAME[SUB] REST}`: `prefix` "#" (a length), "!" (the keys) or ""; `name` ""
    for the positional parameters (`${@...}`, SUB "@" or "*")."""

    prefix: str
    name: str
    sub: str
    rest: str

    @property
    def every(self) -> bool:
        return self.sub in ("@", "*")

    @property
    def typed(self) -> str:
        return f"{self.name}[{self.sub}]" if self.name else self.sub


def ref(text: str) -> Ref | None:
    """The inside of a `${...}` read as an array's (or `@`'s, `*`'s) reference, if it is one."""
    found = _REF.match(text)
    if found is not None:
        end = subscript_end(text, found.end())
        if end < 0:
            raise Refused(f"bash: ${{{text}}}: bad substitution")
        return Ref(found.group(1), found.group(2), text[found.end() : end], text[end + 1 :])
    positional = _POSITIONAL.fullmatch(text)
    if positional is None:
        return None
    prefix, sub, rest = positional.groups()
    if prefix and rest:
        return None  # `${#@...}`: bash's bad substitution (the caller says it)
    return Ref(prefix, "", sub, rest)


def base_of(text: str) -> tuple[str, str] | None:
    """`a[i]` and what follows, for `${a[i]:-word}`: (base, rest); None for no array's."""
    found = _REF.match(text)
    if found is None or found.group(1):
        return None
    end = subscript_end(text, found.end())
    return None if end < 0 else (text[: end + 1], text[end + 1 :])


# ---------------------------------------------------------------------------- reading


def _expanded(shell: Expansion, text: str, quoted: bool = False) -> str:
    """A subscript as typed, expanded: an associative array's key (quotes removed, `$`
    expanded), or `quoted` an index's expression as bash reads it, as if in double quotes."""
    return "".join(shell._expand_parts(word_parts(text, quoted), split=False)[0])


def index_of(
    shell: Expansion, name: str, sub: str, *, assigning: str = "", length: bool = False
) -> Key | None:
    """The element `sub` (as typed) names in `name`: an associative array's key, an index
    (negative from the end). None where there is none, bash's `bad array subscript` said as
    bash says it: a warning reading the element, an error (Refused) for `${#a[-9]}` and for
    an assignment (`assigning`: its target, as bash names it)."""
    name = shell.state.resolved(name)
    array = shell.state.arrays.get(name)
    if not sub.strip():
        raise Refused(f"bash: {assigning or name}: bad array subscript")
    if array is not None and array.assoc:
        key = _expanded(shell, sub)
        if not key:
            if assigning:
                raise Refused(f"bash: {assigning}: bad array subscript")
            shell.stray.append(f"bash: {name}: bad array subscript")
            return None
        return key
    index = shell.arithmetic(sub if assigning else _expanded(shell, sub, quoted=True))
    if index >= 0:
        return index
    scalar = array is None and name in shell.state.variables
    if array is not None or (scalar and assigning):
        index += array.last() + 1 if array is not None else 1
        if index >= 0:
            return index
    if assigning:
        raise Refused(f"bash: {assigning}: bad array subscript")
    if length and (array is not None or scalar):
        raise Refused(f"bash: {sub}]: bad array subscript")
    if not length:
        shell.stray.append(f"bash: {name}: bad array subscript")
    return None


def element(shell: Expansion, name: str, sub: str, length: bool = False) -> str | None:
    """`${name[sub]}`: the element's value, None if it is not set (`length`: for `${#...}`)."""
    if not sub:
        raise Refused(f"bash: ${{{name}[]}}: bad substitution")
    key = index_of(shell, name, sub, length=length)
    if key is None:
        return None
    name = shell.state.resolved(name)
    array = shell.state.arrays.get(name)
    if array is not None:
        return array.items.get(key)
    return shell.state.variables.get(name) if key == 0 else None


def listing(shell: Expansion, name: str) -> tuple[list[str], list[str]]:
    """The keys and values of `name` (`""`: the positional parameters), in bash's order; a
    variable is an array of one element."""
    if not name:
        return [str(n) for n in range(1, len(shell.positional) + 1)], list(shell.positional)
    name = shell.state.resolved(name)
    array = shell.state.arrays.get(name)
    if array is not None:
        keys = array.in_order()
        return [str(key) for key in keys], [array.items[key] for key in keys]
    value = shell.state.variables.get(name)
    return (["0"], [value]) if value is not None else ([], [])


def joined(shell: Expansion, values: list[str], star: bool) -> str:
    """Elements as one word: `${a[*]}` with IFS's first character (a space where IFS is
    unset), `${a[@]}` with spaces."""
    if not star:
        return " ".join(values)
    ifs = shell.state.variables.get("IFS")
    return (ifs[:1] if ifs is not None else " ").join(values)


def set_value(shell: Expansion, base: str) -> str | None:
    """The value `${base:-word}` tests (base `a[i]`, `a[@]`, `a[*]`): None if not set (an
    `@` or `*` of no elements)."""
    found = ref(base)
    assert found is not None
    if found.every:
        values = listing(shell, found.name)[1]
        return joined(shell, values, found.sub == "*") if values else None
    return element(shell, found.name, found.sub)


def assign_default(shell: Expansion, base: str, value: str) -> None:
    """`${a[i]:=word}`: the element set."""
    found = ref(base)
    assert found is not None
    if found.every:
        raise Refused(f"bash: {base}: cannot assign in this way")
    key = index_of(shell, found.name, found.sub, assigning=base)
    if key is not None:
        put_element(shell, found.name, key, value)


def listed(shell: Expansion, text: str) -> tuple[list[str], bool] | None:
    """A `${...}` that is a list of words (`${a[@]}`, `${a[*]/x/y}`, `${!a[@]}`, `${@:2}`): its
    values and whether it is a `*` one; None for any other (a single value)."""
    if "[" not in text and text[:1] not in ("@", "*", "!"):
        return None
    found = ref(text)
    if found is None or not found.every or found.prefix == "#":
        return None
    keys, values = listing(shell, found.name)
    star = found.sub == "*"
    if found.prefix == "!":
        if found.rest or not found.name:
            raise Refused(f"bash: ${{{text}}}: bad substitution")
        return keys, star
    rest = found.rest
    if not rest:
        return values, star
    default = next((op for op in DEFAULTS if rest.startswith(op)), None)
    if default is not None:
        taken = shell._default(text)
        if taken is None or taken[3] or default.endswith("+"):
            return None
        return values, star
    if rest.startswith(":"):
        return _slice(shell, found, rest[1:]), star
    if len(rest) == 2 and rest[0] == "@" and rest[1] in "QEULuKkaAP" and found.name:
        return shell_attributes.transform_list(shell, found.name, values, rest[1], star), star
    operator = _OPERATOR.fullmatch(rest)
    if operator is None:
        raise Refused(f"bash: ${{{text}}}: bad substitution")
    op, word = operator.groups()
    return [_apply(shell, value, op, word) for value in values], star


def _apply(shell: Expansion, value: str, op: str, word: str) -> str:
    try:
        return shell_parameters.apply(value, op, word, shell._expand_text, shell.arithmetic)
    except shell_parameters.BadSubstitution as bad:
        raise Refused(f"bash: {bad}") from None


def _slice(shell: Expansion, found: Ref, word: str) -> list[str]:
    """`${a[@]:offset:length}`: the elements from index `offset` (an associative array's and
    the positional parameters' by position; negative from the end), `length` of them."""
    offset_text, sep, length_text = word.partition(":")
    offset = shell.arithmetic(offset_text) if offset_text.strip() else 0
    length = shell.arithmetic(length_text) if sep and length_text.strip() else None
    if sep and length is None:
        length = 0
    if length is not None and length < 0:
        raise Refused(f"bash: {length_text.strip()}: substring expression < 0")
    array = shell.state.arrays.get(found.name)
    if not found.name:  # $0, $1...: from $0 when the offset is 0
        values = [shell.zero, *shell.positional]
        offset += len(values) if offset < 0 else 0
        chosen = values[offset:] if 0 <= offset <= len(values) else []
    elif array is not None and array.assoc:
        values = array.values()
        offset += len(values) + 1 if offset < 0 else 0
        chosen = values[max(offset, 1) - 1 :] if 0 <= offset <= len(values) else []
    elif array is not None:
        last = array.last()
        offset += last + 1 if offset < 0 else 0
        keys = array.in_order()
        chosen = [array.items[k] for k in keys if int(k) >= offset] if offset >= 0 else []
    else:
        value = shell.state.variables.get(found.name)
        return [] if value is None else [_apply(shell, value, ":", word)]
    return chosen if length is None else chosen[:length]


def parameter(shell: Expansion, text: str) -> str | None:
    """A single-valued array expansion: `a[i]` (with an operator), `#a[@]`, `#a[i]`, `#@`;
    None where `text` is none (the caller reads it as a variable's)."""
    if "[" not in text and text not in ("#@", "#*"):
        return None
    found = ref(text)
    if found is None:
        return None
    if found.prefix == "#":
        if found.rest:
            raise Refused(f"bash: ${{{text}}}: bad substitution")
        if found.every:
            return str(len(listing(shell, found.name)[1]))
        value = element(shell, found.name, found.sub, length=True)
        if value is None:
            shell._unbound(found.typed)
        return str(len(value or ""))
    if found.prefix == "!" or found.every:
        raise Refused(f"bash: ${{{text}}}: bad substitution")  # `listed` reads the rest
    if not found.rest:
        value = element(shell, found.name, found.sub)
        if value is None:
            shell._unbound(found.typed)
        return value or ""
    if found.rest.startswith(":"):
        return _apply(shell, element(shell, found.name, found.sub) or "", ":", found.rest[1:])
    operator = _OPERATOR.fullmatch(found.rest)
    if operator is None:
        raise Refused(f"bash: ${{{text}}}: bad substitution")
    value = element(shell, found.name, found.sub) or ""
    return _apply(shell, value, *operator.groups())


def put_element(shell: Expansion, name: str, key: Key, value: str) -> None:
    name = shell.state.resolved(name)
    if "i" in shell.state.attributes.get(name, ""):  # an integer array's: its value
        value = str(shell.arithmetic(value) if value.strip() else 0)
    problem = shell.state.put(name, key, value)
    if problem:
        raise Refused(problem)


# ---------------------------------------------------------------------------- arithmetic


def arithmetic_value(shell: Expansion, name: str) -> str | None:
    """`a[i]` read in `$(( ))` (None: not set)."""
    found = ref(name)
    if found is None or found.prefix or found.rest:
        raise Refused(f"bash: {name}: bad array subscript")
    return element(shell, found.name, found.sub)


def arithmetic_assign(shell: Expansion, name: str, value: str) -> None:
    """`((a[i] = value))`."""
    found = ref(name)
    if found is None or found.prefix or found.rest or found.every:
        raise Refused(f"bash: {name}: bad array subscript")
    key = index_of(shell, found.name, found.sub, assigning=name)
    if key is not None:
        put_element(shell, found.name, key, value)


# ---------------------------------------------------------------------------- unset, PIPESTATUS


def unset_element(shell: Expansion, arg: str) -> str | None:
    """`unset 'a[i]'`: the element gone (`a[@]`: every element, the array kept); bash's error
    line if it cannot be."""
    found = ref(arg)
    if found is None or found.prefix or found.rest or not found.name:
        return f"bash: unset: `{arg}': not a valid identifier"
    state = shell.state
    array = state.arrays.get(found.name)
    if array is None:
        if found.name not in state.variables:
            return None
        if not found.every and shell.arithmetic(found.sub) == 0:
            state.unset(found.name)  # a variable is an array of one element
            return None
        return f"bash: unset: {found.name}: not an array variable"
    if found.every and not array.assoc:
        emptied = state.writable(found.name)
        assert not isinstance(emptied, str)
        emptied.items.clear()
        emptied.size = 0
        return None
    if array.assoc:
        key: Key = _expanded(shell, found.sub)
    else:
        index = shell.arithmetic(found.sub)
        if index < 0:
            index += array.last() + 1
            if index < 0:
                return f"bash: unset: [{found.sub}]: bad array subscript"
        key = index
    if key in array.items:
        writable = state.writable(found.name)
        assert not isinstance(writable, str)
        writable.drop(key)
    return None


def unset(shell: Expansion, args: list[str]) -> Output:
    """`unset [-v|-f] NAME...`: a `NAME[SUB]` one an element (unset_element), any other as
    builtins.unset does it, in turn."""
    errors: list[str] = []
    mode: list[str] = []
    for arg in args:
        if arg in ("-v", "-f", "-n", "--"):
            mode = [arg] if arg != "--" else mode
            continue
        name = arg.partition("[")[0]
        if mode == ["-n"] and _NAME.fullmatch(arg) and not shell.state.readonly(arg):
            if "n" in shell.state.attributes.get(arg, ""):  # a nameref itself; else nothing
                shell.state.unset(arg)
            continue
        if mode != ["-f"] and _NAME.fullmatch(name):
            resolved = shell.state.resolved(name)
            arg, name = resolved + arg[len(name) :], resolved
        problem: str | None
        if mode != ["-f"] and _NAME.fullmatch(name) and shell.state.readonly(name):
            problem = f"bash: unset: {name}: cannot unset: readonly variable"
        elif "[" in arg and _NAME.match(arg) and mode != ["-f"]:
            problem = unset_element(shell, arg)
        else:
            problem = builtins.unset(shell.ctx, [*mode, arg]).stderr
        if problem:
            errors.append(problem)
    return Output("", 1 if errors else 0, stderr="\n".join(errors))


def read_into(state: ShellState, name: str, fields: list[str]) -> str | None:
    """`read -a NAME`: the line's fields as NAME's elements from 0 (none at the end of the
    input); bash's error line if they cannot be."""
    if not _NAME.fullmatch(name):
        return f"bash: read: `{name}': not a valid identifier"
    current = state.arrays.get(name)
    if current is not None and current.assoc:
        return f"bash: read: {name}: not an indexed array"
    array = Array()
    for index, value in enumerate(fields):
        array.put(index, value)
    return state.assign(name, array)


def pipestatus(shell: Expansion, codes: list[int]) -> None:
    """PIPESTATUS after a pipeline: each of its commands' status."""
    array = Array()
    for index, code in enumerate(codes):
        array.put(index, str(code))
    shell.state.arrays["PIPESTATUS"] = array  # bash's own: not counted against the limits
