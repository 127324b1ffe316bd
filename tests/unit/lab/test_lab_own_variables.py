"""bash's own readonly variables on the admin host (EUID, UID, PPID, BASHOPTS, SHELLOPTS) and
`${x@P}` with what depends on the host (admin on kadmin), in bash 5.2's words; the rest is
compared with the real bash in tests/unit/lab/test_shell_variables_oracle.py."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from simulators.lab.environment import DEFAULT_VARIABLES, SHELL_VARIABLES, ShellState
from tests.unit.lab.shell_helpers import out, sh


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_euid_and_uid_are_admins_integers_and_readonly(lab: LabSession) -> None:
    assert out(lab, "echo $EUID $UID $PPID; declare -p EUID UID PPID") == (
        '1000 1000 4241\ndeclare -ir EUID="1000"\ndeclare -ir UID="1000"\ndeclare -ir PPID="4241"'
    )
    assert sh(lab, "EUID=0; echo next") == ("bash: EUID: readonly variable", 1)
    assert sh(lab, "unset UID; echo $?") == (
        "bash: unset: UID: cannot unset: readonly variable\n1",
        0,
    )


def test_shellopts_follows_set_o_and_is_readonly(lab: LabSession) -> None:
    assert out(lab, "echo $SHELLOPTS") == (
        "braceexpand:emacs:hashall:histexpand:history:interactive-comments:monitor"
    )
    assert out(lab, "set -o pipefail -u; echo $SHELLOPTS; set +o pipefail +u") == (
        "braceexpand:emacs:hashall:histexpand:history:interactive-comments:monitor:nounset:pipefail"
    )
    assert out(lab, "(set -e; echo $SHELLOPTS); echo $SHELLOPTS") == (
        "braceexpand:emacs:errexit:hashall:histexpand:history:interactive-comments:monitor\n"
        "braceexpand:emacs:hashall:histexpand:history:interactive-comments:monitor"
    )
    assert sh(lab, "SHELLOPTS=x") == ("bash: SHELLOPTS: readonly variable", 1)
    assert out(lab, "declare -p BASHOPTS").startswith('declare -r BASHOPTS="checkwinsize:')


def test_own_variables_are_not_exported_nor_counted_against_the_limit(lab: LabSession) -> None:
    assert out(lab, "env | grep -c -e UID -e OPTS -e PPID") == "0"
    # The login's own (BASH, BASH_VERSION, the prompts) are ordinary variables: they count.
    assert ShellState().names() == len(DEFAULT_VARIABLES) + len(SHELL_VARIABLES)


def test_a_saved_shell_keeps_them_out_and_gets_them_back_readonly() -> None:
    saved = ShellState().to_json()
    assert not {"EUID", "SHELLOPTS"} & {*saved["variables"], *saved["attributes"]}
    saved["options"] = ["braceexpand", "errexit"]
    state = ShellState.from_json(saved)
    assert state.variables["EUID"] == "1000" and state.attributes["EUID"] == "ir"
    assert state.variables["SHELLOPTS"] == "braceexpand:errexit"


def test_a_new_bash_has_them_too(lab: LabSession) -> None:
    assert out(lab, "bash -c 'echo $EUID; declare -p UID'") == '1000\ndeclare -ir UID="1000"'


def test_prompt_expansion_shows_admin_on_kadmin_and_the_folder(lab: LabSession) -> None:
    assert out(lab, "PS1='\\u@\\h:\\w\\$ '; echo \"${PS1@P}\"") == "admin@kadmin:~$ "
    assert out(lab, "mkdir -p d/e; cd d/e; x='\\w|\\W|\\H'; echo \"${x@P}\"") == ("~/d/e|e|kadmin")
    assert out(lab, 'cd /; echo "${x@P}"; cd /tmp; echo "${x@P}"; cd') == (
        "/|/|kadmin\n/tmp|tmp|kadmin"
    )
    assert out(lab, "x='\\V \\d'; echo \"${x@P}\"") == "5.2.15 \\d"


def test_integer_variables_take_arithmetic_from_read_and_export(lab: LabSession) -> None:
    assert out(lab, 'declare -i n; read n <<< "2+3"; echo $n') == "5"
    assert out(lab, "declare -i m; export m=4*2; echo $m") == "8"


def test_the_prompts_w_shortens_the_home_that_home_names_now(lab: LabSession) -> None:
    assert out(lab, "x='\\w'; HOME=/etc; cd /etc; echo \"${x@P}\"") == "~"
    assert out(lab, 'mkdir -p /tmp/h/d; HOME=/tmp/h; cd /tmp/h/d; echo "${x@P}"') == "~/d"
    assert out(lab, 'HOME=/; cd /; echo "${x@P}"; HOME=; cd /tmp; echo "${x@P}"') == "/\n/tmp"
