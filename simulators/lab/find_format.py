"""What the lab's `find` prints of an entry: `-printf`'s directives (print.c of GNU findutils
4.9), `-ls`'s lines (listfile.c), and the names GNU derives from a path (`%f`, `%h`, what
`-name` matches). simulators.lab.find walks and decides; this module only formats.

The lab keeps one time for every entry (simulators.lab.ls: `datetime_at(0)`), ext4's 4 KiB
blocks, the admin (uid 1000) or root as owners, and no inode numbers: an entry's is made from
its path (stable, as a file system's would be), `/`'s is 2 as on ext4.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulators.cluster.clock import EPOCH, datetime_at
from simulators.lab import fs
from simulators.lab.files import mode_string

BLOCK = 4096
USERS = {"root": 0, "daemon": 1, "bin": 2, "sys": 3, "nobody": 65534, "admin": 1000}
GROUPS = {
    "root": 0, "daemon": 1, "bin": 2, "sys": 3, "adm": 4, "sudo": 27, "nogroup": 65534,
    "admin": 1000,
}  # fmt: skip
# File systems of a Debian host's top-level folders that are not the root one's.
FSTYPES = {"/proc": "proc", "/sys": "sysfs", "/dev": "devtmpfs", "/run": "tmpfs"}
DEVICE = 2049  # st_dev of /dev/sda1 (8:1)
# printf's directives: those of one letter, those followed by a time field's letter.
_ONE = "abcdDfFgGhHiklmMnpPsStuUyYZ%"
_TWO = "ABCT"
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ESCAPES["\\"] = "\\"
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_NANOS = ".0000000000"  # the lab's times have no fraction; GNU prints nine digits and a 0


class FormatError(Exception):
    """A -printf format GNU refuses (fatal): the message without `find: `."""


@dataclass(frozen=True)
class Entry:
    """A file or folder as find visits it."""

    path: str  # as printed: the starting point as typed, joined with the names below it
    abs: str  # its absolute path
    depth: int
    start: str  # the starting point it was found under, as typed
    folder: bool
    size: int
    mode: int  # permission bits
    root: bool  # root's (the system's folders and files), not the admin's
    links: int = 1
    link: str | None = None  # a symbolic link's target (find does not follow it: -P)
    target: str = ""  # the type of what the link points to (`d`, `f`; `N`: nothing)
    target_rights: int = 0  # the admin's rwx bits on it (access(2) follows the link)
    followed: bool = False  # what a link -L followed points to (-xtype's lstat sees `l`)

    @property
    def owner(self) -> str:
        return "root" if self.root else "admin"

    @property
    def uid(self) -> int:
        return USERS[self.owner]

    @property
    def kib(self) -> int:
        """Disk use in KiB (ext4: 4 KiB blocks; a folder one; a link's target in its inode)."""
        if self.link is not None:
            return 0
        return 4 if self.folder else -(-self.size // BLOCK) * 4

    @property
    def inode(self) -> int:
        return fs.inode(self.abs)

    @property
    def fstype(self) -> str:
        top = "/" + self.abs.split("/")[1] if self.abs != "/" else "/"
        return FSTYPES.get(top, "ext4")

    def modes(self) -> str:
        """`ls -l`'s ten characters."""
        return self.kind.replace("f", "-") + mode_string(self.mode)[1:]

    @property
    def kind(self) -> str:
        """-type's letter: `d`, `l`, `c` (/dev/null) or `f`."""
        if self.folder or self.link is not None:
            return "d" if self.folder else "l"
        return "c" if fs.device(self.abs) is not None else "f"

    @property
    def other_kind(self) -> str:
        """-xtype's letter: a link's target's (`l` if it is broken), `l` for what -L followed."""
        if self.followed:
            return "l"
        return self.target.replace("N", "l") if self.link is not None else self.kind


@dataclass(frozen=True)
class Directive:
    """One `%` directive: its flags, width and precision as typed, its letter(s)."""

    flags: str
    width: str
    precision: str | None
    letter: str
    field: str = ""  # the time field after A, B, C or T
    raw: str = ""  # `%` and the flags as typed (what `%5%` prints)


Piece = str | Directive


def parse_printf(fmt: str) -> tuple[list[Piece], list[str]]:
    """-printf's format as insert_fprintf reads it: its pieces (text and directives; the
    format ends at `\\c`) and the warnings GNU prints about it. Raises FormatError."""
    pieces: list[Piece] = []
    warnings: list[str] = []
    text: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "\\" and fmt[i + 1 : i + 2] == "c":
            break
        if ch == "\\":
            nxt = fmt[i + 1 : i + 2]
            if not nxt:
                warnings.append("warning: escape `\\' followed by nothing at all")
                text.append("\\")
                i += 1
            elif nxt in "01234567":
                end = i + 1
                while end < min(len(fmt), i + 4) and fmt[end] in "01234567":
                    end += 1
                text.append(chr(int(fmt[i + 1 : end], 8) & 0xFF))
                i = end
            elif nxt in _ESCAPES:
                text.append(_ESCAPES[nxt])
                i += 2
            else:
                warnings.append(f"warning: unrecognized escape `\\{nxt}'")
                text.append("\\" + nxt)
                i += 2
            continue
        if ch != "%":
            text.append(ch)
            i += 1
            continue
        if i + 1 >= len(fmt):
            raise FormatError("error: % at end of format string")
        j = i + 1
        flags = width = ""
        precision = None
        if fmt[j] != "%":
            while j < len(fmt) and fmt[j] in "-+ #":
                flags, j = flags + fmt[j], j + 1
            while j < len(fmt) and fmt[j].isdigit():
                width, j = width + fmt[j], j + 1
            if j < len(fmt) and fmt[j] == ".":
                precision, j = "", j + 1
                while j < len(fmt) and fmt[j].isdigit():
                    precision, j = precision + fmt[j], j + 1
        letter = fmt[j : j + 1]
        raw = fmt[i:j]
        if letter and letter in _ONE:
            pieces += ["".join(text)] if text else []
            pieces.append(Directive(flags, width, precision, letter, raw=raw))
            text, i = [], j + 1
        elif letter and letter in _TWO and j + 1 < len(fmt):
            pieces += ["".join(text)] if text else []
            pieces.append(Directive(flags, width, precision, letter, fmt[j + 1], raw))
            text, i = [], j + 2
        else:
            if not letter or letter in "{[(":
                shown = letter or "\0"
                raise FormatError(
                    f"error: the format directive `%{shown}' is reserved for future use"
                )
            if letter in _TWO:
                warnings.append(
                    f"warning: format directive `%{letter}' should be followed by another character"
                )
            else:
                warnings.append(f"warning: unrecognized format directive `%{letter}'")
            text.append(fmt[i : j + 1])
            i = j + 1
    if text:
        pieces.append("".join(text))
    return pieces, warnings


def printf(pieces: list[Piece], entry: Entry) -> tuple[str, bool]:
    """An entry as -printf's pieces print it, and whether GNU also failed on it (%Z)."""
    out: list[str] = []
    failed = False
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        if piece.letter == "%":
            out.append(piece.raw)  # `%%` prints %, `%5%` its flags
            continue
        if piece.letter == "Z":
            failed = True
        out.append(_directive(piece, entry))
    return "".join(out), failed


def _directive(piece: Directive, entry: Entry) -> str:
    letter = piece.letter
    if letter == "d":
        return c_int(piece, entry.depth, octal=False)
    if letter == "m":
        return c_int(piece, entry.mode & 0o7777, octal=True)
    if letter == "S":
        sparse = 1.0 if entry.size == 0 else entry.kib * 1024 / entry.size
        if entry.size == 0 and entry.kib:
            sparse = float("inf")
        spec = f"%{piece.flags}{piece.width}" + (
            "" if piece.precision is None else "." + piece.precision
        )
        return (spec + "g") % sparse
    return c_string(piece, _value(piece, entry))


def _value(piece: Directive, entry: Entry) -> str:
    letter = piece.letter
    if letter in _TWO:
        return time_field(piece.field)
    values = {
        "a": ctime(), "c": ctime(), "t": ctime(),
        "b": str(entry.kib * 2), "k": str(entry.kib), "D": str(DEVICE), "f": base_name(entry.path),
        "F": entry.fstype, "g": entry.owner, "G": str(entry.uid), "h": head(entry.path),
        "H": entry.start, "i": str(entry.inode), "l": entry.link or "", "M": entry.modes(),
        "n": str(entry.links), "p": entry.path, "P": below_start(entry), "s": str(entry.size),
        "u": entry.owner, "U": str(entry.uid), "y": entry.kind, "Z": "",
    }  # fmt: skip
    values["Y"] = entry.target or values["y"]
    return values[letter]


def c_string(piece: Directive, value: str) -> str:
    """C's `%s` with the directive's flags, width and precision."""
    if piece.precision is not None:
        value = value[: int(piece.precision or "0")]
    width = int(piece.width or "0")
    return value.ljust(width) if "-" in piece.flags else value.rjust(width)


def c_int(piece: Directive, number: int, octal: bool) -> str:
    """C's `%d` (or `%o`) with the directive's flags (`0` leads the width), width, precision."""
    digits = f"{abs(number):o}" if octal else str(abs(number))
    if piece.precision is not None:
        wanted = int(piece.precision or "0")
        digits = "" if wanted == 0 and number == 0 else digits.zfill(wanted)
    if octal and "#" in piece.flags and not digits.startswith("0"):
        digits = "0" + digits
    sign = "-" if number < 0 else "+" if "+" in piece.flags else " " if " " in piece.flags else ""
    width = int(piece.width or "0")
    if "-" in piece.flags:
        return (sign + digits).ljust(width)
    if piece.width.startswith("0") and piece.precision is None:
        return sign + digits.rjust(width - len(sign), "0")
    return (sign + digits).rjust(width)


def ctime() -> str:
    """`%t`: the time as print.c's ctime_format writes it."""
    stamp = datetime_at(0)
    return (
        f"{_WEEKDAYS[stamp.weekday()]} {stamp:%b} {stamp.day:2d} {stamp:%H:%M:%S}{_NANOS}"
        f" {stamp.year:04d}"
    )


def time_field(kind: str) -> str:
    """`%T<kind>` (and %A, %B, %C): strftime's field, seconds with their fraction, `@` the
    seconds since 1970, `+` date and time."""
    moment = datetime_at(0)
    if kind == "@":
        return f"{int(EPOCH.timestamp())}{_NANOS}"
    if kind == "+":
        return moment.strftime("%Y-%m-%d+%H:%M:%S") + _NANOS
    if kind in "STX":
        return moment.strftime(f"%{kind}") + _NANOS
    return str(moment.strftime(f"%{kind}"))


def base_name(path: str) -> str:
    """gnulib's base_name: the last component, one trailing slash kept (`a//` -> `a/`); a
    path of slashes alone is `/`."""
    stripped = path.lstrip("/")
    if not stripped:
        return "/" if path else ""
    parts = [p for p in stripped.split("/") if p]
    last = parts[-1]
    return last + "/" if path.endswith("/") else last


def name_of(path: str) -> str:
    """What -name matches: base_name less its trailing slashes (`/` stays `/`)."""
    base = base_name(path)
    return base.rstrip("/") or base[:1]


def head(path: str) -> str:
    """`%h`, as print.c computes it: the path less its last component (trailing slashes
    dropped only where a component is left before them; `.` for a name without a slash)."""
    end = len(path) - 1
    while end >= 0 and path[end] == "/":
        end -= 1
    trimmed = path[: end + 1] if 0 < end < len(path) - 1 else path
    cut = trimmed.rfind("/")
    return "." if cut < 0 else trimmed[:cut]


def below_start(entry: Entry) -> str:
    """`%P`: the path less the starting point and the slash after it."""
    if entry.depth == 0:
        return ""
    rest = entry.path[len(entry.start) :]
    return rest[1:] if rest.startswith("/") else rest


@dataclass
class LsWidths:
    """-ls's columns: each as wide as GNU's default or the widest value printed so far."""

    widths: list[int] = field(default_factory=lambda: [9, 6, 3, 8, 8, 8])

    def cell(self, column: int, value: str, left: bool = False) -> str:
        width = self.widths[column]
        self.widths[column] = max(width, len(value))
        return value.ljust(width) if left else value.rjust(width)


def _size_cell(entry: Entry) -> str:
    """-ls's size: a device's numbers instead (GNU's "%3lu, %3lu")."""
    numbers = fs.device(entry.abs) if entry.link is None else None
    return str(entry.size) if numbers is None else f"{numbers[0]:>3}, {numbers[1]:>3}"


def ls_line(entry: Entry, now: int, widths: LsWidths) -> str:
    """-ls's line: inode, KiB, modes, links, owner, group, size, time, path."""
    stamp = datetime_at(0)
    recent = now - 6 * 30 * 24 * 3600 <= 0 <= now + 3600
    when = f"{stamp:%b} {stamp.day:>2} " + (f"{stamp:%H:%M}" if recent else f" {stamp.year}")
    return (
        f"{widths.cell(0, str(entry.inode))} {widths.cell(1, str(entry.kib))} "
        f"{entry.modes()} {widths.cell(2, str(entry.links))} "
        f"{widths.cell(3, entry.owner, left=True)} {widths.cell(4, entry.owner, left=True)} "
        f"{widths.cell(5, _size_cell(entry))} {when} {entry.path}"
        + ("" if entry.link is None else f" -> {entry.link}")
        + "\n"
    )


VERSION = """find (GNU findutils) 4.9.0
Copyright (C) 2022 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by Eric B. Decker, James Youngman, and Kevin Dalley.
Features enabled: D_TYPE O_NOFOLLOW(enabled) LEAF_OPTIMISATION FTS(FTS_CWDFD) CBO(level={level}) 
"""  # noqa: W291 (GNU's line ends in a space)

HELP = """Usage: find [-H] [-L] [-P] [-Olevel] [-D debugopts] [path...] [expression]

Default path is the current directory; default expression is -print.
Expression may consist of: operators, options, tests, and actions.

Operators (decreasing precedence; -and is implicit where no others are given):
      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2
      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2

Positional options (always true):
      -daystart -follow -nowarn -regextype -warn

Normal options (always true, specified before other expressions):
      -depth -files0-from FILE -maxdepth LEVELS -mindepth LEVELS
       -mount -noleaf -xdev -ignore_readdir_race -noignore_readdir_race

Tests (N can be +N or -N or N):
      -amin N -anewer FILE -atime N -cmin N -cnewer FILE -context CONTEXT
      -ctime N -empty -false -fstype TYPE -gid N -group NAME -ilname PATTERN
      -iname PATTERN -inum N -iwholename PATTERN -iregex PATTERN
      -links N -lname PATTERN -mmin N -mtime N -name PATTERN -newer FILE
      -nouser -nogroup -path PATTERN -perm [-/]MODE -regex PATTERN
      -readable -writable -executable
      -wholename PATTERN -size N[bcwkMG] -true -type [bcdpflsD] -uid N
      -used N -user NAME -xtype [bcdpfls]

Actions:
      -delete -print0 -printf FORMAT -fprintf FILE FORMAT -print 
      -fprint0 FILE -fprint FILE -ls -fls FILE -prune -quit
      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;
      -execdir COMMAND ; -execdir COMMAND {} + -okdir COMMAND ;

Other common options:
      --help                   display this help and exit
      --version                output version information and exit

Valid arguments for -D:
exec, opt, rates, search, stat, time, tree, all, help
Use '-D help' for a description of the options, or see find(1)

Please see also the documentation at https://www.gnu.org/software/findutils/.
You can report (and track progress on fixing) bugs in the "find"
program via the GNU findutils bug-reporting page at
https://savannah.gnu.org/bugs/?group=findutils or, if
you have no web access, by sending email to <bug-findutils@gnu.org>.
"""  # noqa: W291
