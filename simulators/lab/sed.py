"""sed on kadmin: GNU sed 4.9's options, and its scripts (parsed by simulators.lab.sed_parse,
which lists what they may hold) run on the input a line at a time: the pattern and hold
spaces, auto-print unless -n, text appended at the cycle's end, a last line without its
newline left so. `-i` edits the home folder's files; every file is one stream unless -s or
-i. Errors in GNU sed's words and status (1 for a script, 2 for a file it can't read, 4 for
-i without one)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from simulators.lab import budget, fs
from simulators.lab.files import lines_ended, opened, write
from simulators.lab.regex import Match, Regex
from simulators.lab.sed_parse import Address, Command, Parser, SedError
from simulators.lab.tool import Context, Output

USAGE = "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]..."
# l's line length (GNU's default 70: 69 characters and a backslash).
L_WIDTH = 70


@dataclass
class _Input:
    """The lines to read, each with whether a newline ended it."""

    lines: list[tuple[str, bool]]
    next: int = 0

    def read(self) -> tuple[str, bool] | None:
        if self.next >= len(self.lines):
            return None
        self.next += 1
        return self.lines[self.next - 1]

    @property
    def done(self) -> bool:
        return self.next >= len(self.lines)


@dataclass
class _Output:
    parts: list[str] = field(default_factory=list)
    size: int = 0
    missing_newline: bool = False

    def write(self, text: str, newline: bool = True) -> None:
        if self.missing_newline:
            self.parts.append("\n")
        self.parts.append(text + ("\n" if newline else ""))
        self.missing_newline = not newline
        self.size += len(text) + 1
        budget.check_output(self.size, "sed")

    def end_line(self) -> None:
        if self.missing_newline:
            self.parts.append("\n")
            self.missing_newline = False


class _Quit(Exception):
    """q (prints the pattern space unless -n) or Q: the end, with an exit status."""

    def __init__(self, code: int, prints: bool, space: str, newline: bool) -> None:
        self.code, self.prints, self.space, self.newline = code, prints, space, newline


def _lines_of(text: str) -> list[tuple[str, bool]]:
    """Each line without its newline, and whether one ended it (files.lines_ended)."""
    return [
        (line[:-1], True) if line.endswith("\n") else (line, False) for line in lines_ended(text)
    ]


@dataclass
class _Range:
    """A command's range while the input runs: active, and the line it ends at (numbers); a
    range whose first address is a line number starts at the first line at or after it (one N
    may read past it), once (closed)."""

    active: bool = False
    end: int = 0
    closed: bool = False


class _Run:
    def __init__(self, commands: list[Command], quiet: bool) -> None:
        self.commands = commands
        self.quiet = quiet
        # The hold space and, as GNU keeps it, whether a newline ends it: g, G and x carry it.
        self.hold, self.hold_newline = "", True
        self.line = 0
        self.last_regex: Regex | None = None
        self.quitted = False
        self.ranges: list[_Range] = []  # each command's range, as the input runs

    def regex(self, regex: Regex | None) -> Regex:
        if regex is None:
            if self.last_regex is None:
                raise SedError("sed: no previous regular expression")
            return self.last_regex
        self.last_regex = regex
        return regex

    def run(self, source: _Input, out: _Output) -> int:
        """Every cycle over `source`; sed's exit status."""
        self.ranges = [
            _Range(active=command.first is not None and command.first.kind == "zero")
            for command in self.commands
        ]
        steps = 0
        while True:
            got = source.read()
            if got is None:
                return 0
            space, newline = got
            self.line += 1
            restart = True
            while restart:
                restart = False
                appended: list[str] = []
                try:
                    space, newline, printed, restart = self.cycle(
                        space, newline, source, out, appended
                    )
                except _Quit as quit_:
                    self.quitted = True  # sed ends: with -s, the files after this one too
                    if quit_.prints:  # q; Q leaves without a word, appended text too
                        if not self.quiet:
                            out.write(quit_.space, quit_.newline)
                        for text in appended:
                            out.write(text)
                        out.end_line()  # q ends the last line written, as GNU's does
                    return quit_.code
                except _EndOfInput as end:
                    # GNU's N and n at the end: the cycle ends there, as at the script's end
                    # (the pattern space, then the appended text).
                    if not self.quiet:
                        out.write(end.space, end.newline)
                    for text in appended:
                        out.write(text)
                    return 0
                if printed and not self.quiet:
                    out.write(space, newline)
                for text in appended:
                    out.write(text)
                steps += 1
                if steps % 256 == 0:
                    budget.check_time()

    def cycle(
        self, space: str, newline: bool, source: _Input, out: _Output, appended: list[str]
    ) -> tuple[str, bool, bool, bool]:
        """One cycle: (pattern space, its newline, auto-print it, start again without reading:
        D)."""
        replaced = False
        pc = 0
        jumps = 0
        while pc < len(self.commands):
            command = self.commands[pc]
            pc += 1
            if command.name in ":}":
                continue
            state = self.ranges[pc - 1]
            if not self.selected(command, state, space, source):
                if command.name == "{":
                    pc = command.number
                continue
            name = command.name
            if name == "{":
                continue
            if name == "s":
                space, done = self.substitute(command, space, out, newline)
                replaced = replaced or done
            elif name == "y":
                space = "".join(command.table.get(c, c) for c in space)
            elif name == "d":
                return space, newline, False, False
            elif name == "D":
                if "\n" not in space:
                    return space, newline, False, False
                return space.split("\n", 1)[1], newline, False, True
            elif name == "p":
                out.write(space, newline)
            elif name == "P":
                head, cut, _ = space.partition("\n")
                out.write(head, bool(cut) or newline)
            elif name in "nN":
                got = source.read()
                if got is None:
                    raise _EndOfInput(space, newline)
                if name == "n" and not self.quiet:
                    out.write(space, True)
                # Reading a line writes the text appended so far (GNU's read_pattern_space).
                for text in appended:
                    out.write(text)
                appended.clear()
                replaced = False  # and forgets the substitutions `t` would branch on
                if name == "n":
                    space, newline = got
                else:
                    space, newline = space + "\n" + got[0], got[1]
                self.line += 1
            elif name == "g":
                space, newline = self.hold, self.hold_newline
            elif name == "G":
                space, newline = space + "\n" + self.hold, self.hold_newline
            elif name == "h":
                self.hold, self.hold_newline = space, newline
            elif name == "H":
                self.hold, self.hold_newline = self.hold + "\n" + space, newline
            elif name == "x":
                space, newline, self.hold, self.hold_newline = (
                    self.hold,
                    self.hold_newline,
                    space,
                    newline,
                )
            elif name == "=":
                out.write(str(self.line))
            elif name == "l":
                _list(space, out)
            elif name == "z":
                space = ""
            elif name == "a":
                appended.append(command.text)
            elif name == "i":
                out.write(command.text)
            elif name == "c":
                if command.second is None or not state.active:
                    out.write(command.text)
                return space, newline, False, False
            elif name in "qQ":
                raise _Quit(command.number, name == "q", space, newline)
            elif name in "btT":
                # b always; t if a substitution was made since the line was read or the last
                # t or T, T if none was; either resets that flag (GNU's execute.c).
                jump = name == "b" or (name == "t") == replaced
                if name != "b":
                    replaced = False
                if jump:
                    pc = command.number
                    jumps += 1
                    if jumps % 256 == 0:
                        budget.check_time()
        return space, newline, True, False

    def selected(self, command: Command, state: _Range, space: str, source: _Input) -> bool:
        return self.matches(command, state, space, source) != command.negate

    def matches(self, command: Command, state: _Range, space: str, source: _Input) -> bool:
        first, second = command.first, command.second
        if first is None:
            return True
        if second is None:
            return self.at(first, space, source)
        if state.active:
            if second.kind in ("line", "plus", "tilde"):
                if self.line >= state.end:
                    state.active, state.closed = False, True
                    return self.line == state.end or second.kind != "line"
                return True
            if second.kind == "last":
                state.active = not source.done
                return True
            if self.at(second, space, source):
                state.active, state.closed = False, True
            return True
        if first.kind == "zero":
            return False
        if first.kind == "line":
            if state.closed or self.line < first.number:
                return False
        elif not self.at(first, space, source):
            return False
        state.closed = True  # open again below while the range goes on
        # A first line read past (by N, or a command before this one that ended the cycle)
        # starts the range here, unless its last line is behind too.
        passed = first.kind == "line" and self.line > first.number
        if passed and second.kind == "line" and self.line > second.number:
            return False
        if second.kind == "line":
            state.active, state.end = second.number > self.line, second.number
        elif second.kind == "plus":
            state.active, state.end = second.number > 0, self.line + second.number
        elif second.kind == "tilde":
            # To the next multiple of N after this line (GNU's: `4,~4` is lines 4 to 8).
            step = second.number
            end = self.line if step <= 0 else (self.line // step + 1) * step
            state.active, state.end = end > self.line, end
        elif second.kind == "last":
            state.active = not source.done
        else:
            state.active = True
        return True

    def at(self, address: Address, space: str, source: _Input) -> bool:
        kind = address.kind
        if kind == "line":
            return self.line == address.number
        if kind == "last":
            return source.done
        if kind == "step":
            if address.step <= 0:
                return self.line == address.number
            return self.line >= address.number and (self.line - address.number) % address.step == 0
        if kind == "regex":
            return self.regex(address.regex).search(space) is not None
        return False

    def substitute(
        self, command: Command, space: str, out: _Output, newline: bool
    ) -> tuple[str, bool]:
        """s: the nth match on (and with g every one after it) replaced. GNU takes no empty
        match right where the previous match ended (`s/b*/X/g` on abc: XaXcX)."""
        regex = self.regex(command.regex)
        pieces: list[str] = []
        position = count = size = 0
        previous_end = -1
        for match in regex.finditer(space):
            start, end = match.span()
            if start == end == previous_end:
                continue
            previous_end = end
            count += 1
            if count < command.nth:
                continue
            pieces.append(space[position:start])
            pieces.append(_expand(command, match))
            size += len(pieces[-1]) + len(pieces[-2])
            position = end
            if not command.every:
                break
            if count % 64 == 0:
                budget.check_output(size, "sed")
        if position == 0 and not pieces:
            return space, False
        pieces.append(space[position:])
        result = "".join(pieces)
        budget.check_output(len(result), "sed")
        if command.prints:
            out.write(result, newline)
        return result, True


class _EndOfInput(Exception):
    """`n` or `N` with no line left: GNU prints the pattern space (unless -n), then the
    appended text, and stops."""

    def __init__(self, space: str, newline: bool) -> None:
        self.space, self.newline = space, newline


def _expand(command: Command, match: Match) -> str:
    out: list[str] = []
    mode = ""  # U or L until \E
    once = ""  # u or l for the next character
    for kind, value in command.replacement:
        if kind == "case":
            if str(value) in "ul":
                once = str(value)
            else:
                mode = "" if value == "E" else str(value)
            continue
        text = str(value) if kind == "text" else (match.group(int(value)) or "")  # type: ignore[attr-defined]
        if mode == "U":
            text = text.upper()
        elif mode == "L":
            text = text.lower()
        if once and text:
            text = (text[0].upper() if once == "u" else text[0].lower()) + text[1:]
            once = ""
        out.append(text)
    return "".join(out)


def _list(space: str, out: _Output) -> None:
    """The l command: the pattern space unambiguously, folded at L_WIDTH, `$` at its end."""
    escapes = {"\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
    escapes.update({"\t": "\\t", "\v": "\\v"})
    line = ""
    for char in space:
        if char in escapes:
            shown = escapes[char]
        elif char.isascii() and char.isprintable():
            shown = char
        else:
            shown = "".join(f"\\{byte:03o}" for byte in char.encode())
        if len(line) + len(shown) > L_WIDTH - 1:
            out.write(line + "\\")
            line = ""
        line += shown
    out.write(line + "$")


def sed(ctx: Context, args: list[str]) -> Output:
    try:
        return _sed(ctx, args)
    except SedError as exc:
        return Output("", exc.status, stderr=str(exc))


def _sed(ctx: Context, args: list[str]) -> Output:
    quiet = in_place = extended = separate = False
    scripts: list[str] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg in ("-e", "--expression"):
            if i >= len(args):
                raise SedError(f"sed: option requires an argument -- 'e'\n{USAGE}")
            scripts.append(args[i])
            i += 1
        elif arg.startswith("--expression="):
            scripts.append(arg.partition("=")[2])
        elif arg in ("-n", "--quiet", "--silent"):
            quiet = True
        elif arg in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif arg in ("-s", "--separate"):
            separate = True
        elif arg in ("-i", "--in-place") or arg.startswith(("-i", "--in-place=")):
            in_place = True  # -iSUFFIX: the backup's suffix, which this host keeps none of
        elif arg.startswith("-") and len(arg) > 1 and not arg.startswith("--"):
            for letter in arg[1:]:
                if letter == "n":
                    quiet = True
                elif letter in "Er":
                    extended = True
                elif letter == "s":
                    separate = True
                else:
                    raise SedError(f"sed: invalid option -- '{letter}'\n{USAGE}")
        elif arg.startswith("--"):
            raise SedError(f"sed: unknown option -- '{arg[2:]}'\n{USAGE}")
        else:
            operands.append(arg)
    if not scripts:
        if not operands:
            raise SedError(USAGE)
        scripts.append(operands.pop(0))
    if in_place and not operands:
        raise SedError("sed: no input files")
    commands = Parser("\n".join(scripts), extended).parse()
    return _stream(ctx, commands, quiet, operands, in_place, separate or in_place)


def _stream(
    ctx: Context,
    commands: list[Command],
    quiet: bool,
    names: list[str],
    in_place: bool,
    separate: bool,
) -> Output:
    errors: list[str] = []
    texts: list[tuple[str, str]] = []
    unreadable = False  # a folder: GNU's read error, status 4 as for a failed write
    for name in names or ["-"]:
        text, why = (ctx.stdin, "") if name == "-" else opened(ctx, name)
        if in_place and text is not None and name != "-" and _device(ctx, name):
            text, why = None, fs.IS_FOLDER  # /dev/null: no regular file to edit either
        if text is None and why == fs.IS_FOLDER:
            unreadable = True
            errors.append(
                f"sed: couldn't edit {name}: not a regular file"
                if in_place
                else f"sed: read error on {name}: Is a directory"
            )
            continue
        if text is None:
            errors.append(f"sed: can't read {name}: No such file or directory")
            continue
        texts.append((name, text))
    out = _Output()
    code = 0
    if separate:
        run = _Run(commands, quiet)
        for name, text in texts:
            mine = _Output() if in_place else out
            # Each file from scratch, as GNU's read_pattern_space resets when it reads a next
            # file's first line: its lines from 1 and the hold space emptied (its text only:
            # whether a newline ends it stays, as GNU's hold.length = 0 leaves `chomped`).
            run.line = 0
            run.hold = ""
            code = run.run(_Input(_lines_of(text)), mine) or code
            if in_place:
                problem = write(ctx, name, "".join(mine.parts))
                if problem:
                    errors.append(_write_error(ctx, name, problem))
                    code = 4
            if run.quitted:
                break
    else:
        # Files run on as one stream; a line keeps its own missing newline, which the next
        # output adds (_Output.write), as GNU's does.
        lines = [line for _, text in texts for line in _lines_of(text)]
        code = _Run(commands, quiet).run(_Input(lines), out)
    if errors and not code:
        code = 4 if unreadable else 2
    return Output.exactly("".join(out.parts), code, stderr="\n".join(errors))


def _device(ctx: Context, name: str) -> bool:
    return fs.device(fs.locate(ctx, name).path) is not None


def _write_error(ctx: Context, name: str, problem: str) -> str:
    """sed -i's words when it cannot write: in a folder the admin may not write in, GNU sed
    cannot make its temporary file there (mkostemp's six random letters: here from the name)."""
    folder = fs.parent(fs.locate(ctx, name, follow=False).path)  # a link is replaced, not followed
    if problem.endswith(fs.DENIED) and not fs.writable(ctx.world.state, folder):
        letters = "".join(_TEMP[b % len(_TEMP)] for b in hashlib.sha256(name.encode()).digest()[:6])
        return f"sed: couldn't open temporary file {folder.rstrip('/')}/sed{letters}: {fs.DENIED}"
    return problem.replace("bash:", "sed:")


_TEMP = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
