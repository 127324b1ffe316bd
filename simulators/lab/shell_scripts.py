"""Scripts on the admin host: `bash [-x] FILE [ARGS]` and `sh FILE` (in a subshell of their
own; `-x` traces it), `bash -c COMMAND [NAME [ARGS]]`, `source FILE [ARGS]` or `. FILE` (in
this shell: what it sets stays), a file of the home folder written with the editors or a
redirection, and `eval ARGS` (the words as a line, in this shell). Inside,
`$1`... `$#`, `$@`, `$*` and `$0`, `shift [N]`, and `exit [N]` that ends the script (or a
`( ... )`) with that status. Nested at most MAX_DEPTH deep (a script that runs itself stops
there, in one line); every turn of their loops and every command counts against the command's
budget as typed ones do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulators.lab import budget, files, fs, shell_compound, shell_xtrace, system_files
from simulators.lab.environment import SCRIPT_OPTIONS, SCRIPT_SHOPTS, SCRIPT_VARIABLES
from simulators.lab.shell_grammar import List, parse
from simulators.lab.shell_syntax import ShellSyntaxError, tokenize
from simulators.lab.shell_tokens import Aborted, Incomplete, Refused
from simulators.lab.tool import Output

if TYPE_CHECKING:
    from simulators.lab.shell import Shell
    from simulators.lab.shell_compound import Input

MAX_DEPTH = 8
# `eval`s running inside one another (bash's only bound is its stack).
MAX_EVAL_NESTING = 32


class ScriptExit(Exception):
    """`exit N` inside a script or a subshell (or a `set -e` failure): it ends there with
    status N. `shown`: what a redirected compound command printed before it, (stdout,
    stderr), for the list it ends to show."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code
        self.shown: tuple[str, str] | None = None


class FunctionReturn(Exception):
    """`return N`: the function (or the sourced file) ends with status N."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def exit_status(shell: Shell, args: list[str]) -> int:
    """`exit [N]`'s status: N modulo 256, or the last command's."""
    if not args:
        return shell.state.status
    number = budget.bounded_int(args[0], 1 << 62)
    if number is None:
        raise Refused(f"bash: exit: {args[0]}: numeric argument required")
    return number % 256


def shift(shell: Shell, args: list[str]) -> Output:
    count = budget.bounded_int(args[0], 1 << 20) if args else 1
    if count is None or count < 0:
        return Output.error(f"bash: shift: {args[0]}: numeric argument required")
    if count > len(shell.positional):
        return Output("", 1)  # bash says nothing unless shift_verbose is set
    shell.positional = shell.positional[count:]
    return Output("")


def bash(shell: Shell, name: str, args: list[str]) -> Output:
    """`bash`/`sh` [-x] with a script file or `-c COMMAND`, in a subshell (`-x`: traced)."""
    letters = ""
    while args and args[0][:1] == "-" and len(args[0]) > 1 and set(args[0][1:]) <= set("xc"):
        letters, args = letters + args[0][1:], args[1:]
    xtrace = "x" in letters
    if "c" in letters:
        if not args:
            return Output.error(f"bash: {name}: -c: option requires an argument", 2)
        return _run(shell, args[0], args[1:2] or [name], args[2:], True, xtrace, command=True)
    if not args:
        return Output.error(f"bash: {name}: an interactive shell is not available in this lab")
    if args[0].startswith("-") and args[0] != "-":
        return Output.error(f"bash: {name}: {args[0]}: options are not available in this lab", 2)
    text, why = files.opened(shell.ctx, args[0])
    if text is None:
        if why == fs.IS_FOLDER:  # bash names itself after the script it could not read
            return Output.error(f"{args[0]}: {args[0]}: {why}", 126)
        return Output.error(f"{name}: {args[0]}: {why}", 127)
    return _run(shell, text, [args[0]], args[1:], True, xtrace)


# The interpreters a `#!` line may name that are this host's bash.
_BASH_LINES = frozenset(
    {"/bin/bash", "/usr/bin/bash", "/bin/sh", "/usr/bin/sh", "/usr/bin/env bash", "/usr/bin/env sh"}
)


def run_path(shell: Shell, path: str, args: list[str]) -> Output:
    """A command word with a `/` (`./check.sh`, `~/s.sh`): a file of the home folder that
    `chmod +x` made executable, run as its `#!` line says (bash or sh; a file without one is
    run by bash too), in a subshell with `$0` the path typed."""
    where = fs.locate(shell.ctx, path)
    if where.folder and not where.error:
        return Output.error(f"bash: {path}: Is a directory", 126)
    if not where.file or where.error:
        return Output.error(f"bash: {path}: {where.error or fs.NOT_FOUND}", 127)
    name = where.key
    program = system_files.program_at(where.path)  # `/usr/bin/ls`, `/bin/ls`: the tool itself
    handler = shell._command(program) if program is not None else None
    if handler is not None:
        return handler(shell.ctx, args)
    text = fs.text(shell.ctx.world.state, where.path)
    if not files.mode_of(shell.ctx, name) & 0o100:
        return Output.error(f"bash: {path}: Permission denied", 126)
    if text.startswith("#!"):
        interpreter = " ".join(text[2:].split("\n", 1)[0].split())
        if interpreter not in _BASH_LINES:
            return Output.error(
                f"bash: {path}: {interpreter}: bad interpreter: No such file or directory", 126
            )
    return _run(shell, text, [path], args, own_process=True)


def source(shell: Shell, name: str, args: list[str]) -> Output:
    """`source FILE [ARGS]` and `. FILE`: the file run in this shell."""
    if not args:
        return Output.error(
            f"bash: {name}: filename argument required\n{name}: usage: {name} filename [arguments]",
            2,
        )
    text, why = files.opened(shell.ctx, args[0])
    if text is None and why == fs.IS_FOLDER:
        return Output.error(f"bash: {name}: {args[0]}: is a directory")
    if text is None:
        return Output.error(f"bash: {args[0]}: No such file or directory")
    return _run(shell, text, None, args[1:] or None, own_process=False)


def _run(
    shell: Shell,
    text: str,
    zero: list[str] | None,
    positional: list[str] | None,
    own_process: bool,
    xtrace: bool = False,
    command: bool = False,
) -> Output:
    """The script's stdout and stderr, and its status. `zero`: its $0 (None: the caller's);
    `positional`: its $1... (None: the caller's); `xtrace`: a new bash's `-x`; `command`: a
    new bash's `-c` (its `$-` ends in c)."""
    if shell.scripts >= MAX_DEPTH:
        return Output.error("bash: scripts nested too deep for this lab")
    try:
        program = parse(tokenize(text), text)
    except Incomplete as exc:
        return Output.error(str(exc).replace("bash:", "bash: line 1:", 1), 2)
    except ShellSyntaxError as exc:
        return Output.error(str(exc), 2)
    kept = shell.snapshot() if own_process else None
    trace_base = shell.trace_base
    if own_process:
        # A new bash sees the environment only: exported variables, no aliases or functions.
        shell.state.variables = {
            **SCRIPT_VARIABLES,
            **shell.state.environment(),
            **shell.state.own_variables(),
        }
        shell.state.arrays = {}  # bash exports no array
        shell.state.aliases = {}
        shell.state.functions = {}
        # Its options a new bash's, not the caller's (`set -e` at the prompt is not the
        # script's): `-x` its own, its PS4 levels counted from one again.
        shell.state.options = [*SCRIPT_OPTIONS, *(["xtrace"] if xtrace else [])]
        shell.state.shopts = list(SCRIPT_SHOPTS)
        shell.new_bashes.append("c" if command else "")
        shell.state.options_changed()
        shell.trace_base = shell_xtrace.indirection(shell)
    else:
        shell.sourcing += 1
    shell.scripts += 1
    try:
        # `return` in a sourced file ends it; `exit` or a `set -u` stop ends the script.
        return run_body(shell, program, None, positional, zero, script=True)
    finally:
        shell.scripts -= 1
        shell.trace_base = trace_base
        shell.sourcing -= 0 if own_process else 1
        if kept is not None:
            shell.new_bashes.pop()
            shell.restore(kept)


def eval_(shell: Shell, args: list[str], source: Input) -> Output:
    """`eval ARGS...`: the arguments joined with spaces, run as a command line in this shell
    (what it sets stays; `break`, `return` and `exit` in it act where eval runs); the status
    its last command's, 0 when there is none."""
    if shell.evals >= MAX_EVAL_NESTING:
        return Output.error("bash: eval: nested too deep for this lab")
    program = shell.parsed(" ".join(args), typed=False)
    if isinstance(program, Output):
        return program
    if not program:
        return Output()
    saved = shell.stray
    shell.evals += 1
    pieces = shell_compound.Pieces()
    try:
        code = shell_compound.run_list(shell, program, source, pieces)
    finally:
        shell.evals -= 1
        shell.stray = saved
    return Output.exactly(pieces.stdout(), code, pieces.stderr())


def run_body(
    shell: Shell,
    program: List,
    source: Input | None,
    positional: list[str] | None,
    zero: list[str] | None = None,
    script: bool = False,
) -> Output:
    """What a function call and a script share: `program` run with `positional` as its $1...
    (None: the caller's) and `zero` its $0, outside the caller's loops; ended early by
    `return` (and, in a `script`, by `exit` or a `set -u` stop); the caller's parameters,
    loops and command-substitution errors back after it. Its stdout, stderr and status."""
    saved = (shell.positional, shell.zero, shell.loops, shell.stray)
    if positional is not None:
        shell.positional = list(positional)
    if zero is not None:
        shell.zero = zero[0]
    shell.loops = 0
    pieces = shell_compound.Pieces()
    try:
        code = shell_compound.run_list(shell, program, source, pieces)
    except FunctionReturn as done:
        code = done.code
    except ScriptExit as done:
        if not script:
            raise  # `exit` in a function ends the shell it runs in
        code = done.code
    except Aborted as aborted:
        if not script:
            raise
        if aborted.line():
            pieces.say(shell, "err", aborted.line())
        code = 1
    finally:
        shell.positional, shell.zero, shell.loops, shell.stray = saved
    return Output.exactly(pieces.stdout(), code, pieces.stderr())
