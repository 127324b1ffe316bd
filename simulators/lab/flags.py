"""A small pflag-style parser: the one kubectl, runai and helm (all cobra tools) share.

Supports `--flag value`, `--flag=value`, `-f value`, `-fvalue`, `-f=value`,
grouped boolean shorthands (`-it`), a bare flag's default value (`--dry-run`, pflag's
NoOptDefVal) and `--` to end the flags. Errors carry
pflag's own wording so each tool can print it with its usual prefix.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Flag:
    key: str
    long: str = ""
    short: str = ""
    takes_value: bool = False
    # pflag's NoOptDefVal: the value a flag that takes one gets when given bare (`--dry-run`),
    # which then never takes the next word as its value.
    no_opt: str | None = None


class FlagError(Exception):
    """pflag's message, e.g. "unknown flag: --foo"."""


@dataclass
class Parsed:
    values: dict[str, list[str]] = field(default_factory=dict)
    bools: set[str] = field(default_factory=set)
    positionals: list[str] = field(default_factory=list)
    after_dashdash: list[str] | None = None
    # The words as given, flags and all (kubectl's GetLogVerbosity reads them before cobra).
    words: list[str] = field(default_factory=list)
    # The booleans given at all, true or false (pflag's Changed): `--attach=false` is here and
    # not in `bools`.
    changed: set[str] = field(default_factory=set)
    # What the command wrote to stderr as it read its flags, in order, before anything else
    # it prints: (file:line, message) for a klog warning, ("", line) for a plain line.
    warned: list[tuple[str, str]] = field(default_factory=list)
    # kubectl's: the kubeconfig context's namespace, what a command uses without -n ("": none,
    # so "default"; simulators.lab.kubectl.connection).
    context_namespace: str = ""

    def warn(self, line: str, where: str = "") -> None:
        """Note a warning once, however often the command reads the flag that causes it."""
        if (where, line) not in self.warned:
            self.warned.append((where, line))

    def value(self, key: str, default: str | None = None) -> str | None:
        vals = self.values.get(key)
        return vals[-1] if vals else default

    def all(self, key: str) -> list[str]:
        return list(self.values.get(key, []))

    def has(self, key: str) -> bool:
        return key in self.bools or key in self.values


_TRUE = {"true", "1", "t", "T", "TRUE", "True"}
_FALSE = {"false", "0", "f", "F", "FALSE", "False"}


def parse_bool(value: str) -> bool | None:
    """strconv.ParseBool: True or False for its words, None for anything else."""
    return True if value in _TRUE else False if value in _FALSE else None


def _set_bool(out: Parsed, flag: Flag, value: str | None) -> None:
    """A boolean flag, bare or with `=value` (strconv.ParseBool's words); pflag names a flag
    with a shorthand `-p, --previous` in its error."""
    boolean = None if value is None else parse_bool(value)
    if value is not None and boolean is None:
        name = f"-{flag.short}, --{flag.long}" if flag.short else f"--{flag.long}"
        raise FlagError(
            f'invalid argument "{value}" for "{name}" flag: '
            f'strconv.ParseBool: parsing "{value}": invalid syntax'
        )
    out.changed.add(flag.key)
    if boolean is False:
        out.bools.discard(flag.key)
    else:
        out.bools.add(flag.key)


def parse(args: list[str], flags: list[Flag], interspersed: bool = True) -> Parsed:
    by_long = {f.long: f for f in flags if f.long}
    by_short = {f.short: f for f in flags if f.short}
    out = Parsed(words=list(args))
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out.after_dashdash = args[i + 1 :]
            break
        if arg.startswith("--") and len(arg) > 2:
            name, eq, inline = arg[2:].partition("=")
            flag = by_long.get(name)
            if flag is None:
                raise FlagError(f"unknown flag: --{name}")
            if flag.takes_value:
                if eq:
                    value = inline
                elif flag.no_opt is not None:
                    value = flag.no_opt
                elif i + 1 < len(args):
                    i += 1
                    value = args[i]
                else:
                    raise FlagError(f"flag needs an argument: --{name}")
                out.values.setdefault(flag.key, []).append(value)
            else:
                _set_bool(out, flag, inline if eq else None)
        elif arg.startswith("-") and len(arg) > 1 and arg != "-":
            j = 1
            while j < len(arg):
                ch = arg[j]
                flag = by_short.get(ch)
                if flag is None:
                    raise FlagError(f"unknown shorthand flag: '{ch}' in {arg}")
                if flag.takes_value:
                    rest = arg[j + 1 :]
                    if rest:
                        value = rest[1:] if rest.startswith("=") else rest
                    elif flag.no_opt is not None:
                        value = flag.no_opt
                    elif i + 1 < len(args):
                        i += 1
                        value = args[i]
                    else:
                        raise FlagError(f"flag needs an argument: '{ch}' in -{ch}")
                    out.values.setdefault(flag.key, []).append(value)
                    break
                if arg[j + 1 : j + 2] == "=":  # `-p=true`: the rest is the boolean's value
                    _set_bool(out, flag, arg[j + 2 :])
                    break
                out.bools.add(flag.key)
                out.changed.add(flag.key)
                j += 1
        else:
            out.positionals.append(arg)
            if not interspersed:
                out.positionals.extend(args[i + 1 :])
                break
        i += 1
    return out
