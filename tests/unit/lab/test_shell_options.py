"""bash's `set` on the admin host: generated scripts run under `set -e`, `set -u` and
`set -o pipefail` against this machine's bash 5.2, and the listings and refusals."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from tests.unit.lab.test_shell_compound_oracle import bodies, run_bash


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def _bash_lines(script: str) -> list[str]:
    """bash's stdout and stderr lines, its `bash: line 1: ` said as an interactive bash does."""
    done = run_bash(script)
    text = done.stdout + done.stderr.replace("bash: line 1: ", "bash: ")
    return sorted(line for line in text.split("\n") if line)


@settings(max_examples=250, deadline=None)
@given(
    start=st.sampled_from(["x=a", "x=b", "x='c d'", "x="]),
    options=st.sampled_from(["-e", "-u", "-o pipefail", "-eu", "-euo pipefail", "-e +e"]),
    body=bodies(1, False),
    tail=st.sampled_from(["", "; false | true", "; false; echo after", "; ! false", "; echo $v"]),
)
def test_scripts_under_set_options_end_and_print_as_bashs_do(
    start: str, options: str, body: str, tail: str
) -> None:
    # Left out: `[[ ]]` expands all its words before it tests, so `set -u` stops at an unset
    # one that bash's `||` and `&&` inside it would not reach.
    assume(not ("u" in options and "[[" in body))
    line = f'{start}; ( set {options}; {body}{tail}; echo "inner $?" ); echo "status $?"'
    lab = LabSession.new("mig-single", seed=0)
    ours = sorted(line for line in lab.run(line).output.split("\n") if line)
    assert ours == _bash_lines(line), line


def test_set_o_lists_an_interactive_logins_options(lab: LabSession) -> None:
    listing = lab.run("set -o pipefail; set -o").output.split("\n")
    assert "pipefail       \ton" in listing
    assert "emacs          \ton" in listing
    assert "xtrace         \toff" in listing
    assert lab.run("set +o | head -2").output == "set +o allexport\nset -o braceexpand"
    assert "xtrace         \ton" in lab.run("set -x; set -o").output


def test_an_option_the_lab_does_not_do_is_refused_in_one_line(lab: LabSession) -> None:
    assert lab.run("set -a; echo $?").output == "bash: set: allexport: not available in this lab\n1"
    assert lab.run("set -o emacs; echo $?").output == "0"  # already on: nothing to do
    assert lab.run("set -o bogus; echo $?").output == "bash: set: bogus: invalid option name\n2"


def test_set_dash_dash_sets_the_positional_parameters(lab: LabSession) -> None:
    assert lab.run('set -- a "b c"; echo "$# [$2]"').output == "2 [b c]"


def test_the_options_are_kept_with_the_lab(lab: LabSession) -> None:
    lab.run("set -o pipefail")
    restored = LabSession.from_json(lab.encode())
    assert restored.run("false | true; echo $?").output == "1"
