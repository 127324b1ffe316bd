"""`-v NAME` (and `-R NAME`) as one more unary operator of `test`, `[` and `[[`, so it joins
`&&`, `||`, `-a`, `-o`, `!` and parentheses as bash 5.2's does (each expected status taken
from /bin/bash 5.2: `env -i bash --norc --noprofile -c '...'`)."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.shell_helpers import out, sh


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("x=1; [[ -v x && -n $x ]]; echo $?", "0"),
        ("[[ -v x && -n $x ]]; echo $?", "1"),
        ("a=(1 2); [[ ! -v a[1] || -v b ]]; echo $?", "1"),
        ("a=(1); [[ ! -v a[1] || -v b ]]; echo $?", "0"),
        ("a=(1); b=2; [[ ! -v b || -v a[0] ]]; echo $?", "0"),
        ("x=1; y=; test -v x -a -v y; echo $?", "0"),
        ("x=1; test -v x -a -v y; echo $?", "1"),
        ("x=1; [ -v x -o -v y ]; echo $?", "0"),
        ("x=1; [ ! -v x ]; echo $?", "1"),
        ("x=1; [[ ( -v x ) && ! ( -v y ) ]]; echo $?", "0"),
        ("x=1; test \\( -v x \\) -a ! -v y; echo $?", "0"),
        ("a=(1 2); i=0; [[ -v a[i+1] ]]; echo $?", "0"),
        ("declare -A m=([k]=v); [[ -v m[k] && ! -v m[j] ]]; echo $?", "0"),
        ("test -v; echo $?", "0"),
        ("[ -v ]; echo $?", "0"),
        ("x=1; command test -v x -a -v x; echo $?", "0"),
        ("declare -n r=x; x=1; [[ -R r ]]; echo $?; [[ -R x ]]; echo $?", "0\n1"),
    ],
)
def test_v_is_a_unary_operator_inside_compound_conditions(
    lab: LabSession, line: str, expected: str
) -> None:
    assert out(lab, line) == expected


def test_a_v_among_a_commands_arguments_is_only_an_argument(lab: LabSession) -> None:
    # Not a test: echo prints its `-v` and the rest as they are.
    assert sh(lab, "echo -v x") == ("-v x", 0)


def test_test_v_with_too_many_arguments_is_bashs_refusal(lab: LabSession) -> None:
    assert sh(lab, "x=1; test -v x = -v") == ("bash: test: too many arguments", 2)


def test_o_asks_whether_an_option_of_set_o_is_on(lab: LabSession) -> None:
    assert lab.run("[[ -o pipefail ]]; echo $?").output == "1"
    lab.run("set -o pipefail")
    assert lab.run("[[ -o pipefail && ! -o errexit ]]; echo $?").output == "0"
    assert lab.run("test -o pipefail -a -o history; echo $?").output == "0"
    assert lab.run("[ -o no-such-option ]; echo $?").output == "1"
    lab.run("set +o pipefail")
    assert lab.run("test -o pipefail; echo $?").output == "1"
    assert lab.run('test x -o ""; echo $?').output == "0"  # -o between two tests: or
