"""Who and where the learner is on kadmin, and the commands an admin prefixes: sudo, command,
ssh."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.test_shell_compound_oracle import _bash


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_whoami_id_hostname_and_uname_describe_admin_on_kadmin(lab: LabSession) -> None:
    assert lab.run("whoami; hostname; id -un; id -u; id -Gn").output == (
        "admin\nkadmin\nadmin\n1000\nadmin sudo"
    )
    assert lab.run("id").output == "uid=1000(admin) gid=1000(admin) groups=1000(admin),27(sudo)"
    assert lab.run("uname -a").output == (
        "Linux kadmin 5.15.0-126-generic #136-Ubuntu SMP Wed Nov 6 10:38:22 UTC 2024"
        " x86_64 x86_64 x86_64 GNU/Linux"
    )
    # -a's order whatever the options' order, as coreutils prints them.
    assert lab.run("uname -r -s; uname").output == "Linux 5.15.0-126-generic\nLinux"


def test_their_refusals_are_coreutils_lines(lab: LabSession) -> None:
    assert lab.run("whoami x; echo $?").output == (
        "whoami: extra operand \u2018x\u2019\nTry 'whoami --help' for more information.\n1"
    )
    assert lab.run("uname -z").output == (
        "uname: invalid option -- 'z'\nTry 'uname --help' for more information."
    )
    assert lab.run("id zz").output == "id: \u2018zz\u2019: no such user"
    assert lab.run("hostname gpu-node1").output == (
        "hostname: you must be root to change the host name"
    )


def test_sudo_runs_the_command_and_refuses_a_root_shell(lab: LabSession) -> None:
    assert lab.run("sudo kubectl get nodes -o name | head -1").output == "node/gpu-node1"
    assert lab.run("sudo -E kubectl get nodes -o name | wc -l").output == "3"
    assert lab.run("sudo -i").output == "sudo: a root shell is not available in this lab"
    # sudo expands no alias: `k` is no program.
    assert lab.run("sudo k get nodes; echo $?").output == "sudo: k: command not found\n1"


@pytest.mark.parametrize("line", ["command -v echo cd nope; echo $?", "command echo hi"])
def test_command_finds_and_runs_commands_as_bash(lab: LabSession, line: str) -> None:
    assert lab.run(line).output == _bash(line)


def test_command_v_says_how_a_name_would_run(lab: LabSession) -> None:
    assert lab.run("command -v kubectl k").output == "/usr/local/bin/kubectl\nalias k='kubectl'"


def test_ssh_to_a_node_says_where_its_tools_run(lab: LabSession) -> None:
    assert lab.run("ssh admin@gpu-node1 nvidia-smi; echo $?").output == (
        "ssh: gpu-node1: the lab's nodes take no logins; run a node's tools in its pods"
        " (kubectl exec -n gpu-operator ds/nvidia-driver-daemonset -- nvidia-smi)\n255"
    )
