"""The admin host's /dev/null as a real host has it: a character device (1, 3) every user may
read and write, which every tool writes to and which keeps nothing (simulators.lab.fs.store),
compared with this machine's coreutils, sed, find and bash run as an unprivileged user (the
lab's admin is not root); and the programs in /usr/bin run by their paths, and their sizes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from simulators.lab import LabSession, system_files

PROBE = "/tmp/.lab-null-probe"
# Each line's stdout, stderr and status, as the admin (uid 1000) or `nobody` sees them.
LINES = [
    "echo x | tee /dev/null; echo $?",
    "echo x | tee -a /dev/null; echo $?",
    "cp /etc/hostname /dev/null; echo $?",
    "cp -p /etc/hostname /dev/null; echo $?",
    "cp -a /etc/hostname /dev/null; echo $?",
    "touch /dev/null; echo $?",
    "sort -o /dev/null /etc/hostname; echo $?",
    "sed -i s/a/b/ /dev/null; echo $?",
    "sed -n p /etc/hostname > /dev/null; echo $?",
    "awk '{print > \"/dev/null\"}' /etc/hostname; echo $?",
    f"echo a > {PROBE}; mv {PROBE} /dev/null; echo $?; rm -f {PROBE}",
    "rm -f /dev/null; echo $?",
    "chmod 600 /dev/null; echo $?",
    "[ -f /dev/null ]; echo $?; [ -c /dev/null ]; echo $?; [ -w /dev/null ]; echo $?",
    "wc -c /dev/null; cat /dev/null | wc -c; head -c 5 /dev/null | wc -c",
    "find /dev/null -type c; find /dev/null -type f; find /dev/null -xtype c",
    r"find /dev/null -printf '%y %M %s %k\n'",
    "ls -l /dev/null | cut -c1-10",
]


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def _real(line: str) -> str:
    """bash -c `line` as `nobody`, stdout and stderr as they come."""
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-c", line],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
        check=False,
        timeout=20,
    )
    return done.stdout.rstrip("\n")


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root to become nobody"
)
@pytest.mark.parametrize("line", LINES)
def test_every_tool_writes_to_dev_null_as_coreutils_do_for_a_user_who_is_not_root(
    line: str,
) -> None:
    if PROBE in line:
        subprocess.run(["rm", "-f", PROBE], check=True)  # a file root left there
    assert LabSession.new("mig-single", seed=0).run(line).output == _real(line)


def test_ls_l_shows_dev_null_as_the_character_device_1_3_root_owns(lab: LabSession) -> None:
    assert re.fullmatch(
        r"crw-rw-rw- 1 root root 1, 3 \w{3} [ \d]\d \d\d:\d\d /dev/null",
        lab.run("ls -l /dev/null").output,
    )
    assert lab.run("ls -ls /dev | tail -1").output.startswith("0 crw-rw-rw- 1 root root 1, 3 ")
    assert " 1,   3 " in lab.run("find /dev/null -ls").output


def test_what_tools_write_to_dev_null_is_gone_and_no_file_is_made(lab: LabSession) -> None:
    before = dict(lab.world.state.files)
    lab.run("kubectl get nodes -o yaml | tee /dev/null >/dev/null; cp /etc/hosts /dev/null")
    written = "sort -o /dev/null /etc/passwd && touch /dev/null && echo x | tee -a /dev/null"
    assert lab.run(f"{written} >/dev/null && echo written").output == "written"
    assert lab.world.state.files == before
    assert lab.run("cat /dev/null | wc -c").output == "0"


def test_sudo_runs_by_its_path_and_from_xargs_and_find_as_by_its_name(lab: LabSession) -> None:
    assert lab.run("/usr/bin/sudo cat /etc/hostname").output == "kadmin"
    assert lab.run("/bin/sudo -n whoami").output == lab.run("sudo -n whoami").output
    assert lab.run("echo /etc/hostname | xargs sudo cat").output == "kadmin"
    assert lab.run(r"find /etc/hostname -exec sudo cat {} \;").output == "kadmin"
    assert lab.run("/usr/bin/sudo bash").output == "sudo: a root shell is not available in this lab"


def test_every_program_with_a_path_runs_by_that_path_as_by_its_name(lab: LabSession) -> None:
    from simulators.lab import commands

    for name, path in commands.PATHS.items():
        result = lab.run(f"{path} --version < /dev/null")
        assert "not available here" not in result.output, name


def test_wc_c_of_a_program_is_its_size_in_ls_l_and_reading_it_gives_its_elf_header(
    lab: LabSession,
) -> None:
    size = system_files.SIZES["kubectl"]
    assert lab.run("ls -l /usr/local/bin/kubectl").output.split()[4] == str(size)
    assert lab.run("wc -c /usr/local/bin/kubectl").output == f"{size} /usr/local/bin/kubectl"
    assert lab.run("head -c 4 /usr/bin/ls | tail -c 3").output == "ELF"
    assert lab.run("head -c 64 /usr/bin/ls | wc -c").output == "64"
    assert lab.run("find /usr/local/bin -name kubectl -size +50M").output == (
        "/usr/local/bin/kubectl"
    )
    assert lab.run("wc -c /proc/cpuinfo").output.split()[0] != "0"  # read: stat says 0
