"""`ls` on the admin host, as GNU coreutils 9.1's ls lists its folders (LC_ALL=C).

The host's tree is simulators.lab.fs's: the admin's folders (the home folder, 0755, and those
made in it or in /tmp) and root's (the system's; `/root`, 0700, cannot be opened), its files
and symbolic links (`bin -> usr/bin`: `l` and the target in long lines, `@` with -F, 0 blocks;
an operand that links to a folder is listed as that folder unless -l, -d or -F, as GNU's
default --dereference-command-line-symlink-to-dir). A folder has a link for each folder in it,
plus two. Files are on ext4: a file of N bytes
takes 4 KiB blocks (`total` and `-s` count them in KiB), a folder one block; every entry has
the same time (the lab keeps none per file), so `-t` sorts by name as GNU sorts entries of
equal times.

Options: `-a`, `-A`, `-l`, `-g`, `-o`, `-n` (ids for names), `-1`, `-C`, `-d`, `-h`, `-r`, `-t`,
`-S`, `-s`, `-i` (fs.inode's numbers), `-u` and `-c` (the one time again), `-F`, `-p`, `-R` and
their long names, `--color[=WHEN]` (accepted; nothing is coloured), `--`. Operands are
listed as GNU lists them: what cannot be accessed first (stderr, exit 2), then the files, then
each folder (with a `NAME:` header when there is more than one operand, or -R), in name order.
On the terminal entries go in columns (80 wide, down then across: ls's `-C`); in a pipe or a
file one a line.
"""

from __future__ import annotations

import dataclasses
import posixpath
from dataclasses import dataclass

from simulators.cluster.clock import datetime_at
from simulators.lab import fs
from simulators.lab.files import mode_string
from simulators.lab.tool import Context, Output

WIDTH = 80
OWNER = "admin"  # the user and group of the home folder and its files
TAB = 8
MIN_COLUMN = 3
BLOCK = 4096
SHORT = "aAlgo1CdhrtSsFpRinuc"
# -n's numbers for the owners (simulators.lab.hosttools: admin is uid and gid 1000).
NUMBERS = {"root": "0", "admin": "1000"}
LONG = {
    "--all": "a",
    "--almost-all": "A",
    "--directory": "d",
    "--human-readable": "h",
    "--reverse": "r",
    "--size": "s",
    "--classify": "F",
    "--recursive": "R",
    "--inode": "i",
    "--numeric-uid-gid": "n",
}
USAGE = "Try 'ls --help' for more information."
# Options that set one of ls's settings: the last given wins (-l then -1 lists one a line).
EXCLUSIVE = ({"a", "A"}, {"l", "1", "C"}, {"t", "S"}, {"F", "p"}, {"u", "c"})


def _add(flags: set[str], letter: str) -> None:
    if letter == "1" and "l" in flags:
        return  # -1 does not undo -l (-C does)
    for group in EXCLUSIVE:
        if letter in group:
            flags -= group
    flags.add(letter)
    if letter in "gon":  # -g and -o are -l without the owner or the group, -n with numbers
        _add(flags, "l")


@dataclass(frozen=True)
class Entry:
    name: str  # as listed: the operand typed, or the name in its folder
    folder: bool
    size: int
    mode: int  # permission bits
    links: int = 1
    root: bool = False  # root's (`..`, the system's), not the admin's
    link: str | None = None  # a symbolic link's target
    target_mark: str = ""  # -F's indicator of what the link points to (`/`, `*`)
    device: tuple[int, int] | None = None  # a character device's numbers (/dev/null's 1, 3)
    inode: int = 0  # -i's number (fs.inode)

    @property
    def owner(self) -> str:
        return "root" if self.root else OWNER

    def shown_owner(self, flags: set[str]) -> str:
        """The owner (and group) column: a name, or -n's number."""
        return NUMBERS.get(self.owner, "1000") if "n" in flags else self.owner

    @property
    def blocks(self) -> int:
        """KiB on disk (ext4, 4 KiB blocks; a link's target is in its inode)."""
        return 0 if self.link is not None else -(-self.size // BLOCK) * (BLOCK // 1024)


def _entry(ctx: Context, path: str, name: str) -> Entry:
    """The entry at an absolute path, listed as `name`: a folder has a link for each folder
    in it, plus two; root's are the system's."""
    return dataclasses.replace(_stat(ctx, path, name), inode=fs.inode(path))


def _stat(ctx: Context, path: str, name: str) -> Entry:
    state = ctx.world.state
    mode = fs.mode_of(state, path)
    root = not fs.owned(path)
    if fs.is_folder(state, path):
        links = 2 + len(fs.children(state, path)[1])
        return Entry(name, True, BLOCK, mode, links, root=root)
    target = fs.link_at(path)
    if target is not None:
        pointed = fs.locate_in(state, fs.parent(path), target)
        mark = "/" if pointed.folder else ""
        if pointed.file and fs.mode_of(state, pointed.path) & 0o111:
            mark = "*"
        return Entry(name, False, fs.size(state, path), mode, root=root, link=target,
                     target_mark=mark)  # fmt: skip
    return Entry(name, False, fs.size(state, path), mode, root=root, device=fs.device(path))


def _contents(ctx: Context, folder: str, flags: set[str]) -> list[Entry]:
    """A folder's entries (its absolute path), as -a/-A choose them."""
    if not fs.is_folder(ctx.world.state, folder):
        return []  # removed under the shell (_removed)
    found, subfolders = fs.children(ctx.world.state, folder)
    base = folder.rstrip("/")
    shown = [_entry(ctx, f"{base}/{name}", name) for name in found + subfolders]
    if "a" in flags:
        shown += [_entry(ctx, folder, "."), _entry(ctx, fs.parent(folder), "..")]
    elif "A" not in flags:
        shown = [e for e in shown if not e.name.startswith(".")]
    return shown


def _resolve(ctx: Context, operand: str, flags: set[str]) -> tuple[Entry, str | None] | str:
    """The entry an operand names and, for a folder, its absolute path; or why it cannot be
    accessed."""
    if not operand:
        return fs.NOT_FOUND  # GNU: cannot access ''
    where = fs.locate(ctx, operand, follow=False)
    if where.link is not None and not {"l", "d", "F"} & flags:
        followed = fs.locate(ctx, operand)
        where = followed if followed.folder else where
    if not where.error and not where.exists and _removed(ctx, where.path):
        return Entry(operand, True, 0, fs.FOLDER_MODE, links=0), where.path
    if where.error or not where.exists:
        return where.error or fs.NOT_FOUND
    return _entry(ctx, where.path, operand), where.path if where.folder else None


def _removed(ctx: Context, path: str) -> bool:
    """Whether `path` is the working folder, or a folder above it, removed under the shell:
    still there to the shell (a folder of no links and no size), empty, even of `.` and `..`."""
    working = posixpath.normpath(fs.cwd(ctx))
    return working == path or working.startswith(path.rstrip("/") + "/")


def _readable(entry: Entry) -> bool:
    """Whether the admin may list a folder: the owner's read bit, or the others' on root's."""
    return fs.permits(entry.mode, not entry.root, 4)


def _order(entries: list[Entry], flags: set[str]) -> list[Entry]:
    if "S" in flags:
        ordered = sorted(entries, key=lambda e: (-e.size, e.name.encode()))
    else:  # by name; -t too, every entry having the same time
        ordered = sorted(entries, key=lambda e: e.name.encode())
    return ordered[::-1] if "r" in flags else ordered


def _human(size: int) -> str:
    """-h: GNU's human_ceiling in powers of 1024 (`4.0K` for 4096, `5.3K` for 5400, `10K`,
    `1.0M`): one decimal, rounded up, below ten of a unit."""
    if size < 1024:
        return str(size)
    units = "KMGTPE"
    power = 1
    while power < len(units) and size >= 1024 ** (power + 1):
        power += 1
    base, unit = 1024**power, units[power - 1]
    tenths = -(-size * 10 // base)
    if tenths < 100:
        return f"{tenths // 10}.{tenths % 10}{unit}"
    whole = -(-size // base)
    if whole >= 1024 and power < len(units):
        return f"1.0{units[power]}"
    return f"{whole}{unit}"


def _indicator(entry: Entry, flags: set[str]) -> str:
    if entry.folder and ("F" in flags or "p" in flags):
        return "/"
    if entry.link is not None:
        return "@" if "F" in flags else ""
    if "F" in flags and not entry.folder and entry.mode & 0o111:
        return "*"
    return ""


def _size(entry: Entry, flags: set[str]) -> str:
    if entry.device is not None:  # ls -l's "major, minor" in the size column
        return f"{entry.device[0]}, {entry.device[1]}"
    return _human(entry.size) if "h" in flags else str(entry.size)


def _used(entry: Entry, flags: set[str]) -> str:
    return _human(entry.blocks * 1024) if "h" in flags else str(entry.blocks)


def _long(entries: list[Entry], flags: set[str], measured: list[Entry]) -> list[str]:
    """Long lines, each column as wide as its widest among `measured` (a listing's entries;
    for the operands, the folders among them too, as ls measures everything it was given)."""
    stamp = datetime_at(0)
    when = f"{stamp:%b} {stamp.day:>2} {stamp:%H:%M}"
    sizes = [_size(e, flags) for e in entries]
    blocks = [_used(e, flags) for e in entries]
    width = {
        "links": max((len(str(e.links)) for e in measured), default=0),
        "owner": max((len(e.shown_owner(flags)) for e in measured), default=0),
        "group": max((len(e.shown_owner(flags)) for e in measured), default=0),
        "size": max((len(_size(e, flags)) for e in measured), default=0),
        "inode": max((len(str(e.inode)) for e in measured), default=0),
        "blocks": max((len(_used(e, flags)) for e in measured), default=0),
    }
    lines = []
    for entry, size, used in zip(entries, sizes, blocks, strict=True):
        kind = "d" if entry.folder else "l" if entry.link is not None else "-"
        kind = "c" if entry.device is not None else kind
        cells = [f"{entry.inode:>{width['inode']}}"] if "i" in flags else []
        cells += [f"{used:>{width['blocks']}}"] if "s" in flags else []
        cells += [kind + mode_string(entry.mode)[1:], f"{entry.links:>{width['links']}}"]
        owner = entry.shown_owner(flags)
        if "g" not in flags:
            cells.append(f"{owner:<{width['owner']}}")
        if "o" not in flags:
            cells.append(f"{owner:<{width['group']}}")
        name = entry.name + _indicator(entry, flags)
        if entry.link is not None:  # the target, and with -F what it points to (GNU's linkmode)
            name = f"{entry.name} -> {entry.link}" + (entry.target_mark if "F" in flags else "")
        cells += [f"{size:>{width['size']}}", when, name]
        lines.append(" ".join(cells))
    return lines


def _indent(start: int, end: int) -> str:
    """ls's indent(): tabs to each tab stop (8) on the way, then spaces."""
    out = []
    while start < end:
        if end // TAB > (start + 1) // TAB:
            out.append("\t")
            start += TAB - start % TAB
        else:
            out.append(" ")
            start += 1
    return "".join(out)


def _columns(names: list[str]) -> list[str]:
    """ls -C (calculate_columns, print_many_per_line): the most columns whose widths (each its
    longest name, at least 3, plus 2 but for the last) stay under WIDTH, filled down then
    across, padded with tabs and spaces."""
    count = len(names)
    most = min(WIDTH // MIN_COLUMN, count)
    widths = [[MIN_COLUMN] * (i + 1) for i in range(most)]
    line = [MIN_COLUMN * (i + 1) for i in range(most)]
    valid = [True] * most
    for j, name in enumerate(names):
        for i in range(most):
            if not valid[i]:
                continue
            column = j // ((count + i) // (i + 1))
            needed = len(name) + (0 if column == i else 2)
            if widths[i][column] < needed:
                line[i] += needed - widths[i][column]
                widths[i][column] = needed
                valid[i] = line[i] < WIDTH
    cols = most
    while cols > 1 and not valid[cols - 1]:
        cols -= 1
    if not cols:
        return []
    chosen = widths[cols - 1]
    rows = -(-count // cols)
    lines = []
    for row in range(rows):
        cells, position, index, column = [], 0, row, 0
        while True:
            name = names[index]
            width = chosen[column]
            column += 1
            cells.append(name)
            index += rows
            if index >= count:
                break
            cells.append(_indent(position + len(name), position + width))
            position += width
        lines.append("".join(cells))
    return lines


def _listing(
    entries: list[Entry],
    flags: set[str],
    total: bool,
    terminal: bool,
    measured: list[Entry] | None = None,
) -> list[str]:
    entries = _order(entries, flags)
    measured = entries if measured is None else measured
    if "l" in flags:
        lines = _long(entries, flags, measured)
        return [_total(entries, flags), *lines] if total else lines
    shown = [e.name + _indicator(e, flags) for e in entries]
    if "s" in flags:
        blocks = [_used(e, flags) for e in entries]
        width = max((len(_used(e, flags)) for e in measured), default=0)
        shown = [f"{b:>{width}} {n}" for b, n in zip(blocks, shown, strict=True)]
    if "i" in flags:  # the inode before the blocks
        width = max((len(str(e.inode)) for e in measured), default=0)
        shown = [f"{e.inode:>{width}} {n}" for e, n in zip(entries, shown, strict=True)]
    if "s" in flags and total:
        rows = shown if not terminal or "1" in flags else _columns(shown)
        return [_total(entries, flags), *rows]
    if "1" in flags or not terminal:
        return shown
    return _columns(shown)


def _total(entries: list[Entry], flags: set[str]) -> str:
    """A folder's `total` line: its entries' blocks, in KiB (or -h's units)."""
    used = sum(e.blocks for e in entries)
    return f"total {_human(used * 1024) if 'h' in flags else used}"


def _parse(args: list[str]) -> tuple[set[str], list[str]] | Output:
    flags: set[str] = set()
    operands: list[str] = []
    ended = False
    for arg in args:
        if ended or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            ended = True
        elif arg.startswith("--"):
            name = arg.split("=", 1)[0]
            if name in LONG and "=" not in arg:
                _add(flags, LONG[name])
            elif name == "--color":
                continue
            else:
                return Output.error(f"ls: unrecognized option '{arg}'\n{USAGE}", 2)
        else:
            for letter in arg[1:]:
                if letter not in SHORT:
                    return Output.error(f"ls: invalid option -- '{letter}'\n{USAGE}", 2)
                _add(flags, letter)
    return flags, operands


def ls(ctx: Context, args: list[str]) -> Output:
    """The lab's `ls` (see the module's docstring)."""
    parsed = _parse(args)
    if isinstance(parsed, Output):
        return parsed
    flags, operands = parsed
    terminal = "C" in flags
    errors: list[str] = []
    plain: list[Entry] = []
    folders: list[tuple[Entry, str]] = []
    for operand in operands or ["."]:
        found = _resolve(ctx, operand, flags)
        if isinstance(found, str):
            errors.append(f"ls: cannot access '{operand}': {found}")
        elif found[1] is None or "d" in flags:
            plain.append(found[0])
        else:
            folders.append((found[0], found[1]))
    blocks: list[list[str]] = []
    headers = len(operands) > 1 or "R" in flags
    paths = dict(folders)
    pending = [(entry, paths[entry]) for entry in _order([e for e, _ in folders], flags)]

    def section(entry: Entry, name: str, path: str, tty: bool) -> None:
        if not _readable(entry):
            errors.append(f"ls: cannot open directory '{name}': {fs.DENIED}")
            if headers:
                blocks.append([f"{name}:"])
            return
        entries = _contents(ctx, path, flags)
        lines = _listing(entries, flags, total=True, terminal=tty)
        blocks.append([f"{name}:", *lines] if headers else lines)
        if "R" in flags:
            for inner in _order(entries, flags):
                if inner.folder and inner.name not in (".", ".."):
                    below = f"{path.rstrip('/')}/{inner.name}"
                    section(inner, f"{name.rstrip('/')}/{inner.name}", below, tty)

    def render(tty: bool) -> str:
        blocks.clear()
        if plain:
            measured = plain + [entry for entry, _ in folders]
            blocks.append(_listing(plain, flags, total=False, terminal=tty, measured=measured))
        errors[len(access) :] = []
        for entry, path in pending:
            section(entry, entry.name, path, tty)
        return "\n\n".join("\n".join(b) for b in blocks)

    access = list(errors)
    text = render(True)
    # One a line in a pipe only where the terminal would have columns.
    piped = text if terminal or "l" in flags or "1" in flags else render(False)
    code = 2 if errors else 0
    return Output(text, code, "\n".join(errors), piped=piped)
