"""What diff's user sees (simulators.lab.diff compares): its command line, read as GNU
getopt_long reads diff's (options anywhere, clusters, unambiguous abbreviations of long ones,
and diffutils 3.8's words for each mistake), and its output formats: normal, unified (-u) and
context (-c), as normal.c, context.c and util.c print an edit script.

A change is a run of lines deleted from the old file and inserted from the new one (line
numbers from 0 over the whole file). The formats group changes into hunks (normal: each change
alone; -u/-c: changes fewer than 2*N+1 unchanged lines apart), drop a hunk whose lines -B
ignores, and print the -u/-c header (a file's quoted name and time, or its --label) only
before the first hunk shown. -T puts a tab after each line's mark, -t expands tabs. Left out:
-p/-F (function lines), --suppress-blank-empty, side by side, ed and RCS scripts, --color;
--help is the lab's own short one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from simulators.lab import budget

OLD, NEW = 1, 2
# C's isspace in the C locale, the whitespace -b, -w, -Z and -B know.
WHITE = " \t\n\v\f\r"
NO_NEWLINE = "\n\\ No newline at end of file\n"
VERSION = """diff (GNU diffutils) 3.8
Copyright (C) 2021 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by Paul Eggert, Mike Haertel, David Hayes,
Richard Stallman, and Len Tower.
"""
HELP = """Usage: diff [OPTION]... FILES
Compare FILES line by line.

      --normal                  output a normal diff (the default)
  -q, --brief                   report only when files differ
  -s, --report-identical-files  report when two files are the same
  -c, -C NUM, --context[=NUM]   output NUM (default 3) lines of copied context
  -u, -U NUM, --unified[=NUM]   output NUM (default 3) lines of unified context
      --label LABEL             use LABEL instead of file name and timestamp
  -N, --new-file                treat absent files as empty
  -i, --ignore-case             ignore case differences in file contents
  -Z, --ignore-trailing-space   ignore white space at line end
  -b, --ignore-space-change     ignore changes in the amount of white space
  -w, --ignore-all-space        ignore all white space
  -B, --ignore-blank-lines      ignore changes where lines are all blank
      --strip-trailing-cr       strip trailing carriage return on input
  -a, --text                    treat all files as text
  -t, --expand-tabs             expand tabs to spaces in output
  -T, --initial-tab             make tabs line up by prepending a tab
  -d, --minimal                 try hard to find a smaller set of changes

FILES are 'FILE1 FILE2': files of the home folder, '-' for standard input.
Exit status is 0 if inputs are the same, 1 if different, 2 if trouble.
(The lab's diff: no folders, side by side, ed scripts or colors.)
"""


# ---------------------------------------------------------------------------- the command line


CONTEXT_MAX = 1 << 30
# getopt_long's table, in diff.c's order (an ambiguous abbreviation lists its candidates so):
# each long option's argument (0 none, 1 required, 2 optional) and the letter it stands for;
# "" for those the lab leaves out.
LONG = {
    "binary": (0, ""), "brief": (0, "q"), "changed-group-format": (1, ""), "color": (2, ""),
    "context": (2, "C"), "ed": (0, "e"), "exclude": (1, "x"), "exclude-from": (1, "X"),
    "expand-tabs": (0, "t"), "forward-ed": (0, "f"), "from-file": (1, ""), "help": (0, "help"),
    "horizon-lines": (1, "horizon"), "ifdef": (1, "D"), "ignore-all-space": (0, "w"),
    "ignore-blank-lines": (0, "B"), "ignore-case": (0, "i"), "ignore-file-name-case": (0, ""),
    "ignore-matching-lines": (1, "I"), "ignore-space-change": (0, "b"),
    "ignore-tab-expansion": (0, "E"), "ignore-trailing-space": (0, "Z"),
    "inhibit-hunk-merge": (0, ""), "initial-tab": (0, "T"), "label": (1, "L"),
    "left-column": (0, ""), "line-format": (1, ""), "minimal": (0, "d"), "new-file": (0, "N"),
    "new-group-format": (1, ""), "new-line-format": (1, ""), "no-dereference": (0, ""),
    "no-ignore-file-name-case": (0, ""), "normal": (0, "normal"), "old-group-format": (1, ""),
    "old-line-format": (1, ""), "paginate": (0, "l"), "palette": (1, ""), "rcs": (0, "n"),
    "recursive": (0, "r"), "report-identical-files": (0, "s"), "sdiff-merge-assist": (0, ""),
    "show-c-function": (0, "p"), "show-function-line": (1, "F"), "side-by-side": (0, "y"),
    "speed-large-files": (0, "H"), "starting-file": (1, "S"), "strip-trailing-cr": (0, "strip"),
    "suppress-blank-empty": (0, ""), "suppress-common-lines": (0, ""), "tabsize": (1, ""),
    "text": (0, "a"), "to-file": (1, ""), "unchanged-group-format": (1, ""),
    "unchanged-line-format": (1, ""), "unidirectional-new-file": (0, "P"), "unified": (2, "U"),
    "version": (0, "version"), "width": (1, "W"),
}  # fmt: skip
SHORT = "0123456789abBcC:dD:eEfF:hHiI:lL:nNpPqrsS:tTuU:vwW:x:X:yZ"
DONE = set("0123456789abBcCdhiLNqsTtuUwZ") | {"help", "horizon", "normal", "strip", "version"}


class Trouble(Exception):
    """diff's error: its message lines (without `diff: `), and whether the Try line follows."""

    def __init__(self, message: str, hint: bool = True) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass
class Options:
    form: str = ""
    context: int = 0
    ocontext: int = -1  # the old -NUM
    explicit: bool = False  # a -C/-U NUM
    white: int = 0
    horizon: int = 0
    labels: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    printed: str | None = None  # --help or --version: what diff prints before it ends


def _count(value: str | None, what: str) -> int:
    """A context (or horizon) length as strtoimax reads it: blanks and a sign may come before
    the digits, an empty one is 0; a negative one is refused, a huge one is the largest."""
    if value is None:
        return 3
    match = re.fullmatch(r"[ \t\n\v\f\r]*([-+]?)([0-9]+)", value)
    number = budget.bounded_int(match.group(2), CONTEXT_MAX) or 0 if match else 0
    if (value and not match) or (match and match.group(1) == "-" and number):
        raise Trouble(f"invalid {what} length '{value}'")
    return number


def _style(opts: Options, form: str) -> None:
    if opts.form and opts.form != form:
        raise Trouble("conflicting output style options")
    opts.form = form


def _apply(opts: Options, key: str, value: str | None, shown: str, prev: str) -> None:
    key = "version" if key == "v" else key
    if key not in DONE:
        raise Trouble(f"option '{shown}' is not available in this lab", hint=False)
    if key.isdigit():
        digit = int(key)
        tens = opts.ocontext * 10 + digit if prev.isdigit() else digit
        opts.ocontext = min(tens, CONTEXT_MAX)
    elif key in ("C", "U", "c", "u"):
        length = _count(value, "context") if key in "CU" else 3  # read before the style
        _style(opts, "unified" if key in "Uu" else "context")
        opts.context = max(opts.context, length)
        opts.explicit = opts.explicit or key in "CU"
    elif key in ("b", "w", "Z"):
        if key == "w":
            opts.white = 5
        elif opts.white < 4:
            opts.white = 4 if key == "b" else opts.white | 2
    elif key == "L":
        if len(opts.labels) == 2:
            raise Trouble("too many file label options", hint=False)
        opts.labels.append(value or "")
    elif key == "horizon":
        opts.horizon = max(opts.horizon, _count(value or "", "horizon"))
    elif key == "normal":
        _style(opts, "normal")
    elif key in ("help", "version"):
        opts.printed = HELP if key == "help" else VERSION
    else:
        opts.flags.add(key)


def parse(args: list[str]) -> tuple[Options, list[str]]:
    """getopt_long as diff calls it: options anywhere (operands are permuted to the end),
    clusters of short ones, long ones by any unambiguous abbreviation."""
    opts = Options()
    operands: list[str] = []
    prev = ""
    i = 0
    while i < len(args) and opts.printed is None:
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--"):
            name, equals, value = arg[2:].partition("=")
            found = [name] if name in LONG else [n for n in LONG if n.startswith(name)]
            if not found:
                raise Trouble(f"unrecognized option '{arg}'")
            if len(found) > 1:
                listed = " ".join(f"'--{n}'" for n in found)
                raise Trouble(f"option '{arg}' is ambiguous; possibilities: {listed}")
            takes, key = LONG[found[0]]
            if takes == 0 and equals:
                raise Trouble(f"option '--{found[0]}' doesn't allow an argument")
            if takes == 1 and not equals:
                if i == len(args):
                    raise Trouble(f"option '--{found[0]}' requires an argument")
                value, i = args[i], i + 1
            _apply(opts, key, value if takes == 1 or equals else None, "--" + found[0], prev)
            prev = key
        elif arg.startswith("-") and arg != "-":
            j = 1
            while j < len(arg):
                letter = arg[j]
                j += 1
                at = SHORT.find(letter)
                if at < 0 or letter == ":":
                    raise Trouble(f"invalid option -- '{letter}'")
                value = None
                if SHORT[at + 1 : at + 2] == ":":
                    if j < len(arg):
                        value, j = arg[j:], len(arg)
                    elif i < len(args):
                        value, i = args[i], i + 1
                    else:
                        raise Trouble(f"option requires an argument -- '{letter}'")
                _apply(opts, letter, value, "-" + letter, prev)
                prev = letter
        else:
            operands.append(arg)
    return opts, operands


# ---------------------------------------------------------------------------- the output


@dataclass(frozen=True)
class Change:
    """Lines [line0, line0+deleted) of the old file replaced by [line1, line1+inserted) of the
    new one; an insertion's line0 (a deletion's line1) is where it goes."""

    line0: int
    line1: int
    deleted: int
    inserted: int


@dataclass(frozen=True)
class Style:
    form: str  # "normal", "unified" or "context"
    context: int = 0
    blank: bool = False  # -B
    white: int = 0  # GNU's ignore_white_space: 0 none, 2 -Z, 4 -b, 5 -w
    initial_tab: bool = False  # -T
    expand_tabs: bool = False  # -t


def _trivial(line: str, style: Style) -> bool:
    """Whether -B ignores the line: an empty one, or (with -b, -w or -Z) one of blanks only."""
    body = line[:-1] if line.endswith("\n") else line
    if style.white >= 2:
        return not body.strip(WHITE)
    return not body


def analyze(hunk: list[Change], a: list[str], b: list[str], style: Style) -> tuple[int, ...]:
    """util.c's analyze_hunk: the hunk's first and last lines in each file (a last before its
    first when the hunk has none there) and what it does (OLD | NEW), 0 if -B ignores it."""
    trivial = style.blank
    deleted = inserted = 0
    for change in hunk:
        deleted += change.deleted
        inserted += change.inserted
        if trivial:
            lines = [*a[change.line0 : change.line0 + change.deleted]]
            lines += b[change.line1 : change.line1 + change.inserted]
            trivial = all(_trivial(line, style) for line in lines)
    last = hunk[-1]
    kind = 0 if trivial else (OLD if deleted else 0) | (NEW if inserted else 0)
    return (
        hunk[0].line0,
        last.line0 + last.deleted - 1,
        hunk[0].line1,
        last.line1 + last.inserted - 1,
        kind,
    )


def differs(script: list[Change], a: list[str], b: list[str], style: Style) -> bool:
    """Whether any change counts (every one does, unless -B ignores all of its lines)."""
    if not style.blank:
        return bool(script)
    return any(analyze([change], a, b, style)[4] for change in script)


def _hunks(script: list[Change], a: list[str], b: list[str], style: Style) -> list[list[Change]]:
    """context.c's find_hunk: changes closer than 2*N+1 unchanged lines (N, if the later one
    is one -B ignores) share a hunk; the normal format shows each change alone."""
    if style.form == "normal":
        return [[change] for change in script]
    ignored = [style.blank and not analyze([c], a, b, style)[4] for c in script]
    hunks: list[list[Change]] = []
    for index, change in enumerate(script):
        if hunks:
            before = hunks[-1][-1]
            threshold = style.context if ignored[index] else 2 * style.context + 1
            if change.line0 - (before.line0 + before.deleted) < threshold:
                hunks[-1].append(change)
                continue
        hunks.append([change])
    return hunks


def _expanded(line: str, again: str) -> str:
    """util.c's output_1_line with -t: tabs to the next multiple of 8; after a carriage return
    inside the line, the mark again (`again`) so that the columns still line up."""
    out: list[str] = []
    column = 0
    for at, char in enumerate(line):
        if char == "\t":
            spaces = 8 - column % 8
            column += spaces
            out.append(" " * spaces)
        elif char == "\r":
            out.append(char)
            if again and at + 1 < len(line) and line[at + 1] != "\n":
                out.append(again)
            column = 0
        elif char == "\b":
            if column:
                column -= 1
                out.append(char)
        else:
            column += " " <= char <= "~"
            out.append(char)
    return "".join(out)


def line_out(mark: str, line: str, style: Style) -> str:
    """util.c's print_1_line: the mark and a blank (a tab with -T), unless the mark is
    empty, then the line, and GNU's note after a last line without its newline."""
    lead = mark + ("\t" if style.initial_tab else " ") if mark else ""
    body = _expanded(line, lead) if style.expand_tabs else line
    return lead + body + ("" if line.endswith("\n") else NO_NEWLINE)


def _range(a: int, b: int, form: str) -> str:
    """A hunk's lines a..b (from 0) as each format numbers them (from 1)."""
    first, last = a + 1, b + 1
    if form == "unified":
        if last <= first:
            return f"{last},0" if last < first else str(last)
        return f"{first},{last - first + 1}"
    if form == "context":
        return str(last) if last <= first else f"{first},{last}"
    return f"{first},{last}" if last > first else str(last)


def _normal(hunk: list[Change], a: list[str], b: list[str], style: Style, out: list[str]) -> None:
    first0, last0, first1, last1, kind = analyze(hunk, a, b, style)
    letter = " dac"[kind]
    out.append(f"{_range(first0, last0, 'n')}{letter}{_range(first1, last1, 'n')}\n")
    if kind & OLD:
        out.extend(line_out("<", a[i], style) for i in range(first0, last0 + 1))
    if kind == OLD | NEW:
        out.append("---\n")
    if kind & NEW:
        out.extend(line_out(">", b[i], style) for i in range(first1, last1 + 1))


def _widened(hunk: list[Change], a: list[str], b: list[str], style: Style) -> tuple[int, ...]:
    """The hunk's lines with N lines of context on each side, within the files."""
    first0, last0, first1, last1, kind = analyze(hunk, a, b, style)
    n = style.context
    return (
        max(first0 - n, 0),
        min(last0 + n, len(a) - 1),
        max(first1 - n, 0),
        min(last1 + n, len(b) - 1),
        kind,
    )


def _unified(hunk: list[Change], a: list[str], b: list[str], style: Style, out: list[str]) -> None:
    first0, last0, first1, last1, _ = _widened(hunk, a, b, style)
    out.append(f"@@ -{_range(first0, last0, 'unified')} +{_range(first1, last1, 'unified')} @@\n")
    tab = "\t" if style.initial_tab else ""
    i, j, at = first0, first1, 0
    while i <= last0 or j <= last1:
        change = hunk[at] if at < len(hunk) else None
        if change is None or i < change.line0:
            out.append((tab or " ") + line_out("", a[i], style))
            i += 1
            j += 1
            continue
        for _ in range(change.deleted):
            out.append("-" + tab + line_out("", a[i], style))
            i += 1
        for _ in range(change.inserted):
            out.append("+" + tab + line_out("", b[j], style))
            j += 1
        at += 1


def _context(hunk: list[Change], a: list[str], b: list[str], style: Style, out: list[str]) -> None:
    first0, last0, first1, last1, kind = _widened(hunk, a, b, style)
    out.append(f"***************\n*** {_range(first0, last0, 'context')} ****\n")
    for side, (first, last, lines) in enumerate(((first0, last0, a), (first1, last1, b))):
        if side:
            out.append(f"--- {_range(first1, last1, 'context')} ----\n")
        if not kind & (NEW if side else OLD):
            continue
        at = 0
        for i in range(first, last + 1):
            # The change covering line i, if any: ! where lines go both ways, else - or +.
            while at < len(hunk) and _start(hunk[at], side) + _size(hunk[at], side) <= i:
                at += 1
            mark = " "
            if at < len(hunk) and _start(hunk[at], side) <= i:
                mark = "!" if _size(hunk[at], 1 - side) else "-+"[side]
            out.append(line_out(mark, lines[i], style))


def _start(change: Change, side: int) -> int:
    return change.line1 if side else change.line0


def _size(change: Change, side: int) -> int:
    return change.inserted if side else change.deleted


def render(
    script: list[Change], a: list[str], b: list[str], style: Style, headers: tuple[str, str]
) -> str:
    """The edit script in the style's format; -u's and -c's two header lines (`headers`: the
    name and time, or the label, of each file) before the first hunk shown, if any is."""
    printer = {"normal": _normal, "unified": _unified, "context": _context}[style.form]
    out: list[str] = []
    size = 0
    for hunk in _hunks(script, a, b, style):
        if not analyze(hunk, a, b, style)[4]:
            continue  # -B: nothing but blank lines
        if not out and style.form != "normal":
            marks = ("---", "+++") if style.form == "unified" else ("***", "---")
            out.extend(f"{mark} {header}\n" for mark, header in zip(marks, headers, strict=True))
        before = len(out)
        printer(hunk, a, b, style, out)
        size += sum(len(piece) for piece in out[before:])
        budget.check_output(size, "diff")
    return "".join(out)


def _quoted(name: str) -> str:
    """util.c's c_escape, as -u and -c print a file's name: in double quotes with C's escapes
    (octal for other control bytes and every non-ASCII one) if it has a blank or one of them."""
    named = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 34: '"', 92: "\\"}
    data = name.encode(errors="surrogatepass")
    if b" " not in data and all(32 <= byte < 128 and byte not in named for byte in data):
        return name
    out = []
    for byte in data:
        if byte in named:
            out.append("\\" + named[byte])
        elif byte < 32 or byte >= 128:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


def header(name: str, moment: datetime, form: str) -> str:
    """A file's -u or -c header after its mark: its name (quoted if need be), a tab and its
    time, as -u prints it (to the nanosecond) or -c (C's asctime, in the C locale)."""
    if form == "context":
        return f"{_quoted(name)}\t{moment:%a %b} {moment.day:2d} {moment:%H:%M:%S %Y}"
    return f"{_quoted(name)}\t{moment:%Y-%m-%d %H:%M:%S}.000000000 +0000"
