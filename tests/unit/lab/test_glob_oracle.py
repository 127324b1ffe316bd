"""Pathname expansion on the admin host against bash 5.2: generated patterns (stars, question
marks, brackets, leading dots, the hidden `.kube` folder, `~/` and `./` prefixes) over a home
folder with plain and dot files expand to the same words as bash run in a folder holding the
same files (LC_ALL=C: names sorted bytewise, as `ls` sorts them in the lab). A dot file is
matched only by a pattern that starts with a dot, and `.*` never gives `.` or `..` (bash 5.2's
globskipdots)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession, kubeconfig
from simulators.lab.home_files import HOME_FILES
from tests.unit.lab.real_host import bash, home_folder

FILES = ["a.yaml", "b.yaml", ".hidden", ".x1", "notes", "B"]
PIECES = ["*", "?", ".", ".*", "[ab]", "[!a]", "[.]", "k", "y", ".k", "x", "a", "yaml", "*."]
PREFIXES = ["", "", "~/", "./"]


@st.composite
def patterns(draw: st.DrawFn) -> str:
    body = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=3)))
    if draw(st.integers(0, 4)) == 0:
        body = draw(st.sampled_from([".kube", ".*", "*", ".k*", "?kube"])) + "/" + body
    return draw(st.sampled_from(PREFIXES)) + body


def _real(words: str) -> str:
    with home_folder() as home:
        for name in FILES:
            (home / name).write_text("x\n", encoding="utf-8")
        return bash(home, f"echo {words}").rstrip("\n")


def _ours(words: str) -> str:
    lab = LabSession.new("mig-single", seed=0)
    assert list(lab.world.state.files) == [
        kubeconfig.NAME,
        *HOME_FILES,
    ]  # as the real folder starts
    lab.run("; ".join(f"echo x > {name}" for name in FILES))
    return lab.run(f"echo {words}").output


@settings(max_examples=300, deadline=None)
@given(st.lists(patterns(), min_size=1, max_size=3))
def test_patterns_expand_to_what_bash_expands_them_to(words: list[str]) -> None:
    line = " ".join(words)
    assert _ours(line) == _real(line), line


DOTS = [".bash_aliases", ".bash_logout", ".bashrc", ".hidden", ".kube", ".profile", ".x1"]


def test_dot_star_lists_the_hidden_folder_and_never_dot_or_dot_dot() -> None:
    assert (
        _ours(".* ~/.*")
        == _real(".* ~/.*")
        == ".bash_aliases .bash_logout .bashrc .hidden .kube .profile .x1 "
        + " ".join(f"/home/admin/{name}" for name in DOTS)
    )


TREE_FOLDERS = ["d", "d/e", "docs", ".cfg"]
TREE_FILES = ["d/a.yaml", "d/e/b.yaml", "docs/n.md", ".cfg/x", "top.yaml", "d/e/.h"]
TREE_PIECES = ["*", "*/", "*/*", "d", "d*", "?", "*.yaml", "e", ".*", "d/..", "[de]*", "docs"]


@st.composite
def tree_patterns(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(TREE_PIECES), min_size=1, max_size=3))
    start = draw(st.sampled_from(["", "", "./", "~/", "d/../"]))
    return start + "/".join(p.rstrip("/") for p in parts) + ("/" if parts[-1].endswith("/") else "")


def _real_tree(where: str, words: str) -> str:
    with home_folder() as home:
        for name in TREE_FOLDERS:
            (home / name).mkdir()
        for name in TREE_FILES:
            (home / name).write_text("x\n", encoding="utf-8")
        return bash(home, f"cd ./{where}; echo {words}").rstrip("\n")


def _ours_tree(where: str, words: str) -> str:
    lab = LabSession.new("mig-single", seed=0)
    lab.world.state.folders.extend(TREE_FOLDERS)
    lab.world.state.files.update({name: "x\n" for name in TREE_FILES})
    return lab.run(f"cd ./{where}; echo {words}").output


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["", "d", "d/e"]), st.lists(tree_patterns(), min_size=1, max_size=2))
def test_patterns_walk_folders_as_bash_walks_them(where: str, words: list[str]) -> None:
    line = " ".join(words)
    assert _ours_tree(where, line) == _real_tree(where, line), (where, line)
