"""Each primary of the lab's `find` with its arguments, as GNU findutils 4.9's parser.c reads
them and words its refusals: the table simulators.lab.find_parse looks a word up in. A
primary's parser takes its arguments, puts its node in the list (`Parser.insert`) and says
whether it could (False: GNU's "missing argument" or "invalid argument", as the caller
decides); the others raise the parser's FindError with GNU's own words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simulators.cluster.clock import datetime_at
from simulators.lab import files, fs
from simulators.lab.find_dates import date_seconds, out_of_range
from simulators.lab.find_format import GROUPS, HELP, USERS, VERSION, FormatError, parse_printf
from simulators.lab.find_match import compile_find_regex, glob, mode_adjust, mode_compile
from simulators.lab.regex import RegexError
from simulators.lab.textutils import strtold

if TYPE_CHECKING:
    from simulators.lab.find_parse import Parser

DAY = 86400
INT_MAX = 2**31 - 1
# The table's kinds: options warn after a test, positional ones do not; the rest are tests.
PUNCT, OPTION, POSITIONAL, TEST, ACTION = range(5)
_REGEX_TYPES = {
    "findutils-default": "emacs", "ed": "basic", "emacs": "emacs", "gnu-awk": "extended",
    "grep": "basic", "posix-awk": "extended", "awk": "extended", "posix-basic": "basic",
    "posix-egrep": "extended", "egrep": "extended", "posix-extended": "extended",
    "posix-minimal-basic": "basic", "sed": "basic",
}  # fmt: skip
_TYPES = "bcdpflsD"


class Finished(Exception):
    """--help or --version: their text on stdout, status 0."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Exec:
    """-exec/-execdir's command: its words, `{}` in them replaced (`batch`: `{} +`, the names
    added at the end)."""

    words: tuple[str, ...]
    batch: bool
    local: bool  # -execdir


def _punct(kind: str) -> Callable[[Parser, str], bool]:
    def parse_it(p: Parser, word: str) -> bool:
        p.operator(kind, word)
        return True

    return parse_it


def _noop(p: Parser, word: str) -> bool:
    p.insert("true")
    return True


def _flag(test: str, acts: bool = False, cost: int | None = None) -> Callable[[Parser, str], bool]:
    def parse_it(p: Parser, word: str) -> bool:
        p.insert(test, acts=acts, cost=cost)
        if test == "delete":
            p.options.dir_first = False
        return True

    return parse_it


def _depth(p: Parser, word: str) -> bool:
    if word == "-d":
        p.warn(
            "warning: the -d option is deprecated; please use -depth instead, because the"
            " latter is a POSIX-compliant feature."
        )
    p.options.dir_first = False
    p.options.explicit_depth = True
    return _noop(p, word)


def _depth_limit(p: Parser, word: str) -> bool:
    text = p.take()
    if text is None:
        return False
    if not re.fullmatch(r"[0-9]+", text):
        raise p.fail(f"Expected a positive decimal integer argument to {word}, but got '{text}'")
    if len(text) > 11 or int(text) > INT_MAX:
        raise p.fail(f"{text}: Numerical result out of range")
    if word == "-maxdepth":
        p.options.maxdepth = int(text)
    else:
        p.options.mindepth = int(text)
    return _noop(p, word)


def _setting(what: str) -> Callable[[Parser, str], bool]:
    def parse_it(p: Parser, word: str) -> bool:
        if what == "nowarn":
            p.options.warnings = False
        elif what == "warn":
            p.options.warnings = True
        else:  # -daystart puts no node in the list (GNU then renames the last one after it)
            if not p.options.full_days:
                moment = datetime_at(p.options.day_start + DAY)
                since = moment.hour * 3600 + moment.minute * 60 + moment.second
                p.options.day_start += DAY - since
                p.options.full_days = True
            return True
        return _noop(p, word)

    return parse_it


def _name(test: str) -> Callable[[Parser, str], bool]:
    def parse_it(p: Parser, word: str) -> bool:
        pattern = p.take()
        if pattern is None:
            return False
        if test in ("name", "iname") and "/" in pattern:
            whole = "-iwholename" if test == "iname" else "-wholename"
            p.warn(
                f"warning: '-{test}' matches against basenames only, but the given pattern"
                " contains a directory separator ('/'), thus the expression will evaluate to"
                f" false all the time.  Did you mean '{whole}'?"
            )
        fold = test in ("iname", "ipath")
        ends = test in ("path", "ipath") and pattern.endswith("/")
        if ends and not any(glob(pattern, fold)(start) for start in p.starts):
            p.messages.append(
                f"find: warning: {word} {pattern} will not match anything because it ends with /."
            )
        p.insert("name" if test in ("name", "iname") else "path", glob(pattern, fold))
        return True

    return parse_it


def _regex(fold: bool) -> Callable[[Parser, str], bool]:
    def parse_it(p: Parser, word: str) -> bool:
        pattern = p.take()
        if pattern is None:
            return False
        try:
            compiled = compile_find_regex(pattern, p.options.regex, fold)
        except RegexError as exc:
            raise p.fail(f"failed to compile regular expression '{pattern}': {exc}") from None
        p.insert("path", lambda text: compiled.fullmatch(text) is not None)
        return True

    return parse_it


def _regextype(p: Parser, word: str) -> bool:
    kind = p.take()
    if kind is None:
        return False
    if kind not in _REGEX_TYPES:
        valid = ", ".join(f"'{name}'" for name in _REGEX_TYPES)
        raise p.fail(f"Unknown regular expression type '{kind}'; valid types are {valid}.")
    p.options.regex = _REGEX_TYPES[kind]
    return _noop(p, word)


def _type(p: Parser, word: str) -> bool:
    letters = p.take()
    if letters is None:
        return False
    if not letters:
        raise p.fail(f"Arguments to {word} should contain at least one letter")
    chosen: set[str] = set()
    at = 0
    while at < len(letters):
        letter = letters[at]
        if letter == "D":
            raise p.fail(
                f"{word} D is not supported because Solaris doors are not supported on the"
                " platform find was compiled on."
            )
        if letter not in _TYPES:
            raise p.fail(f"Unknown argument to {word}: {letter}")
        if letter in chosen:
            raise p.fail(f"Duplicate file type '{letter}' in the argument list to {word}.")
        chosen.add(letter)
        at += 1
        if at < len(letters):
            if letters[at] != ",":
                raise p.fail(f"Must separate multiple arguments to {word} using: ','")
            at += 1
            if at == len(letters):
                raise p.fail(
                    f"Last file type in list argument to {word} is missing, i.e., list is"
                    " ending on: ','"
                )
    p.insert(word[1:], frozenset(chosen), cost=3 if word == "-xtype" else 2)
    return True


_NUMBER = re.compile(r"[ \t\n\v\f\r]*\+?[0-9]+")


def _unsigned(text: str) -> int | None:
    """xstrtoumax's number (blanks and a `+` before it), None if it is not one."""
    if not _NUMBER.fullmatch(text):
        return None
    value = int(text.strip().lstrip("+"))
    return value if value < 2**64 else None


def _compared(text: str) -> tuple[str, str]:
    """A numeric argument's comparison (`+` more, `-` less, `=`) and the rest."""
    if text[:1] in ("+", "-"):
        return text[0], text[1:]
    return "=", text


def _size(p: Parser, word: str) -> bool:
    text = p.take()
    if text is None:
        return False
    if not text:
        raise p.fail("invalid null argument to -size")
    units = {"b": 512, "c": 1, "w": 2, "k": 1024, "M": 1 << 20, "G": 1 << 30}
    unit = 512
    body = text
    if text[-1] in units:
        unit, body = units[text[-1]], text[:-1]
    elif not text[-1].isdigit():
        raise p.fail(f"invalid -size type `{text[-1]}'")
    how, rest = _compared(body)
    number = _unsigned(rest)
    if number is None:
        raise p.fail(f"Invalid argument `{text}' to -size")
    p.insert("size", (how, number, unit))
    return True


def _numeric(test: str) -> Callable[[Parser, str], bool]:
    def parse_it(p: Parser, word: str) -> bool:
        text = p.take()
        if text is None:
            return False
        how, rest = _compared(text)
        number = _unsigned(rest)
        if number is None:
            p.i -= 1  # not consumed: GNU names it in its message
            return False
        p.insert(test, (how, number))
        return True

    return parse_it


def _time(unit: int) -> Callable[[Parser, str], bool]:
    """-atime, -ctime, -mtime (days, from the day's start) and -amin ... (minutes, from now):
    GNU's reference time for each comparison (get_relative_timestamp)."""

    def parse_it(p: Parser, word: str) -> bool:
        text = p.take()
        if text is None:
            return False
        how, rest = _compared(text)
        read = strtold(rest)
        if read is None or read[1] != len(rest) or out_of_range(rest, read[0]):
            p.i -= 1
            return False
        origin = p.options.day_start
        if unit == 60:
            origin += DAY
        elif how == "-":
            origin += DAY - 1
        seconds = read[0] * unit
        if not math.isfinite(seconds) or abs(seconds) > 2**62:
            what = "minutes" if unit == 60 else "days"
            raise p.fail(
                f"arithmetic overflow while converting {rest} {what} to a number of seconds"
            )
        p.insert("time", (how, origin - seconds, unit if unit == 60 else DAY))
        return True

    return parse_it


def _newer(p: Parser, word: str) -> bool:
    target = p.take()
    if target is None:
        return False
    _stat(p, target)
    p.insert("newer", 0)
    return True


def newer_xy(p: Parser, word: str) -> bool:
    """-newerXY: X and Y in `amcB`, Y `t` for a date."""
    x, y = word[6], word[7]
    if "B" in (x, y):
        p.messages.append(
            "find: This system does not provide a way to find the birth time of a file."
        )
        return False
    if x == "t" or x not in "acm" or y not in "acmt":
        return False
    if p.i + 1 >= len(p.argv):
        raise p.fail(f"The '{word}' test needs an argument")
    reference = p.argv[p.i + 1]
    p.i += 2
    if y == "t":
        when = date_seconds(reference, p.options.now)
        if when is None:
            raise p.fail(f"I cannot figure out how to interpret '{reference}' as a date or time")
        p.insert("newer", when)
    else:
        _stat(p, reference)
        p.insert("newer", 0)
    return True


def _stat(p: Parser, target: str) -> fs.Located:
    """A file a test compares with: GNU stops if it is not there."""
    where = fs.locate(p.ctx, target)
    why = where.error or ("" if where.exists else fs.NOT_FOUND)
    if why:
        raise p.fail(f"'{target}': {why}")
    return where


def _samefile(p: Parser, word: str) -> bool:
    target = p.take()
    if target is None:
        return False
    p.insert("samefile", _stat(p, target).path)
    return True


def _used(p: Parser, word: str) -> bool:
    text = p.take()
    if text is None:
        return False
    how, rest = _compared(text)
    read = strtold(rest)
    if read is None or read[1] != len(rest) or not math.isfinite(read[0]):
        raise p.fail(f"Invalid argument {text} to -used")
    p.insert("used", (how, -read[0] * DAY, DAY))
    return True


def _owner(table: dict[str, int], what: str) -> Callable[[Parser, str], bool]:
    def parse_it(p: Parser, word: str) -> bool:
        name = p.take()
        if name is None:
            return False
        if name in table:
            number = table[name]
        elif re.fullmatch(r"[0-9]+", name):
            if len(name) > 11 or int(name) > INT_MAX:
                raise p.fail(f"{name}: Numerical result out of range")
            number = int(name)
        elif what == "user":
            if not name:
                raise p.fail("The argument to -user should not be empty")
            raise p.fail(f"'{name}' is not the name of a known user")
        else:
            digits = re.match(r"[0-9]*", name)
            lead = digits.group() if digits else ""
            if lead:
                raise p.fail(
                    f"'{name}' is not the name of an existing group and it does not look like a"
                    f" numeric group ID because it has the unexpected suffix '{name[len(lead) :]}'"
                )
            if not name:
                raise p.fail("argument to -group is empty, but should be a group name")
            raise p.fail(f"'{name}' is not the name of an existing group")
        p.insert("uid", ("=", number))
        return True

    return parse_it


def _perm(p: Parser, word: str) -> bool:
    text = p.take()
    if text is None:
        return False
    kind = {"-": "all", "/": "any"}.get(text[:1], "exact")
    changes = mode_compile(text[1:] if kind != "exact" else text)
    if changes is None or (text[:1] == "+" and text[1:2] in set("01234567")):
        raise p.fail(f"invalid mode '{text}'")
    values = (mode_adjust(changes, folder=False), mode_adjust(changes, folder=True))
    if kind == "any" and values == (0, 0):
        p.messages.append(
            f"find: warning: you have specified a mode pattern {text} (which is equivalent to"
            " /000). The meaning of -perm /000 has now been changed to be consistent with"
            " -perm -000; that is, while it used to match no files, it now matches all files."
        )
        kind = "all"
    p.insert("perm", (kind, values))
    return True


def _printf(p: Parser, word: str) -> bool:
    fmt = p.take()
    if fmt is None:
        return False
    try:
        pieces, warnings = parse_printf(fmt)
    except FormatError as exc:
        raise p.fail(str(exc)) from None
    p.messages.extend(f"find: {w}" for w in warnings)
    p.insert("printf", ("", pieces), acts=True)
    return True


def _to_file(test: str) -> Callable[[Parser, str], bool]:
    """-fprint, -fprint0, -fls, -fprintf: their file, opened (emptied) as they are parsed."""

    def parse_it(p: Parser, word: str) -> bool:
        path = p.take()
        if path is None:
            return False
        target = _output(p, path)
        if test == "printf":
            fmt = p.take()
            if fmt is None:
                return False
            try:
                pieces, warnings = parse_printf(fmt)
            except FormatError as exc:
                raise p.fail(str(exc)) from None
            p.messages.extend(f"find: {w}" for w in warnings)
            p.insert("printf", (target, pieces), acts=True)
        else:
            p.insert(test, target, acts=True)
        return True

    return parse_it


def _output(p: Parser, path: str) -> str:
    """Where an -fprint writes: "" stdout, "/dev/stderr", "/dev/null", or a file's key."""
    if path in ("/dev/stdout", "/dev/stderr", "/dev/null"):
        return "" if path == "/dev/stdout" else path
    where, why = files.creatable(p.ctx, path)
    if why:
        raise p.fail(f"'{path}': {why}")
    if where.key not in p.outputs:
        p.ctx.world.state.files[where.key] = ""
        p.outputs[where.key] = path
    return where.key


def _exec(kind: str) -> Callable[[Parser, str], bool]:
    """-exec, -execdir, -ok, -okdir: the command up to `;` (or `{} +` for the first two)."""

    def parse_it(p: Parser, word: str) -> bool:
        argv = p.argv
        start = end = p.i
        if start >= len(argv):
            return False
        braces = 0
        brace_arg = ""
        after_braces = batch = False
        plus = kind in ("exec", "execdir")
        while end < len(argv) and argv[end] != ";":
            if plus and argv[end] == "+" and after_braces:
                batch = True
                break
            after_braces = "{}" in argv[end]
            if after_braces:
                braces += 1
                brace_arg = argv[end]
            end += 1
        if end == start or end >= len(argv):
            p.i = end
            return False
        suffix = "dir" if kind == "execdir" else ""
        if batch and braces > 1:
            raise p.fail(f"Only one instance of {{}} is supported with -exec{suffix} ... +")
        if batch and len(brace_arg) != 2:
            raise p.fail(
                f"In '-exec{suffix} ... {{}} +' the '{{}}' must appear by itself, but you"
                f" specified '{brace_arg}'"
            )
        words = tuple(argv[start : end - 1] if batch else argv[start:end])
        p.i = end + 1
        if kind in ("ok", "okdir") and not p.refused:
            p.refused = (
                f"find: -{kind} is not available in this lab: it asks a question before each"
                " command, and the lab's terminal cannot answer; use -exec"
            )
        p.insert("exec", Exec(words, batch, kind.endswith("dir")), acts=True)
        return True

    return parse_it


def _context(p: Parser, word: str) -> bool:
    if p.take() is None:
        return False
    raise p.fail("invalid predicate -context: SELinux is not enabled.")


def _files0(p: Parser, word: str) -> bool:
    if p.take() is None:
        return False
    raise p.fail("-files0-from is not available in this lab")


def _lname(p: Parser, word: str) -> bool:
    pattern = p.take()
    if pattern is None:
        return False
    p.insert("lname", glob(pattern, word == "-ilname"), cost=4)  # fnmatch(3) of the target
    return True


def _follow(p: Parser, word: str) -> bool:
    p.options.follow = "L"  # -follow: -L, as GNU's walk does it whatever its place
    return _noop(p, word)


def _fstype(p: Parser, word: str) -> bool:
    kind = p.take()
    if kind is None:
        return False
    p.insert("fstype", kind)
    return True


def _help(p: Parser, word: str) -> bool:
    raise Finished(HELP)


def _version(p: Parser, word: str) -> bool:
    raise Finished(VERSION.format(level=p.options.level))


TABLE: dict[str, tuple[int, Callable[[Parser, str], bool]]] = {
    "!": (PUNCT, _punct("uni")), "not": (PUNCT, _punct("uni")), "(": (PUNCT, _punct("open")),
    ")": (PUNCT, _punct("close")), ",": (PUNCT, _punct("bi")), "a": (PUNCT, _punct("bi")),
    "and": (PUNCT, _punct("bi")), "o": (PUNCT, _punct("bi")), "or": (PUNCT, _punct("bi")),
    "amin": (TEST, _time(60)), "cmin": (TEST, _time(60)),
    "mmin": (TEST, _time(60)), "atime": (TEST, _time(DAY)),
    "ctime": (TEST, _time(DAY)), "mtime": (TEST, _time(DAY)),
    "anewer": (TEST, _newer), "cnewer": (TEST, _newer), "newer": (TEST, _newer),
    "context": (TEST, _context), "daystart": (POSITIONAL, _setting("daystart")),
    "delete": (ACTION, _flag("delete", acts=True)), "d": (OPTION, _depth),
    "depth": (OPTION, _depth), "empty": (TEST, _flag("empty")),
    "exec": (ACTION, _exec("exec")), "execdir": (ACTION, _exec("execdir")),
    "ok": (ACTION, _exec("ok")), "okdir": (ACTION, _exec("okdir")),
    "executable": (TEST, _flag("executable")), "readable": (TEST, _flag("readable")),
    "writable": (TEST, _flag("writable")), "files0-from": (OPTION, _files0),
    "fls": (ACTION, _to_file("ls")), "fprint": (ACTION, _to_file("print")),
    "fprint0": (ACTION, _to_file("print0")), "fprintf": (ACTION, _to_file("printf")),
    "follow": (POSITIONAL, _follow), "fstype": (TEST, _fstype),
    "gid": (TEST, _numeric("gid")), "uid": (TEST, _numeric("uid")),
    "links": (TEST, _numeric("links")), "inum": (TEST, _numeric("inum")),
    "group": (TEST, _owner(GROUPS, "group")), "user": (TEST, _owner(USERS, "user")),
    "ignore_readdir_race": (OPTION, _noop), "noignore_readdir_race": (OPTION, _noop),
    "noleaf": (OPTION, _noop), "xdev": (OPTION, _noop), "mount": (OPTION, _noop),
    "ilname": (TEST, _lname), "lname": (TEST, _lname), "iname": (TEST, _name("iname")),
    "name": (TEST, _name("name")), "ipath": (TEST, _name("ipath")),
    "iwholename": (TEST, _name("ipath")), "path": (TEST, _name("path")),
    "wholename": (TEST, _name("path")), "iregex": (TEST, _regex(True)),
    "regex": (TEST, _regex(False)), "ls": (ACTION, _flag("ls", acts=True)),
    "maxdepth": (OPTION, _depth_limit), "mindepth": (OPTION, _depth_limit),
    "nogroup": (TEST, _flag("false", cost=3)), "nouser": (TEST, _flag("false", cost=3)),
    "nowarn": (POSITIONAL, _setting("nowarn")), "warn": (POSITIONAL, _setting("warn")),
    "perm": (TEST, _perm), "print": (ACTION, _flag("print", acts=True)),
    "print0": (ACTION, _flag("print0", acts=True)), "printf": (ACTION, _printf),
    "prune": (ACTION, _flag("prune")), "quit": (ACTION, _flag("quit")),
    "regextype": (POSITIONAL, _regextype), "samefile": (TEST, _samefile),
    "size": (TEST, _size), "type": (TEST, _type), "xtype": (TEST, _type),
    "used": (TEST, _used), "false": (TEST, _flag("false")), "true": (TEST, _flag("true")),
    "help": (TEST, _help), "-help": (TEST, _help), "version": (TEST, _version),
    "-version": (TEST, _version),
}  # fmt: skip
