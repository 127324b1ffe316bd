"""bash's builtins for declaring on the admin host: `declare` and `typeset` (`-a`, `-A`, `-i`,
`-l`, `-n`, `-r`, `-u`, `-x` and their `+` forms, `-p`, `-g`, `-f`, `-F`), `local` (declare
inside a function: the caller's value and attributes back when it returns), `readonly`
(`-a`, `-A`, `-p`) and `mapfile` (`readarray`) with `-t`, `-n`, `-s`, `-O` and `-d`, each
with bash 5.2's words for its errors. Options bash has that the lab does not (`-I`, `-t`;
mapfile's `-u`, `-C`) are refused in one line. The arrays themselves are
simulators.lab.shell_arrays', the attributes simulators.lab.shell_attributes' (`read -a`
is simulators.lab.shell_compound's read).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from simulators.lab import shell_assign, shell_attributes, shell_listing, shell_options
from simulators.lab.environment import MAX_VARIABLES, Array, ShellState, too_large
from simulators.lab.shell_tokens import Aborted, Refused
from simulators.lab.tool import Output

if TYPE_CHECKING:
    from simulators.lab.shell import Shell
    from simulators.lab.shell_compound import Input

_USAGES = {
    "declare": "declare: usage: declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p"
    " [-aAfFilnrtux] [name ...]",
    "typeset": "typeset: usage: typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p"
    " [-aAfFilnrtux] [name ...]",
    "local": "local: usage: local [option] name[=value] ...",
    "export": "export: usage: export [-fn] [name[=value] ...] or export -p",
    "readonly": "readonly: usage: readonly [-aAf] [name[=value] ...] or readonly -p",
}
MAPFILE_USAGE = (
    "mapfile: usage: mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd]"
    " [-C callback] [-c quantum] [array]"
)
_KNOWN = frozenset("aAfFgiIlnrtuxp")
_DONE = frozenset("aAfFgilnruxp")
_READONLY = frozenset("aAfp")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ARGUMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*?)\])?(?:(\+?=)(.*))?", re.S)


def declare(shell: Shell, name: str, args: list[str], lists: frozenset[int]) -> Output:
    """`declare`, `typeset` or `local` with `args`; `lists` the indexes of the arguments that
    were array lists as typed (`a=(1 2)`, not `'a=(1 2)'`)."""
    if name == "local" and not shell.frames:
        return Output.error("bash: local: can only be used in a function")
    on: set[str] = set()
    off: set[str] = set()
    at = 0
    while at < len(args) and args[at][:1] in ("-", "+") and len(args[at]) > 1:
        if args[at] == "--":
            at += 1
            break
        for letter in args[at][1:]:
            known = _READONLY if name == "readonly" else _KNOWN
            if letter not in known or (letter == "p" and args[at][0] == "+"):
                return Output.error(
                    f"bash: {name}: {args[at][0]}{letter}: invalid option\n{_USAGES[name]}", 2
                )
            if letter not in _DONE:
                return Output.error(
                    f"bash: {name}: -{letter}: not available in this lab (only -a -A -i -l -n"
                    " -r -u -x -p -g -f -F)",
                    2,
                )
            (on if args[at][0] == "-" else off).add(letter)
        at += 1
    names = args[at:]
    if name == "readonly":
        if "f" in on:
            return Output.error("bash: readonly: -f: not available in this lab", 2)
        on |= {"r", "g"}
    if "f" in on or "F" in on:
        return _functions(shell, names, "F" in on)
    if "p" in on or not names:
        return _printed(shell, name, names, on - {"g"} if name == "readonly" else on)
    local = bool(shell.frames) and (name == "local" or "g" not in on)
    errors: list[str] = []
    for index, arg in enumerate(names, start=at):
        try:
            problem = _declared(shell, name, arg, on, off, local, index in lists)
        except Refused as refused:
            problem = str(refused)
        if problem:
            errors.append(problem)
    return Output("", 1 if errors else 0, stderr="\n".join(errors))


def _declared(
    shell: Shell, builtin: str, arg: str, on: set[str], off: set[str], local: bool, listed: bool
) -> str | None:
    """One NAME[=VALUE] of declare; bash's error line if it cannot be."""
    found = _ARGUMENT.fullmatch(arg)
    if found is None:
        return f"bash: {builtin}: `{arg}': not a valid identifier"
    name, sub, op, value = found.groups()
    state = shell.state
    if "n" in on and op is not None and sub is None and not listed:
        if value == name:
            return f"bash: {builtin}: {name}: nameref variable self references not allowed"
        if not _NAME.fullmatch(value):
            return f"bash: {builtin}: `{value}': invalid variable name for name reference"
    if local and name not in shell.frames[-1]:
        if state.readonly(name):
            return f"bash: {builtin}: {name}: readonly variable"
        shell.frames[-1][name] = state.hold(name)
        declared = name in state.attributes or name in state.exported
        kept = state.attributes.pop(name, "") + ("x" if name in state.exported else "")
        shell.frames[-1]["\0" + name] = kept if declared else None
        state.variables.pop(name, None)  # a new local: nothing of the caller's
        state.arrays.pop(name, None)
    typed = name
    if "n" not in on and "n" not in off:
        name = state.resolved(name)
    if state.readonly(name) and op is not None and listed:  # as `g=(...)` says it, after
        state.attributes[name] = shell_attributes.changed(state.attributes[name], on, off)
        raise Aborted(f"bash: {name}: readonly variable")  # and the line stops there
    if state.readonly(name) and (op is not None or "r" in off):
        said = "" if builtin == "readonly" else f"{builtin}: "
        return f"bash: {said}{typed}: readonly variable"
    array = state.arrays.get(name)
    if "n" in on and array is not None:
        return f"bash: {builtin}: {name}: reference variable cannot be an array"
    if "A" in on and array is not None and not array.assoc:
        return f"bash: {builtin}: {name}: cannot convert indexed to associative array"
    if "a" in on and array is not None and array.assoc:
        return f"bash: {builtin}: {name}: cannot convert associative to indexed array"
    if off & {"a", "A"} and array is not None:
        return f"bash: {builtin}: {name}: cannot destroy array variables in this way"
    kept = shell_attributes.changed(state.attributes.get(name, ""), on, off)
    wanted = "a" in on or "A" in on
    if wanted and array is None and not (op and listed):
        made = state.writable(name, "A" in on)
        if isinstance(made, str):
            return made
    if kept or name in state.attributes or not shell_attributes.declared(state, name):
        if name not in state.attributes and len(state.attributes) >= MAX_VARIABLES:
            return f"bash: {name}: too many variables in this lab"
        state.attributes[name] = kept.replace("r", "")  # readonly once its value is set
    if op is not None:
        array = state.arrays.get(name)
        is_list = listed or (array is not None and value.startswith("(") and value.endswith(")"))
        if is_list and sub is not None:
            return f"bash: {name}[{sub}]: cannot assign list to array member"
        if is_list:
            assoc = "A" in on or (array is not None and array.assoc)
            shell_assign.assign_list(shell, name, value[1:-1], op == "+=", assoc, declared=True)
        elif sub is not None:
            shell_assign.assign_element(shell, name, sub, value, op == "+=")
        elif "n" in kept:  # the name it stands for, kept as it is
            if name not in state.variables and state.full():
                return f"bash: {name}: too many variables in this lab"
            state.variables[name] = value
        else:
            value = shell_attributes.assigned(shell, name, value, op == "+=")
            problem = state.set(name, value)
            if problem:
                return problem
    if kept:
        state.attributes[name] = kept
    elif state.attributes.get(name) == "" and name in {*state.variables, *state.arrays}:
        del state.attributes[name]
    if "x" in on and name not in state.exported:
        state.exported.append(name)
    if "x" in off and name in state.exported:
        state.exported.remove(name)
    return None


def _printed(shell: Shell, builtin: str, names: list[str], on: set[str]) -> Output:
    """`declare -p [NAME...]`, and `declare [-aAx]` with no names: the lines bash prints."""
    state = shell.state
    if not names:
        if not on - {"p", "g"} and "p" not in on:  # `declare` alone: as `set` lists them
            return Output(shell_options.variables(shell))
        chosen = [n for n in shell_listing.names(state) if _matches(state, n, on)]
        return Output("\n".join(filter(None, (shell_listing.declared(state, n) for n in chosen))))
    lines, errors = [], []
    for name in names:
        line = shell_listing.declared(state, name)
        if line is None:
            errors.append(f"bash: {builtin}: {name}: not found")
        else:
            lines.append(line)
    return Output.exactly(
        "".join(line + "\n" for line in lines), 1 if errors else 0, "\n".join(errors)
    )


def _matches(state: ShellState, name: str, on: set[str]) -> bool:
    array, exported = state.arrays.get(name), name in state.exported
    kept = state.attributes.get(name, "")
    if any(letter in on and letter not in kept for letter in shell_attributes.KEPT):
        return False
    if "a" in on and (array is None or array.assoc):
        return False
    if "A" in on and (array is None or not array.assoc):
        return False
    return exported or "x" not in on


def _functions(shell: Shell, names: list[str], only_names: bool) -> Output:
    """`declare -f [NAME...]` (a function as it was typed) and `declare -F` (`declare -f NAME`
    lines with no names; the names alone with them); status 1 if one is not a function."""
    functions = shell.state.functions
    chosen = names or sorted(functions)
    shown = []
    for name in chosen:
        if name not in functions:
            continue
        if only_names:
            shown.append(name if names else f"declare -f {name}")
        else:
            shown.append(f"{name} () \n{functions[name]}")
    missing = any(name not in functions for name in chosen)
    return Output("\n".join(shown), 1 if missing else 0)


# ---------------------------------------------------------------------------- mapfile


def mapfile(shell: Shell, builtin: str, args: list[str], source: Input) -> Output:
    """`mapfile [-t] [-n COUNT] [-s SKIP] [-O ORIGIN] [-d DELIM] [ARRAY]` (MAPFILE without
    one): the rest of stdin's lines as the array's elements."""
    strip, count, skip, origin, delimiter = False, 0, 0, None, "\n"
    options: list[tuple[str, str]] = []  # (letter, its value)
    at = 0
    while at < len(args) and args[at].startswith("-") and len(args[at]) > 1:
        arg, at = args[at], at + 1
        if arg == "--":
            break
        for place, letter in enumerate(arg[1:], start=2):
            if letter == "t":
                strip = True
                continue
            if letter not in "nsOduCc":
                return Output.error(
                    f"bash: {builtin}: -{letter}: invalid option\n{MAPFILE_USAGE}", 2
                )
            value = arg[place:]
            if not value and at >= len(args):
                return Output.error(
                    f"bash: {builtin}: -{letter}: option requires an argument\n{MAPFILE_USAGE}", 2
                )
            if not value:
                value, at = args[at], at + 1
            options.append((letter, value))
            break
    for letter, value in options:
        if letter in "uCc":
            return Output.error(f"bash: {builtin}: -{letter}: not available in this lab", 2)
        if letter == "d":
            delimiter = value[:1] or "\0"
            continue
        number = int(value) if value.isdigit() and len(value) < 10 else None
        if number is None:
            word = "invalid array origin" if letter == "O" else "invalid line count"
            return Output.error(f"bash: {builtin}: {value}: {word}")
        if letter == "n":
            count = number
        elif letter == "s":
            skip = number
        else:
            origin = number
    name = args[at] if at < len(args) else "MAPFILE"
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return Output.error(f"bash: {builtin}: `{name}': not a valid identifier")
    current = shell.state.arrays.get(name)
    if current is not None and current.assoc:
        return Output.error(f"bash: {builtin}: {name}: not an indexed array")
    array = current.copy() if current is not None and origin is not None else Array()
    array.valued = True
    text = source.rest()
    source.at = len(source.text)
    index = origin or 0
    taken = 0
    for line in _lines(text, delimiter):
        if skip:
            skip -= 1
            continue
        if count and taken >= count:
            break
        value = line[:-1] if strip and line.endswith(delimiter) else line
        array.put(index, shell_attributes.element_value(shell, name, value))
        index, taken = index + 1, taken + 1
        if array.over():
            return Output.error(too_large(name))
    problem = shell.state.assign(name, array)
    return Output.error(problem) if problem else Output()


def _lines(text: str, delimiter: str) -> list[str]:
    """The text's lines, each with its delimiter (a last one without it, if it has none)."""
    pieces = text.split(delimiter)
    lines = [piece + delimiter for piece in pieces[:-1]]
    return [*lines, pieces[-1]] if pieces[-1] else lines
