"""GNU grep 3.8 on kadmin: options anywhere on the line (as GNU's getopt permutes them), several
patterns (`-e`, or lines of one), BRE, ERE and fixed strings, and the output GNU prints:
`name:num:line` for a selected line and `name-num-line` for context, `--` between groups,
`-c`, `-l`, `-L`, `-o`, `-q`, `-m`, `-w`, `-x`, `-s`, `-b`, `-f FILE` (patterns a line each),
`--label`, `-Z` (a NUL after names), `-z` (NUL-ended records), `-r`/`-R` (the home folder or a
folder of it, its files named as fts walks them: `.` gives `./x`, no operand `x`; a folder
without -r is "Is a directory"), and grep's exit status (0 a line was selected, 1 none, 2 an
error unless `-q` found one). Patterns run on RE2
(simulators.lab.regex), so no pattern can freeze the lab; compared with the machine's real
grep on generated inputs by tests/unit/lab/test_shell_oracle.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from simulators.lab import budget, fs
from simulators.lab.files import opened, read
from simulators.lab.regex import Regex, RegexError, compile_regex, translate
from simulators.lab.tool import Context, Output

USAGE = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information."
STDIN_NAME = "(standard input)"
# Short options that take a value, and the flags without one.
_VALUED = "efmABCd"
_FLAGS = "EFGHhiyvwxclLoqsnrRTUuaIzZb"
_LONG = {
    "--extended-regexp": "E", "--fixed-strings": "F", "--basic-regexp": "G",
    "--with-filename": "H", "--no-filename": "h", "--ignore-case": "i", "--invert-match": "v",
    "--word-regexp": "w", "--line-regexp": "x", "--count": "c", "--files-with-matches": "l",
    "--files-without-match": "L", "--only-matching": "o", "--quiet": "q", "--silent": "q",
    "--no-messages": "s", "--line-number": "n", "--no-ignore-case": "", "--text": "a",
    "--initial-tab": "T", "--byte-offset": "b", "--null": "Z", "--null-data": "z",
    "--recursive": "r", "--dereference-recursive": "R",
}  # fmt: skip
_LONG_VALUED = {
    "--regexp": "e", "--max-count": "m", "--after-context": "A", "--before-context": "B",
    "--context": "C", "--file": "f", "--label": "label",
}  # fmt: skip
# In the C locale, what -w calls a word's constituents: a match is a word with none of them
# just before or just after it.
_NOT_WORD = "[^A-Za-z0-9_]"


class _Refused(Exception):
    """grep's own message for a command line it refuses (status 2)."""


@dataclass
class _Options:
    flags: set[str] = field(default_factory=set)
    patterns: list[str] = field(default_factory=list)
    # -f's files, read by grep() (the patterns of each line by line, after -e's).
    pattern_files: list[str] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)
    label: str = STDIN_NAME
    max_count: int | None = None
    # -A and -B; -C and -NUM set both where -A or -B did not, whatever their order.
    after: int | None = None
    before: int | None = None
    context: int = 0


def grep(ctx: Context, args: list[str]) -> Output:
    try:
        options = _parse(args)
        for source in options.pattern_files:
            patterns = ctx.stdin if source == "-" else read(ctx, source)
            if patterns is None:
                raise _Refused(f"grep: {source}: No such file or directory")
            options.patterns += _lines(patterns, "\n")
        if _nothing_to_select(options):
            return Output("", 1)  # GNU reads no input then, and prints no count
        regex = _regex(options)
    except _Refused as refused:
        return Output("", 2, stderr=str(refused))
    flags = options.flags
    # -Z: a NUL after a file's name instead of its separator (and of -l's newline).
    after_name = "\0" if "Z" in flags else ":"
    recursive = bool(flags & {"r", "R"})
    names, walked = _walked(ctx, options.operands, recursive)
    with_names = "H" in flags or ((len(names) > 1 or walked) and "h" not in flags)
    out: list[str] = []
    errors: list[str] = []
    selected_any = failed = False
    groups = _Groups()
    for name in names:
        text, why = (ctx.stdin, "") if name == "-" else opened(ctx, name)
        folder = why == fs.IS_FOLDER
        if text is None:
            failed = True  # -s: no message, the status all the same
            if "s" not in flags:
                errors.append(f"grep: {name}: {why}")
            if not folder:
                continue
            text = ""  # a folder read as a file: no line, so -c counts 0 and -L names it
        shown = options.label if name == "-" else name
        count = _search(text, regex, options, shown if with_names else None, out, groups)
        selected_any = selected_any or count > 0
        if "q" in flags and selected_any:
            return Output()
        if ("l" in flags and count) or ("L" in flags and not count):
            out.append(shown + ("\0" if "Z" in flags else "\n"))
        elif "c" in flags and not flags & {"l", "L"}:
            out.append(f"{shown}{after_name}{count}\n" if with_names else f"{count}\n")
        budget.check_output(sum(len(line) for line in out), "grep")
    code = 2 if failed else 0 if selected_any else 1
    if "q" in flags:
        return Output("", code, stderr="\n".join(errors))
    return Output.exactly("".join(out), code, stderr="\n".join(errors))


def _folder(ctx: Context, name: str) -> str | None:
    """The folder an operand names (its absolute path), None for anything else."""
    where = fs.locate(ctx, name)
    return where.path if where.folder and not where.error else None


def _walked(ctx: Context, operands: list[str], recursive: bool) -> tuple[list[str], bool]:
    """The files grep reads, named as it prints them, and whether -r walked a folder for them
    (which prints their names, as several files do). Without operands -r walks the working
    folder and names its files without `./`; a folder operand names them after it, its
    trailing slash dropped as fts drops it (`./` stays `./`). In name order: fts reads a
    folder in the order the file system keeps, which no two machines share."""
    if not recursive:
        return operands or ["-"], False
    state = ctx.world.state
    names: list[str] = []
    walked = not operands
    for operand in operands or [""]:
        folder = _folder(ctx, operand or ".")
        if folder is None or operand == "-":
            names.append(operand)
            continue
        walked = True
        head = "" if not operand else "./" if operand == "./" else operand.rstrip("/") + "/"
        base = folder.rstrip("/") + "/"
        inside = [p for p in fs.walk(state, folder) if fs.is_file(state, p)]
        names += [head + p[len(base) :] for p in inside]
    return names, walked


def _nothing_to_select(options: _Options) -> bool:
    """GNU's shortcuts: no pattern at all (-f of an empty file) is `-v ''` with -x and -w off,
    and a search that can select no line (-m 0, or -v of empty patterns only, which every line
    matches) reads nothing, unless -L lists the files without a match."""
    flags = options.flags
    if not options.patterns:
        options.patterns = [""]
        flags ^= {"v"}
        flags -= {"x", "w"}
    # GNU counts the patterns' characters once duplicates are dropped: `-e '' -e ''` is none.
    keyless = set(options.patterns) == {""} and "v" in flags and not flags & {"x", "w"}
    return (options.max_count == 0 or keyless) and "L" not in flags


def _parse(args: list[str]) -> _Options:
    """GNU's getopt: options and operands in any order until `--`; the first operand is the
    pattern unless -e gave one."""
    options = _Options()
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            words.extend(args[i:])
            break
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name in ("--color", "--colour"):
                continue
            if name in _LONG_VALUED:
                if not eq:
                    if i >= len(args):
                        raise _Refused(f"grep: option '{name}' requires an argument\n{USAGE}")
                    value, i = args[i], i + 1
                _valued(options, _LONG_VALUED[name], value)
            elif name in _LONG and not eq:
                for letter in _LONG[name]:
                    _flag(options, letter)
            else:
                raise _Refused(f"grep: unrecognized option '{arg}'\n{USAGE}")
        elif arg.startswith("-") and arg != "-":
            j = 1
            while j < len(arg):
                letter = arg[j]
                j += 1
                if letter in _VALUED:
                    value = arg[j:]
                    if not value:
                        if i >= len(args):
                            raise _Refused(
                                f"grep: option requires an argument -- '{letter}'\n{USAGE}"
                            )
                        value, i = args[i], i + 1
                    _valued(options, letter, value)
                    break
                if letter.isdigit():  # -5: five lines of context
                    digits = re.match(r"\d+", arg[j - 1 :])
                    assert digits is not None
                    _valued(options, "C", digits.group())
                    j += len(digits.group()) - 1
                elif letter in _FLAGS:
                    _flag(options, "i" if letter == "y" else letter)
                else:
                    raise _Refused(f"grep: invalid option -- '{letter}'\n{USAGE}")
        else:
            words.append(arg)
    if not options.patterns and not options.pattern_files:
        if not words:
            raise _Refused(USAGE)
        options.patterns = words[0].split("\n")
        words = words[1:]
    options.operands = words
    return options


# Options of which the last given wins.
_RIVALS = {"l": "L", "L": "l", "H": "h", "h": "H"}


def _flag(options: _Options, letter: str) -> None:
    if letter in "EFG":
        chosen = options.flags & {"E", "F", "G"}
        if chosen and chosen != {letter}:
            raise _Refused("grep: conflicting matchers specified")
    options.flags.discard(_RIVALS.get(letter, ""))
    options.flags.add(letter)


def _valued(options: _Options, letter: str, value: str) -> None:
    if letter == "e":
        options.patterns.extend(value.split("\n"))
        return
    if letter == "f":
        options.pattern_files.append(value)
        return
    if letter == "label":
        options.label = value
        return
    if letter == "d":
        raise _Refused(f"grep: -{letter}: not supported on this host")
    number = budget.bounded_int(value, 1 << 30)
    if number is None:
        what = "max count" if letter == "m" else "context length argument"
        raise _Refused(f"grep: invalid {what}")
    if letter == "m":
        options.max_count = number
    elif letter == "A":
        options.after = number
    elif letter == "B":
        options.before = number
    else:
        options.context = number


def _regex(options: _Options) -> Regex:
    flags = options.flags
    parts = []
    for pattern in options.patterns:
        if "F" in flags:
            parts.append(re.escape(pattern))
        else:
            try:
                parts.append(translate(pattern, "E" in flags))
            except RegexError as exc:
                raise _Refused(f"grep: {exc}") from None
    body = "|".join(f"(?:{part})" for part in parts)
    if "x" in flags:
        body = f"^(?:{body})$"
    elif "w" in flags:
        body = f"(?:^|{_NOT_WORD})({body})(?:{_NOT_WORD}|$)"
    try:
        return compile_regex(body, ignore_case="i" in flags, longest=True)
    except RegexError as exc:
        raise _Refused(f"grep: {exc}") from None


@dataclass
class _Groups:
    """Whether a line was printed yet (in any file): with context, a group after one starts
    with `--`."""

    printed: bool = False


def _search(
    text: str, regex: Regex, options: _Options, name: str | None, out: list[str], groups: _Groups
) -> int:
    """Select the lines of one file, append what grep prints for them (unless it prints
    only counts or names) and return how many were selected."""
    flags = options.flags
    eol = "\0" if "z" in flags else "\n"  # -z: records end in NUL, and so does each printed
    lines = _lines(text, eol)
    prints = not flags & {"c", "l", "L", "q"}
    before = options.context if options.before is None else options.before
    after = options.context if options.after is None else options.after
    if not prints:
        before = after = 0
    # -o prints matches only, but its groups are the context's, `--` between them.
    context = "o" not in flags
    # -b: each line's offset in bytes from the file's start (UTF-8, as the file is stored).
    offsets = [0]
    if "b" in flags:
        for line in lines:
            offsets.append(offsets[-1] + len(line.encode("utf-8", "surrogateescape")) + 1)

    def prefix(number: int, sep: str, within: str = "") -> str:
        offset = (
            offsets[number] + len(within.encode("utf-8", "surrogateescape"))
            if "b" in flags
            else None
        )
        return _prefix(name, number, sep, options, offset)

    def show(number: int, sep: str, line: str) -> None:
        out.append(prefix(number, sep) + line + eol)

    selected = 0
    last_shown = -1
    after_left = 0
    for number, line in enumerate(lines):
        if number % 256 == 255:
            budget.check_time()
        if options.max_count is not None and selected >= options.max_count:
            # Stopped: only the trailing context of the last selected line is left.
            if after_left and prints:
                if context:
                    show(number, "-", line)
                last_shown, after_left = number, after_left - 1
                continue
            break
        hit = regex.search(line) is not None
        if hit == ("v" in flags):
            if after_left and prints:
                if context:
                    show(number, "-", line)
                last_shown, after_left = number, after_left - 1
            continue
        selected += 1
        if not prints:
            if "l" in flags or "L" in flags or "q" in flags:
                break
            continue
        first = max(number - before, last_shown + 1)
        if (before or after) and groups.printed and (last_shown < 0 or first > last_shown + 1):
            out.append("--\n")
        groups.printed = True
        if context:
            for earlier in range(first, number):
                show(earlier, "-", lines[earlier])
            show(number, ":", line)
        elif "v" not in flags:
            for start, match in _matches(regex, line, "w" in flags and "x" not in flags):
                out.append(prefix(number, ":", line[:start]) + match + eol)
        last_shown, after_left = number, after
    return selected


def _prefix(
    name: str | None, number: int, sep: str, options: _Options, offset: int | None = None
) -> str:
    """What grep prints before a line: the file's name, the line's number (-n), its offset in
    bytes (-b, or the match's with -o), each followed by `sep` (`:` selected, `-` context)."""
    prefix = f"{name}{chr(0) if 'Z' in options.flags else sep}" if name is not None else ""
    if "n" in options.flags:
        prefix += f"{number + 1}{sep}"
    if offset is not None:
        prefix += f"{offset}{sep}"
    return prefix


def _lines(text: str, eol: str) -> list[str]:
    """The lines (records) of a text, the end of the last one not making another."""
    lines = text.split(eol)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _matches(regex: Regex, line: str, word: bool) -> list[tuple[int, str]]:
    """-o: each non-empty match and where it starts, left to right (for -w, the word inside its
    boundaries)."""
    found: list[tuple[int, str]] = []
    position = 0
    while position <= len(line):
        match = regex.search(line, position)
        if match is None:
            break
        start, end = match.span(1) if word else match.span()
        if end > start:
            found.append((start, line[start:end]))
        # Next from the match's end (for -w, the boundary after it may begin the next one, and
        # after an empty word the boundary that ended it may begin the next: `-ow -e '' -e
        # '[0-9]'` on "a -3" finds the 3 after the empty word before the dash).
        position = end if end > start else max(end, match.start() + 1)
    return found
