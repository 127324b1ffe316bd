"""The admin host's file tree: the one place paths are resolved.

A lab's files are text in `HostState.files`, by key: a path under the home folder by its part
below it (`notes.txt`, `.kube/config`, `reports/gpu.txt`, as labs saved before folders hold
them), any other by its absolute path (`/tmp/pods.txt`). The folders are the host's own
(`SYSTEM`: root's, a Debian system's top level; `/tmp` open to all, sticky), the home folder,
and the ones a learner or a ticket made (`HostState.folders`, by key, the admin's). A folder
exists while it is named there or holds a file; every file's folder exists.

The host's own files (simulators.lab.system_files: /etc's, /proc's, the programs in /usr/bin
and /usr/local/bin, the usr-merge links `/bin -> usr/bin` and the rest) are fixed data beside
them, root's and never saved: `is_file`, `text`, `children` and the rest see both. A tool
writes a file through `store`, which discards what goes to a device (/dev/null: `device`).

`locate` resolves a path as the kernel's path walk does: from `/` or the shell's working folder
(`ShellState.cwd`), `~` as the shell expands it, `.` and `..` component by component, a
symbolic link followed where it is met (the last component's too, unless `follow=False`, as
lstat), a file met before the last component "Not a directory", a missing one "No such file or
directory". kadmin's user `admin` writes below the home folder, in `/tmp` and in the folders it
made; anywhere else is root's ("Permission denied"), as on a real host without sudo.
"""

from __future__ import annotations

import posixpath
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simulators.lab import system_files
from simulators.lab.environment import HOME as HOME  # the one place paths are resolved names it too

if TYPE_CHECKING:
    from simulators.lab.tool import Context
    from simulators.lab.world import HostState

# An Ubuntu 22.04 system's folders (its top level; /bin, /lib, /sbin are links into /usr:
# system_files.LINKS), with their modes; root owns them. They hold system_files' files only,
# but for /home and /tmp.
SYSTEM = {
    "/": 0o755, "/boot": 0o755, "/dev": 0o755, "/etc": 0o755, "/home": 0o755, "/media": 0o755,
    "/mnt": 0o755, "/opt": 0o755, "/proc": 0o555, "/root": 0o700, "/run": 0o755,
    "/srv": 0o755, "/sys": 0o555, "/tmp": 0o1777, "/usr": 0o755, "/var": 0o755,
    **system_files.FOLDERS,
}  # fmt: skip
LINK_MODE = 0o777
MAX_LINKS = 40  # the kernel's limit on links followed in one walk (ELOOP)
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
LOOP = "Too many levels of symbolic links"


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
    """Whether a regular file is at `path` (absolute, normal; a link is not followed)."""
    return key(path) in state.files or system_files.file_at(path) is not None


def link_at(path: str) -> str | None:
    """The target of the symbolic link at `path` (absolute, normal), None if none is there."""
    return system_files.LINKS.get(path)


def text(state: HostState, path: str) -> str:
    """The text of the file at `path` (one is there: `is_file`), the admin's or the system's."""
    found = state.files.get(key(path))
    if found is not None:
        return found
    system = system_files.file_at(path)
    assert system is not None, path
    return system.text


def size(state: HostState, path: str) -> int:
    """stat's size of the file or link at `path`: its bytes (a link's, its target's length);
    /proc's files 0, a program's a real build's."""
    target = link_at(path)
    if target is not None:
        return len(target.encode())
    system = system_files.file_at(path) if key(path) not in state.files else None
    if system is not None and system.size is not None:
        return system.size
    return byte_length(text(state, path))


class Prefix(str):
    """What a tool reads of a file whose text is a bounded prefix of its bytes (a program's:
    its ELF header), with `size`, the file's whole size: what a reader that counts every byte
    (wc -c on stdin) counts, while no 56 MB string is ever made. Any change to the text (a
    slice, a concatenation) is plain text again, and stored files hold plain text (store)."""

    size: int

    def __new__(cls, text: str, size: int) -> Prefix:
        made = super().__new__(cls, text)
        made.size = size
        return made

    def __reduce__(self) -> tuple[type[Prefix], tuple[str, int]]:
        return Prefix, (self[:], self.size)


def read(state: HostState, path: str) -> str:
    """The text a tool reads of the file at `path` (one is there: `is_file`): its text, as a
    Prefix carrying stat's size where that is more than the text's bytes (a program's)."""
    found = text(state, path)
    system = system_files.file_at(path) if key(path) not in state.files else None
    if system is None or system.size is None:
        return found
    if system.size > byte_length(found):
        return Prefix(found, system.size)
    return found


def byte_length(text: str) -> int:
    """The bytes of a file's text, as stat and wc count them (a lone surrogate as UTF-8 would
    encode it: the text's length wherever it is measured)."""
    return len(text.encode("utf-8", "surrogatepass"))


def whole_size(text: str) -> int:
    """The bytes a reader counts in `text`: a Prefix's whole size, else the text's own."""
    read = byte_length(text)
    return max(read, text.size) if isinstance(text, Prefix) else read


def device(path: str) -> tuple[int, int] | None:
    """The major and minor numbers of the character device at `path` (/dev/null), if one is."""
    system = system_files.file_at(path)
    return system.device if system is not None else None


def store(state: HostState, path: str, text: str, most: int | None = None) -> bool:
    """Write a file's text (the caller checked it may be): a device's writes are discarded,
    as /dev/null's are, whichever tool writes them. False, with nothing stored, where the
    text is more than `most` bytes and the path is no device (which takes any)."""
    if device(path) is not None:
        return True
    if most is not None and len(text.encode()) > most:
        return False
    state.files[key(path)] = text[:] if isinstance(text, Prefix) else text  # its plain text
    return True


def inode(path: str) -> int:
    """The inode number `ls -i` and find's `%i` print for an absolute, normal path (`/`'s 2,
    each other's a number of its own from its path, as ext4's are for a tree this small)."""
    if path == "/":
        return 2
    return 131072 + zlib.crc32(path.encode("utf-8", "surrogatepass")) % 3_000_000


def owned(path: str) -> bool:
    """Whether the admin owns a folder or file at `path`: all but the system's own (the lab
    only ever has the admin make one, in /tmp or a ticket's)."""
    return path not in SYSTEM and not system_files.holds(path)


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
    if path in system_files.LINKS:
        return LINK_MODE
    system = system_files.file_at(path)
    if system is not None:
        return system.mode
    stored = state.modes.get(key(path))
    if stored is not None:
        return stored
    if is_folder(state, path):
        return HOME_MODE if path == HOME else FOLDER_MODE
    return 0o644


def children(state: HostState, folder: str) -> tuple[list[str], list[str]]:
    """The names of a folder's files (its links among them: `link_at` tells them apart) and of
    its folders, each sorted by bytes."""
    prefix = folder.rstrip("/") + "/"
    names = [p[len(prefix) :] for p in (path_of(k) for k in state.files) if p.startswith(prefix)]
    found = [n for n in names if "/" not in n] + system_files.names_in(folder)
    inner = {p[len(prefix) :] for p in folders(state) if p.startswith(prefix) and p != folder}
    subfolders = [n for n in inner if n and "/" not in n]
    return sorted(found, key=str.encode), sorted(subfolders, key=str.encode)


def walk(state: HostState, folder: str) -> Iterable[str]:
    """Every file, link and folder below `folder` (absolute paths), depth first in name order,
    each folder before what it holds (a link is not followed)."""
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
    error: str | None = None  # NOT_FOUND, NOT_FOLDER, TOO_LONG, LOOP for a component above it
    link: str | None = None  # the target of a link not followed (locate's follow=False)

    @property
    def exists(self) -> bool:
        return self.folder or self.file or self.link is not None

    @property
    def key(self) -> str:
        return key(self.path)


def cwd(ctx: Context) -> str:
    return ctx.shell.cwd or HOME


def locate(ctx: Context, typed: str, *, follow: bool = True) -> Located:
    """Resolve a path typed to a tool, as the kernel's walk would from the working folder.

    A final `/` on a file is "Not a directory"; a missing folder above the last component is
    "No such file or directory" (the last one missing is no error: `exists` is False). Links
    are followed; a last component's only with `follow` or a final `/` (else `link` holds its
    target: lstat)."""
    return locate_in(ctx.world.state, cwd(ctx), typed, follow=follow)


def locate_in(state: HostState, working: str, typed: str, *, follow: bool = True) -> Located:
    """`locate` from the folder `working` (an absolute path, links in it followed too)."""
    if len(typed.encode()) > PATH_MAX:
        return Located(typed, error=TOO_LONG)
    if typed == "~" or typed.startswith("~/"):
        typed = HOME + typed[1:]
    if not typed:
        return Located("", error=NOT_FOUND)
    if typed.split("/", 1)[0] == ".." and not locate_in(state, "/", working).folder:
        return _from_removed(state, working, typed, follow)
    whole = typed if typed.startswith("/") else f"{working}/{typed}"
    parts = [p for p in whole.split("/") if p not in ("", ".")]
    slash = typed.endswith("/")
    # lstat's last component: a name typed (`.`, `..` and a final `/` are the folder itself).
    follow = follow or typed.rsplit("/", 1)[-1] in ("", ".", "..")
    here, hops, i = "/", 0, 0
    while i < len(parts):
        part = parts[i]
        i += 1
        if len(part.encode()) > NAME_MAX:
            return Located(typed, error=TOO_LONG)
        if not is_folder(state, here):
            return Located(here, error=NOT_FOLDER if is_file(state, here) else NOT_FOUND)
        if part == "..":
            here = parent(here)
            continue
        here = f"{here.rstrip('/')}/{part}"
        target = link_at(here)
        if target is not None and (i < len(parts) or follow):
            hops += 1
            if hops > MAX_LINKS:
                return Located(here, error=LOOP)
            here = "/" if target.startswith("/") else parent(here)
            parts[:i] = [p for p in target.split("/") if p not in ("", ".")]
            i = 0
    target = link_at(here)
    if target is not None:  # the last component, not followed
        return Located(here, link=target)
    folder = is_folder(state, here)
    file = not folder and is_file(state, here)
    if file and (slash or typed.endswith("/.") or typed.endswith("/..")):
        return Located(here, error=NOT_FOLDER)
    return Located(here, folder=folder, file=file)


def _from_removed(state: HostState, working: str, typed: str, follow: bool) -> Located:
    """A relative path from a working folder that was removed: its `..` is still the folder it
    was in (the kernel keeps the link), a name in it is gone."""
    here = posixpath.normpath(working)
    parts = typed.split("/")
    while parts and parts[0] in ("", ".", "..") and not is_folder(state, here):
        here = parent(here) if parts[0] == ".." else here
        parts.pop(0)
    if is_folder(state, here):
        return locate_in(state, here, "/".join(parts) or ".", follow=follow)
    return Located(here, error=NOT_FOUND if any(parts) else None)


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
    the home folder, a system folder, file or link itself or below a system file or link."""
    path = path_of(stored)
    parts = path.split("/")[1:]
    if not stored or len(path.encode()) > PATH_MAX or path in SYSTEM or path == HOME:
        return False
    if any(system_files.holds(p) for p in [*ancestors(path), path]):
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


def display(path: str, home: str = HOME) -> str:
    """A path as bash's prompt shows it: `~` for the home folder and what is under it (bash's
    polite_directory_format reads `$HOME`; a home of one character, or none, shortens nothing)."""
    if len(home) <= 1:
        return path
    if path == home:
        return "~"
    if path.startswith(home + "/"):
        return "~" + path[len(home) :]
    return path
