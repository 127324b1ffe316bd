"""`rm`, `cp`, `mv`, `touch` and `chmod` on the host's file tree, as coreutils 9.1 prints them for
the user `admin` (mkdir, rmdir and the tree walks are simulators.lab.filetools_folders).

Paths resolve through simulators.lab.fs from the shell's working folder: the admin writes in the
home folder, in /tmp and in the folders it made; root's other folders are "Permission denied"
to create or remove in, "Operation not permitted" to chmod. rm -r, cp -r and chmod -R walk
folder trees; mv moves a folder with all it holds. Permission bits are kept (HostState.modes)
and shown by `ls -l`; `chmod +x` makes a script runnable as `./name`
(simulators.lab.shell_scripts). A file's bits do not stop kadmin's own reads and writes (the
learner is its owner); a folder's write bit stops creating and removing in it, as it would.

Compared with the real tools on generated sequences in tests/unit/lab/test_filetools_oracle.py.
"""

from __future__ import annotations

import re

from simulators.lab import files, fs
from simulators.lab import filetools_folders as tree
from simulators.lab.textutils import Usage, options_of, tool, try_help
from simulators.lab.tool import Context, Output

UMASK = tree.UMASK
# The folder tools, registered with these (simulators.lab.commands).
mkdir = tree.mkdir
rmdir = tree.rmdir


def _missing(tool_name: str, message: str = "missing file operand") -> Usage:
    return Usage(f"{tool_name}: {message}\n{try_help(tool_name)}")


def _answer_yes(ctx: Context) -> bool:
    """A prompt's answer, read from stdin's first line (a terminal's is empty: no)."""
    line, _, ctx.stdin = ctx.stdin.partition("\n")
    return line.strip()[:1] in ("y", "Y")


# ---------------------------------------------------------------------------- rm


def _rm(ctx: Context, args: list[str]) -> Output:
    long = {"--force": "f", "--recursive": "r", "--verbose": "v", "--dir": "d"}
    opts, operands = options_of(args, "rm", "firRdvI", long=long)
    force = "f" in opts
    if not operands:
        if force:
            return Output()
        raise Usage(f"rm: missing operand\n{try_help('rm')}")
    recursive = "r" in opts or "R" in opts
    removal = tree.Removal(ctx, "i" in opts, "v" in opts, [], [], [])
    errors = removal.errors
    for typed in operands:
        where = tree.locate(ctx, typed, follow=False)  # a link is removed, not what it names
        path = tree.fts_root(typed)  # the name rm's fts gives it
        if where.error or not where.exists:
            why = where.error or fs.NOT_FOUND
            if not (force and why in (fs.NOT_FOUND, fs.NOT_FOLDER)):
                errors.append(f"rm: cannot remove '{path}': {why}")
            continue
        if where.file or where.link is not None:
            removal.file(where.path, path)
            continue
        last = tree.last_part(path)
        if recursive and last in (".", ".."):
            errors.append(f"rm: refusing to remove '.' or '..' directory: skipping '{path}'")
        elif not recursive and "d" not in opts:
            errors.append(f"rm: cannot remove '{path}': {fs.IS_FOLDER}")
        elif recursive and where.path == "/":
            same = "" if path == "/" else " (same as '/')"
            errors.append(f"rm: it is dangerous to operate recursively on '{path}'{same}")
            errors.append("rm: use --no-preserve-root to override this failsafe")
        elif last in (".", ".."):  # -d: rmdir(2) refuses them
            empty = last == "." and not tree.entries(ctx, where.path)
            errors.append(
                f"rm: cannot remove '{path}': {tree.INVALID if empty else tree.NOT_EMPTY}"
            )
        else:
            removal.folder(where.path, path, recursive)
    return Output("\n".join(removal.out), 1 if errors else 0, "\n".join(removal.asked + errors))


rm = tool("rm", _rm)


# ---------------------------------------------------------------------------- cp, mv


def _copy_or_move(ctx: Context, args: list[str], tool_name: str) -> Output:
    moving = tool_name == "mv"
    flags = "finvb" if moving else "finvrRpa"
    long = {"--force": "f", "--interactive": "i", "--no-clobber": "n", "--verbose": "v"}
    if not moving:
        long |= {"--recursive": "r", "--archive": "a"}
    opts, operands = options_of(args, tool_name, flags, long=long)
    if not operands:
        raise _missing(tool_name)
    if len(operands) == 1:
        raise _missing(tool_name, f"missing destination file operand after '{operands[0]}'")
    *sources, target = operands
    aimed = tree.locate(ctx, target)
    into = aimed.folder and not aimed.error
    if len(sources) > 1 and not into:
        why = aimed.error or (fs.NOT_FOLDER if aimed.file else fs.NOT_FOUND)
        return Output.error(f"{tool_name}: target '{target}': {why}")
    job = _Job(ctx, tool_name, opts)
    seen: set[str] = set()
    for source in sources:
        dest = tree.joined(target, tree.last_part(source)) if into else target
        found = tree.locate(ctx, source)
        if into and not moving and found.file and not found.error:  # a folder: _first_visit
            if found.path in seen:
                job.errors.append(f"cp: warning: source file '{source}' specified more than once")
                continue
            seen.add(found.path)
        problem = job.one(source, dest)
        if problem:
            job.errors.append(problem)
            job.failed = True
    return Output("\n".join(job.out), int(job.failed), "\n".join(job.errors))


class _Job:
    """One cp or mv: its options, and what it printed so far (-v's lines to `out`; errors and
    -i's questions to `errors`)."""

    def __init__(self, ctx: Context, tool_name: str, opts: dict[str, str]) -> None:
        self.ctx = ctx
        self.name = tool_name
        self.opts = opts
        self.out: list[str] = []
        self.errors: list[str] = []
        self.failed = False
        # The folders met so far, each with where it went (path, name): an operand's own, and
        # the first folder made for each (cp's remember_copied, by path: a folder is its inode).
        self.copied: dict[str, tuple[str, str]] = {}
        self.operand = ("", "")  # the source and target names of the operand being copied
        self.made = False  # whether the operand's first folder was made yet

    def one(self, source: str, dest: str) -> str | None:
        """Copy or move one operand to `dest` (the target, or its name in the target folder);
        the tool's error line if it could not."""
        name = self.name
        found = tree.locate(self.ctx, source)
        there = tree.locate(self.ctx, dest)
        # mv tries renameat2(RENAME_NOREPLACE) first: with -n, a target there stops it before
        # a final `/` on a file (either) is looked at.
        dots = tree.last_part(source) in (".", "..")  # rename(2) says EBUSY before all else
        if name == "mv" and "n" in self.opts and not dots:
            both = [tree.locate(self.ctx, p.rstrip("/") or p).exists for p in (source, dest)]
            if all(both):
                return None
        if found.error or not found.exists:
            return f"{name}: cannot stat '{source}': {found.error or fs.NOT_FOUND}"
        if found.folder and name == "cp" and not {"r", "R", "a"} & set(self.opts):
            return f"cp: -r not specified; omitting directory '{source}'"
        if there.error == fs.NOT_FOLDER:
            return f"{name}: cannot stat '{dest}': {fs.NOT_FOLDER}"
        why = there.error or (fs.NOT_FOLDER if found.file and dest.endswith("/") else "")
        if why and not there.exists:
            if self.name == "cp" and found.file and "v" in self.opts:
                self.out.append(f"'{source}' -> '{dest}'")  # cp -v says it before it tries
            return self._cannot_create(source, dest, found.folder, why)
        if there.exists and "n" in self.opts and found.file:
            return None  # -n: an existing target is left alone, itself too
        if there.path == found.path and "n" not in self.opts:
            return f"{name}: '{source}' and '{dest}' are the same file"
        if found.folder and there.file:
            return f"{name}: cannot overwrite non-directory '{dest}' with directory '{source}'"
        if found.file and there.folder:
            return f"{name}: cannot overwrite directory '{dest}' with non-directory"
        if name == "mv" and found.folder and there.folder and tree.entries(self.ctx, there.path):
            return f"mv: cannot move '{source}' to '{dest}': {tree.NOT_EMPTY}"
        self.operand, self.made = (source, dest), False
        if found.folder and not self._first_visit(found.path, (there.path, dest), source):
            return None
        if there.path == found.path and name == "mv":
            return None  # (cp -rn merges a folder into itself: its files are left alone)
        if name == "mv" and dots:
            return f"mv: cannot move '{source}' to '{dest}': {tree.BUSY}"
        if found.folder and tree.within(there.path, found.path) and name == "mv":
            return f"mv: cannot move '{source}' to a subdirectory of itself, '{dest}'"
        if name == "cp":
            if found.folder:
                self._copy_folder((found.path, source), (there.path, dest))
                return None
            return self._copy_file((found.path, source), (there.path, dest))
        return self._move(found, there, (source, dest))

    def _cannot_create(self, source: str, dest: str, folder: bool, why: str) -> str:
        if self.name == "mv":
            return f"mv: cannot move '{source}' to '{dest}': {why}"
        kind = "directory" if folder else "regular file"
        return f"cp: cannot create {kind} '{dest}': {why}"

    def _overwrite_refused(self, exists: bool, shown: str) -> bool:
        """-i's question about an existing target, and whether its answer was no."""
        if exists and "i" in self.opts and "f" not in self.opts:
            self.errors.append(f"{self.name}: overwrite '{shown}'? ")
            return not _answer_yes(self.ctx)
        return False

    def _move(self, found: fs.Located, there: fs.Located, shown: tuple[str, str]) -> str | None:
        source, dest = shown
        state = self.ctx.world.state
        if self._overwrite_refused(there.exists, dest):
            return None
        if fs.device(there.path) is not None:  # /dev is another file system: copy, unlink
            return (
                f"mv: inter-device move failed: '{source}' to '{dest}'; "
                f"unable to remove target: {fs.DENIED}"
            )
        parents = (fs.parent(found.path), fs.parent(there.path))
        # A folder going to another folder has its `..` rewritten: it must be writable too.
        moved = found.folder and parents[0] != parents[1]
        if not all(fs.writable(state, folder) for folder in parents) or (
            moved and not tree.allowed(self.ctx, found.path, 2)
        ):
            return f"mv: cannot move '{source}' to '{dest}': {fs.DENIED}"
        if there.folder:
            fs.remove_folder(state, there.path)  # an empty folder, replaced
        elif there.file:
            files.remove(self.ctx, there.key)
        tree.move(self.ctx, found.path, there.path)
        if "v" in self.opts:
            self.out.append(f"renamed '{source}' -> '{dest}'")
        return None

    def _copy_file(self, source: tuple[str, str], dest: tuple[str, str]) -> str | None:
        """Copy one file (paths and names as shown); the error line if it could not."""
        (src, src_shown), (dst, dst_shown) = source, dest
        ctx, state = self.ctx, self.ctx.world.state
        src = fs.locate_in(state, "/", src).path  # a link met by cp -r: what it points to
        exists = fs.is_file(state, dst)
        if "n" in self.opts and (exists or fs.is_folder(state, dst)):
            return None
        if fs.is_folder(state, dst):
            return f"cp: cannot overwrite directory '{dst_shown}' with non-directory"
        if self._overwrite_refused(exists, dst_shown):
            return None
        if "v" in self.opts:
            self.out.append(f"'{src_shown}' -> '{dst_shown}'")  # before it tries, as cp -v
        if not exists and not fs.writable(state, fs.parent(dst)):
            return f"cp: cannot create regular file '{dst_shown}': {fs.DENIED}"
        if exists and not fs.owned(dst) and not fs.allows(state, dst, 2):
            return f"cp: cannot create regular file '{dst_shown}': {fs.DENIED}"
        if not exists and len(state.files) >= files.MAX_FILES:
            return f"cp: cannot create regular file '{dst_shown}': {tree.NO_SPACE}"
        mode = fs.mode_of(state, src)
        if fs.device(dst) is not None:  # /dev/null takes the bytes; its times stay root's
            return _preserve_device(self.opts, dst_shown)
        state.files[fs.key(dst)] = fs.text(state, src)
        if "p" in self.opts or "a" in self.opts:
            tree.set_mode(ctx, dst, mode)
        elif not exists:  # open(2)'s mode: the set-ID and sticky bits are cp -p's
            tree.set_mode(ctx, dst, mode & 0o777 & ~UMASK)
        return None

    def _first_visit(
        self, path: str, dest: tuple[str, str], shown: str, operand: bool = True
    ) -> bool:
        """Whether a folder about to be copied to `dest` is to be: not if it was met before
        (an operand given twice; the folder this operand made, which cp -r reached inside its
        own source; a folder copied elsewhere already, which cp would hard-link)."""
        earlier = self.copied.get(path)
        if earlier is None:
            if operand:
                self.copied[path] = dest
            return True
        name = self.name
        if earlier[0] == path:
            source, target = self.operand
            self._error(f"{name}: cannot copy a directory, '{source}', into itself, '{target}'")
            self.operand = ("", "")  # the walk stops here
        elif earlier[0] == dest[0]:
            self.errors.append(
                f"{name}: warning: source directory '{shown}' specified more than once"
            )
        else:
            self._error(
                f"{name}: will not create hard link '{dest[1]}' to directory '{earlier[1]}'"
            )
        return False

    def _copy_folder(self, source: tuple[str, str], dest: tuple[str, str]) -> None:
        """cp -r of a folder into `dest` (made, or merged into if there), depth first; a
        folder met twice is not copied again (_first_visit)."""
        (src, src_shown), (dst, dst_shown) = source, dest
        ctx, state = self.ctx, self.ctx.world.state
        if fs.is_file(state, dst):
            self._error(
                f"cp: cannot overwrite non-directory '{dst_shown}' with directory '{src_shown}'"
            )
            return
        mode = fs.mode_of(state, src)
        if not fs.is_folder(state, dst):
            why = tree.new_folder(ctx, dst, mode & 0o1777 & ~UMASK)
            if why:
                self._error(f"cp: cannot create directory '{dst_shown}': {why}")
                return
            if not self.made:  # remembered, so that the walk does not copy it into itself
                self.copied[dst], self.made = (dst, dst_shown), True
            if "v" in self.opts:
                self.out.append(f"'{src_shown}' -> '{dst_shown}'")
        for name, is_folder in tree.entries(ctx, src):
            pair = (f"{src.rstrip('/')}/{name}", tree.joined(src_shown, name))
            target = (f"{dst.rstrip('/')}/{name}", tree.joined(dst_shown, name))
            if not is_folder:
                problem = self._copy_file(pair, target)
                if problem:
                    self._error(problem)
            elif self._first_visit(pair[0], target, self.operand[0], operand=False):
                self._copy_folder(pair, target)
            if not self.operand[0]:
                return
        if "p" in self.opts or "a" in self.opts:
            # cp sets the permissions through the folder's ACL: a set-group-ID bit the folder
            # had (its parent's, on Linux) stays, unless the source has special bits of its own.
            now = fs.mode_of(state, dst)
            tree.set_mode(ctx, dst, mode if mode & 0o7000 else now & 0o7000 | mode & 0o777)

    def _error(self, line: str) -> None:
        self.errors.append(line)
        self.failed = True


cp = tool("cp", lambda ctx, args: _copy_or_move(ctx, args, "cp"))
mv = tool("mv", lambda ctx, args: _copy_or_move(ctx, args, "mv"))


def _preserve_device(opts: dict[str, str], shown: str) -> str | None:
    """cp -p or -a onto a device root owns: the copy is made, setting its times is not."""
    if "p" in opts or "a" in opts:
        return f"cp: preserving times for '{shown}': {tree.NOT_PERMITTED}"
    return None


# ---------------------------------------------------------------------------- touch


def _touch(ctx: Context, args: list[str]) -> Output:
    long = {"--no-create": "c", "--date": "d", "--reference": "r"}
    opts, operands = options_of(args, "touch", "acmf", valued="dtr", long=long)
    if not operands:
        raise _missing("touch")
    errors = []
    state = ctx.world.state
    for path in operands:
        where = tree.locate(ctx, path)
        # open(2) with O_CREAT fails "Is a directory" on a folder or a name ending in `/`,
        # which touch does not report: it sets the times of what is there, if anything.
        if path.endswith("/") or where.folder or (where.error and "c" in opts):
            why = where.error or ("" if where.exists else fs.NOT_FOUND)
            if not why and not (fs.owned(where.path) or fs.writable(state, where.path)):
                why = fs.DENIED
            if why and not ("c" in opts and why == fs.NOT_FOUND):
                errors.append(f"touch: setting times of '{path}': {why}")
            continue
        if where.file and not fs.owned(where.path) and not fs.allows(state, where.path, 2):
            errors.append(f"touch: cannot touch '{path}': {fs.DENIED}")  # root's: utimensat
            continue
        if where.file or "c" in opts:
            continue
        why = where.error or ""
        if not why and not fs.writable(state, fs.parent(where.path)):
            why = fs.DENIED
        if not why and len(state.files) >= files.MAX_FILES:
            why = tree.NO_SPACE
        if why:
            errors.append(f"touch: cannot touch '{path}': {why}")
            continue
        state.files[where.key] = ""
    return Output("", 1 if errors else 0, "\n".join(errors))


touch = tool("touch", _touch)


# ---------------------------------------------------------------------------- chmod

_CHMOD_OPTIONS = {
    "-R": "R", "--recursive": "R", "-v": "v", "--verbose": "v", "-c": "c", "--changes": "c",
    "-f": "f", "--silent": "f", "--quiet": "f",
}  # fmt: skip


def new_mode(spec: str, mode: int, folder: bool = False) -> int | None:
    """`mode` changed as chmod's MODE says (gnulib's mode_compile and mode_adjust, a umask of
    022), for a regular file or a `folder`; None if it is not a mode."""
    changes = tree.compiled(spec)
    return None if changes is None else tree.mode_adjust(mode, folder, changes)[0]


def _chmod(ctx: Context, args: list[str]) -> Output:
    opts: set[str] = set()
    spec: str | None = None
    dashed = False  # the mode came as an option (`-x`)
    operands: list[str] = []
    ended = False
    for arg in args:
        if not ended and arg == "--":
            ended = True
        elif not ended and arg in _CHMOD_OPTIONS:
            opts.add(_CHMOD_OPTIONS[arg])
        elif not ended and re.fullmatch(r"-[Rcfv]+", arg):
            opts.update(_CHMOD_OPTIONS[f"-{letter}"] for letter in arg[1:])
        elif not ended and spec is None and re.fullmatch(r"-[rwxXstugoa0-7,+=-]+", arg):
            spec, dashed = arg, True  # `chmod -x f`: a mode, as GNU chmod reads it
        elif not ended and arg.startswith("-") and len(arg) > 1:
            letter = arg[1] if not arg.startswith("--") else ""
            wrong = f"invalid option -- '{letter}'" if letter else f"unrecognized option '{arg}'"
            raise Usage(f"chmod: {wrong}\n{try_help('chmod')}")
        elif spec is None:
            spec = arg
        else:
            operands.append(arg)
    if spec is None or (dashed and not operands):
        raise _missing("chmod", "missing operand")
    if not operands:
        raise _missing("chmod", f"missing operand after \u2018{spec}\u2019")
    changes = tree.compiled(spec)
    if changes is None:
        raise Usage(f"chmod: invalid mode: \u2018{spec}\u2019\n{try_help('chmod')}")
    job = _Chmod(ctx, opts, changes, dashed)
    for path in operands:
        where = tree.locate(ctx, path)
        shown = tree.fts_root(path)
        if where.error or not where.exists:
            job.fail(shown, f"cannot access '{shown}': {where.error or fs.NOT_FOUND}")
            continue
        job.change(where.path, shown)
        if "R" in opts and where.folder:
            job.descend(where.path, shown)
    return Output("\n".join(job.out), int(job.failed), "\n".join(job.errors))


class _Chmod:
    """One chmod: what it printed so far, and whether something failed."""

    def __init__(
        self, ctx: Context, opts: set[str], changes: list[tree.Change], dashed: bool
    ) -> None:
        self.ctx = ctx
        self.opts = opts
        self.changes = changes
        self.dashed = dashed  # a mode given as an option: the umask's surprises are reported
        self.out: list[str] = []
        self.errors: list[str] = []
        self.failed = False

    def fail(self, shown: str, why: str) -> None:
        self.failed = True
        if "v" in self.opts:
            self.out.append(f"'{shown}' could not be accessed")
        if "f" not in self.opts:
            self.errors.append(f"chmod: {why}")

    def change(self, path: str, shown: str) -> None:
        state = self.ctx.world.state
        folder = fs.is_folder(state, path)
        before = fs.mode_of(state, path)
        after = tree.mode_adjust(before, folder, self.changes)[0]
        was = f"{before:04o} ({files.mode_string(before)[1:]})"
        now = f"{after:04o} ({files.mode_string(after)[1:]})"
        if not fs.owned(path):
            self.failed = True
            if "f" not in self.opts:
                self.errors.append(
                    f"chmod: changing permissions of '{shown}': {tree.NOT_PERMITTED}"
                )
            if "v" in self.opts:
                self.out.append(f"failed to change mode of '{shown}' from {was} to {now}")
            return
        tree.set_mode(self.ctx, path, after)
        if "v" in self.opts or ("c" in self.opts and after != before):
            self.out.append(
                f"mode of '{shown}' changed from {was} to {now}"
                if after != before
                else f"mode of '{shown}' retained as {now}"
            )
        naive = tree.mode_adjust(before, folder, self.changes, umask=0)[0]
        if self.dashed and after & ~naive:
            self.failed = True
            expected = files.mode_string(naive)[1:]
            name = shown if re.fullmatch(r"[\w./@%+=:,-]+", shown) else f"'{shown}'"
            self.errors.append(
                f"chmod: {name}: new permissions are {files.mode_string(after)[1:]}, not {expected}"
            )

    def descend(self, folder: str, shown: str) -> None:
        """chmod -R below a folder changed (or not) already: each entry, folders before what
        they hold, as far as the admin may read and search them."""
        if not tree.allowed(self.ctx, folder, 4):
            self.fail(shown, f"cannot read directory '{shown}': {fs.DENIED}")
            return
        searchable = tree.allowed(self.ctx, folder, 1)
        for name, is_folder in tree.entries(self.ctx, folder):
            path = f"{folder.rstrip('/')}/{name}"
            if fs.link_at(path) is not None:
                continue  # chmod -R leaves the links it meets alone
            child = tree.fts_child(shown, name)
            if not searchable:
                self.fail(child, f"cannot access '{child}': {fs.DENIED}")
                continue
            self.change(path, child)
            if is_folder:
                self.descend(path, child)


chmod = tool("chmod", _chmod)
