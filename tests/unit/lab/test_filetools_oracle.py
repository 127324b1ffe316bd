"""The admin host's rm, cp, mv, touch, chmod, mkdir and rmdir against this machine's coreutils
9.1: generated sequences of them (with their usual options, missing files, nested paths, folders
made, removed, copied and moved, the home folder as a target, symbolic and octal modes, bad
modes and missing operands) print the same lines, end with the same statuses and leave the same
tree (each file's and folder's type, permissions and path, a file's size), run by bash 5.2 in a
folder of its own. The generator knows the tools' manuals, not the implementation.

The real tools run as root there, the lab's as `admin`: the draws keep to what both may do in
the folder. Folders are only ever named d, e or f (files a, b, c.sh, nope), so a folder's mode
keeps its owner's rwx (root would ignore it, the admin could not go on); `cp -r` never copies a
folder into itself (what the real cp copied before it noticed depends on the directory's order).
Left out, each with a named test below or in test_lab_folders.py: -i's questions (the real tools
print them without a newline), paths outside the folder, and permissions that stop the admin."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession, fs, kubeconfig
from simulators.lab.environment import HOME
from simulators.lab.home_files import HOME_FILES
from tests.unit.lab.real_host import bash, home_folder

FILES = ["a", "b", "c.sh", "nope", "./a", "~/b", "d/a", "d/e/b", "e/a", "./d//a"]
FOLDERS = ["d", "e", "f", "d/e", "e/d", "d/e/f", "./d/", "d//"]
PLACES = [".", "~", "./"]
MODES = [
    "755", "644", "0", "600", "1777", "4755", "+x", "-x", "u+x", "g-w", "o=r", "a=rw",
    "u=rwx,go=rx", "+X", "g+s", "u-s", "=", "o=u", "g+w,o-r", "-w", "ug+rw", "+t", "zz", "8",
    "=x", "go=", "a-x,u+x",
]  # fmt: skip
# Modes that leave a folder's owner rwx.
FOLDER_MODES = [
    "755", "700", "1777", "2755", "00755", "g-w", "+t", "o=t", "a=rwxt", "go=", "g+s", "o-r",
    "+w", "g=u", "u+x", "+X", "a-w,u+w", "u=rwx,g=rx", "-t", "g-s",
]  # fmt: skip
MKDIR_MODES = [
    "700", "1777", "2755", "g-w", "+t", "o=t", "a=rwxt", "go=", "u+s", "g+s", "o-r", "zz",
    "=rwx", "u=rwx,g=rx", "+X",
]  # fmt: skip


def _bare(path: str) -> str:
    """A drawn path as the folder's relative name (`./d//a` is `d/a`, `~` is ``)."""
    path = re.sub(r"/+", "/", path.replace("~", ".", 1))
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/".join(parts)


def _into_itself(sources: list[str], target: str) -> bool:
    goal = _bare(target)
    return any(goal == _bare(s) or goal.startswith(_bare(s) + "/") for s in sources)


@st.composite
def commands(draw: st.DrawFn) -> str:
    def some(pool: list[str], low: int = 1, high: int = 2) -> list[str]:
        return draw(st.lists(st.sampled_from(pool), min_size=low, max_size=high))

    def names(low: int = 1, high: int = 2, pool: list[str] = FILES) -> str:
        return " ".join(some(pool, low, high))

    def flags(*choices: str) -> str:
        return draw(st.sampled_from(["", *choices]))

    kinds = ["touch", "write", "rm", "cp", "mv", "chmod", "mkdir", "rmdir", "cp -r", "mv dir"]
    kind = draw(st.sampled_from([*kinds, "chmod dir", "bare"]))
    if kind == "touch":
        return f"touch {flags('-c ')}{names(pool=FILES + FOLDERS)}"
    if kind == "write":
        op = draw(st.sampled_from([">", ">>"]))
        return f"printf '{draw(st.sampled_from(['x', 'hello', 'a b']))}\\n' {op} {names(1, 1)}"
    if kind == "mkdir":
        mode = draw(st.sampled_from(["", *(f"-m {m} " for m in MKDIR_MODES)]))
        return f"mkdir {flags('-p ', '-v ', '-pv ', '--parents ')}{mode}{names(pool=FOLDERS)}"
    if kind == "rmdir":
        chosen = flags(
            "-p ", "-v ", "-pv ", "--ignore-fail-on-non-empty ", "-p --ignore-fail-on-non-empty "
        )
        return f"rmdir {chosen}{names(pool=FOLDERS + FILES[:2])}"
    if kind == "rm":
        chosen = flags("-f ", "-v ", "-r ", "-rf ", "-fv ", "-rv ", "-d ", "-dv ", "-R ")
        operands = names(0, 2, FILES + FOLDERS)
        if draw(st.booleans()):
            # Not `rm -r ~`: root, who runs these tools here, may remove the folder itself.
            operands += " " + draw(
                st.sampled_from(["."] if "r" in chosen or "R" in chosen else [".", "~"])
            )
        return f"rm {chosen}{operands}"
    if kind in ("cp", "mv"):
        chosen = flags("-v ", "-n ", "-f ", *(["-p "] if kind == "cp" else []))
        target = draw(st.sampled_from(FILES + FOLDERS + PLACES))
        return f"{kind} {chosen}{names(0, 2)} {target}"
    if kind == "cp -r":
        chosen = draw(st.sampled_from(["-r", "-R", "-a", "-rv", "-rn", "-rp", "-rf"]))
        sources = some(FOLDERS + FILES[:3], 1, 2)
        target = draw(st.sampled_from(FOLDERS + PLACES))
        if _into_itself(sources, target):
            target = "f"  # its own folder: see the module's docstring
            sources = [s for s in sources if _bare(s) != "f"] or ["d"]
        return f"cp {chosen} {' '.join(sources)} {target}"
    if kind == "mv dir":
        target = draw(st.sampled_from(FOLDERS + PLACES))
        return f"mv {flags('-v ', '-n ', '-f ')}{names(1, 2, FOLDERS)} {target}"
    if kind == "chmod":
        chosen = flags("-v ", "-c ", "-f ")
        return f"chmod {chosen}{draw(st.sampled_from(MODES))} {names(0, 2)}"
    if kind == "chmod dir":
        chosen = flags("-v ", "-c ", "-f ", "-R ", "-Rv ", "-Rc ")
        return f"chmod {chosen}{draw(st.sampled_from(FOLDER_MODES))} {names(1, 2, FOLDERS)}"
    return draw(
        st.sampled_from(
            ["cp", "mv", "rm", "touch", "chmod", "chmod 755", "cp a", "mkdir", "rmdir", "mkdir -p"]
        )
    )


# Each file's and folder's type, permissions and path, and a file's size: what the sequence
# left (the starting ~/.kube/config aside; a folder's size is the file system's).
_TREE = "find . -path ./.kube -prune -o -type d -printf 'd %m %p\\n' -o -printf '%y %m %p %s\\n'"


def _script(lines: list[str]) -> str:
    return "; ".join(f'{line}; echo "[$?]"' for line in lines)


def _real(script: str) -> str:
    with home_folder() as home:
        printed = bash(home, f"umask 022; {script}; {_TREE}", LC_ALL="C.UTF-8")
    return printed.replace("bash: line 1: ", "bash: ")  # as an interactive bash says it


def _ours(script: str) -> str:
    lab = LabSession.new("mig-single", seed=0)
    assert list(lab.world.state.files) == [
        kubeconfig.NAME,
        *HOME_FILES,
    ]  # as the real tools' folder
    printed = lab.run(script).output
    state = lab.world.state
    tree = [f"d {fs.mode_of(state, HOME):o} ."]
    for path in fs.walk(state, HOME):
        name = "./" + path[len(HOME) + 1 :]
        if name == "./.kube" or name.startswith("./.kube/"):
            continue
        mode = fs.mode_of(state, path)
        if fs.is_folder(state, path):
            tree.append(f"d {mode:o} {name}")
        else:
            tree.append(f"f {mode:o} {name} {len(state.files[fs.key(path)].encode())}")
    return printed + "\n" + "\n".join(tree)


def _sorted_lines(text: str) -> list[str]:
    # bash's stderr and stdout come through two pipes here, and the real tools walk a folder
    # in its directory's order: compare the lines, not their order.
    return sorted(line for line in text.split("\n") if line)


@settings(max_examples=500, deadline=None)
@given(st.lists(commands(), min_size=1, max_size=8))
def test_file_commands_print_end_and_leave_the_tree_as_coreutils_does(lines: list[str]) -> None:
    script = _script(lines)
    assert _sorted_lines(_ours(script)) == _sorted_lines(_real(script)), script


def test_a_script_made_executable_runs_by_its_path_and_not_before() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("""printf '#!/bin/bash\\necho "hi $1 from $0"\\nexit 3\\n' > check.sh""")
    denied = lab.run("./check.sh there; echo $?").output
    assert denied == "bash: ./check.sh: Permission denied\n126"
    lab.run("chmod +x check.sh")
    assert lab.run("./check.sh there; echo $?").output == "hi there from ./check.sh\n3"
    assert lab.run("ls -l check.sh").output.startswith("-rwxr-xr-x 1 admin admin")
    assert lab.run("~/check.sh x").output == "hi x from /home/admin/check.sh"


def test_a_script_for_another_interpreter_says_it_is_not_on_this_host() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("printf '#!/usr/bin/python3\\nprint(1)\\n' > p.py; chmod 755 p.py")
    assert lab.run("./p.py; echo $?").output == (
        "bash: ./p.py: /usr/bin/python3: bad interpreter: No such file or directory\n126"
    )


def test_rm_i_asks_and_takes_its_answer_from_stdin() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("echo x > a; echo y > b")
    assert lab.run("rm -i a").output == "rm: remove regular file 'a'? "
    assert lab.run("echo y | rm -i b; ls").output == "rm: remove regular file 'b'? \na"


def test_paths_outside_the_home_folder_are_written_in_tmp_and_denied_in_roots_folders() -> None:
    # Once "only the home folder (/home/admin) can be changed in this lab"; now as the user
    # admin on a real host (more in test_lab_folders.py).
    lab = LabSession.new("mig-single", seed=0)
    lab.run("touch a")
    assert lab.run("cp a /tmp/a; ls /tmp").output == "a"
    assert lab.run("cp a /etc/a").output == (
        "cp: cannot create regular file '/etc/a': Permission denied"
    )
    assert lab.run("rm -rf /").output == (
        "rm: it is dangerous to operate recursively on '/'\n"
        "rm: use --no-preserve-root to override this failsafe"
    )


def test_a_files_mode_survives_the_lab_being_saved_and_restored() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("echo 'echo ok' > run.sh; chmod 750 run.sh")
    restored = LabSession.from_json(lab.encode())
    assert restored.run("ls -l run.sh").output.startswith("-rwxr-x--- 1 admin admin")
    assert restored.run("./run.sh").output == "ok"
