"""grep -r and -R on the admin host against this machine's GNU grep 3.8: generated searches of
the home folder (no operand, `.`, `./`, `~`, the hidden `.kube` folder with and without its
slash, files beside folders) with the options that shape what a recursive grep prints, run by
bash 5.2 in a folder holding the same files. The lines are compared as a set: fts walks a
folder in the order its file system keeps, which no two machines share (the lab's is name
order); the status exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from tests.unit.lab.real_host import bash, home_folder

SETUP = "printf 'gpu: 8\\nserver: a\\n' > job.yaml; printf 'nothing\\n' > notes.txt"
OPERANDS = ["", ".", "./", "~", ".kube", ".kube/", "~/.kube", "job.yaml", ".kube job.yaml", "nope"]
OPTIONS = ["", "-h", "-H", "-c", "-l", "-L", "-n", "-i", "-s", "-o", "-v", "-w", "-x"]


@st.composite
def searches(draw: st.DrawFn) -> str:
    recursive = draw(st.sampled_from(["-r", "-R", "--recursive", "-rn", "-ri", "-Rl", ""]))
    extra = draw(st.lists(st.sampled_from(OPTIONS), max_size=2, unique=True))
    pattern = draw(st.sampled_from(["server", "gpu", "Server", "a", "nothing", "zzz", "'^s'"]))
    operand = draw(st.sampled_from(OPERANDS))
    return " ".join(w for w in ["grep", recursive, *extra, pattern, operand] if w)


def lines(text: str) -> list[str]:
    return sorted(line for line in text.split("\n") if line)


@settings(max_examples=150, deadline=None)
@given(search=searches())
def test_a_recursive_grep_prints_the_lines_gnu_grep_prints(search: str) -> None:
    line = f'{search}; echo "status $?"'
    lab = LabSession.new("mig-single", seed=0)
    lab.run(SETUP)
    ours = lab.run(line).output
    with home_folder() as folder:
        theirs = bash(folder, f"{SETUP}; {line}")
    assert lines(ours) == lines(theirs), line


def test_a_folder_without_r_is_a_directory_and_with_it_its_files_are_named_after_it() -> None:
    lab = LabSession.new("mig-single", seed=0)
    assert lab.run("grep server .kube; echo $?").output == "grep: .kube: Is a directory\n2"
    assert lab.run("grep -r server").output.startswith(".kube/config:")
    assert lab.run("grep -r server .").output.startswith("./.kube/config:")
    assert lab.run("grep -rl server ~/.kube/").output == "/home/admin/.kube/config"
