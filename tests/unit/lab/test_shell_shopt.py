"""`shopt`'s options as the lab keeps them (beside tests/unit/lab/test_shopt_oracle.py, which
holds the lab to bash): with the lab, in a new bash, in refusals; and the login's own
variables (BASH, BASH_VERSION, the prompts) beside them."""

from __future__ import annotations

import re

from simulators.lab import LabSession
from simulators.lab.environment import DEFAULT_SHOPTS, ShellState


def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_options_set_are_kept_with_the_lab_and_bashopts_follows_them() -> None:
    first = lab()
    first.run("shopt -s nullglob globstar failglob; shopt -u failglob; set -C")
    again = LabSession.from_json(first.encode())
    assert again.run("shopt -p nullglob globstar failglob").output == (
        "shopt -s nullglob\nshopt -s globstar\nshopt -u failglob"
    )
    assert again.run("echo x *.none y").output == "x y"
    bashopts = again.run("echo $BASHOPTS").output.split(":")
    assert "nullglob" in bashopts and "globstar" in bashopts and "failglob" not in bashopts
    assert again.run("echo a > f; echo b > f").output == "bash: f: cannot overwrite existing file"


def test_a_lab_saved_before_shopt_starts_with_the_logins_options_and_variables() -> None:
    saved = ShellState().to_json()
    assert "shopts" not in saved and "PS1" not in saved["variables"]  # the login's: not saved
    state = ShellState.from_json(saved)
    assert state.shopts == list(DEFAULT_SHOPTS)
    assert state.variables["BASH_VERSION"] == "5.2.15(1)-release"
    assert ShellState.from_json({**saved, "shopts": []}).shopts == []  # all turned off


def test_a_login_variable_changed_or_unset_stays_so() -> None:
    shell = lab()
    shell.run("PS4='>> '; unset PS1 BASH")
    again = LabSession.from_json(shell.encode())
    assert again.run('echo "[$PS4][${PS1-unset}][${BASH-unset}][$PS2]"').output == (
        "[>> ][unset][unset][> ]"
    )


def test_a_new_bash_has_its_own_options_and_the_callers_come_back_after_it() -> None:
    shell = lab()
    shell.run("shopt -s nullglob; printf 'shopt -p nullglob extglob; shopt -s dotglob\\n' > s")
    assert shell.run("bash s").output == "shopt -u nullglob\nshopt -u extglob"
    assert shell.run("shopt -p nullglob extglob dotglob").output == (
        "shopt -s nullglob\nshopt -s extglob\nshopt -u dotglob"
    )


def test_an_option_the_lab_does_not_do_is_refused_in_one_line_and_bashs_own_stay_silent() -> None:
    shell = lab()
    refused = shell.run("shopt -s autocd")
    assert (refused.output, refused.exit_code) == (
        "bash: shopt: autocd: not available in this lab",
        1,
    )
    assert shell.run("shopt -s extglob; echo $?").output == "0"  # on already: nothing to do
    assert shell.run("shopt -u login_shell; shopt login_shell").output == "login_shell    \ton"


def test_the_login_says_which_bash_it_is_and_ps1_gives_the_prompt_the_terminal_shows() -> None:
    shell = lab()
    assert shell.run('echo "$BASH $BASH_VERSION"').output == "/bin/bash 5.2.15(1)-release"
    shell.run("cd /tmp")
    # .bashrc's PS1 for this xterm: the window's title, then the prompt in colours, which the
    # terminal shows without them.
    shown = shell.run('echo "${PS1@P}"').output
    assert shown.startswith("\x1b]0;admin@kadmin: /tmp\x07")
    assert re.sub(r"\x1b\](.*?)\x07|\x1b\[[0-9;]*m", "", shown) == shell.prompt
    assert shell.prompt == "admin@kadmin:/tmp$ "
    assert shell.run('echo "[$PS2][$PS4]"').output == "[> ][+ ]"
    script = "printf 'echo \"$BASH_VERSION ${PS1-none} $PS4\"\\n' > /tmp/v; bash /tmp/v"
    assert shell.run(script).output == "5.2.15(1)-release none + "
    assert "PS1" not in shell.run("env").output  # a login's prompts are not exported


def test_dollar_dash_holds_the_options_letters_as_an_interactive_login_has_them() -> None:
    shell = lab()
    assert shell.run("echo $-").output == "himBHs"  # bash 5.2 at an ssh login's prompt
    assert shell.run("set -eufC; echo $-; set +eufC").output == "efhimuBCHs"
    assert shell.run("bash -xc 'echo $-' 2>/dev/null").output == "hxBc"  # a new bash's


def test_a_new_bash_starts_with_its_own_set_options_not_the_callers() -> None:
    shell = lab()
    ran = shell.run("set -u -o pipefail; bash -c 'echo ${nothing}x; false | true; echo $?'")
    assert ran.output == "x\n0"
    assert shell.run("echo $SHELLOPTS | grep -c pipefail").output == "1"  # the caller's stay
