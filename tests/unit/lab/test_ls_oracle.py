"""The admin host's ls against this machine's GNU ls (coreutils 9.1): generated home folders
(plain, hidden, empty, large and executable files beside `.kube/config`) and generated ls lines
(-a -A -l -g -o -n -h -r -t -S -s -i -u -d -F -p -R -1 -C, operands that are files, folders,
`~`, `.`, missing names) print the same lines and end with the same status, run by bash 5.2 in a
folder `home/admin` of its own with every time set to the lab's one time (LC_ALL=C, TZ=UTC).
The generator knows ls's manual, not the implementation.

The real files are root's: the lab's owner is made root for the comparison (`ls.OWNER`), and a
separate test checks the lab's own lines with admin's. The lab's inode numbers (fs.inode) are
made the real files' for the comparison, so that -i's columns are compared too. Not -c: the
real files' change times cannot be set."""

from __future__ import annotations

import os
import stat
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.cluster.clock import datetime_at
from simulators.lab import LabSession, files, fs, kubeconfig, ls
from simulators.lab.home_files import HOME_FILES
from tests.unit.lab.real_host import bash, home_folder

NAMES = ["a.txt", "b", "Big.log", "run.sh", ".hidden", "z-9", "notes.md"]
SIZES = [0, 3, 100, 4095, 4096, 4097, 5400, 12000, 40000]
MODES = [0o644, 0o755, 0o600, 0o700, 0o444, 0o640]
OPERANDS = ["", "", "", ".", "~", "a.txt", ".kube", "nope", ".kube/config", "./b", "~/.kube"]
OPERANDS += ["run.sh", ".hidden", "~/a.txt", "''", ".kube/.", ".kube/.."]
WHEN = datetime_at(0).timestamp()

Home = dict[str, tuple[int, int]]  # name -> (size, mode)


@st.composite
def homes(draw: st.DrawFn) -> Home:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=5))
    return {n: (draw(st.sampled_from(SIZES)), draw(st.sampled_from(MODES))) for n in names}


@st.composite
def lines(draw: st.DrawFn) -> str:
    letters = draw(st.lists(st.sampled_from("aAlhrtSsdFpR1gCinu"), max_size=4))
    extra = ""
    if draw(st.integers(0, 6)) == 0:
        extra += draw(st.sampled_from(["--all ", "--reverse ", "-l --human-readable ", "-- "]))
    if draw(st.integers(0, 8)) == 0:
        extra += draw(st.sampled_from(["--inode ", "--numeric-uid-gid "]))
    if "u" in letters and "d" not in letters:
        # Reading a folder moves its access time (relatime: the lab's time is days old), which
        # -u shows and sorts by where ls lists a folder it read; the lab keeps no times to
        # move: -u lists folders as entries (-d) here.
        letters.append("d")
    options = (f"-{''.join(letters)} " if letters else "") + extra
    operands = draw(st.lists(st.sampled_from(OPERANDS), max_size=3))
    ls = f"ls {options}{' '.join(operands)}".strip()
    return f'{ls} | cat; {ls} > /dev/null 2>&1; echo "[$?]"'


def _text(size: int) -> str:
    return ("x" * 63 + "\n") * (size // 64) + "y" * (size % 64)


def _real(home: Home, line: str) -> tuple[str, dict[str, int]]:
    """The real ls's lines, and the inode numbers of the real files by the lab's paths."""
    with home_folder() as folder:
        for name, (size, mode) in home.items():
            (folder / name).write_text(_text(size), encoding="utf-8")
            (folder / name).chmod(mode)
        config = folder / kubeconfig.NAME
        for path in [folder.parent, folder, folder / ".kube", config, *folder.iterdir()]:
            os.utime(path, (WHEN, WHEN))
        text = bash(folder, line, TZ="UTC", COLUMNS="80")
        # Read after ls: reading a folder moves its access time, which -u shows.
        inodes = {"/home": folder.parent.stat().st_ino, fs.HOME: folder.stat().st_ino}
        for path in folder.rglob("*"):
            inodes[f"{fs.HOME}/{path.relative_to(folder)}"] = path.lstat().st_ino
        return text, inodes


def _ours(home: Home, line: str) -> str:
    lab = LabSession.new("mig-single", seed=0)
    assert list(lab.world.state.files) == [kubeconfig.NAME, *HOME_FILES]
    for name, (size, mode) in home.items():
        lab.world.state.files[name] = _text(size)
        if mode != files.NEW_FILE_MODE:
            lab.world.state.modes[name] = mode
    return lab.run(line).output


def _comparable(text: str) -> list[str]:
    """Lines in order, stderr's first (two pipes here)."""
    lines = text.rstrip("\n").split("\n")
    errors = sorted(line for line in lines if line.startswith("ls: ") or line.startswith("Try "))
    return errors + [line for line in lines if line not in errors]


def _compare(home: Home, line: str) -> None:
    real, inodes = _real(home, line)
    with (
        patch.object(ls, "OWNER", "root"),
        patch.object(fs, "inode", lambda path: inodes.get(path, 2)),
    ):
        ours = _ours(home, line)
    assert _comparable(ours) == _comparable(real), (home, line)


@settings(max_examples=300, deadline=None)
@given(homes(), lines())
def test_ls_lists_the_home_folder_as_gnu_ls_lists_it(home: Home, line: str) -> None:
    _compare(home, line)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.text("abcdefghij._-0123456789", min_size=1, max_size=22).filter(
            lambda n: n not in (".", "..") and not n.startswith((".", "-"))
        ),
        unique=True,
        min_size=1,
        max_size=30,
    )
)
def test_ls_fills_80_columns_down_then_across_as_gnu_ls_does(names: list[str]) -> None:
    home = {name: (1, 0o644) for name in names}
    _compare(home, "ls -C | cat")


# A tree: folders (some empty, some hidden, one two deep) and files in them.
TREE_FOLDERS = ["d", "d/e", "docs", ".cfg", "d/.h"]
TREE_FILES = ["d/a.txt", "d/e/b", "docs/n.md", ".cfg/x", "d/.h/run.sh", "top"]
TREE_OPERANDS = ["", "", "d", "d/e", "d/", "./d/e/", "docs", "d/a.txt", "d/nope", "d/a.txt/"]
TREE_OPERANDS += ["d/e/..", ".cfg", "top/x", "~/d", "d/e/../../docs", "~/d/../top"]
Tree = tuple[list[str], dict[str, int], str]  # folders, files (path -> size), where ls runs


@st.composite
def trees(draw: st.DrawFn) -> Tree:
    folders = draw(st.lists(st.sampled_from(TREE_FOLDERS), unique=True, max_size=5))
    made = set(folders)
    for folder in list(made):  # a folder's parents are there too
        while "/" in folder:
            folder = folder.rsplit("/", 1)[0]
            made.add(folder)
    inside = [f for f in TREE_FILES if "/" not in f or f.rsplit("/", 1)[0] in made]
    chosen = draw(st.lists(st.sampled_from(inside), unique=True, max_size=4)) if inside else []
    where = draw(st.sampled_from(["", "", *sorted(made)]))
    return sorted(made), {f: draw(st.sampled_from(SIZES)) for f in chosen}, where


@st.composite
def tree_lines(draw: st.DrawFn) -> str:
    letters = draw(st.lists(st.sampled_from("aAlhrsdFpR1"), max_size=3))
    options = f"-{''.join(letters)} " if letters else ""
    operands = draw(st.lists(st.sampled_from(TREE_OPERANDS), max_size=2))
    ls = f"ls {options}{' '.join(operands)}".strip()
    return f'{ls} | cat; {ls} > /dev/null 2>&1; echo "[$?]"'


def _real_tree(tree: Tree, line: str) -> str:
    folders, sizes, where = tree
    with home_folder() as folder:
        for name in folders:
            (folder / name).mkdir(mode=0o755)
        for name, size in sizes.items():
            (folder / name).write_text(_text(size), encoding="utf-8")
        for path in [folder.parent, *folder.parent.rglob("*")]:
            os.utime(path, (WHEN, WHEN))
        return bash(folder, f"cd ./{where}; {line}", TZ="UTC", COLUMNS="80")


def _ours_tree(tree: Tree, line: str) -> str:
    folders, sizes, where = tree
    lab = LabSession.new("mig-single", seed=0)
    for name in folders:
        lab.world.state.folders.append(name)
    for name, size in sizes.items():
        lab.world.state.files[name] = _text(size)
    return lab.run(f"cd ./{where}; {line}").output


@settings(max_examples=200, deadline=None)
@given(trees(), tree_lines())
def test_ls_lists_folders_in_folders_as_gnu_ls_lists_them(tree: Tree, line: str) -> None:
    with patch.object(ls, "OWNER", "root"):
        ours = _ours_tree(tree, line)
    assert _comparable(ours) == _comparable(_real_tree(tree, line)), (tree, line)


def test_long_lines_line_up_their_columns_as_ls_does() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.world.state.files.update({"a": "x" * 3, "bb": "y" * 12000})
    assert lab.run("ls -la").output.splitlines() == [
        "total 44",
        "drwxr-xr-x 3 admin admin  4096 Nov 10 09:40 .",
        "drwxr-xr-x 3 root  root   4096 Nov 10 09:40 ..",
        "-rw-r--r-- 1 admin admin    16 Nov 10 09:40 .bash_aliases",
        "-rw-r--r-- 1 admin admin   220 Nov 10 09:40 .bash_logout",
        "-rw-r--r-- 1 admin admin  3771 Nov 10 09:40 .bashrc",
        "drwxr-xr-x 2 admin admin  4096 Nov 10 09:40 .kube",
        "-rw-r--r-- 1 admin admin   807 Nov 10 09:40 .profile",
        "-rw-r--r-- 1 admin admin     3 Nov 10 09:40 a",
        "-rw-r--r-- 1 admin admin 12000 Nov 10 09:40 bb",
    ]


# The host's own tree (simulators.lab.system_files) built for real: its folders, files and
# links (`bin -> usr/bin`, `etc/os-release -> ../usr/lib/os-release`), and ls run at its top as
# the lab's runs at `/`. The programs' sizes are made small to write (stat's size is all ls
# shows of them), /proc's files are written empty (ls shows them empty); operands below /root
# and -R are left out (this machine's root may read /root).
SYSTEM_OPERANDS = ["", "", ".", "bin", "bin/", "lib", "sbin", "lib64", "etc", "etc/", "usr"]
SYSTEM_OPERANDS += ["etc/os-release", "etc/resolv.conf", "etc/hosts", "usr/local/bin", "proc"]
SYSTEM_OPERANDS += ["bin/cat", "bin/../etc", "nope", "etc/os-release/", "run/systemd", "home"]
SYSTEM_OPERANDS += ["dev", "dev/null"]
SMALL_PROGRAM = 5000


@st.composite
def system_lines(draw: st.DrawFn) -> str:
    letters = draw(st.lists(st.sampled_from("AlhrtSsdFp1gon"), max_size=3))  # not -u: readlink
    # moves a link's access time
    options = f"-{''.join(letters)} " if letters else ""
    operands = draw(st.lists(st.sampled_from(SYSTEM_OPERANDS), max_size=2))
    ls = f"ls {options}{' '.join(operands)}".strip()
    return f'{ls} | cat; {ls} > /dev/null 2>&1; echo "[$?]"'


def _real_system(line: str) -> str:
    from simulators.lab import fs, system_files

    lab = LabSession.new("mig-single", seed=0)
    state = lab.world.state
    with home_folder() as home:
        top = home.parent / "root"  # beside the home folder: cleaned up with it
        made = [top]
        for folder in sorted(fs.folders(state)):
            there = top / folder.lstrip("/")
            there.mkdir(parents=True, exist_ok=True)
            there.chmod(fs.mode_of(state, folder))
            made.append(there)
        for link, target in system_files.LINKS.items():
            (top / link.lstrip("/")).symlink_to(target)
            made.append(top / link.lstrip("/"))
        texts = {**{p: f.text for p, f in system_files.FILES.items()}, **fs.files_of(state)}
        for name in [*texts, *system_files.programs()]:
            there = top / name.lstrip("/")
            device = fs.device(name)
            if device is not None:  # /dev/null: the character device itself (root makes it)
                os.mknod(there, 0o600 | stat.S_IFCHR, os.makedev(*device))
                there.chmod(fs.mode_of(state, name))
                made.append(there)
                continue
            size = fs.size(state, name) if name in texts else SMALL_PROGRAM
            there.write_text(texts.get(name, "x" * size)[:size], encoding="utf-8")
            there.chmod(fs.mode_of(state, name))
            made.append(there)
        top.chmod(0o755)
        for there in made:
            os.utime(there, (WHEN, WHEN), follow_symlinks=False)
        return bash(top, line, TZ="UTC", COLUMNS="80")


@settings(max_examples=80, deadline=None)
@given(system_lines())
def test_ls_lists_the_hosts_own_files_and_links_as_gnu_ls_lists_them(line: str) -> None:
    from simulators.lab import system_files

    if os.geteuid() != 0:
        pytest.skip("only root makes a character device for /dev/null")

    small = {name: SMALL_PROGRAM for name in system_files.SIZES}
    with (
        patch.object(ls, "OWNER", "root"),
        patch.dict(system_files.SIZES, small),
        patch.object(system_files, "DEFAULT_SIZE", SMALL_PROGRAM),
        patch.object(system_files, "_programs", (-1, {})),
    ):
        lab = LabSession.new("mig-single", seed=0)
        ours = lab.run(f"cd /; {line}").output
    assert _comparable(ours) == _comparable(_real_system(line)), line
