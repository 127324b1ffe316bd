"""`ls` on the admin host, as GNU coreutils 9.1's ls lists the home folder (LC_ALL=C).

The home folder (`/home/admin`, mode 0755) holds the lab's files and its hidden folders
(`files.FOLDERS`: `.kube`, 0755), each holding its files; `..` is `/home` (root's, three
links). Files are on ext4: a file of N bytes takes 4 KiB blocks (`total` and `-s` count them in
KiB), a folder one block; every entry has the same time (the lab keeps none per file), so `-t`
sorts by name as GNU sorts entries of equal times.

Options: `-a`, `-A`, `-l`, `-g`, `-o`, `-1`, `-C`, `-d`, `-h`, `-r`, `-t`, `-S`, `-s`, `-F`, `-p`,
`-R` and their long names, `--color[=WHEN]` (accepted; nothing is coloured), `--`. Operands are
listed as GNU lists them: what cannot be accessed first (stderr, exit 2), then the files, then
each folder (with a `NAME:` header when there is more than one operand, or -R), in name order.
On the terminal entries go in columns (80 wide, down then across: ls's `-C`); in a pipe or a
file one a line.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulators.cluster.clock import datetime_at
from simulators.lab import files
from simulators.lab.files import FOLDERS, HOME, mode_of, mode_string, normalize
from simulators.lab.tool import Context, Output

WIDTH = 80
OWNER = "admin"  # the user and group of the home folder and its files
TAB = 8
MIN_COLUMN = 3
BLOCK = 4096
SHORT = "aAlgo1CdhrtSsFpR"
LONG = {
    "--all": "a",
    "--almost-all": "A",
    "--directory": "d",
    "--human-readable": "h",
    "--reverse": "r",
    "--size": "s",
    "--classify": "F",
    "--recursive": "R",
}
USAGE = "Try 'ls --help' for more information."
# Options that set one of ls's settings: the last given wins (-l then -1 lists one a line).
EXCLUSIVE = ({"a", "A"}, {"l", "1", "C"}, {"t", "S"}, {"F", "p"})


def _add(flags: set[str], letter: str) -> None:
    if letter == "1" and "l" in flags:
        return  # -1 does not undo -l (-C does)
    for group in EXCLUSIVE:
        if letter in group:
            flags -= group
    flags.add(letter)
    if letter in "go":  # -g and -o are -l without the owner or the group
        _add(flags, "l")


@dataclass(frozen=True)
class Entry:
    name: str  # as listed: the operand typed, or the name in its folder
    folder: bool
    size: int
    mode: int  # permission bits
    links: int = 1
    root: bool = False  # root's (`..`), not the admin's

    @property
    def owner(self) -> str:
        return "root" if self.root else OWNER

    @property
    def blocks(self) -> int:
        """KiB on disk (ext4, 4 KiB blocks)."""
        return -(-self.size // BLOCK) * (BLOCK // 1024)


def _folders(names: dict[str, str]) -> list[str]:
    return sorted({n.split("/", 1)[0] for n in names if "/" in n} & FOLDERS)


def _home(ctx: Context, name: str) -> Entry:
    return Entry(name, True, BLOCK, 0o755, 2 + len(_folders(ctx.world.state.files)))


def _parent(name: str) -> Entry:
    return Entry(name, True, BLOCK, 0o755, 3, root=True)


def _file(ctx: Context, path: str, name: str) -> Entry:
    size = len(ctx.world.state.files[path].encode())
    return Entry(name, False, size, mode_of(ctx, path))


def _contents(ctx: Context, folder: str, flags: set[str]) -> list[Entry]:
    """A folder's entries ("" the home folder), as -a/-A choose them."""
    names = ctx.world.state.files
    if folder:
        inside = [n.split("/", 1)[1] for n in names if n.startswith(folder + "/")]
        shown = [_file(ctx, f"{folder}/{n}", n) for n in inside]
        dots = [_folder("."), _home(ctx, "..")]
    else:
        shown = [_file(ctx, n, n) for n in names if "/" not in n]
        shown += [_folder(f) for f in _folders(names)]
        dots = [_home(ctx, "."), _parent("..")]
    if "a" in flags:
        shown += dots
    elif "A" not in flags:
        shown = [e for e in shown if not e.name.startswith(".")]
    return shown


def _folder(name: str) -> Entry:
    """A hidden folder of the home folder (`.kube`): 0755, no folder inside."""
    return Entry(name, True, BLOCK, 0o755, 2)


def _resolve(ctx: Context, operand: str) -> tuple[Entry, str | None] | None:
    """The entry an operand names and, for a folder, what it holds ("" the home folder)."""
    if not operand:
        return None  # GNU: cannot access ''
    path = normalize(operand).rstrip("/") if operand != "/" else operand
    names = ctx.world.state.files
    if path in ("", ".", "~", HOME):
        return _home(ctx, operand), ""
    if path in names and files.is_name(path):
        return _file(ctx, path, operand), None
    if path in _folders(names):
        return _folder(operand), path
    folder, _, rest = path.partition("/")
    if folder in _folders(names) and rest in (".", ".."):
        return (_folder(operand), folder) if rest == "." else (_home(ctx, operand), "")
    return None


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
    if "F" in flags and not entry.folder and entry.mode & 0o111:
        return "*"
    return ""


def _size(entry: Entry, flags: set[str]) -> str:
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
        "owner": max((len(e.owner) for e in measured), default=0),
        "group": max((len(e.owner) for e in measured), default=0),
        "size": max((len(_size(e, flags)) for e in measured), default=0),
        "blocks": max((len(_used(e, flags)) for e in measured), default=0),
    }
    lines = []
    for entry, size, used in zip(entries, sizes, blocks, strict=True):
        kind = "d" if entry.folder else "-"
        cells = [f"{used:>{width['blocks']}}"] if "s" in flags else []
        cells += [kind + mode_string(entry.mode)[1:], f"{entry.links:>{width['links']}}"]
        if "g" not in flags:
            cells.append(f"{entry.owner:<{width['owner']}}")
        if "o" not in flags:
            cells.append(f"{entry.owner:<{width['group']}}")
        cells += [f"{size:>{width['size']}}", when, entry.name + _indicator(entry, flags)]
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
        if total:
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
        found = _resolve(ctx, operand)
        if found is None:
            errors.append(f"ls: cannot access '{operand}': No such file or directory")
        elif found[1] is None or "d" in flags:
            plain.append(found[0])
        else:
            folders.append((found[0], found[1]))
    blocks: list[list[str]] = []
    headers = len(operands) > 1 or "R" in flags
    paths = dict(folders)
    pending = [(entry, paths[entry]) for entry in _order([e for e, _ in folders], flags)]

    def section(name: str, path: str, tty: bool) -> None:
        entries = _contents(ctx, path, flags)
        lines = _listing(entries, flags, total=True, terminal=tty)
        blocks.append([f"{name}:", *lines] if headers else lines)
        if "R" in flags:
            for entry in _order(entries, flags):
                if entry.folder and entry.name not in (".", ".."):
                    section(f"{name.rstrip('/')}/{entry.name}", entry.name, tty)

    def render(tty: bool) -> str:
        blocks.clear()
        if plain:
            measured = plain + [entry for entry, _ in folders]
            blocks.append(_listing(plain, flags, total=False, terminal=tty, measured=measured))
        for entry, path in pending:
            section(entry.name, path, tty)
        return "\n\n".join("\n".join(b) for b in blocks)

    text = render(True)
    # One a line in a pipe only where the terminal would have columns.
    piped = text if terminal or "l" in flags or "1" in flags else render(False)
    code = 2 if errors else 0
    return Output(text, code, "\n".join(errors), piped=piped)
