"""bash's assignments on the admin host (simulators.lab.shell runs them): `NAME=value`,
`NAME+=value` (appended), `NAME[SUB]=value` and `NAME[SUB]+=value` (an element: SUB an
arithmetic expression for an indexed array, a key for an associative one), and the lists
`NAME=(...)` and `NAME+=(...)`, whose words are expanded as a command's (split, globbed,
braces) unless they are `[SUB]=value` ones; an associative array's list is `[KEY]=value`
words or KEY VALUE pairs. Errors are bash 5.2's words; the bounds are the arrays'
(environment.MAX_ELEMENTS, MAX_ARRAY_BYTES).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simulators.lab import shell_attributes
from simulators.lab.environment import Array, Key, too_large
from simulators.lab.shell_arrays import index_of, put_element
from simulators.lab.shell_scan import subscript_end
from simulators.lab.shell_syntax import DECLARATIONS, assignment, tokenize
from simulators.lab.shell_tokens import Aborted, Part, Refused, Word

if TYPE_CHECKING:
    from simulators.lab.shell_expansion import Expansion

_TARGET = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[|\+?=)")


@dataclass
class Target:
    """An assignment word's parts: `name`, the subscript's parts (None: none), `+=`, the value's
    parts (an "array" part for a list)."""

    name: str
    subscript: list[Part] | None
    append: bool
    value: list[Part]

    def typed(self) -> str:
        """The target as bash names it in an error (`a[$i]`, as typed)."""
        if self.subscript is None:
            return self.name
        return f"{self.name}[{''.join(_as_typed(p) for p in self.subscript)}]"


def _as_typed(part: Part) -> str:
    if part.kind == "var":
        return "$" + part.value if part.bare else "${" + part.value + "}"
    if part.kind == "cmd":
        return f"$({part.value})"
    if part.kind == "arith":
        return f"$(({part.value}))"
    return part.value


def _cut(parts: list[Part], start: int, stop: int) -> list[Part]:
    """The parts between two places of their text (each part other than literal text one
    character wide there)."""
    out: list[Part] = []
    at = 0
    for part in parts:
        width = len(part.value) if part.kind == "lit" else 1
        low, high = max(start, at), min(stop, at + width)
        if low < high:
            lit = part.kind == "lit"
            out.append(Part("lit", part.value[low - at : high - at]) if lit else part)
        at += width
    return out


def target(word: Word, listed: bool = False) -> Target | None:
    """An assignment word read (`NAME=v`, `NAME+=v`, `NAME[SUB]=v`, `NAME=(...)`), or in an
    array's list a `[SUB]=v` word (name ""); None for any other word."""
    typed = "".join(p.value if p.kind == "lit" else "\0" for p in word.parts)
    if listed:
        if not word.parts or word.parts[0].kind != "lit" or not typed.startswith("["):
            return None
        name, start = "", 1
    else:
        found = _TARGET.match(typed)
        if found is None or assignment(word) is None:
            return None
        name, start = found.group(1), found.end()
        if found.group(2) != "[":
            append = found.group(2) == "+="
            return Target(name, None, append, _cut(word.parts, start, len(typed)))
    end = subscript_end(typed, start)
    if end < 0 or not typed.startswith(("=", "+="), end + 1):
        return None
    append = typed[end + 1] == "+"
    value_at = end + (3 if append else 2)
    return Target(
        name, _cut(word.parts, start, end), append, _cut(word.parts, value_at, len(typed))
    )


def text_of(shell: Expansion, parts: list[Part]) -> str:
    """Parts expanded as one string, neither split nor globbed (an assignment's value)."""
    return "".join(shell._expand_parts(parts, split=False)[0] or [""])


def assign(shell: Expansion, word: Word) -> tuple[str, str | None]:
    """Run an assignment word in this shell; what `set -x` shows of it: the target with its
    `=` and the value (None: a list, shown as typed). Refused with bash's words where it
    cannot be done; Aborted (the rest of the line dropped, as interactive bash does) where
    the name is readonly."""
    try:
        return _assign(shell, word)
    except Refused as refused:
        if str(refused).endswith(": readonly variable"):
            raise Aborted(str(refused)) from None
        raise


def _assign(shell: Expansion, word: Word) -> tuple[str, str | None]:
    found = target(word)
    assert found is not None
    op = "+=" if found.append else "="
    if found.value and found.value[0].kind == "array":
        if found.subscript is not None:
            raise Refused(f"bash: {found.typed()}: cannot assign list to array member")
        body = found.value[0].value
        assign_list(shell, found.name, body, found.append)
        return f"{found.name}{op}({body})", None
    value = given = text_of(shell, found.value)
    if found.subscript is None:
        if found.name == "RANDOM" and not found.append:  # an integer variable
            value = str(shell.arithmetic(value))
        elif shell.state.readonly(shell.state.resolved(found.name)):
            raise Refused(f"bash: {shell.state.resolved(found.name)}: readonly variable")
        else:
            value = shell_attributes.assigned(shell, found.name, value, found.append)
        problem = shell.state.set(found.name, value)
        if problem:
            raise Refused(problem)
        return f"{found.name}{op}", given
    sub = text_of(shell, found.subscript)
    typed = found.typed()
    if shell.state.readonly(shell.state.resolved(found.name)):  # named as typed
        raise Refused(f"bash: {found.name}: readonly variable")
    found.name = shell.state.resolved(found.name)
    array = shell.state.arrays.get(found.name)
    assoc = array is not None and array.assoc
    key = sub if assoc else index_of(shell, found.name, sub, assigning=typed)
    if not sub or key is None or key == "":
        raise Refused(f"bash: {typed}: bad array subscript")
    if found.append and shell_attributes.integer(shell.state, found.name):
        value = str(shell.arithmetic(f"{_current(shell, found.name, key) or 0}+({value})"))
    elif found.append:
        value = _current(shell, found.name, key) + value
    put_element(shell, found.name, key, value)
    return f"{found.name}[{sub}]{op}", given


def assign_element(shell: Expansion, name: str, sub: str, value: str, append: bool) -> None:
    """`declare a[SUB]=value`: one element set (SUB as given, expanded)."""
    array = shell.state.arrays.get(name)
    typed = f"{name}[{sub}]"
    key = sub if array is not None and array.assoc else index_of(shell, name, sub, assigning=typed)
    if key is None or key == "":
        raise Refused(f"bash: {typed}: bad array subscript")
    put_element(shell, name, key, (_current(shell, name, key) if append else "") + value)


def _current(shell: Expansion, name: str, key: Key) -> str:
    array = shell.state.arrays.get(name)
    if array is not None:
        return array.items.get(key, "")
    return shell.state.variables.get(name, "") if key == 0 else ""


def command_words(
    shell: Expansion, words: list[Word], most: int
) -> tuple[list[str], frozenset[int]]:
    """A command's words expanded (Refused past `most` of them): `[[`'s neither split nor
    globbed, as bash's own syntax; declare's, local's and export's NAME=value ones one word
    each, not split (a list as typed, `a=(1 2)`: the second value gives their indexes among
    the arguments, for declare to read them as lists)."""
    argv: list[str] = []
    whole = bool(words) and words[0].plain and words[0].text == "[["
    declaring = bool(words) and words[0].plain and words[0].text in DECLARATIONS
    listed: set[int] = set()
    for word in words:
        found = target(word) if declaring and word is not words[0] else None
        if found is not None and found.value and found.value[0].kind == "array":
            sub = "" if found.subscript is None else f"[{text_of(shell, found.subscript)}]"
            op = "+=" if found.append else "="
            listed.add(len(argv) - 1)
            argv.append(f"{found.name}{sub}{op}({found.value[0].value})")
        elif found is not None or whole:
            argv.append(shell.unsplit(word))
        else:
            argv.extend(shell.expand(word))
        if len(argv) > most:
            raise Refused("bash: too many arguments for this lab")
    return argv, frozenset(listed)


def environment(shell: Expansion, words: list[Word]) -> list[tuple[str, str]]:
    """Assignments before a command, for its environment: (name, value) each; a list as typed
    (bash puts `a=(1 2)` in it as text), an element's (`a[1]=x cmd`) left out."""
    found = (environment_value(shell, word) for word in words)
    return [pair for pair in found if pair is not None]


def environment_value(shell: Expansion, word: Word) -> tuple[str, str] | None:
    """A `NAME=value` word before a command, for its environment: (name, value); a list as
    typed (bash puts `a=(1 2)` in it as text), None for an element's (`a[1]=x cmd`)."""
    found = target(word)
    if found is None or found.subscript is not None:
        return None
    if shell.state.readonly(found.name):
        shell.stray.append(f"bash: {found.name}: readonly variable")
        return None
    if found.value and found.value[0].kind == "array":
        return found.name, f"({found.value[0].value})"
    value = text_of(shell, found.value)
    if found.append:
        value = (shell.state.value(found.name) or "") + value
    return found.name, value


def assign_list(
    shell: Expansion,
    name: str,
    body: str,
    append: bool = False,
    assoc: bool | None = None,
    declared: bool = False,
) -> None:
    """`name=(body)` (`+=`: added to what it holds): the list's words expanded as a command's
    (split and globbed), `[SUB]=value` ones set at SUB; an associative array's list is
    `[KEY]=value` words or KEY VALUE pairs. `assoc` None: the kind `name` has; `declared`:
    given to declare (which quotes a word in its warning, as bash's reads the list again)."""
    state = shell.state
    name = state.resolved(name)
    current = state.arrays.get(name)
    if assoc is None:
        assoc = current is not None and current.assoc
    # `a+=(...)` changes the array in place (a loop of them is not copying it each time);
    # `undo` holds what it changed, put back if the lab's bounds refuse the list.
    undo: dict[Key, str | None] | None = None
    valued = True
    if append and current is not None:
        writable = state.writable(name)
        assert not isinstance(writable, str)  # it is an array already
        array, undo, valued = writable, {}, writable.valued
    else:
        array = Array(assoc)
        value = state.variables.get(name)
        if append and value is not None:
            array.put("0" if assoc else 0, value)

    def put(key: Key, value: str) -> None:
        value = shell_attributes.element_value(shell, name, value)
        if undo is not None and key not in undo:
            undo[key] = array.items.get(key)
        array.put(key, value)
        if not array.over():
            return
        for changed, old in (undo or {}).items():
            if old is None:
                array.drop(changed)
            else:
                array.put(changed, old)
        array.valued = valued
        raise Refused(too_large(name))

    array.valued = True
    words = [token for token in tokenize(body, listed=True) if isinstance(token, Word)]
    pairs = assoc and bool(words) and target(words[0], listed=True) is None
    following = array.last() + 1 if not assoc else 0
    pending: str | None = None  # a KEY waiting for its VALUE
    skip = False  # the VALUE of a KEY that was empty
    for word in words:
        if skip:
            skip = False
            continue
        explicit = target(word, listed=True) if not pairs else None
        if explicit is not None and explicit.subscript is not None:
            sub = text_of(shell, explicit.subscript)
            value = text_of(shell, explicit.value)
            shown = f"[{sub}]{'+=' if explicit.append else '='}{value}"
            key = _list_key(shell, array, sub, shown)
            if key is None:
                continue
            if explicit.append:
                value = array.items.get(key, "") + value
            put(key, value)
            following = int(key) + 1 if not assoc else following
        elif pairs:
            text = text_of(shell, word.parts)
            if pending is None and not text:
                typed = body[word.start : word.end] if word.start >= 0 else word.text
                shell.stray.append(f"bash: {typed}: bad array subscript")
                skip = True
            elif pending is None:
                pending = text
            else:
                put(pending, text)
                pending = None
        elif assoc:
            typed = body[word.start : word.end] if word.start >= 0 else word.text
            quoted = "'" + typed.replace("'", "'\\''") + "'" if declared else typed
            shell.stray.append(
                f"bash: {name}: {quoted}: must use subscript when assigning associative array"
            )
        else:
            for field in shell.expand(word):
                put(following, field)
                following += 1
    if pending is not None:
        put(pending, "")
    if undo is None:
        problem = state.assign(name, array)
        if problem:
            raise Refused(problem)


def _list_key(shell: Expansion, array: Array, sub: str, shown: str) -> Key | None:
    """A `[SUB]=value` word's key in a list (negative from the array's end so far); None, bash's
    warning said, where it names none."""
    if array.assoc:
        if sub:
            return sub
    elif sub.strip():
        index = shell.arithmetic(sub)
        index += array.last() + 1 if index < 0 else 0
        if index >= 0:
            return index
    shell.stray.append(f"bash: {shown}: bad array subscript")
    return None
