"""xargs's options and its reading of the standard input, as GNU findutils 4.9's: which commands
to run with which arguments. The shell runs them (simulators.lab.shell.Shell.xargs), since
xargs runs other commands.

By default the input is words: blanks and newlines separate them, quotes and backslashes group
and escape as in xargs.c (`'a b'` is one argument, `''` an empty one; a quote left open is an
error, after the commands already complete have run). `-0` and `-d D` split on a NUL or D
instead, nothing quoted. `-n N` gives each command at most N arguments, `-L N` the words of N
lines (a line ending in a blank goes on to the next), `-I R` runs one command per line with R
replaced by it (leading blanks dropped). With no input the command runs once without
arguments, unless `-r` or `-I`. Compared with GNU xargs on generated input
(tests/unit/lab/test_builtins_oracle.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulators.lab import budget, textutils

SYNOPSIS = "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]..."
USAGE = f"{SYNOPSIS}\n{textutils.try_help('xargs')}"
MAX_COMMANDS = 1000
_VALUED = {"n": "max-args", "L": "max-lines", "I": "replace", "d": "delimiter"}
_LONG = {"--null": "0", "--no-run-if-empty": "r", "--verbose": "t"}
_LONG |= {f"--{name}": letter for letter, name in _VALUED.items()}
_ESCAPES = {"n": "\n", "t": "\t", "0": "\0", "\\": "\\", "a": "\a", "r": "\r", "v": "\v"}


class XargsError(Exception):
    """A refusal before any command runs: the message, and xargs's status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Plan:
    """The commands to run: each one's full argv, and the error that stopped the reading."""

    argvs: list[list[str]] = field(default_factory=list)
    error: str = ""


def plan(args: list[str], stdin: str) -> Plan:
    opts, command = _options(args)
    command = command or ["echo"]
    replace = opts.get("I")
    current: list[str] = []
    if "0" in opts or "d" in opts:
        separator = "\0" if "0" in opts else _delimiter(opts["d"])
        lines, error = [[item] for item in _split(stdin, separator)], ""
    else:
        lines, current, error = _words(stdin, by_line=replace is not None)
    out = Plan(error=error)
    if replace is not None:
        out.argvs = [
            [command[0], *(a.replace(replace, line[0]) for a in command[1:])] for line in lines
        ]
    else:
        # A quote left open: the words complete before it still run, except the line it is in
        # with -L (GNU's read_line stops there).
        if error and "L" not in opts:
            lines = [*lines, current]
        groups = _grouped(lines, opts)
        if not groups and not error and "r" not in opts:
            groups = [[]]
        out.argvs = [[*command, *group] for group in groups]
    # Arguments are C strings: one ends at its first NUL (GNU warns and cuts it there).
    out.argvs = [[a.split("\0", 1)[0] for a in argv] for argv in out.argvs]
    if len(out.argvs) > MAX_COMMANDS:
        raise XargsError(f"xargs: too many commands for this lab (over {MAX_COMMANDS})")
    return out


def _options(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """The options, and the command with its arguments (the first operand on)."""
    try:
        opts, command = textutils.options_of(
            args, "xargs", "0rt", "".join(_VALUED), _LONG, in_order=True, synopsis=SYNOPSIS
        )
    except textutils.Usage as refused:
        raise XargsError(str(refused)) from None
    for letter, what in (("n", "-n"), ("L", "-L")):
        if letter in opts and not budget.bounded_int(opts[letter], 1 << 20):
            raise XargsError(f'xargs: invalid number "{opts[letter]}" for {what} option\n{USAGE}')
    return opts, command


def _delimiter(spec: str) -> str:
    if len(spec) == 1:
        return spec
    if len(spec) == 2 and spec[0] == "\\" and spec[1] in _ESCAPES:
        return _ESCAPES[spec[1]]
    raise XargsError(
        f"xargs: invalid input delimiter specification {spec}: the delimiter must be either a"
        " single character or an escape sequence starting with \\."
    )


def _split(text: str, separator: str) -> list[str]:
    """-0 and -d: the items between separators, a last one without its separator included."""
    if not text:
        return []
    items = text.split(separator)
    return items[:-1] if items[-1] == "" else items


def _words(text: str, by_line: bool) -> tuple[list[list[str]], list[str], str]:
    """The input's logical lines, each its words (with -I, `by_line`: the line as one word,
    leading blanks dropped); then, if a quote was left open, the words read of the line it
    stopped in, and the error ("" if none)."""
    lines: list[list[str]] = []
    words: list[str] = []
    word: list[str] | None = None
    quote = ""
    previous = "\n"
    i = 0
    while i < len(text):
        c = text[i]
        i += 1
        if quote:
            if c == "\n":
                return lines, words, _unmatched(quote)
            if c == quote:
                quote = ""
            else:
                assert word is not None
                word.append(c)
            continue
        if c == "\n":
            if word is not None:
                words.append("".join(word))
                word = None
            # A line goes on past a newline that follows a blank or another newline (GNU's
            # SPACE state skips it); with -I every newline ends one.
            if words and (by_line or previous not in " \t\n"):
                lines.append(words)
                words = []
            previous = c
            continue
        previous = c
        if c in " \t" and (not by_line or word is None):
            if word is not None:
                words.append("".join(word))
                word = None
            continue
        if word is None:
            word = []
        if c in "'\"":
            quote = c
        elif c == "\\":
            if i < len(text):
                # GNU's read_line looks back at the character read, escaped or not: an escaped
                # blank before a newline carries the line on under -L too.
                previous = text[i]
                word.append(text[i])
                i += 1
        else:
            word.append(c)
    if quote:
        return lines, words, _unmatched(quote)
    if word is not None:
        words.append("".join(word))
    if words:
        lines.append(words)
    return lines, [], ""


def _unmatched(quote: str) -> str:
    kind = "single" if quote == "'" else "double"
    return (
        f"xargs: unmatched {kind} quote; by default quotes are special to xargs unless you use"
        " the -0 option"
    )


def _grouped(lines: list[list[str]], opts: dict[str, str]) -> list[list[str]]:
    """Each command's arguments: N lines' words (-L), N words (-n), or all of them."""
    if "L" in opts:
        size = int(opts["L"])
        return [
            [w for line in lines[k : k + size] for w in line] for k in range(0, len(lines), size)
        ]
    words = [w for line in lines for w in line]
    if not words:
        return []
    size = int(opts["n"]) if "n" in opts else len(words)
    return [words[k : k + size] for k in range(0, len(words), size)]
