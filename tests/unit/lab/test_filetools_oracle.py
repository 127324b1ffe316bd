"""The admin host's rm, cp, mv, touch and chmod against this machine's coreutils 9.1: generated
sequences of them (with their usual options, missing files, the home folder as a target,
symbolic and octal modes, bad modes and missing operands) print the same lines, end with the
same statuses and leave the same files, sizes and permissions (`ls -l`), run by bash 5.2 in a
folder of its own. The generator knows the tools' manuals, not the implementation.

Left out of the comparison, each with a named test below: -i's questions (the real tools
print them without a newline), and paths outside the home folder (the lab has no other
folder to write to, and says so)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession, kubeconfig
from tests.unit.lab.real_host import bash, home_folder

NAMES = ["a", "b", "c.sh", "nope", "./a", "~/b"]
FOLDERS = [".", "~", "./"]
MODES = [
    "755", "644", "0", "600", "1777", "4755", "+x", "-x", "u+x", "g-w", "o=r", "a=rw",
    "u=rwx,go=rx", "+X", "g+s", "u-s", "=", "o=u", "g+w,o-r", "-w", "ug+rw", "+t", "zz", "8",
    "=x", "go=", "a-x,u+x",
]  # fmt: skip


@st.composite
def commands(draw: st.DrawFn) -> str:
    def names(low: int = 1, high: int = 2) -> str:
        return " ".join(draw(st.lists(st.sampled_from(NAMES), min_size=low, max_size=high)))

    kind = draw(st.sampled_from(["touch", "write", "rm", "cp", "mv", "chmod", "bare"]))
    if kind == "touch":
        return f"touch {draw(st.sampled_from(['', '-c ']))}{names()}"
    if kind == "write":
        op = draw(st.sampled_from([">", ">>"]))
        return f"printf '{draw(st.sampled_from(['x', 'hello', 'a b']))}\\n' {op} {names(1, 1)}"
    if kind == "rm":
        flags = draw(st.sampled_from(["", "-f ", "-v ", "-r ", "-rf ", "-fv "]))
        operands = names(0, 2)
        if draw(st.booleans()):
            # Not `rm -r ~`: root, who runs these tools here, may remove the folder itself.
            operands += " " + draw(st.sampled_from(["."] if "r" in flags else [".", "~"]))
        return f"rm {flags}{operands}"
    if kind in ("cp", "mv"):
        flags = draw(st.sampled_from(["", "-v ", "-n ", "-f "] + (["-p "] if kind == "cp" else [])))
        target = draw(st.sampled_from(NAMES + FOLDERS))
        return f"{kind} {flags}{names(0, 2)} {target}"
    if kind == "chmod":
        flags = draw(st.sampled_from(["", "-v ", "-c ", "-f "]))
        return f"chmod {flags}{draw(st.sampled_from(MODES))} {names(0, 2)}"
    return draw(st.sampled_from(["cp", "mv", "rm", "touch", "chmod", "chmod 755", "cp a"]))


def _listing() -> str:
    # Permissions, size and name of each file: what the sequence left.
    return "ls -l | tail -n +2 | awk '{print $1, $5, $NF}'"


def _script(lines: list[str]) -> str:
    return "; ".join(f'{line}; echo "[$?]"' for line in lines) + "; " + _listing()


def _real(script: str) -> str:
    with home_folder() as home:
        return bash(home, f"umask 022; {script}", LC_ALL="C.UTF-8")


def _ours(script: str) -> str:
    lab = LabSession.new("mig-single", seed=0)
    assert list(lab.world.state.files) == [kubeconfig.NAME]  # as the real tools' folder
    return lab.run(script).output


def _sorted_lines(text: str) -> list[str]:
    # bash's stderr and stdout come through two pipes here: compare the lines, not their order.
    return sorted(line for line in text.split("\n") if line)


@settings(max_examples=250, deadline=None)
@given(st.lists(commands(), min_size=1, max_size=6))
def test_file_commands_print_end_and_leave_the_files_as_coreutils_does(lines: list[str]) -> None:
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


def test_paths_outside_the_home_folder_are_refused_in_one_line() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("touch a")
    assert lab.run("cp a /tmp/a").output == (
        "cp: '/tmp/a': only the home folder (/home/admin) can be changed in this lab"
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
