"""GNU findutils 4.9's `find` on the admin host, run as the user admin over the lab's tree
(simulators.lab.fs).

Each starting point (default `.`) is walked as fts walks it: its name as typed, the names below
it joined to it as fts joins them (`find ~/` prints `/home/admin/` then `/home/admin/a`), each
folder before what it holds, or after it with -depth (and -delete, which implies it). GNU reads
a folder in the order its file system keeps, which no two machines share; the lab reads it in
name order (bytes), as grep -r does. A folder's entries are read when the walk enters it, so
what an -exec makes in a folder already read is not visited. A folder the admin cannot read
(`/root`, root's 0700, or one chmod took the `r` from) is "Permission denied" there, after its
own visit (before it with -depth), and the walk goes on; a starting point that is missing or
below a folder the admin cannot search is an error too, and the status is 1. A symbolic link
(the host's own, `/bin -> usr/bin`) is an entry of type `l`, not followed, a starting point's
neither unless it ends in `/` (GNU's default -P). -H follows a starting point's link, -L (and
-follow, wherever it is) every link: the entry is what it points to (a broken link stays `l`;
-xtype sees `l`, -lname matches broken ones only), and a folder met again inside itself is
"File system loop detected" and not visited, as fts's logical walk does.

The expression is simulators.lab.find_parse's (GNU's parser, precedence and messages). Every
entry has the lab's one time (ls's `datetime_at(0)`), so -newer is never true and -mtime,
-mmin and the others compare that time with the lab's now as GNU computes its windows. The
owners are admin (1000) and root (0), as fs.owned says; -readable, -writable and -executable
are the admin's rights (the owner's bits on its own entries, the others' on root's).
-exec and -execdir run the lab's own commands (simulators.lab.commands, as xargs runs them):
`;` once per entry (true if the command exits 0), `{} +` in batches when the walk is over
(-execdir: when it leaves the folder). -delete removes files and empty folders the admin may
remove. -ok and -okdir are refused in one line: the lab's terminal cannot answer their
questions. Output, time and -exec's nesting are bounded by the command's budget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from simulators.lab import budget, files, fs
from simulators.lab.find_format import Entry, LsWidths, base_name, ls_line, name_of, printf
from simulators.lab.find_parse import Exec, FindError, Finished, Pred, Program, parse
from simulators.lab.tool import Context, Output, streams

BLOCK = 4096  # a folder's size on ext4
MAX_NESTED = 4  # finds run by a find's -exec, inside one another
# What a batch of `{} +` holds before it runs (GNU: the system's limit less 2 KiB).
ARG_MAX = 128 * 1024 - 2048
_nested: ContextVar[int] = ContextVar("find_nested", default=0)


class _Quit(Exception):
    """-quit: the walk ends here."""


def find(ctx: Context, args: list[str]) -> Output:
    """The lab's `find` (see the module's docstring)."""
    now = _now(ctx)
    try:
        program = parse(ctx, args, now)
    except Finished as done:
        return Output.exactly(done.text)
    except FindError as exc:
        return Output("", 1, stderr=str(exc))
    if program.refused:
        return Output("", 1, stderr="\n".join([*program.messages, program.refused]))
    return _Run(ctx, program, now).everything()


def _now(ctx: Context) -> int:
    """The lab's seconds since its one time (every entry's)."""
    try:
        return int(ctx.world.now)
    except NotImplementedError:
        return 0


@dataclasses.dataclass
class _Batch:
    """`{} +`'s names waiting for their command."""

    spec: Exec
    folder: str | None  # -execdir's folder
    names: list[str] = dataclasses.field(default_factory=list)
    size: int = 0


class _Run:
    def __init__(self, ctx: Context, program: Program, now: int) -> None:
        self.ctx = ctx
        self.state = ctx.world.state
        self.program = program
        self.options = program.options
        self.now = now
        self.out: list[str] = []
        # The same in a pipe or a file, where a command -exec runs may print otherwise (ls).
        self.piped: list[str] = []
        self.err: list[str] = [message + "\n" for message in program.messages]
        self.size = 0
        self.status = 0
        self.files: dict[str, list[str]] = {key: [] for key in program.outputs}
        self.widths = LsWidths()
        self.batches: dict[tuple[int, str], _Batch] = {}
        self.pruned = False
        self.level = -1

    def everything(self) -> Output:
        # GNU runs the `{} +` batches left at the end only if no starting point was empty
        # (process_all_startpoints fails then, and main skips its cleanup); -quit runs them.
        finish = True
        try:
            for start in self.program.starts:
                finish = finish and start != ""
                self.walk(start)
        except _Quit:
            finish = True
        if finish:
            self.run_batches(local_only=False)
        for key, chunks in self.files.items():
            text = "".join(chunks)
            if key not in self.state.files:
                continue  # removed while find wrote it: what it wrote is gone with it
            if fs.byte_length(text) > files.MAX_FILE_BYTES:
                self.error(f"'{self.program.outputs[key]}': File too large")
                continue
            self.state.files[key] = text
        stderr = "".join(self.err)
        result = Output.exactly("".join(self.out), self.status, stderr.removesuffix("\n"))
        piped = "".join(self.piped)
        if piped != "".join(self.out):
            result.piped = piped.removesuffix("\n")
        return result

    # ------------------------------------------------------------------ the walk

    def walk(self, start: str) -> None:
        if not start:
            self.error(f"'': {fs.NOT_FOUND}")
            return
        where = fs.locate(self.ctx, start, follow=False)
        why = self.unsearchable(where) or where.error or ("" if where.exists else fs.NOT_FOUND)
        follow = self.options.follow != "P"  # -H and -L follow a starting point's link
        root = self.entry(where.path, start, 0, start, follow) if not why else None
        if root is None:
            self.error(f"'{start}': {why or fs.NOT_FOUND}")
            return
        options = self.options
        self.level = -1
        # Each entry, then (`after`) each folder gone into once what it holds is done: fts's
        # post-order visit, where -depth evaluates it.
        # A folder's entry carries the folders above it (absolute path -> as printed): -L's
        # walk meets a folder it is inside of again ("File system loop detected").
        stack: list[tuple[Entry, bool, dict[str, str]]] = [(root, False, {})]
        while stack:
            budget.check_time()
            entry, after, above = stack.pop()
            self.leveled(entry.depth)
            if entry.folder and not after and entry.abs in above:
                self.error(
                    f"File system loop detected; '{entry.path}' is part of the same file system"
                    f" loop as '{above[entry.abs]}'."
                )
                continue
            shown = entry.depth >= options.mindepth
            if after:
                if shown and not options.dir_first:
                    self.visit(entry)
                continue
            if not entry.folder:
                if shown:
                    self.visit(entry)
                continue
            pruned = options.dir_first and shown and self.visit(entry)
            if pruned or 0 <= options.maxdepth <= entry.depth:
                if not options.dir_first and shown:
                    self.visit(entry)
                continue
            names = self.names(entry)
            if names is None:
                if not options.dir_first and shown:
                    self.visit(entry)
                continue
            if not names and entry.depth == 0 and options.follow == "L" and entry.path != "/":
                # fts's logical walk takes one final `/` off an empty starting folder's path
                # when it is done with it (`find -L empty/ -depth` prints `empty`).
                entry = dataclasses.replace(entry, path=entry.path.removesuffix("/") or "/")
            stack.append((entry, True, above))
            base = entry.path[:-1] if entry.path.endswith("/") else entry.path
            inside = {**above, entry.abs: entry.path}
            follow = self.options.follow == "L"
            for name in reversed(names):
                inner = f"{entry.abs.rstrip('/')}/{name}"
                child = self.entry(inner, f"{base}/{name}", entry.depth + 1, entry.start, follow)
                if child is not None:
                    stack.append((child, False, inside))

    def names(self, folder: Entry) -> list[str] | None:
        """What a folder holds, in name order; None (and the error) if it cannot be read."""
        if not fs.is_folder(self.state, folder.abs):
            self.error(f"'{folder.path}': {fs.NOT_FOUND}")
            return None
        if not _may(folder, 4):
            self.error(f"'{folder.path}': {fs.DENIED}")
            return None
        found, subfolders = fs.children(self.state, folder.abs)
        return sorted(found + subfolders, key=lambda n: n.encode("utf-8", "surrogatepass"))

    def entry(
        self, path: str, shown: str, depth: int, start: str, follow: bool = False
    ) -> Entry | None:
        """The entry at `path`; with `follow`, a link's target's (a broken link's own)."""
        state = self.state
        link = fs.link_at(path)
        pointed = fs.locate_in(state, fs.parent(path), link) if link is not None else None
        if follow and pointed is not None and pointed.exists and not pointed.error:
            found = self.entry(pointed.path, shown, depth, start)
            chosen = self.options.follow == "L"  # -xtype's lstat: the link (-H's stat: not)
            return dataclasses.replace(found, followed=chosen) if found is not None else None
        folder = link is None and fs.is_folder(state, path)
        if not folder and link is None and not fs.is_file(state, path):
            return None
        size = BLOCK if folder else fs.size(state, path)
        links = 2 + len(fs.children(state, path)[1]) if folder else 1
        mode = fs.mode_of(state, path)
        root = not fs.owned(path)
        target, rights = "", 0
        if pointed is not None:
            target = "d" if pointed.folder else "f" if pointed.file else "N"
            if pointed.exists:
                rights = sum(bit for bit in (4, 2, 1) if fs.allows(state, pointed.path, bit))
        return Entry(
            shown, path, depth, start, folder, size, mode, root, links, link, target, rights
        )

    def unsearchable(self, where: fs.Located) -> str:
        """ "Permission denied" if a folder above the path is one the admin cannot search."""
        for folder in fs.ancestors(where.path):
            if not fs.allows(self.state, folder, 1):
                return fs.DENIED
        return ""

    def leveled(self, depth: int) -> None:
        """GNU runs -execdir's batches when the walk changes level."""
        if depth != self.level:
            self.run_batches(local_only=True)
        self.level = depth

    # ------------------------------------------------------------------ the expression

    def visit(self, entry: Entry) -> bool:
        """Apply the expression; whether -prune asked not to go into the folder."""
        self.pruned = False
        self.evaluate(self.program.tree, entry)
        return self.pruned

    def evaluate(self, node: Pred, entry: Entry) -> bool:
        if node.kind == "bi":
            if node.test == "and":
                return all(self.evaluate(item, entry) for item in node.items)
            if node.test == "or":
                return any(self.evaluate(item, entry) for item in node.items)
            result = False
            for item in node.items:  # `,`: each in turn, the last one's value
                result = self.evaluate(item, entry)
            return result
        if node.kind == "uni":
            return not self.evaluate(node.items[0], entry)
        return self.primary(node, entry)

    def primary(self, node: Pred, entry: Entry) -> bool:
        test, arg = node.test, node.arg
        if test in _TESTS:
            return _TESTS[test](arg, entry)
        if test == "empty":
            if not entry.folder:
                return entry.size == 0
            names = self.names(entry)
            return names == [] if names is not None else False
        if test in ("print", "print0", "ls"):
            target = arg if isinstance(arg, str) else ""
            if test == "ls":
                self.emit(target, ls_line(entry, self.now, self.widths))
            else:
                self.emit(target, entry.path + ("\0" if test == "print0" else "\n"))
            return True
        if test == "printf":
            assert isinstance(arg, tuple)
            text, failed = printf(arg[1], entry)
            if failed:
                self.error(f"getfilecon failed: '{entry.path}': No data available")
            self.emit(arg[0], text)
            return True
        if test == "prune":
            self.pruned = self.options.dir_first and entry.folder
            return True
        if test == "quit":
            raise _Quit
        if test == "delete":
            return self.delete(entry)
        assert test == "exec" and isinstance(arg, Exec)
        return self.execute(node, arg, entry)

    # ------------------------------------------------------------------ actions

    def emit(self, target: str, text: str, piped: str | None = None) -> None:
        if target == "/dev/null":
            return
        if target == "/dev/stderr":
            self.err.append(text)
        elif target:
            self.files[target].append(text)
        else:
            self.out.append(text)
            self.piped.append(text if piped is None else piped)
        self.size += len(text)
        budget.check_output(self.size, "find")

    def error(self, message: str) -> None:
        self.err.append(f"find: {message}\n")
        self.status = 1

    def delete(self, entry: Entry) -> bool:
        if entry.depth == 0 and entry.path == ".":
            return True  # GNU leaves the folder it was started in
        why = ""
        last = entry.path.rstrip("/").rsplit("/", 1)[-1]
        if entry.depth == 0 and last == ".":
            why = "Invalid argument"
        elif entry.abs == "/" or not fs.writable(self.state, fs.parent(entry.abs)):
            why = fs.DENIED
        elif entry.folder and any(fs.children(self.state, entry.abs)):
            why = "Directory not empty"
        if why:
            self.error(f"cannot delete '{entry.path}': {why}")
            return False
        if entry.folder:
            fs.remove_folder(self.state, entry.abs)
        else:
            files.remove(self.ctx, fs.key(entry.abs))
        return True

    def execute(self, node: Pred, spec: Exec, entry: Entry) -> bool:
        folder, target = self.exec_place(entry) if spec.local else (None, entry.path)
        if not spec.batch:
            return self.command([w.replace("{}", target) for w in spec.words], folder) == 0
        batch = self.batches.setdefault((id(node), folder or ""), _Batch(spec, folder))
        if batch.size + len(target) + 1 > ARG_MAX:
            self.run_batch(batch)
        batch.names.append(target)
        batch.size += len(target) + 1
        return True

    def exec_place(self, entry: Entry) -> tuple[str, str]:
        """-execdir's folder, and the name `{}` stands for there (`./name`)."""
        if entry.depth and entry.followed:
            # A link -L followed: run beside the link, in the folder it was found in.
            above = entry.path.rstrip("/").rpartition("/")[0] or "/"
            return fs.locate(self.ctx, above).path, "./" + base_name(entry.path)
        if entry.depth:
            return fs.parent(entry.abs), "./" + base_name(entry.path)
        typed = entry.path.rstrip("/") or "/"
        above = "." if "/" not in typed else typed[: typed.rfind("/")].rstrip("/") or "/"
        name = base_name(entry.path)
        return fs.locate(self.ctx, above).path, name if name.startswith("/") else "./" + name

    def run_batches(self, local_only: bool) -> None:
        for key, batch in list(self.batches.items()):
            if batch.spec.local or not local_only:
                del self.batches[key]
                self.run_batch(batch)

    def run_batch(self, batch: _Batch) -> None:
        if batch.names and self.command([*batch.spec.words, *batch.names], batch.folder):
            self.status = 1
        batch.names, batch.size = [], 0

    def command(self, argv: list[str], folder: str | None) -> int:
        """Run a lab command as -exec does (from find's folder, or -execdir's): its status."""
        from simulators.lab import commands  # the registry holds find itself

        name = argv[0]
        named = {path: tool for tool, path in commands.PATHS.items()}
        handler = commands.REGISTRY.get(named.get(name, name))
        if handler is None:  # the child says so, and fails: not find itself
            self.err.append(f"find: '{name}': {fs.NOT_FOUND}\n")
            return 1
        depth = _nested.get()
        if depth >= MAX_NESTED:
            self.error(f"'{name}': finds inside one another's -exec stop here in this lab")
            return 1
        ctx = self.ctx
        shell = ctx.shell if folder is None else dataclasses.replace(ctx.shell, cwd=folder)
        sub = Context(ctx.world, ctx.history, ctx.next_hint, shell=shell, env=ctx.env)
        token = _nested.set(depth + 1)
        try:
            result = handler(sub, argv[1:])
        finally:
            _nested.reset(token)
        out, err = streams(name, result)
        if out:
            end = "\n" if result.newline else ""
            piped = None if result.piped is None else result.piped + end
            self.emit("", out + end, piped)
        if err:
            self.err.append(err + "\n")
        return result.code


def _may(entry: Entry, bit: int) -> bool:
    """The admin's right (4 read, 2 write, 1 execute or search): the owner's bits on its own
    entries, the others' on root's; a link's, what it points to's."""
    if entry.link is not None:
        return bool(entry.target_rights & bit)
    return fs.permits(entry.mode, not entry.root, bit)


def _compare(how: str, value: float, number: float) -> bool:
    return value > number if how == "+" else value < number if how == "-" else value == number


def _window(arg: object, stamp: int = 0) -> bool:
    """GNU's pred_timewindow for the lab's one time (`stamp`): after the reference (`-N`),
    before it (`+N`), or within the window after it."""
    assert isinstance(arg, tuple)
    how, reference, window = arg
    if how == "+":
        return bool(stamp < reference)
    if how == "-":
        return bool(stamp > reference)
    return bool(0 < stamp - reference <= window)


def _size(arg: object, entry: Entry) -> bool:
    assert isinstance(arg, tuple)
    how, number, unit = arg
    return _compare(how, -(-entry.size // unit), number)


def _perm(arg: object, entry: Entry) -> bool:
    assert isinstance(arg, tuple)
    kind, values = arg
    wanted = int(values[1] if entry.folder else values[0])
    if kind == "all":
        return entry.mode & wanted == wanted
    if kind == "any":
        return wanted == 0 or entry.mode & wanted != 0
    return entry.mode & 0o7777 == wanted


def _numbered(value: str) -> Callable[[Any, Entry], bool]:
    def test(arg: Any, entry: Entry) -> bool:
        assert isinstance(arg, tuple)
        return _compare(arg[0], getattr(entry, value), arg[1])

    return test


_TESTS: dict[str, Callable[[Any, Entry], bool]] = {
    "true": lambda arg, entry: True,
    "false": lambda arg, entry: False,
    "name": lambda arg, entry: bool(arg(name_of(entry.path))),
    "path": lambda arg, entry: bool(arg(entry.path)),
    "type": lambda arg, entry: entry.kind in arg,
    "xtype": lambda arg, entry: entry.other_kind in arg,
    "lname": lambda arg, entry: entry.link is not None and bool(arg(entry.link)),
    "size": _size,
    "perm": _perm,
    "time": lambda arg, entry: _window(arg),
    "used": lambda arg, entry: _window(arg),
    "newer": lambda arg, entry: bool(arg < 0),
    "uid": _numbered("uid"),
    "gid": _numbered("uid"),
    "links": _numbered("links"),
    "inum": _numbered("inode"),
    "samefile": lambda arg, entry: entry.abs == arg,
    "fstype": lambda arg, entry: entry.fstype == arg,
    "readable": lambda arg, entry: _may(entry, 4),
    "writable": lambda arg, entry: _may(entry, 2),
    "executable": lambda arg, entry: _may(entry, 1),
}
