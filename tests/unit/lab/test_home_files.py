"""The admin's own dot files (simulators.lab.home_files): Ubuntu's .bashrc, .profile and
.bash_logout and the admin's .bash_aliases are in every new home folder, and the login's
shell is what they make it, as this machine's bash makes it from the same .bashrc."""

from __future__ import annotations

import subprocess
from pathlib import Path

from simulators.lab import LabSession
from simulators.lab.home_files import BASHRC, HOME_FILES
from simulators.lab.world import HostState

# What the login's shell owes to .bashrc, as `alias` and `declare -p` print it.
SHOWN = "alias; declare -p PS1 HISTCONTROL HISTSIZE HISTFILESIZE"


def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_a_new_home_folder_holds_the_dot_files_ubuntu_gives_a_new_user() -> None:
    listing = lab().run("ls -la ~ | awk '{print $1, $5, $NF}'").output.splitlines()
    assert "-rw-r--r-- 3771 .bashrc" in listing
    assert "-rw-r--r-- 807 .profile" in listing
    assert "-rw-r--r-- 220 .bash_logout" in listing
    assert "-rw-r--r-- 16 .bash_aliases" in listing


def test_the_logins_aliases_and_prompt_are_what_bash_makes_of_the_same_bashrc(
    tmp_path: Path,
) -> None:
    for name, text in HOME_FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    real = subprocess.run(
        ["bash", "--norc", "--noprofile", "-i", "-c", f". ~/.bashrc; {SHOWN}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"HOME": str(tmp_path), "TERM": "xterm-256color", "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=20,
    ).stdout
    # This machine has dircolors, which the lab's host has not: its colour aliases aside.
    colour = ("alias ls=", "alias grep=", "alias fgrep=", "alias egrep=")
    expected = "\n".join(line for line in real.splitlines() if not line.startswith(colour))
    assert lab().run(SHOWN).output == expected


def test_sourcing_the_bashrc_again_makes_the_login_it_made() -> None:
    shell = lab()
    login = shell.run(SHOWN).output
    shell.run("unalias -a; unset PS1 HISTCONTROL HISTSIZE HISTFILESIZE")
    assert shell.run(SHOWN).output != login
    assert shell.run(f"source ~/.profile; {SHOWN}").output == login


def test_the_dot_files_are_saved_only_once_changed_and_a_removed_one_stays_removed() -> None:
    shell = lab()
    assert not set(HOME_FILES) & set(shell.world.state.to_json()["files"])
    shell.run("echo 'alias kgp=\"kubectl get pods\"' >> ~/.bash_aliases; rm ~/.bash_logout")
    saved = shell.world.state.to_json()
    assert set(saved["files"]) & set(HOME_FILES) == {".bash_aliases"}
    again = HostState.from_json(saved)
    assert again.files[".bash_aliases"].endswith('alias kgp="kubectl get pods"\n')
    assert ".bash_logout" not in again.files and again.files[".bashrc"] == BASHRC


def test_a_lab_saved_before_the_dot_files_gets_them() -> None:
    old = lab().world.state.to_json()
    del old["files"]  # as saved before: the kubeconfig alone, no word of dot files
    old["files"] = {".kube/config": lab().world.state.files[".kube/config"]}
    assert set(HOME_FILES) <= set(HostState.from_json(old).files)
