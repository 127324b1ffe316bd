"""bash's functions on the admin host: `name() { ...; }` and `function name { ...; }` (any
compound command as the body, with its redirections), called like a command with `$1`...,
`$#` and `"$@"` of their own, `return [N]`, and `local NAME[=VALUE]` whose value is the
caller's again once the function returns (simulators.lab.shell_declare runs `local`). A
function is kept as the text of its body
(ShellState.functions: kept with the lab), runs before a builtin or a program of its name
(`command NAME` skips it), and a new bash (`bash FILE`) does not see it. Calls nest
MAX_NESTING deep at most, so a function that calls itself stops in one line; its loops and
commands count against the command's budget as typed ones do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulators.lab import budget
from simulators.lab.environment import Held
from simulators.lab.shell_grammar import parse
from simulators.lab.shell_scripts import FunctionReturn, run_body
from simulators.lab.shell_syntax import ShellSyntaxError, expand_aliases, tokenize
from simulators.lab.tool import Output

if TYPE_CHECKING:
    from simulators.lab.shell import Shell
    from simulators.lab.shell_compound import Input

MAX_NESTING = 32
MAX_FUNCTIONS = 64


def define(shell: Shell, name: str, source: str) -> str | None:
    """Keep `name`'s body; bash's error line if the lab's limit refuses it."""
    functions = shell.state.functions
    if name not in functions and len(functions) >= MAX_FUNCTIONS:
        return f"bash: {name}: too many functions for this lab"
    functions[name] = source
    return None


def call(shell: Shell, name: str, args: list[str], source: Input) -> Output:
    """Run the function `name` with `args` as its positional parameters, `source` its stdin."""
    if len(shell.frames) >= MAX_NESTING:
        return Output.error(
            f"bash: {name}: maximum function nesting level exceeded ({MAX_NESTING})"
        )
    text = shell.state.functions[name]
    try:
        program = parse(expand_aliases(tokenize(text), shell.state.aliases), source=text)
    except ShellSyntaxError as exc:
        return Output.error(str(exc), 2)
    frame: dict[str, Held] = {}
    shell.frames.append(frame)
    try:
        return run_body(shell, program, source, args)
    finally:
        shell.frames.pop()
        for variable, value in frame.items():
            shell.state.put_back(variable, value)


def return_(shell: Shell, args: list[str]) -> Output:
    """`return [N]`: raises FunctionReturn inside a function or a sourced file."""
    if not shell.frames and not shell.sourcing:
        return Output.error("bash: return: can only `return' from a function or sourced script", 2)
    if not args:
        raise FunctionReturn(shell.state.status)
    number = budget.bounded_int(args[0], 1 << 62)
    if number is None:
        return Output.error(f"bash: return: {args[0]}: numeric argument required", 2)
    raise FunctionReturn(number % 256)
