"""The admin host's file tree: the one place paths are resolved.

A lab's files are text in `HostState.files`, by key: a path under the home folder by its part
below it (`notes.txt`, `.kube/config`, `reports/gpu.txt`, as labs saved before folders hold
them), any other by its absolute path (`/tmp/pods.txt`). The folders are the host's own
(`SYSTEM`: root's, a Debian system's top level; `/tmp` open to all, sticky), the home folder,
and the ones a learner or a ticket made (`HostState.folders`, by key, the admin's). A folder
exists while it is named there or holds a file; every file's folder exists.

`locate` resolves a path as the kernel's path walk does: from `/` or the shell's working folder
(`ShellState.cwd`), `~` as the shell expands it, `.` and `..` component by component, a file met
before the last component "Not a directory", a missing one "No such file or directory".
kadmin's user `admin` writes below the home folder, in `/tmp` and in the folders it made;
anywhere else is root's ("Permission denied"), as on a real host without sudo.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simulators.lab.environment import HOME as HOME  # the one place paths are resolved names it too

if TYPE_CHECKING:
    from simulators.lab.tool import Context
    from simulators.lab.world import HostState

# A Debian 12 system's top-level folders (its /bin, /lib, /sbin are links into /usr, not
# listed), with their modes; root owns them. What they hold is not modelled: the lab's host
# shows them empty, but for /home and /tmp.
SYSTEM = {
    "/": 0o755, "/boot": 0o755, "/dev": 0o755, "/etc": 0o755, "/home": 0o755, "/media": 0o755,
    "/mnt": 0o755, "/opt": 0o755, "/proc": 0o555, "/root": 0o700, "/run": 0o755,
    "/srv": 0o755, "/sys": 0o555, "/tmp": 0o1777, "/usr": 0o755, "/var": 0o755,
}  # fmt: skip
FOLDER_MODE = 0o755  # mkdir's 0777 less the admin's umask (022)
HOME_MODE = 0o755
# Folders anyone may create files in (the admin's own are writable to it anyway).
OPEN = frozenset({"/tmp"})
MAX_FOLDERS = 64
NAME_MAX = 255
PATH_MAX = 4096

NOT_FOUND = "No such file or directory"
NOT_FOLDER = "Not a directory"
IS_FOLDER = "Is a directory"
DENIED = "Permission denied"
TOO_LONG = "File name too long"


def key(path: str) -> str:
    """The storage key of an absolute, normal path."""
    if path.startswith(HOME + "/"):
        return path[len(HOME) + 1 :]
    return path


def path_of(stored: str) -> str:
    """The absolute path of a storage key."""
    return stored if stored.startswith("/") else f"{HOME}/{stored}"


def parent(path: str) -> str:
    """The folder an absolute, normal path is in (`/`'s is `/`)."""
    head = path.rsplit("/", 1)[0]
    return head or "/"


def ancestors(path: str) -> list[str]:
    """Every folder above an absolute path, from `/` down (the path itself not included)."""
    out: list[str] = []
    while path != "/":
        path = parent(path)
        out.append(path)
    return out[::-1]


def folders(state: HostState) -> set[str]:
    """Every folder of the host, as absolute paths."""
    found = set(SYSTEM) | {HOME}
    found.update(path_of(k) for k in state.folders)
    return found


def files_of(state: HostState) -> dict[str, str]:
    """Every file, by absolute path."""
    return {path_of(k): text for k, text in state.files.items()}


def is_folder(state: HostState, path: str) -> bool:
    return path in SYSTEM or path == HOME or key(path) in state.folders


def is_file(state: HostState, path: str) -> bool:
    return key(path) in state.files


def owned(path: str) -> bool:
    """Whether the admin owns a folder or file at `path`: all but the system's folders (the
    lab only ever has the admin make one, in /tmp or a ticket's)."""
    return path not in SYSTEM


def permits(mode: int, own: bool, bit: int) -> bool:
    """Whether `mode` lets the admin read (4), write (2) or execute/search (1): the owner's
    bits on its own entries, the others' on root's."""
    return bool(mode & (bit << 6 if own else bit))


def allows(state: HostState, path: str, bit: int) -> bool:
    """permits, for the entry at `path`."""
    return permits(mode_of(state, path), owned(path), bit)


def writable(state: HostState, folder: str) -> bool:
    """Whether the admin can create or remove entries in `folder` (an existing one)."""
    if folder in OPEN:
        return True
    return folder not in SYSTEM and mode_of(state, folder) & 0o200 != 0


def mode_of(state: HostState, path: str) -> int:
    """Permission bits of a file or folder (chmod keeps other than the defaults)."""
    if path in SYSTEM:
        return SYSTEM[path]
    stored = state.modes.get(key(path))
    if stored is not None:
        return stored
    if is_folder(state, path):
        return HOME_MODE if path == HOME else FOLDER_MODE
    return 0o644


def children(state: HostState, folder: str) -> tuple[list[str], list[str]]:
    """The names of a folder's files and of its folders, each sorted by bytes."""
    prefix = folder.rstrip("/") + "/"
    names = [p[len(prefix) :] for p in (path_of(k) for k in state.files) if p.startswith(prefix)]
    found = [n for n in names if "/" not in n]
    inner = {p[len(prefix) :] for p in folders(state) if p.startswith(prefix) and p != folder}
    subfolders = [n for n in inner if n and "/" not in n]
    return sorted(found, key=str.encode), sorted(subfolders, key=str.encode)


def walk(state: HostState, folder: str) -> Iterable[str]:
    """Every file and folder below `folder` (absolute paths), depth first in name order, each
    folder before what it holds."""
    found, subfolders = children(state, folder)
    base = folder.rstrip("/")
    entries = sorted([(n, False) for n in found] + [(n, True) for n in subfolders])
    for name, is_dir in entries:
        path = f"{base}/{name}"
        yield path
        if is_dir:
            yield from walk(state, path)


@dataclass(frozen=True)
class Located:
    """A path resolved: its absolute, normal form, and what is there."""

    path: str
    folder: bool = False
    file: bool = False
    error: str | None = None  # NOT_FOUND, NOT_FOLDER, TOO_LONG for a component above it

    @property
    def exists(self) -> bool:
        return self.folder or self.file

    @property
    def key(self) -> str:
        return key(self.path)


def cwd(ctx: Context) -> str:
    return ctx.shell.cwd or HOME


def locate(ctx: Context, typed: str) -> Located:
    """Resolve a path typed to a tool, as the kernel's walk would from the working folder.

    A final `/` on a file is "Not a directory"; a missing folder above the last component is
    "No such file or directory" (the last one missing is no error: `exists` is False)."""
    return locate_in(ctx.world.state, cwd(ctx), typed)


def locate_in(state: HostState, working: str, typed: str) -> Located:
    if len(typed.encode()) > PATH_MAX:
        return Located(typed, error=TOO_LONG)
    if typed == "~" or typed.startswith("~/"):
        typed = HOME + typed[1:]
    start = "/" if typed.startswith("/") else working
    parts = [p for p in typed.split("/") if p not in ("", ".")]
    here = start
    for part in parts:
        if len(part.encode()) > NAME_MAX:
            return Located(typed, error=TOO_LONG)
        if not is_folder(state, here):
            return Located(here, error=NOT_FOLDER if is_file(state, here) else NOT_FOUND)
        if part == "..":
            here = parent(here)
            continue
        here = f"{here.rstrip('/')}/{part}"
    if not typed:
        return Located("", error=NOT_FOUND)
    folder = is_folder(state, here)
    file = not folder and is_file(state, here)
    if file and (typed.endswith("/") or typed.endswith("/.") or typed.endswith("/..")):
        return Located(here, error=NOT_FOLDER)
    return Located(here, folder=folder, file=file)


def make_folder(state: HostState, path: str) -> None:
    """Record a folder the admin made (its folder exists: the caller checked)."""
    stored = key(path)
    if stored not in state.folders:
        state.folders.append(stored)
        state.folders.sort()


def remove_folder(state: HostState, path: str) -> None:
    stored = key(path)
    if stored in state.folders:
        state.folders.remove(stored)
    state.modes.pop(stored, None)


def with_ancestors(stored: Iterable[str], made: Iterable[str]) -> list[str]:
    """The folders (keys) a state needs: those made, and every folder above a file or one of
    them that is not the system's or the home folder."""
    needed: set[str] = set()
    for k in [*made, *stored]:
        path = path_of(k)
        chain = ancestors(path) + ([path] if k in made else [])
        for folder in chain:
            if folder not in SYSTEM and folder != HOME and folder != "/":
                needed.add(key(folder))
    return sorted(needed)


def is_key(stored: str) -> bool:
    """Whether a key is a normal one: no empty, `.` or `..` part, no part over NAME_MAX, not
    the home folder or a system folder itself."""
    path = path_of(stored)
    parts = path.split("/")[1:]
    if not stored or len(path.encode()) > PATH_MAX or path in SYSTEM or path == HOME:
        return False
    return all(p not in ("", ".", "..") and len(p.encode()) <= NAME_MAX for p in parts)


def damaged(state: HostState) -> str | None:
    """What makes a host's tree one the lab could not have built (an imported lab's), if
    anything: a key that is not normal, a file where a folder is or above one, too many
    folders."""
    if len(state.folders) > MAX_FOLDERS:
        return f"has {len(state.folders)} folders; the lab keeps {MAX_FOLDERS}"
    for stored in [*state.files, *state.folders]:
        if not is_key(stored):
            return f"has a file or folder with a path the lab cannot hold: {stored[:80]!r}"
    for stored in state.files:
        path = path_of(stored)
        if is_folder(state, path) or any(is_file(state, a) for a in ancestors(path)):
            return f"has a file where a folder is: {stored[:80]!r}"
    return None


def display(path: str) -> str:
    """A path as bash's prompt shows it (`~` for the home folder)."""
    if path == HOME:
        return "~"
    if path.startswith(HOME + "/"):
        return "~" + path[len(HOME) :]
    return path
