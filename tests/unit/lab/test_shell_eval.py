"""bash's `eval` on the admin host (generated command lines run through it against this
machine's bash 5.2, and its limits), and what a function call and a script share."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from tests.unit.lab.test_shell_compound_oracle import _bash, bodies


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@settings(max_examples=200, deadline=None)
@given(
    start=st.sampled_from(["x=a", "x=b", "x='c d'", "x="]),
    script=bodies(0, False),
    split=st.booleans(),
)
def test_eval_runs_its_words_as_a_line_in_this_shell_as_bashs_does(
    start: str, script: str, split: bool
) -> None:
    # Split, the words are joined again with one space: the same line.
    words = " ".join(_quoted(w) for w in script.split(" ")) if split else _quoted(script)
    line = f'{start}; set -- a "b c"; eval {words}; echo "status $? [$x] [$v] $#"'
    lab = LabSession.new("mig-single", seed=0)
    assert lab.run(line).output.rstrip("\n") == _bash(line), line


def test_eval_keeps_what_it_sets_and_gives_the_last_status(lab: LabSession) -> None:
    assert lab.run('eval "x=1; y=2"; echo $x$y').output == "12"
    assert lab.run('eval echo "a   b" \\$HOME').output == "a b /home/admin"
    assert lab.run("eval false; echo $?").output == "1"
    assert lab.run("false; eval; echo $?; false; eval '' ' '; echo $?").output == "0\n0"


def test_eval_jumps_and_returns_where_it_runs(lab: LabSession) -> None:
    assert lab.run("for i in 1 2; do eval break; done; echo $i").output == "1"
    assert lab.run("g() { eval return 4; echo no; }; g; echo $?").output == "4"


def test_eval_says_bashs_syntax_errors(lab: LabSession) -> None:
    assert lab.run('eval "if )"; echo $?').output == (
        "bash: syntax error near unexpected token `)'\n2"
    )


def test_eval_that_runs_itself_stops_in_one_line(lab: LabSession) -> None:
    assert lab.run("f() { eval f; }; f; echo after $?").output == (
        "bash: f: maximum function nesting level exceeded (32)\nafter 1"
    )
    assert lab.run('x=\'eval "$x"\'; eval "$x"; echo $?').output == (
        "bash: eval: nested too deep for this lab\n1"
    )


def test_eval_is_a_builtin(lab: LabSession) -> None:
    assert lab.run("type eval; command -v eval").output == "eval is a shell builtin\neval"


def test_a_script_leaves_the_callers_positional_parameters(lab: LabSession) -> None:
    lab.run("printf 'echo in $#\\n' > s.sh")
    assert lab.run("set -- x; bash s.sh a b c; echo $#").output == "in 3\n1"


def test_for_without_in_walks_the_positional_parameters(lab: LabSession) -> None:
    assert lab.run('set -- a "b c"; for i; do echo "[$i]"; done').output == "[a]\n[b c]"


def test_a_loops_words_show_their_substitutions_errors(lab: LabSession) -> None:
    assert lab.run("for w in $(echo e >&2; echo a); do echo $w; done").output == "e\na"
    assert lab.run("case $(echo e >&2) in *) echo in;; esac").output == "e\nin"
