"""`mkdir` and `rmdir`, the walks over a folder tree that `rm -r`, `cp -r`, `mv` and `chmod -R`
share (simulators.lab.filetools), and gnulib's mode arithmetic they all use, as coreutils 9.1
does them for the user `admin` (simulators.lab.fs: the admin writes in its own folders and in
/tmp; root's other folders are "Permission denied").

Names are printed as the real tools build them: fts's (rm, chmod) trim a root's trailing
slashes to one and join a child with one `/`; cp's and mv's file_name_concat drop the trailing
slashes of the folder part. Entries are visited in name order (the real tools' is the
directory's, which their oracle, tests/unit/lab/test_filetools_oracle.py, sorts away).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simulators.lab import files, fs
from simulators.lab.textutils import Usage, options_of, tool, try_help
from simulators.lab.tool import Context, Output

UMASK = 0o022
EXISTS = "File exists"
NOT_EMPTY = "Directory not empty"
NO_SPACE = "No space left on device"
INVALID = "Invalid argument"
BUSY = "Device or resource busy"
NOT_PERMITTED = "Operation not permitted"


# ---------------------------------------------------------------------------- names, trees


def fts_root(typed: str) -> str:
    """A command-line path as fts names it: two or more trailing slashes trimmed to one."""
    if len(typed) > 2 and typed.endswith("/"):
        return typed.rstrip("/") + "/"
    return typed


def fts_child(parent: str, name: str) -> str:
    """An entry's name below `parent` as fts joins them (`d/` and `d` both give `d/a`)."""
    return f"{parent[:-1] if parent.endswith('/') else parent}/{name}"


def joined(folder: str, name: str) -> str:
    """gnulib's file_name_concat, as cp and mv join a target folder and a name."""
    head = folder.rstrip("/")
    return f"{head}/{name}" if head else f"{folder}{name}"


def last_part(typed: str) -> str:
    """The last component of a typed path, its trailing slashes dropped."""
    return typed.rstrip("/").rsplit("/", 1)[-1]


def locate(ctx: Context, typed: str, *, follow: bool = True) -> fs.Located:
    """fs.locate, but for a `.` or `..` that names nothing (the working folder was removed):
    "No such file or directory", as nothing can be made there."""
    where = fs.locate(ctx, typed, follow=follow)
    if not where.error and not where.exists and last_part(typed) in (".", ".."):
        return fs.Located(where.path, error=fs.NOT_FOUND)
    return where


def within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or below it (absolute, normal paths)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def entries(ctx: Context, folder: str) -> list[tuple[str, bool]]:
    """A folder's entries as (name, is a folder), in name order."""
    found, subfolders = fs.children(ctx.world.state, folder)
    return sorted([(n, False) for n in found] + [(n, True) for n in subfolders])


def allowed(ctx: Context, path: str, bit: int) -> bool:
    """Whether the admin may read (4), write (2) or search (1) `path` by its mode."""
    return fs.allows(ctx.world.state, path, bit)


def set_mode(ctx: Context, path: str, mode: int) -> None:
    files.set_mode(ctx, fs.key(path), mode)


def new_folder(ctx: Context, path: str, mode: int = 0o777 & ~UMASK, bits: int | None = None) -> str:
    """Make a folder (its own is there), the reason if the admin cannot. Its mode is `mode`,
    a set-group-ID folder's bit inherited as Linux does; with `bits` (mkdir -m), as mkdir
    leaves it (_made_mode)."""
    state = ctx.world.state
    above = fs.parent(path)
    if not fs.writable(state, above):
        return fs.DENIED
    if len(state.folders) >= fs.MAX_FOLDERS:
        return NO_SPACE
    fs.make_folder(state, path)
    inherited = fs.owned(above) and bool(fs.mode_of(state, above) & 0o2000)
    if bits is None:
        mode |= 0o2000 if inherited else 0
    else:
        mode = _made_mode(mode, bits, inherited)
    set_mode(ctx, path, mode)
    return ""


def move(ctx: Context, source: str, dest: str) -> None:
    """rename(2): the file or folder at `source` (and all it holds, modes kept) is at `dest`,
    which the caller made free; the shell's working folder moves with it, as the process's
    does."""
    state = ctx.world.state

    def moved(stored: str) -> str:
        path = fs.path_of(stored)
        return fs.key(dest + path[len(source) :]) if within(path, source) else stored

    texts = {moved(k): text for k, text in state.files.items()}
    modes = {moved(k): mode for k, mode in state.modes.items()}
    state.files.clear()
    state.files.update(texts)
    state.modes.clear()
    state.modes.update(modes)
    state.folders[:] = sorted({moved(k) for k in state.folders})
    if within(fs.cwd(ctx), source):
        ctx.shell.cwd = fs.path_of(moved(fs.key(fs.cwd(ctx))))


# ---------------------------------------------------------------------------- modes


_CLAUSE = re.compile(r"[ugoa]*(?:[-+=](?:[rwxXst]*|[ugo]))+")
_WHO = {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}
_WHAT = {"r": 0o444, "w": 0o222, "x": 0o111, "s": 0o6000, "t": 0o1000, "X": 0}
_COPY = {"u": 0o700, "g": 0o070, "o": 0o007}


@dataclass(frozen=True)
class Change:
    """One operation of a mode (gnulib's struct mode_change)."""

    op: str
    flag: str  # "": the bits; "X": x if any x or a folder; "copy": another class's bits
    affected: int
    value: int
    mentioned: int


def compiled(spec: str) -> list[Change] | None:
    """gnulib's mode_compile: an octal or symbolic MODE's operations, None if it is none."""
    if re.fullmatch(r"[0-7]+", spec):
        mode = int(spec, 8)
        if mode > 0o7777:
            return None
        mentioned = (mode & 0o6000) | 0o1777 if len(spec) < 5 else 0o7777
        return [Change("=", "", 0o7777, mode, mentioned)]
    if not all(_CLAUSE.fullmatch(clause) for clause in spec.split(",")):
        return None
    changes: list[Change] = []
    for clause in spec.split(","):
        who = re.match(r"[ugoa]*", clause).group()  # type: ignore[union-attr]
        affected = 0
        for letter in who:
            affected |= _WHO[letter]
        for op, what in re.findall(r"([-+=])([ugo]|[rwxXst]*)", clause[len(who) :]):
            if what in _COPY:
                flag, value = "copy", _COPY[what]
            else:
                flag, value = ("X" if "X" in what else ""), 0
                for letter in what:
                    value |= _WHAT[letter]
            mentioned = affected & value if affected else value
            changes.append(Change(op, flag, affected, value, mentioned))
    return changes


def mode_adjust(
    mode: int, folder: bool, changes: list[Change], umask: int = UMASK
) -> tuple[int, int]:
    """gnulib's mode_adjust: `mode` changed, and the bits the changes set or cleared. A folder's
    set-ID bits stay unless the mode names them; `X` is x for a folder."""
    bits = 0
    mode &= 0o7777
    for change in changes:
        omit = (0o6000 if folder else 0) & ~change.mentioned
        value = change.value
        if change.flag == "copy":
            value &= mode
            value |= (0o444 if value & 0o444 else 0) | (0o222 if value & 0o222 else 0)
            value |= 0o111 if value & 0o111 else 0
        elif change.flag == "X" and (mode & 0o111 or folder):
            value |= 0o111
        value &= (change.affected if change.affected else ~umask & 0o7777) & ~omit
        if change.op == "=":
            preserved = (~change.affected & 0o7777 if change.affected else 0) | omit
            bits |= 0o7777 & ~preserved
            mode = (mode & preserved) | value
        elif change.op == "+":
            bits |= value
            mode |= value
        else:
            bits |= value
            mode &= ~value
    return mode, bits


def _made_mode(mode: int, bits: int, inherited: bool) -> int:
    """The mode mkdir -m leaves on a folder it made (gnulib's make_dir_parents, the umask off):
    mkdir(2)'s, less group and other write if a set-ID or sticky bit is asked, then set as
    asked where that left other bits than the mode names."""
    keep_special = not (bits & 0o6000 or mode & 0o1000)
    made = (mode if keep_special else mode & ~0o022) & 0o1777 | (0o2000 if inherited else 0)
    if not keep_special and (made ^ mode) & bits:
        return mode | (made & ~bits)
    return made


# ---------------------------------------------------------------------------- mkdir


def _mkdir(ctx: Context, args: list[str]) -> Output:
    long = {"--parents": "p", "--verbose": "v", "--mode": "m"}
    opts, operands = options_of(args, "mkdir", "pv", valued="m", long=long)
    if not operands:
        raise Usage(f"mkdir: missing operand\n{try_help('mkdir')}")
    mode, bits = 0o777 & ~UMASK, None
    if "m" in opts:
        changes = compiled(opts["m"])
        if changes is None:
            return Output.error(f"mkdir: invalid mode \u2018{opts['m']}\u2019")
        mode, bits = mode_adjust(0o777, True, changes)
    out: list[str] = []
    errors: list[str] = []
    for typed in operands:
        why, at = _make(ctx, typed, "p" in opts, (mode, bits), out if "v" in opts else [])
        if why:
            # gnulib's quote(): the locale's quotation marks (C.UTF-8's), as chmod's too
            errors.append(f"mkdir: cannot create directory \u2018{at}\u2019: {why}")
    return Output("\n".join(out), 1 if errors else 0, "\n".join(errors))


def _make(
    ctx: Context, typed: str, parents: bool, mode: tuple[int, int | None], said: list[str]
) -> tuple[str, str]:
    """One operand: its missing folders made (with -p), then itself; the reason it failed and
    the name it failed at."""
    if parents:
        for match in re.finditer(r"[^/]+(?=/+[^/])", typed):
            prefix = typed[: match.end()]
            where = locate(ctx, prefix)
            if where.error or where.file:
                return where.error or fs.NOT_FOLDER, prefix
            if where.folder:
                continue
            why = new_folder(ctx, where.path)
            if why:
                return why, prefix
            said.append(f"mkdir: created directory '{prefix}'")
    where = locate(ctx, typed)
    if where.error == fs.NOT_FOLDER and locate(ctx, typed.rstrip("/")).file:
        return EXISTS, typed  # `a/` with a file a: mkdir(2) finds the name taken
    if where.error:
        return where.error, typed
    if where.exists:
        return ("" if parents and where.folder else EXISTS), typed
    why = new_folder(ctx, where.path, *mode)
    if not why:
        said.append(f"mkdir: created directory '{typed}'")
    return why, typed


mkdir = tool("mkdir", _mkdir)


# ---------------------------------------------------------------------------- rmdir


def _rmdir(ctx: Context, args: list[str]) -> Output:
    long = {"--parents": "p", "--verbose": "v", "--ignore-fail-on-non-empty": "i"}
    opts, operands = options_of(args, "rmdir", "pv", long=long)
    if not operands:
        raise Usage(f"rmdir: missing operand\n{try_help('rmdir')}")
    out: list[str] = []
    errors: list[str] = []
    for typed in operands:
        if "v" in opts:
            out.append(f"rmdir: removing directory, '{typed}'")
        why = removed_folder(ctx, typed)
        if why and not _ignored(ctx, opts, typed, why):
            errors.append(f"rmdir: failed to remove '{typed}': {why}")
        elif not why and "p" in opts:
            _remove_parents(ctx, typed, opts, out, errors)
    return Output("\n".join(out), 1 if errors else 0, "\n".join(errors))


def _remove_parents(
    ctx: Context, typed: str, opts: dict[str, str], out: list[str], errors: list[str]
) -> None:
    """rmdir -p: each folder above the typed one, by its name as typed, until one fails."""
    name = typed.rstrip("/") or typed
    while "/" in name:
        name = name[: name.rindex("/")].rstrip("/") or "/"
        if "v" in opts:
            out.append(f"rmdir: removing directory, '{name}'")
        why = removed_folder(ctx, name)
        if why:
            if not _ignored(ctx, opts, name, why):
                what = "" if why == fs.NOT_FOLDER else "directory "
                errors.append(f"rmdir: failed to remove {what}'{name}': {why}")
            return
        if name == "/":
            return


def _ignored(ctx: Context, opts: dict[str, str], typed: str, why: str) -> bool:
    """--ignore-fail-on-non-empty: a failure of a folder that holds something goes unsaid."""
    if "i" not in opts:
        return False
    if why == NOT_EMPTY:
        return True
    where = locate(ctx, typed)
    return (
        why in (fs.DENIED, BUSY, NOT_PERMITTED) and where.folder and bool(entries(ctx, where.path))
    )


def removed_folder(ctx: Context, typed: str) -> str:
    """rmdir(2) on a typed path: "" once the folder is gone, else the reason."""
    where = fs.locate(ctx, typed)
    if where.error:
        return where.error
    if not typed.rstrip("/"):
        return BUSY if typed else fs.NOT_FOUND
    if last_part(typed) == ".":
        return INVALID
    if last_part(typed) == "..":
        return NOT_EMPTY
    if not where.exists:
        return fs.NOT_FOUND
    if where.file:
        return fs.NOT_FOLDER
    if not fs.writable(ctx.world.state, fs.parent(where.path)):
        return fs.DENIED
    if entries(ctx, where.path):
        return NOT_EMPTY
    fs.remove_folder(ctx.world.state, where.path)
    return ""


rmdir = tool("rmdir", _rmdir)


# ---------------------------------------------------------------------------- rm -r


@dataclass
class Removal:
    """What rm prints as it goes: -v's lines, -i's questions, the errors."""

    ctx: Context
    ask: bool
    verbose: bool
    out: list[str]
    asked: list[str]
    errors: list[str]

    def yes(self, question: str) -> bool:
        """-i's question on stderr; its answer from stdin's next line (none: no)."""
        self.asked.append(f"rm: {question}? ")
        stdin = self.ctx.stdin
        line, _, self.ctx.stdin = stdin.partition("\n")
        return line.strip()[:1] in ("y", "Y")

    def file(self, path: str, shown: str) -> bool:
        """Remove one file; whether it went."""
        state = self.ctx.world.state
        if self.ask:
            kind = "symbolic link" if fs.link_at(path) is not None else "regular file"
            if kind == "regular file" and not fs.size(state, path):
                kind = "regular empty file"
            if not self.yes(f"remove {kind} '{shown}'"):
                return False
        if not fs.writable(state, fs.parent(path)):
            self.errors.append(f"rm: cannot remove '{shown}': {fs.DENIED}")
            return False
        files.remove(self.ctx, fs.key(path))
        if self.verbose:
            self.out.append(f"removed '{shown}'")
        return True

    def folder(self, path: str, shown: str, recursive: bool) -> bool:
        """Remove a folder, with -r all it holds first (depth first); whether it went. A
        folder something in which stays is left without a word, as rm's marked ancestors."""
        kids = entries(self.ctx, path)
        if kids and not recursive:
            self.errors.append(f"rm: cannot remove '{shown}': {NOT_EMPTY}")
            return False
        if kids and self.ask and not self.yes(f"descend into directory '{shown}'"):
            return False
        if kids and not allowed(self.ctx, path, 4):
            self.errors.append(f"rm: cannot remove '{shown}': {fs.DENIED}")
            return False
        searchable = allowed(self.ctx, path, 1)
        kept = False
        for name, is_folder in kids:
            child = f"{path.rstrip('/')}/{name}"
            child_shown = fts_child(shown, name)
            if not searchable:
                self.errors.append(f"rm: cannot remove '{child_shown}': {fs.DENIED}")
                kept = True
            elif is_folder:
                kept |= not self.folder(child, child_shown, recursive)
            else:
                kept |= not self.file(child, child_shown)
        if kept:
            return False
        if self.ask and not self.yes(f"remove directory '{shown}'"):
            return False
        if not fs.writable(self.ctx.world.state, fs.parent(path)):
            self.errors.append(f"rm: cannot remove '{shown}': {fs.DENIED}")
            return False
        fs.remove_folder(self.ctx.world.state, path)
        if self.verbose:
            self.out.append(f"removed directory '{shown}'")
        return True
