"""bash's `shopt`: its options listed, queried (`-q`, `-p`), turned on (`-s`) and off (`-u`),
and `set -o`'s through it (`-o`), with bash 5.2's words and statuses.

Six options change what the lab's shell does, in every word it globs (simulators.lab.
shell_expansion) and every pattern it matches (`case`, `[[ == ]]`, `[[ =~ ]]`): `nullglob` (a
pattern that matches nothing is removed), `failglob` (it stops the line: `bash: no match:
*.log`), `dotglob` (`*` matches names that start with a dot, never `.` or `..`), `nocaseglob`,
`globstar` (`**` matches every folder below, and with nothing after it every file too) and
`nocasematch`. Turning on or off one the lab does not do is refused in one line, as `set` refuses
its own; setting one to what it already is does nothing. `login_shell` is bash's to set, and it
takes no change in silence. The options are kept with the lab (ShellState.shopts), undone at a
subshell's end, and BASHOPTS follows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulators.lab import shell_options
from simulators.lab.environment import SHOPT_NAMES
from simulators.lab.tool import Output

if TYPE_CHECKING:
    from simulators.lab.shell import Shell

DONE = frozenset({"dotglob", "failglob", "globstar", "nocaseglob", "nocasematch", "nullglob"})
# bash's own to set: `shopt -s login_shell` changes nothing and says nothing.
FIXED = frozenset({"login_shell", "restricted_shell"})
USAGE = "shopt: usage: shopt [-pqsu] [-o] [optname ...]"


def _line(name: str, on: bool, print_form: bool, o_form: bool) -> str:
    if not print_form:
        return f"{name:<15}\t{'on' if on else 'off'}"
    if o_form:
        return f"set {'-' if on else '+'}o {name}"
    return f"shopt {'-s' if on else '-u'} {name}"


def shopt(shell: Shell, args: list[str]) -> Output:
    """`shopt [-pqsu] [-o] [OPTNAME ...]`."""
    flags: set[str] = set()
    names: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            names = args[index + 1 :]
            break
        if arg.startswith("-") and len(arg) > 1:
            for letter in arg[1:]:
                if letter not in "pqsuo":
                    return Output.error(f"bash: shopt: -{letter}: invalid option\n{USAGE}", 2)
                flags.add(letter)
            continue
        names = args[index:]
        break
    if {"s", "u"} <= flags:
        return Output.error("bash: shopt: cannot set and unset shell options simultaneously")
    o_form = "o" in flags
    state = shell.state
    table = shell_options.NAMES if o_form else SHOPT_NAMES
    on = list(state.options if o_form else state.shopts)
    print_form, quiet = "p" in flags, "q" in flags
    setting = "s" if "s" in flags else "u" if "u" in flags else ""
    if not names:
        shown = [n for n in table if not setting or (n in on) == (setting == "s")]
        if quiet:
            return Output("")
        return Output("\n".join(_line(n, n in on, print_form, o_form) for n in shown))
    errors: list[str] = []
    lines: list[str] = []
    code = 0
    for name in names:
        if name not in table:
            kind = "option name" if o_form else "shell option name"
            errors.append(f"bash: shopt: {name}: invalid {kind}")
            # bash 5.2 says so for `-so NAME` and still answers 0.
            code = code if (o_form and setting) else 1
            continue
        if setting:
            wanted = setting == "s"
            if (name in on) == wanted or name in FIXED:
                continue
            done = shell_options.DONE if o_form else DONE
            if name not in done:
                errors.append(f"bash: shopt: {name}: not available in this lab")
                code = 1
                continue
            if wanted:
                on.append(name)
            else:
                on.remove(name)
            continue
        if name not in on:
            code = 1
        if not quiet:
            lines.append(_line(name, name in on, print_form, o_form))
    if setting:
        if o_form:
            state.options = on
        else:
            state.shopts = on
        state.options_changed()
    return Output.exactly("\n".join(lines) + ("\n" if lines else ""), code, "\n".join(errors))
