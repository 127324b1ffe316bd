"""bash's `set`: the options a script's first line turns on (`set -euo pipefail`), the
positional parameters (`set -- a b`), and the listings (`set` prints the variables, `set -o`
and `set +o` the options) as bash 5.2 prints them for an interactive login.

Six options change what the shell does: `errexit` (-e: a command that fails outside a
condition, an `&&`/`||` list but its last command, or a `!` ends the script, or the typed
line), `nounset` (-u: expanding a variable that is not set stops the line, or the script,
with bash's message), `pipefail` (a pipe's status is its last failing command's), `xtrace`
(-x: each command traced on stderr, simulators.lab.shell_xtrace), `noclobber` (-C: `>` onto a
file that exists is refused, `>|` still writes it: simulators.lab.shell_redirect) and
`noglob` (-f: no pathname expansion). Turning on one the lab does not do (verbose,
allexport, ...) is refused in one line; setting an option to what it already is does
nothing, as in bash. The options are kept with the lab (ShellState.options); `shopt`'s are
simulators.lab.shell_shopt's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulators.lab import shell_listing
from simulators.lab.tool import Output

if TYPE_CHECKING:
    from simulators.lab.shell import Shell

# bash's options in the order `set -o` lists them, and the letter of each that has one.
NAMES = (
    "allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall",
    "histexpand", "history", "ignoreeof", "interactive-comments", "keyword", "monitor",
    "noclobber", "noexec", "noglob", "nolog", "notify", "nounset", "onecmd", "physical",
    "pipefail", "posix", "privileged", "verbose", "vi", "xtrace",
)  # fmt: skip
LETTERS = {
    "a": "allexport", "B": "braceexpand", "e": "errexit", "E": "errtrace", "T": "functrace",
    "h": "hashall", "H": "histexpand", "k": "keyword", "m": "monitor", "C": "noclobber",
    "n": "noexec", "f": "noglob", "b": "notify", "u": "nounset", "t": "onecmd", "P": "physical",
    "p": "privileged", "v": "verbose", "x": "xtrace",
}  # fmt: skip
# The ones the lab's shell changes its ways for; any other may only stay as it is.
DONE = frozenset({"errexit", "noclobber", "noglob", "nounset", "pipefail", "xtrace"})
USAGE = "set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]"


class _Bad(Exception):
    pass


def _change(options: list[str], name: str, on: bool) -> None:
    if (name in options) == on:
        return
    if name not in DONE:
        raise _Bad(f"bash: set: {name}: not available in this lab")
    if on:
        options.append(name)
    else:
        options.remove(name)


def _listing(options: list[str], plus: bool) -> str:
    if plus:
        return "\n".join(f"set {'-' if n in options else '+'}o {n}" for n in NAMES)
    return "\n".join(f"{n:<15}\t{'on' if n in options else 'off'}" for n in NAMES)


def variables(shell: Shell) -> str:
    """`set`'s listing: every variable and array (`a=([0]="x")`), then the functions."""
    lines: list[str] = []
    state = shell.state
    for name in shell_listing.names(state):
        value = state.variables.get(name)
        if value is None:
            lines.extend(filter(None, [shell_listing.set_line(state, name)]))
            continue
        plain = value and all(c.isalnum() or c in "_./:=@%^,+-" for c in value)
        lines.append(f"{name}={value if plain else _quoted(value)}")
    for name, body in sorted(shell.state.functions.items()):
        lines.append(f"{name} () \n{body}")
    return "\n".join(lines)


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def set_(shell: Shell, args: list[str]) -> Output:
    """`set [-+OPTIONS] [-+o NAME] [--] [ARGS]`."""
    if not args:
        return Output(variables(shell))
    options = list(shell.state.options)
    i = 0
    try:
        while i < len(args):
            arg = args[i]
            if arg == "--":
                i += 1
                shell.positional = list(args[i:])
                break
            if arg in ("-", "+") or arg[:1] not in ("-", "+"):
                shell.positional = list(args[i + (arg in ("-", "+")) :])
                break
            on = arg[0] == "-"
            i += 1
            for letter in arg[1:]:
                if letter == "o":
                    if i >= len(args):
                        shell.state.options = options
                        shell.state.options_changed()
                        return Output(_listing(options, plus=not on))
                    name, i = args[i], i + 1
                    if name not in NAMES:
                        raise _Bad(f"bash: set: {name}: invalid option name")
                    _change(options, name, on)
                elif letter in LETTERS:
                    _change(options, LETTERS[letter], on)
                else:
                    raise _Bad(f"bash: set: {arg[0]}{letter}: invalid option\n{USAGE}")
    except _Bad as bad:
        shell.state.options = options  # what came before the refusal is set, as in bash
        shell.state.options_changed()
        return Output.error(str(bad), 2 if "invalid" in str(bad) else 1)
    shell.state.options = options
    shell.state.options_changed()
    return Output()
