"""The tokens the shell's lexer (simulators.lab.shell_syntax) makes of a command: words and
their parts, operators, here-documents and `((...))`; and the exceptions that stop a command
while it is read or expanded (Refused, Aborted, Incomplete)."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulators.lab.shell_scan import ShellSyntaxError


class Refused(Exception):
    """A command bash refuses before running it (a bad redirect, substitution or expansion):
    its one line on stderr, status 1, and the command line goes on."""


class Aborted(Exception):
    """An expansion error after which interactive bash drops the rest of the command line
    (`${v:?message}`, `set -u`); in a pipe's command or a `$(...)`, only that subshell's.
    `shown`: what a redirected compound command printed before it (as ScriptExit's)."""

    shown: tuple[str, str] | None = None
    said: bool = False  # written to a compound command's stderr (`{ ...; } 2>f`) already

    def line(self) -> str:
        """Its line for the terminal: "" once said."""
        return "" if self.said else str(self)


class Incomplete(ShellSyntaxError):
    """The input ends inside a command: bash reads another line (`> `), or says this at EOF."""


@dataclass
class Part:
    """A piece of a word. kind: lit (unquoted text), quoted (quoted text), var, cmd ($(...)),
    arith ($((...))), tilde, procin (`<(...)`), procout (`>(...)`); `in_quotes` for an
    expansion inside double quotes (not split into fields)."""

    kind: str
    value: str
    in_quotes: bool = False
    # A `$name` written without braces: brace expansion can lengthen its name (`$x{1,2}` is
    # `$x1 $x2`), as bash expands braces on the text before it reads any `$`.
    bare: bool = False


@dataclass
class Word:
    text: str
    quoted: bool = False
    parts: list[Part] = field(default_factory=list)
    # Where it was typed in the text tokenize read (-1: made otherwise, by an alias).
    start: int = field(default=-1, compare=False)
    end: int = field(default=-1, compare=False)

    @property
    def plain(self) -> bool:
        """Only unquoted literal text (an alias, a reserved word or an assignment's name)."""
        return all(p.kind == "lit" for p in self.parts)


@dataclass
class Op:
    text: str
    fd: int | None = None  # the N of `N>`, `N>>`, `N<`, `N>&`
    start: int = field(default=-1, compare=False)
    end: int = field(default=-1, compare=False)


@dataclass
class HereDoc:
    """`<<WORD`: the body comes from the lines after the command's line."""

    delimiter: str
    strip_tabs: bool
    expand: bool  # an unquoted delimiter: $VAR and $(...) are expanded in the body
    body: str = ""


@dataclass
class Arith:
    """`((expression))` where a command starts: bash's arithmetic command, or after `for` the
    C-style loop's three expressions."""

    expression: str

    @property
    def text(self) -> str:
        return f"(({self.expression}))"


Token = Word | Op | HereDoc | Arith
