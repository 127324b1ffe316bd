"""GNU sed 4.9's scripts, parsed (simulators.lab.sed runs them).

Addresses: a line number, `$`, `/regex/` (and `\\cREGEXc`, with `I`), `first~step`, ranges
`A,B` with B a number, `$`, a regex, `+N` or `~N`, `0,/regex/`, and `!`. Commands: `{...}`,
`s` (with `g`, a number, `p`, `I`; `&`, `\\1`-`\\9`, `\\n`, `\\t`, and GNU's `\\U \\L \\u \\l
\\E` in the replacement), `y`, `d`, `D`, `p`, `P`, `n`, `N`, `g`, `G`, `h`, `H`, `x`, `=`, `l`,
`a`, `i`, `c`, `q`, `Q`, `z`, `b`, `t`, `T` and `:label`; `#` comments. Options: `-n`, `-e`,
`-E`/`-r`, `-s`, `-i` on the home folder's files. POSIX's leftmost-longest matches on RE2
(simulators.lab.regex), so no pattern can freeze the lab; a last line without its newline
stays so. Compared with the machine's real sed on generated scripts by
tests/unit/lab/test_shell_oracle.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulators.lab import budget
from simulators.lab.regex import Regex, RegexError, compile_regex, translate

_NO_ARGUMENT = "dDpPnNgGhHx=lzF"


class SedError(Exception):
    """sed's own message for a script or a command line it refuses, and its status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Address:
    kind: str  # "line", "last", "regex", "step", "plus", "tilde", "zero"
    number: int = 0
    step: int = 0
    regex: Regex | None = None


@dataclass
class Command:
    name: str
    first: Address | None = None
    second: Address | None = None
    negate: bool = False
    regex: Regex | None = None
    replacement: list[tuple[str, str | int]] = field(default_factory=list)
    every: bool = False
    nth: int = 1
    prints: bool = False
    text: str = ""
    number: int = 0  # q/Q's exit code, a block's end, a branch's target
    table: dict[str, str] = field(default_factory=dict)


# ------------------------------------------------------------------------------ parsing


class Parser:
    def __init__(self, script: str, extended: bool) -> None:
        self.text = script
        self.pos = 0
        self.extended = extended
        self.commands: list[Command] = []

    def error(self, message: str) -> SedError:
        return SedError(f"sed: -e expression #1, char {self.pos}: {message}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.pos += 1
        return char

    def blanks(self) -> None:
        while self.peek() in (" ", "\t") and self.peek():
            self.pos += 1

    def parse(self) -> list[Command]:
        blocks: list[int] = []
        while True:
            while self.peek() and self.peek() in " \t\n;":
                self.pos += 1
            if not self.peek():
                break
            if self.peek() == "#":
                while self.peek() and self.peek() != "\n":
                    self.pos += 1
                continue
            first = self.address()
            second = None
            if first is not None and self.peek() == ",":
                self.pos += 1
                self.blanks()
                second = self.address(second=True)
                if second is None:
                    raise self.error("unexpected `,'")
            self.blanks()
            negate = False
            while self.peek() == "!":
                negate = True
                self.pos += 1
                self.blanks()
            name = self.take()
            if not name or name in "\n;":
                raise self.error("missing command")
            command = Command(name, first, second, negate)
            if name == "{":
                blocks.append(len(self.commands))
            elif name == "}":
                if first is not None:
                    raise self.error("} doesn't want any addresses")
                if not blocks:
                    raise self.error("unexpected `}'")
                self.commands[blocks.pop()].number = len(self.commands) + 1
            else:
                self.arguments(command)
            self.commands.append(command)
            self.end_of_command(name)
        if blocks:
            raise self.error("unmatched `{'")
        self.resolve_labels()
        return self.commands

    def end_of_command(self, name: str) -> None:
        self.blanks()
        if name in "{":
            return
        char = self.peek()
        if char and char not in ";\n}#":
            raise self.error("extra characters after command")

    def address(self, second: bool = False) -> Address | None:
        char = self.peek()
        if char.isdigit():
            number = self.number()
            if self.peek() == "~" and not second:
                self.pos += 1
                return Address("step", number, self.number() if self.peek().isdigit() else 0)
            if number == 0 and not second:
                return Address("zero")
            return Address("line", number)
        if char == "$":
            self.pos += 1
            return Address("last")
        if char in "+~" and second:
            self.pos += 1
            if not self.peek().isdigit():
                raise self.error("expected number")
            return Address("plus" if char == "+" else "tilde", self.number())
        if char == "/" or char == "\\":
            self.pos += 1
            delimiter = "/" if char == "/" else self.take()
            pattern = self.delimited(delimiter, "unterminated address regex")
            ignore = False
            while self.peek() in ("I", "M") and self.peek():
                ignore = ignore or self.take() == "I"
            return Address("regex", regex=self.compile(pattern, ignore))
        return None

    def number(self) -> int:
        start = self.pos
        while self.peek().isdigit() and self.peek():
            self.pos += 1
        value = budget.bounded_int(self.text[start : self.pos], 1 << 40)
        if value is None:
            raise self.error("invalid number")
        return value

    def delimited(self, delimiter: str, unterminated: str) -> str:
        """The text up to an unescaped `delimiter` (an escaped one stands for itself; `\\n`
        for a newline)."""
        out: list[str] = []
        while True:
            char = self.take()
            if not char:
                raise self.error(unterminated)
            if char == delimiter:
                return "".join(out)
            if char == "\\":
                nxt = self.take()
                if not nxt:
                    raise self.error(unterminated)
                out.append(nxt if nxt == delimiter else "\\" + nxt)
            elif char == "\n" and delimiter != "\n":
                raise self.error(unterminated)
            else:
                out.append(char)

    def compile(self, pattern: str, ignore: bool) -> Regex | None:
        if pattern == "":
            return None  # the last regex used
        try:
            return compile_regex(translate(_ansi(pattern), self.extended), ignore, longest=True)
        except RegexError as exc:
            raise self.error(str(exc)) from None

    def arguments(self, command: Command) -> None:
        name = command.name
        if name == "s":
            self.substitute(command)
        elif name == "y":
            self.transliterate(command)
        elif name in "aic":
            command.text = self.line_text()
        elif name in ":":
            if command.first is not None:
                raise self.error(": doesn't want any addresses")
            command.text = self.label()
            if not command.text:
                raise self.error('":" lacks a label')
        elif name in "btT":
            self.blanks()
            command.text = self.label()
        elif name in "qQ":
            if command.second is not None:
                raise self.error("command only uses one address")
            self.blanks()
            command.number = self.number() if self.peek().isdigit() else 0
        elif name in "rRwWe":
            raise self.error(f"`{name}': write and read files with redirections on this host")
        elif name not in _NO_ARGUMENT:
            self.pos -= 1
            raise SedError(f"sed: -e expression #1, char {self.pos + 1}: unknown command: `{name}'")

    def label(self) -> str:
        start = self.pos
        while self.peek() and self.peek() not in ";\n":
            self.pos += 1
        return self.text[start : self.pos].strip()

    def line_text(self) -> str:
        """a, i, c: GNU's `a text`, or `a\\` and the text on the next lines (a backslash at a
        line's end continues it)."""
        self.blanks()
        if self.peek() == "\\":
            self.pos += 1
            if self.peek() == "\n":
                self.pos += 1
        out: list[str] = []
        while self.peek() and self.peek() != "\n":
            char = self.take()
            if char == "\\":
                nxt = self.take()
                out.append(nxt)
            else:
                out.append(char)
        return "".join(out)

    def substitute(self, command: Command) -> None:
        delimiter = self.take()
        if not delimiter or delimiter in "\\\n":
            raise self.error("unterminated `s' command")
        pattern = self.delimited(delimiter, "unterminated `s' command")
        template = self.replacement_text(delimiter)
        ignore = False
        while self.peek() and self.peek() not in ";\n}# \t":
            flag = self.take()
            if flag == "g":
                command.every = True
            elif flag == "p":
                command.prints = True
            elif flag in "Ii":
                ignore = True
            elif flag in "mM":
                continue
            elif flag.isdigit():
                self.pos -= 1
                command.nth = self.number()
                if command.nth == 0:
                    raise self.error("number option to `s' command may not be zero")
            elif flag in "we":
                raise self.error(f"the s command's `{flag}' flag is not available on this host")
            else:
                raise self.error("unknown option to `s'")
        command.regex = self.compile(pattern, ignore)
        groups = command.regex.groups if command.regex is not None else 9  # type: ignore[attr-defined]
        command.replacement = _parse_replacement(template)
        for kind, value in command.replacement:
            if kind == "group" and isinstance(value, int) and value > groups:
                raise self.error(f"invalid reference \\{value} on `s' command's RHS")

    def replacement_text(self, delimiter: str) -> str:
        out: list[str] = []
        while True:
            char = self.take()
            if not char:
                raise self.error("unterminated `s' command")
            if char == delimiter:
                return "".join(out)
            if char == "\\":
                nxt = self.take()
                if not nxt:
                    raise self.error("unterminated `s' command")
                out.append(nxt if nxt == delimiter else "\\" + nxt)
            else:
                out.append(char)

    def transliterate(self, command: Command) -> None:
        delimiter = self.take()
        source = _unescape(self.delimited(delimiter, "unterminated `y' command"))
        target = _unescape(self.delimited(delimiter, "unterminated `y' command"))
        if len(source) != len(target):
            raise self.error("strings for `y' command are different lengths")
        command.table = dict(zip(source, target, strict=True))

    def resolve_labels(self) -> None:
        labels = {c.text: i for i, c in enumerate(self.commands) if c.name == ":"}
        for command in self.commands:
            if command.name in "btT":
                if command.text and command.text not in labels:
                    raise SedError(f"sed: can't find label for jump to `{command.text}'", 4)
                command.number = labels[command.text] if command.text else len(self.commands)


# GNU sed's escapes for a character, in a regex, a replacement and `y` alike.
_CONTROL = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_NUMERIC = {
    "d": ("0123456789", 10, 3),
    "o": ("01234567", 8, 3),
    "x": ("0123456789abcdefABCDEF", 16, 2),
}


def _escaped(text: str, at: int) -> tuple[str, int] | None:
    """The character GNU sed makes of the escape whose letter is at text[at] (`\\t`, `\\r`,
    `\\cX`, `\\dNNN`, `\\oNNN`, `\\xHH`...) and where the escape ends; None for any other."""
    letter = text[at]
    if letter in _CONTROL:
        return _CONTROL[letter], at + 1
    if letter == "c" and at + 1 < len(text):
        return chr(ord(text[at + 1].upper()) ^ 0x40), at + 2
    if letter in _NUMERIC:
        digits, base, most = _NUMERIC[letter]
        end = at + 1
        while end < len(text) and end - at <= most and text[end] in digits:
            end += 1
        if end > at + 1:
            return chr(int(text[at + 1 : end], base) % 256), end
    return None


def _ansi(pattern: str) -> str:
    """A regex with GNU sed's character escapes made the characters they stand for, in
    brackets too (`[\\t]` is a tab), before it is read as a BRE or ERE: as in GNU sed, a
    character made so is read as any other (`\\x2e` is the regex `.`), a backslash excepted."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            made = _escaped(pattern, i + 1)
            if made is None:
                out.append(pattern[i : i + 2])
                i += 2
            else:
                out.append("\\\\" if made[0] == "\\" else made[0])
                i = made[1]
            continue
        out.append(pattern[i])
        i += 1
    return "".join(out)


def _unescape(text: str) -> str:
    """`y`'s strings: the character escapes, `\\` a backslash, and an escaped other
    character itself."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            made = _escaped(text, i + 1)
            out.append(made[0] if made else text[i + 1])
            i = made[1] if made else i + 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _parse_replacement(template: str) -> list[tuple[str, str | int]]:
    """The replacement as parts: text, a group (0 for `&`), or a case conversion."""
    parts: list[tuple[str, str | int]] = []
    i = 0
    while i < len(template):
        char = template[i]
        if char == "\\" and i + 1 < len(template):
            nxt = template[i + 1]
            made = _escaped(template, i + 1)
            i += 2
            if nxt.isdigit():
                parts.append(("group", int(nxt)))
            elif nxt in "ULulE":
                parts.append(("case", nxt))
            elif made is not None:  # a character: never a group or `&` (`\\x26` is an &)
                parts.append(("text", made[0]))
                i = made[1]
            else:
                parts.append(("text", nxt))
            continue
        parts.append(("group", 0) if char == "&" else ("text", char))
        i += 1
    return parts
