"""bash's `complete` builtin: completion specifications kept by command name and printed as
bash 5.2 prints them (`complete -p`), so that the line every kubectl setup guide has,
`complete -o default -F __start_kubectl k`, is taken as bash takes it.

The lab's terminal completes on its own (simulators.lab.shell.Shell.complete: kubectl's words
for `kubectl` and for an alias of it, files after a redirection); a specification changes what
`complete -p` says, not what Tab offers.
"""

from __future__ import annotations

from simulators.lab.tool import Context, Output

USAGE = (
    "complete: usage: complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] "
    "[-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] "
    "[-S suffix] [name ...]"
)
# bash's order when it prints a specification (pcomplete.c's print_one_completion).
OPTION_NAMES = (
    "bashdefault", "default", "dirnames", "filenames", "noquote", "nosort", "nospace", "plusdirs",
)  # fmt: skip
FLAGS = "abcdefgjksuv"
ACTIONS = (
    "alias", "arrayvar", "binding", "builtin", "command", "directory", "disabled", "enabled",
    "export", "file", "function", "group", "helptopic", "hostname", "job", "keyword", "running",
    "service", "setopt", "shopt", "signal", "stopped", "user", "variable",
)  # fmt: skip
QUOTED = ("G", "W", "P", "S", "X", "C")
VALUED = frozenset({"o", "A", "F", *QUOTED})
MAX_SPECIFICATIONS = 128


class _Bad(Exception):
    """A refusal (status 2), with bash's usage line after it when `usage`."""

    def __init__(self, message: str, usage: bool = True) -> None:
        super().__init__(f"{message}\n{USAGE}" if usage else message)


def _single_quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _spec(options: list[str], flags: set[str], actions: list[str], valued: dict[str, str]) -> str:
    words = [f"-o {name}" for name in OPTION_NAMES if name in options]
    words += [f"-{flag}" for flag in FLAGS if flag in flags]
    words += [f"-A {action}" for action in ACTIONS if action in actions]
    words += [f"-{key} {_single_quoted(valued[key])}" for key in QUOTED if key in valued]
    if "F" in valued:
        words.append(f"-F {valued['F']}")
    return " ".join(words)


def _parse(args: list[str]) -> tuple[set[str], str, list[str]]:
    """(the modes -p -r -D -E -I given, the specification, the names)."""
    modes: set[str] = set()
    options: list[str] = []
    flags: set[str] = set()
    actions: list[str] = []
    valued: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        arg = args[i]
        i += 1
        if arg == "--":
            break
        for at, letter in enumerate(arg[1:], 1):
            if letter in "prDEI":
                modes.add(letter)
            elif letter in FLAGS:
                flags.add(letter)
            elif letter in VALUED:
                value = arg[at + 1 :]
                if not value:
                    if i >= len(args):
                        raise _Bad(f"bash: complete: -{letter}: option requires an argument")
                    value, i = args[i], i + 1
                if letter == "o":
                    if value not in OPTION_NAMES:
                        raise _Bad(f"bash: complete: {value}: invalid option name", usage=False)
                    options.append(value)
                elif letter == "A":
                    if value not in ACTIONS:
                        raise _Bad(f"bash: complete: {value}: invalid action name", usage=False)
                    actions.append(value)
                else:
                    valued[letter] = value
                break
            else:
                raise _Bad(f"bash: complete: -{letter}: invalid option")
    return modes, _spec(options, flags, actions, valued), args[i:]


def complete(ctx: Context, args: list[str]) -> Output:
    specifications = ctx.shell.completions
    try:
        modes, spec, names = _parse(args)
    except _Bad as bad:
        return Output.error(str(bad), 2)
    missing = [
        f"bash: complete: {n}: no completion specification"
        for n in names
        if n not in specifications
    ]
    if "r" in modes:
        for name in names or list(specifications):
            specifications.pop(name, None)
        return Output("", 1 if missing else 0, stderr="\n".join(missing))
    if "p" in modes or not (names or spec):
        shown = [
            f"complete {specifications[n]} {n}"
            for n in names or specifications
            if n in specifications
        ]
        return Output("\n".join(shown), 1 if missing else 0, stderr="\n".join(missing))
    for name in names:
        if name not in specifications and len(specifications) >= MAX_SPECIFICATIONS:
            return Output.error(f"bash: complete: {name}: too many specifications for this lab")
        specifications[name] = spec
    return Output()
