"""The admin host's shell running lists and compound commands (simulators.lab.shell_grammar):
`if`, `while`, `until`, `for`, `case`, `{ ...; }`, `!`, `break` and `continue`, and `read`.

What runs is in `pieces`, in order: ("out", stdout exactly) and ("err", stderr's lines), so a
loop's lines and its errors show interleaved as bash shows them. A compound command's stdin
(`done < file`, or the pipe before it) is read line by line by `read` only; other commands in
it see what is left without taking it (bash's `cat` would take the rest). Every loop turn
checks the command's budget and counts against MAX_TURNS, so no loop runs for ever.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simulators.lab import budget, shell_arrays, shell_attributes, shell_redirect, shell_xtrace
from simulators.lab.shell_grammar import Compound, List, Pipeline
from simulators.lab.shell_match import matches
from simulators.lab.shell_scripts import ScriptExit
from simulators.lab.shell_tokens import Aborted, Refused
from simulators.lab.tool import Context, Output

if TYPE_CHECKING:
    from simulators.lab.shell import Shell


class Pieces(list[tuple[str, str]]):
    """A command's output in the order it came: ("out", stdout exactly) and ("err", one line
    of stderr) pieces."""

    def say(self, shell: Shell, kind: str, text: str) -> None:
        """One piece, counted against the command's output budget (budget.check_output)."""
        self.append((kind, text))
        shell.shown += len(text) + 1

    def said(self, shell: Shell, out: str, err: str) -> None:
        """A command's stdout and stderr as a pipeline returns them: stderr first, as shown."""
        for kind, text in (("err", err), ("out", out)):
            if text:
                self.say(shell, kind, text)

    def stdout(self) -> str:
        return "".join(text for kind, text in self if kind == "out")

    def errors(self) -> list[str]:
        return [text for kind, text in self if kind == "err"]

    def stderr(self) -> str:
        return "\n".join(self.errors())

    def open_line(self) -> bool:
        """Whether the terminal's cursor stays on the last line shown: the last piece is
        stdout that ends in no newline (`printf x`, a jsonpath template)."""
        return bool(self) and self[-1][0] == "out" and not self[-1][1].endswith("\n")

    def lines(self) -> list[str]:
        """What the terminal shows: stderr's lines, stdout without its last newline, in the
        order they came; one command's stdout runs on into the next's (`printf a; echo b` is
        `ab`, `printf '[%s]' x; echo` one line)."""
        shown: list[str] = []
        out: list[str] = []
        for kind, text in self:
            if kind == "out":
                out.append(text)
                continue
            if out:
                shown.append(chomp("".join(out)))
                out = []
            shown.append(text)
        if out:
            shown.append(chomp("".join(out)))
        return shown


# Loop turns in one command, all loops together: past it, the command stops with a message.
MAX_TURNS = 10_000


class LoopJump(Exception):
    """`break N` or `continue N`, on its way to the loop it leaves."""

    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.levels = levels


class TooManyTurns(Exception):
    """The command's loops went round MAX_TURNS times."""


def chomp(text: str) -> str:
    """`text` without one final newline."""
    return text[:-1] if text.endswith("\n") else text


@dataclass
class Input:
    """A compound command's stdin, and how much of it `read` has taken."""

    text: str
    at: int = 0

    def rest(self) -> str:
        """What is left; all of it as given when nothing was taken (an fs.Prefix keeps the
        size it carries: `{ wc -c; } < PROGRAM`)."""
        return self.text[self.at :] if self.at else self.text

    def line(self) -> str | None:
        """The next line without its newline (a last one without it too); None at the end."""
        if self.at >= len(self.text):
            return None
        end = self.text.find("\n", self.at)
        end = len(self.text) if end < 0 else end
        line, self.at = self.text[self.at : end], end + 1
        return line


def run_list(shell: Shell, program: List, source: Input | None, pieces: Pieces) -> int:
    """Run `;`/`&&`/`||` joined pipelines; their output goes to `pieces`; the last status.
    With `set -e`, a failure that is not a condition ends the script or line (ScriptExit)."""
    code = shell.state.status
    for index, (connector, pipeline) in enumerate(program):
        if connector == "&&" and code != 0:
            continue
        if connector == "||" and code == 0:
            continue
        code = run_pipeline(shell, pipeline, source, pieces)
        shell.state.status = code
        if code and "errexit" in shell.state.options and not shell.conditions:
            listed = index + 1 < len(program) and program[index + 1][0] in ("&&", "||")
            # A loop, `if` or group failed by its own commands, which `set -e` judged there.
            only = pipeline.commands[0] if len(pipeline.commands) == 1 else None
            judged = isinstance(only, Compound) and only.kind not in ("subshell", "arith")
            if not listed and not pipeline.negated and not judged:
                raise ScriptExit(code)
    return code


def condition(shell: Shell, program: List, source: Input | None, pieces: Pieces) -> int:
    """An `if`'s, `elif`'s, `while`'s or `until`'s condition: `set -e` does not end on it."""
    shell.conditions += 1
    try:
        return run_list(shell, program, source, pieces)
    finally:
        shell.conditions -= 1


def run_pipeline(shell: Shell, pipeline: Pipeline, source: Input | None, pieces: Pieces) -> int:
    only = pipeline.commands[0] if len(pipeline.commands) == 1 else None
    if isinstance(only, Compound) and not only.redirects:
        code = run_compound(shell, only, source, pieces)  # its lines interleaved as they come
        if only.kind in ("subshell", "arith"):  # a group, `if`, loop: its own pipelines set it
            shell_arrays.pipestatus(shell, [code])
    else:
        try:
            out, err, code = shell.pipeline(pipeline, source)
        except (ScriptExit, Aborted) as stop:
            pieces.said(shell, *(stop.shown or ("", "")))
            stop.shown = None
            raise
        pieces.said(shell, out, err)
        budget.check_output(shell.shown, "bash")
    return (0 if code else 1) if pipeline.negated else code


def run_piped(
    shell: Shell,
    compound: Compound,
    stdin: str | Input | None,
    last: bool = False,
    subshell: bool = False,
) -> tuple[str, str, int]:
    """A compound command in a pipe or with redirections: (stdout exactly, stderr's lines,
    status), as a simple command's. Its stdout is captured (not a terminal's) unless it is
    the pipe's `last` and not redirected. In a `subshell` (one of several in a pipe), an
    `exit`, a `set -e` failure or a `set -u` error ends it alone, its output kept."""
    with shell.own_fds():  # `done < <(kubectl get nodes)`
        pieces = Pieces()
        source = Input(stdin) if isinstance(stdin, str) else stdin
        try:
            stdin_text, targets = shell_redirect.redirections(
                shell, compound.redirects, source.rest() if source else ""
            )
        except Refused as refused:
            return "", str(refused), 1
        if any(r.op in ("<", "<<", "<<<") for r in compound.redirects):
            source = Input(stdin_text)
        captured = int(not last or targets[1][0] != "out")
        shell.capturing += captured
        try:
            code = run_compound(shell, compound, source, pieces)
        except (ScriptExit, Aborted) as stop:
            if not subshell:
                # `while ...; done < f` under `set -e`: what it printed first still shows.
                if isinstance(stop, Aborted) and not stop.said:  # to its stderr, as bash's
                    pieces.say(shell, "err", str(stop))
                    stop.said = True
                out, err, _ = shell_redirect.route(
                    shell, pieces.stdout(), pieces.stderr(), 1, targets
                )
                stop.shown = (out, err)
                raise
            if isinstance(stop, Aborted) and stop.line():
                pieces.say(shell, "err", stop.line())
            code = stop.code if isinstance(stop, ScriptExit) else 1
        finally:
            shell.capturing -= captured
        return shell_redirect.route(shell, pieces.stdout(), pieces.stderr(), code, targets)


def run_compound(shell: Shell, compound: Compound, source: Input | None, pieces: Pieces) -> int:
    """One compound command; an expansion of its own that bash refuses (a loop's words, a
    case's subject) is its one line on stderr and status 1, as a simple command's."""
    try:
        return _run_compound(shell, compound, source, pieces)
    except Refused as refused:
        pieces.say(shell, "err", str(refused))
        return 1


def _run_compound(shell: Shell, compound: Compound, source: Input | None, pieces: Pieces) -> int:
    kind = compound.kind
    if kind == "function":
        problem = shell.define_function(compound.name, compound.source)
        if problem:
            pieces.say(shell, "err", problem)
        return 1 if problem else 0
    if kind == "if":
        for test, body in compound.clauses:
            if condition(shell, test, source, pieces) == 0:
                return run_list(shell, body, source, pieces)
        if compound.otherwise is not None:
            return run_list(shell, compound.otherwise, source, pieces)
        return 0
    if kind == "group":
        return run_list(shell, compound.body, source, pieces)
    if kind == "subshell":
        # No loop around it in its process: `(break)` is bash's "only meaningful" there.
        loops, shell.loops = shell.loops, 0
        with shell.subshell():
            try:
                return run_list(shell, compound.body, source, pieces)
            except Aborted as aborted:  # `${v:?}` ends the subshell, not the line
                if aborted.line():
                    pieces.say(shell, "err", aborted.line())
                return 1
            except ScriptExit as done:  # `(exit 3)`
                return done.code
            finally:
                shell.loops = loops
    if kind == "case":
        return _case(shell, compound, source, pieces)
    if kind == "arith":
        _trace(shell, compound, pieces, compound.arithmetic[0])
        return 0 if shell.arithmetic(compound.arithmetic[0], "((") else 1
    return _loop(shell, compound, source, pieces)


def _loop(shell: Shell, compound: Compound, source: Input | None, pieces: Pieces) -> int:
    turns: list[str] = []
    words = compound.words
    if compound.kind == "for" and words is None:
        turns = list(shell.positional)  # `for n; do`: the positional parameters
    elif compound.kind == "for" and words is not None:
        turns = _expanded(shell, pieces, lambda: [f for word in words for f in shell.expand(word)])
    shell.loops += 1
    try:
        return _turns(shell, compound, turns, source, pieces)
    finally:
        shell.loops -= 1


def _turns(
    shell: Shell, compound: Compound, turns: list[str], source: Input | None, pieces: Pieces
) -> int:
    code = index = 0
    while True:
        if compound.kind == "for":
            if index >= len(turns):
                return code
            _trace(shell, compound, pieces)
            value = shell_attributes.assigned(shell, compound.name, turns[index], False)
            problem = shell.state.set(compound.name, value)
            if problem:
                pieces.say(shell, "err", problem)
                return 1
            body = compound.body
        elif compound.kind == "cfor":
            # The step runs before every turn but the first (after a `continue` too).
            start, test, step = compound.arithmetic
            first = step if index else start
            _trace(shell, compound, pieces, first)
            if first.strip():
                shell.arithmetic(first, "((")
            _trace(shell, compound, pieces, test)
            if test.strip() and not shell.arithmetic(test, "(("):
                return code
            body = compound.body
        else:
            guard, body = compound.clauses[0]
            held = condition(shell, guard, source, pieces)
            if (held == 0) != (compound.kind == "while"):
                return code
        index += 1
        _turn(shell)
        try:
            code = run_list(shell, body, source, pieces)
        except LoopJump as jump:
            if jump.levels > 1 and shell.loops > 1:  # bash: past the outermost, it stops there
                jump.levels -= 1
                raise
            # break and continue are builtins whose status is 0: $? in the next turn says so.
            shell.state.status = 0
            if jump.kind == "break":
                return 0
            code = 0


def _turn(shell: Shell) -> None:
    shell.turns += 1
    if shell.turns > MAX_TURNS:
        raise TooManyTurns
    budget.check_time()


def _expanded[T](shell: Shell, pieces: Pieces, expand: Callable[[], T]) -> T:
    """A compound command's own expansion (a `for`'s words, a `case`'s word): the stderr of
    its `$(...)` (and their `set -x` lines) shown after it."""
    saved, shell.stray = shell.stray, []
    try:
        value = expand()
    finally:
        strays, shell.stray = shell.stray, saved
    for line in strays:
        pieces.say(shell, "err", line)
    return value


def _trace(shell: Shell, compound: Compound, pieces: Pieces, expression: str = "") -> None:
    """`set -x`: a `for` turn's, a `case`'s or an arithmetic expression's line."""
    if shell_xtrace.on(shell):
        pieces.say(shell, "err", shell_xtrace.compound(shell, compound, expression))


def _case(shell: Shell, compound: Compound, source: Input | None, pieces: Pieces) -> int:
    assert compound.subject is not None
    _trace(shell, compound, pieces)
    subject_word = compound.subject
    subject = _expanded(shell, pieces, lambda: shell.unsplit(subject_word))
    for patterns, body in compound.items:
        for pattern in patterns:
            if matches(subject, shell.pattern(pattern), shell.state.on("nocasematch")):
                return run_list(shell, body, source, pieces) if body else 0
    return 0


def read_tool(ctx: Context, args: list[str]) -> Output:
    """`read` where the shell does not run it itself (xargs): its stdin, a line of it."""
    return read(ctx, args, Input(ctx.stdin))


def jump(kind: str) -> Callable[[Context, list[str]], Output]:
    """`break [N]` and `continue [N]`: leave N loops (or go round the Nth again)."""

    def builtin(ctx: Context, args: list[str]) -> Output:
        levels = budget.bounded_int(args[0], 1 << 20) if args else 1
        if levels is None or levels < 1:
            return Output.error(f"bash: {kind}: {args[0]}: loop count out of range")
        raise LoopJump(kind, levels)

    return builtin


# What a name is set to, given its attributes (shell_attributes.assigned without `+=`): an
# integer's value is its arithmetic expression's.
Assigned = Callable[[str, str], str]


def _as_typed(name: str, value: str) -> str:
    return value


def read(
    ctx: Context, args: list[str], source: Input | None, assigned: Assigned = _as_typed
) -> Output:
    """`read [-r] [-a ARRAY] [-p PROMPT] [NAME...]`: the next line of the compound command's
    stdin (or of a here-string), split at IFS into the names (REPLY without one), the last
    taking the rest, or every field into ARRAY's elements; status 1 at the end of the input.
    Without -r a backslash escapes the next character. `assigned`: each value as its name
    takes it (`declare -i n; read n <<< 2+3` sets 5)."""
    raw = False
    names: list[str] = []
    array: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        for at, letter in enumerate(arg[1:] if arg.startswith("-") and len(arg) > 1 else ""):
            if letter == "r":
                raw = True
                continue
            if letter not in "ap":
                return Output.error(
                    f"bash: read: -{letter}: invalid option\nread: usage: read [-r] [-a array]"
                    " [-p prompt] [name ...]",
                    2,
                )
            value = arg[at + 2 :] or (args[i + 1] if i + 1 < len(args) else None)
            if value is None:
                return Output.error(f"bash: read: -{letter}: option requires an argument", 2)
            i += 0 if arg[at + 2 :] else 1
            array = value if letter == "a" else array
            break
        else:
            if not arg.startswith("-") or len(arg) == 1:
                names.append(arg)
        i += 1
    line = source.line() if source is not None else None
    # `IFS=, read a b` puts IFS in the command's environment; `IFS=,` alone in the shell's.
    separators = ctx.env.get("IFS", ctx.shell.variables.get("IFS", " \t\n"))
    if array is not None:
        fields: list[str] = []
        if line is not None:
            text, quoted = (line, frozenset[int]()) if raw else _unbackslash(line)
            fields = [assigned(array, f) for f in _every_field(text, separators, quoted)]
        problem = shell_arrays.read_into(ctx.shell, array, fields)
        return Output.error(problem) if problem else Output("", 1 if line is None else 0)
    if line is None:
        for name in names or ["REPLY"]:
            ctx.shell.set(name, "")
        return Output("", 1)
    line, quoted = (line, frozenset[int]()) if raw else _unbackslash(line)
    if not names:
        ctx.shell.set("REPLY", assigned("REPLY", line))
        return Output("", 0)
    values = _split(line, separators, len(names), quoted)
    for name, value in zip(names, values + [""] * (len(names) - len(values)), strict=False):
        problem = ctx.shell.set(name, assigned(name, value))
        if problem and problem.endswith(": readonly variable"):
            return Output.error(problem)  # bash names no builtin there
        if problem:
            return Output.error(problem.replace("bash:", "bash: read:", 1))
    return Output("", 0)


def _unbackslash(line: str) -> tuple[str, frozenset[int]]:
    """The line without read's backslashes, and where the characters they quoted are (never
    separators)."""
    out: list[str] = []
    quoted: set[int] = set()
    i = 0
    while i < len(line):
        if line[i] == "\\":
            if i + 1 < len(line):
                quoted.add(len(out))
                out.append(line[i + 1])
            i += 2
            continue
        out.append(line[i])
        i += 1
    return "".join(out), frozenset(quoted)


def _split(line: str, separators: str, count: int, quoted: frozenset[int]) -> list[str]:
    """bash's field splitting for read: IFS whitespace trimmed and runs of it one separator,
    other IFS characters each a separator, a quoted character never one; the last name takes
    the rest of the line (unless that rest splits into one field: `y:` gives y)."""
    start, end, blank, other = _trimmed(line, separators, quoted)
    values: list[str] = []
    i = start
    while len(values) < count - 1 and i < end:
        j = i
        while j < end and not (blank(j) or other(j)):
            j += 1
        values.append(line[i:j])
        i = _past_separator(j, end, blank, other)
    if i < end or len(values) < count:
        fields = _fields(i, end, blank, other)
        values.append(line[fields[0][0] : fields[0][1]] if len(fields) == 1 else line[i:end])
    return values


Separator = Callable[[int], bool]


def _every_field(line: str, separators: str, quoted: frozenset[int]) -> list[str]:
    """`read -a`'s fields: the line split at IFS as `_split` splits it, into as many as it
    holds."""
    start, end, blank, other = _trimmed(line, separators, quoted)
    return [line[low:high] for low, high in _fields(start, end, blank, other)]


def _trimmed(
    line: str, separators: str, quoted: frozenset[int]
) -> tuple[int, int, Separator, Separator]:
    """Where `line`'s fields lie once IFS whitespace is trimmed from both ends, and the tests
    of an IFS whitespace character and of another IFS character (a quoted one is neither)."""
    blanks = "".join(c for c in separators if c in " \t\n")
    others = "".join(c for c in separators if c not in " \t\n")

    def blank(at: int) -> bool:
        return line[at] in blanks and at not in quoted

    def other(at: int) -> bool:
        return line[at] in others and at not in quoted

    start, end = 0, len(line)
    while start < end and blank(start):
        start += 1
    while end > start and blank(end - 1):
        end -= 1
    return start, end, blank, other


def _past_separator(j: int, end: int, blank: Separator, other: Separator) -> int:
    while j < end and blank(j):
        j += 1
    if j < end and other(j):
        j += 1
        while j < end and blank(j):
            j += 1
    return j


def _fields(i: int, end: int, blank: Separator, other: Separator) -> list[tuple[int, int]]:
    """POSIX field splitting of a line's [i, end): a delimiter ends a field; one at the end
    starts none. Each field's span."""
    fields: list[tuple[int, int]] = []
    while i < end:
        j = i
        while j < end and not (blank(j) or other(j)):
            j += 1
        fields.append((i, j))
        i = _past_separator(j, end, blank, other)
    return fields


__all__ = [
    "Input",
    "LoopJump",
    "TooManyTurns",
    "jump",
    "read",
    "read_tool",
    "run_list",
    "run_piped",
]
