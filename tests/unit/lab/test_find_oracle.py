"""The admin host's find against this machine's GNU find 4.9: generated home folders (files of
several sizes and modes, nested and hidden names, empty folders, symbolic links to a folder, a
file, nothing, the folder above and their own folder, beside `.kube/config`) and generated
find lines (starting points typed several ways, -H/-L/-P/-O and -follow, global options
before and after tests, tests, `!`/`-not`, `-a`/`-and` written or implied, `-o`/`-or`,
parentheses, `,`, actions -print, -print0, -printf, -fprint, -fprintf, -exec and -execdir
with `;` and `{} +`, -prune, -delete, and words GNU refuses) print the same lines and end
with the same status, run by bash 5.2 in a folder standing for /home/admin with every time set
to the lab's now less 20.5 s. find's standard input is a terminal there, as a typed command's
is, so its warnings are compared too.

The lines are compared as a sorted list: GNU reads a folder in its file system's order, the
lab in name order. Left out, each with a named test in test_lab_find.py: times other than the
modification time (the real ctime is when the times were set, and reading a folder moves its
atime), inode numbers, -ls, owners' numbers (the real files are root's: `OWNER` is root there
and admin in the lab), the admin's rights (root may read anything), -quit (which entry comes
first is the file system's order) and -ok.
"""

from __future__ import annotations

import os
import pty
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest.mock import patch

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession, files, fs, kubeconfig, system_files
from simulators.lab.home_files import HOME_FILES
from tests.unit.lab.real_host import write_home_files

FOLDERS = ["dir", "dir/sub", "dir/sub/deep", "empty", ".hid", "dir/.x", "Docs"]
FILES = [
    "a", "b.txt", "B.TXT", "notes.md", ".hidden", "x y", "z-9", "dir/a", "dir/c.txt",
    "dir/sub/d.md", "dir/sub/deep/e", ".hid/f.txt", "Docs/Readme", "dir/.x/7",
]  # fmt: skip
# Symbolic links (name -> target): the lab keeps none of a learner's, so the test lays them
# beside the host's own (system_files.LINKS), the admin's as a learner's would be.
LINKS = [
    ("ln-dir", "dir"), ("ln-a", "a"), ("ln-bad", "nope"), ("dir/up", ".."), ("ln-self", "."),
    ("dir/sub/ln-b", "../../b.txt"), ("ln-kube", ".kube"), ("Docs/ln-sub", "../dir/sub"),
]  # fmt: skip
SIZES = [0, 1, 5, 511, 512, 513, 1024, 1025, 4096, 5000]
FILE_MODES = [0o644, 0o600, 0o755, 0o700, 0o444, 0o640, 0o664, 0o4755]
FOLDER_MODES = [0o755, 0o700, 0o750, 0o775]
STARTS = ["", "", "", ".", ".", "./", "~", "~/", "dir", "dir/", "./dir", "dir//", "nope", "b.txt"]
STARTS += [".kube", "empty", "dir/sub/../sub", "''", "b.txt/", "dir/.", "Docs"]
GLOBAL = ["-maxdepth 0", "-maxdepth 1", "-maxdepth 2", "-mindepth 1", "-mindepth 2", "-depth"]
GLOBAL += ["-follow"]
STARTS += ["ln-dir", "ln-dir/", "ln-a", "ln-bad", "ln-self"]
TESTS = [
    "-name 'a'", "-name '*.txt'", "-name '*'", "-name '.*'", "-name '[ab]*'", "-name '?'",
    "-name '*.TXT'", "-name 'd*'", "-name 'x y'", "-name '[!a-c]*'", "-name '*[0-9]'",
    "-name '[[:upper:]]*'", "-name 'dir/'", r"-name '\*'", "-iname '*.txt'", "-iname 'B*'",
    "-iname '[a-c]*'", "-path './dir/*'", "-path '*/sub*'", "-path '*.txt'", "-path './*'",
    "-path '*/.kube/*'", "-path './dir/'", "-path 'dir*'", "-wholename '*sub*'",
    "-ipath '*/DIR/*'", "-iwholename '*.MD'", r"-regex '.*\.txt'", "-regex '.*/[ab].*'",
    r"-regex '\./dir\(/.*\)?'", r"-regex '.*\(txt\|md\)'", "-regex '.*[0-9]+'",
    "-iregex '.*B.*'", "-regextype posix-extended -regex '.*(txt|md)'",
    "-regextype egrep -regex '.*/d[a-z]+'", "-type f", "-type d", "-type f,d", "-type l",
    "-empty", "-size 0", "-size -1", "-size +1", "-size 1", "-size -2k", "-size +4k",
    "-size 4k", "-size 8", "-size -512c", "-size +512c", "-size 1024c", "-size 2w",
    "-size -1M", "-size +0", "-size 1G", "-perm 644", "-perm -644", "-perm /111",
    "-perm -u+x", "-perm /u=w,g=w", "-perm u=rw,go=r", "-perm -400", "-perm /0",
    "-perm 755", "-perm g+w", "-perm /o+w", "-perm 600", "-perm -g=r", "-perm -4000",
    "-newer .kube/config", "-newer b.txt", "-mtime 0", "-mtime -1", "-mtime +0", "-mtime 1",
    "-mmin -1", "-mmin +1", "-mmin 1", "-mmin 0.5", "-mmin -0.5", "-mtime -0.5",
    "-daystart -mtime 0", "-links 1", "-links 2", "-links +2", "-user OWNER", "-group OWNER",
    "-samefile b.txt", "-samefile dir", "-true", "-false", "-prune", r"-exec test -d {} \;",
    r"-exec test -f {} \;", "-nowarn", "-newermt '2020-01-01 10:00'", "-newermt @0",
    "-newermm b.txt", "-xtype f", "-xtype l", "-xtype d", "-lname '*.txt'",
    "-ilname 'NOPE'", "-nouser", "-nogroup", "-lname '*'", "-fstype ext4",
]  # fmt: skip
BROKEN = [
    "-foo", "-name", "-type z", "-type", "-type f,", "-type fd", "-size 3q", "-size", "-perm 9",
    "-maxdepth x", "\\(", "\\)", "-o", "!", "x", "a", "-a", ",", r"-regex '\('", "-printf '%'",
    r"-exec echo {} x {} +", "-exec", r"-exec \;", "-newer nope", "-user nobody2",
    "-regextype foo", "-mtime x", "-printf '%{'", "\\( \\)", "-context x", "-version",
    "-newerzz x", "-newermt xyz", "-mtime 1e400", "-maxdepth 99999999999",
    "-perm +222", "-perm /", "-size ''", "-group 12x", "-type ''", "-regex 'a\\'",
]  # fmt: skip
ACTIONS = [
    "", "", "", "", "-print", "-print0", r"-printf '%p\n'", r"-printf '%P|%f|%h|%d|%y|%H\n'",
    r"-printf '%s %k %b %m %M %n %u %g %F\n'", r"-printf '%-8f|%5s|%05m|%.3P|%+d\n'",
    r"-printf '%H:%p\0'", r"-printf '%% %q \q%s\n'", r"-exec echo {} \;",
    r"-exec printf '%s\n' {} +", r"-execdir echo {} \;", r"-execdir printf '%s\n' {} +",
    r"-exec echo [{}] \;", r"-exec nosuch {} \;", r"-exec nosuch {} +",
    "-fprint out.txt", r"-fprintf out.txt '%y %p\n'",
    r"""-exec sh -c 'echo "[$1]" $#' sh {} \;""",
    r"""-exec bash -c 'for f; do echo "<$f>"; done; echo $#' _ {} +""",
    r"""-execdir sh -c 'test -d "$0" && echo "d:$0"' {} \;""",
]  # fmt: skip
TIMED = "-newer|-mtime|-mmin"
LAB_NOW = 20  # the lab's clock when find runs: two commands after the session starts

# files: (size, mode); folders: mode; links: target
Home = tuple[dict[str, tuple[int, int]], dict[str, int], dict[str, str]]


@st.composite
def homes(draw: st.DrawFn) -> Home:
    folders = draw(st.lists(st.sampled_from(FOLDERS), unique=True, max_size=5))
    made = set(folders)
    for folder in list(made):
        while "/" in folder:
            folder = folder.rsplit("/", 1)[0]
            made.add(folder)
    names = draw(st.lists(st.sampled_from(FILES), unique=True, max_size=8))
    kept = {n: (draw(st.sampled_from(SIZES)), draw(st.sampled_from(FILE_MODES))) for n in names}
    kept = {n: v for n, v in kept.items() if "/" not in n or n.rsplit("/", 1)[0] in made}
    links = dict(draw(st.lists(st.sampled_from(LINKS), unique=True, max_size=3)))
    links = {n: t for n, t in links.items() if "/" not in n or n.rsplit("/", 1)[0] in made}
    return kept, {f: draw(st.sampled_from(FOLDER_MODES)) for f in sorted(made)}, links


@st.composite
def expressions(draw: st.DrawFn, depth: int = 2) -> list[str]:
    choice = draw(st.integers(0, 10)) if depth else 0
    if choice <= 4:
        return [draw(st.sampled_from(TESTS))]
    if choice == 5:
        return [draw(st.sampled_from(["!", "-not"])), *draw(expressions(depth - 1))]
    if choice == 6:
        return ["\\(", *draw(expressions(depth - 1)), "\\)"]
    if choice == 7:
        return [draw(st.sampled_from(BROKEN))]
    op = draw(st.sampled_from(["-o", "-or", "-a", "-and", "", "", ","]))
    left, right = draw(expressions(depth - 1)), draw(expressions(depth - 1))
    return [*left, *([op] if op else []), *right]


@st.composite
def lines(draw: st.DrawFn) -> str:
    words = ["find", draw(st.sampled_from(["", "", "", "-P", "-H", "-L", "-L", "-O3", "--"]))]
    words += draw(st.lists(st.sampled_from(STARTS), max_size=2))
    words += draw(st.lists(st.sampled_from(GLOBAL), max_size=2))
    if draw(st.integers(0, 5)):
        words += draw(expressions())
    words.append(draw(st.sampled_from(["", "", "", "", "-maxdepth 1", "-depth", "-d", "-xdev"])))
    words.append(draw(st.sampled_from(ACTIONS)))
    line = " ".join(w for w in words if w)
    if "out.txt" in line and re.search(TIMED, line):
        # -fprint makes its file (and changes its folder) when find starts: now, not when
        # the test set the times.
        line = line.replace("out.txt", "/dev/stdout")
    # Not -delete from `~`: root may remove the folder itself, which the admin's /home
    # forbids. Nor with a test of times: removing an entry changes its folder's. Nor where
    # links are followed (the lab's links are the host's, which nothing removes).
    delete = draw(st.integers(0, 7)) == 0 and "~" not in line and not re.search(TIMED, line)
    delete = delete and not re.search("-L|-follow", line)  # (nor with links: the test's)
    line += ' -delete; echo "status $?"' if delete else '; echo "status $?"'
    if "out.txt" in line:
        line += "; cat out.txt"
    return line + "; find . -print" if delete else line


def _text(size: int) -> str:
    return ("x" * 63 + "\n") * (size // 64) + "y" * (size % 64)


def _ours(home: Home, line: str) -> str:
    lab = LabSession.new("mig-single", seed=0)
    state = lab.world.state
    assert list(state.files) == [kubeconfig.NAME, *HOME_FILES]
    made, folder_modes, links = home
    for name, (size, mode) in made.items():
        state.files[name] = _text(size)
        if mode != files.NEW_FILE_MODE:
            state.modes[name] = mode
    for folder, mode in folder_modes.items():
        if mode != fs.FOLDER_MODE:
            state.modes[folder] = mode
    state.folders = fs.with_ancestors(list(state.files), list(folder_modes))
    while lab.world.now < LAB_NOW:
        lab.run("true")
    assert lab.world.now == LAB_NOW
    laid = {f"{fs.HOME}/{name}": target for name, target in links.items()}
    owned = fs.owned
    with (
        patch.dict(system_files.LINKS, laid),
        patch.object(fs, "owned", lambda path: path in laid or owned(path)),
    ):
        return lab.run(line.replace("OWNER", "admin")).output


@contextmanager
def home_folder() -> Iterator[Path]:
    """A folder `home/admin` (its parents' names hold no letter or digit a generated pattern
    looks for, so that `find ~` matches there as in the lab's /home/admin) with the lab's
    starting `.kube/config` (0600) and dot files."""
    while True:  # not `random`: hypothesis seeds it alike for every example
        top = Path("/tmp") / ("fq-" + "".join(secrets.choice("qvwxyz") for _ in range(16)))
        try:
            top.mkdir()
        except FileExistsError:
            continue
        break
    folder = top / "home" / "admin"
    try:
        (folder / ".kube").mkdir(parents=True)
        config = folder / kubeconfig.NAME
        config.write_text(kubeconfig.starting_text(), encoding="utf-8")
        config.chmod(kubeconfig.MODE)
        write_home_files(folder)
        yield folder
    finally:
        shutil.rmtree(top)


def _real(home: Home, line: str) -> str:
    with home_folder() as folder:
        made, folder_modes, links = home
        for name in folder_modes:
            (folder / name).mkdir(parents=True, exist_ok=True)
        for name, (size, mode) in made.items():
            (folder / name).write_text(_text(size), encoding="utf-8")
            (folder / name).chmod(mode)
        for name, target in links.items():
            (folder / name).symlink_to(target)
        for name, mode in folder_modes.items():
            (folder / name).chmod(mode)
        when = time.time() - LAB_NOW - 0.5
        for top, names, found in os.walk(folder):  # links not followed
            for path in [top, *(os.path.join(top, n) for n in [*names, *found])]:
                os.utime(path, (when, when), follow_symlinks=False)
        return _run(folder, line.replace("OWNER", "root"))


def _run(folder: Path, line: str) -> str:
    """bash -c `line` in `folder` with a terminal for its standard input (find warns only
    then), the folder written as /home/admin."""
    terminal, other = pty.openpty()
    try:
        done = subprocess.run(
            ["bash", "-c", line],
            stdin=other,
            capture_output=True,
            cwd=folder,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(folder), "TZ": "UTC"},
            check=False,
            timeout=20,
        )
    finally:
        os.close(terminal)
        os.close(other)
    text = (done.stdout + done.stderr).decode("utf-8", "replace")
    text = text.replace(str(folder), fs.HOME).replace(str(folder.parent), "/home")
    # The real files are root's, the lab's the admin's (no generated name holds "root").
    return re.sub(r"\broot\b", "admin", text)


def comparable(text: str) -> list[str]:
    """The lines (or NUL-ended records), sorted, the empty ones left out."""
    return sorted(line for line in re.split("[\n\0]", text) if line)


@settings(max_examples=400, deadline=None)
@given(home=homes(), line=lines())
# Found by this test: -execdir on a link -L follows runs beside the link, not its target.
@example(
    home=({}, {"Docs": 0o755, "dir": 0o755, "dir/sub": 0o755}, {"Docs/ln-sub": "../dir/sub"}),
    line='find -L -execdir sh -c \'test -d "$0" && echo "d:$0"\' {} \\;',
)
def test_find_prints_the_lines_gnu_find_prints(home: Home, line: str) -> None:
    assume(not (home[2] and "-delete" in line))  # the laid links are the host's: none goes
    assert comparable(_ours(home, line)) == comparable(_real(home, line)), line
