"""bash's functions on the admin host: generated definitions and calls against this machine's
bash 5.2, and what the lab adds (kept with the lab, nesting bounded)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from tests.unit.lab.test_shell_compound_oracle import WORDS, _bash, bodies


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


ARGUMENTS = st.lists(st.sampled_from(WORDS), max_size=3).map(
    lambda words: " ".join(f'"{w}"' if " " in w or not w else w for w in words)
)


@settings(max_examples=200, deadline=None)
@given(
    start=st.sampled_from(["x=a", "x=b", "x='c d'", "x="]),
    local=st.sampled_from(["", "local x=in; ", "local v; ", "local x; x=set; "]),
    body=bodies(1, False),
    end=st.sampled_from(["", "; return 3", "; return", "; false"]),
    keyword=st.booleans(),
    arguments=ARGUMENTS,
)
def test_functions_define_run_and_return_as_bashs_do(
    start: str, local: str, body: str, end: str, keyword: bool, arguments: str
) -> None:
    head = "function f" if keyword else "f()"
    line = (
        f"{start}; v=outer; {head} {{ {local}{body}{end}; }}; f {arguments}; "
        'echo "status $? [$x] [$v] $#"; f | tr a-z A-Z; echo "piped $?"'
    )
    lab = LabSession.new("mig-single", seed=0)
    assert lab.run(line).output.rstrip("\n") == _bash(line), line


def test_a_function_is_typed_over_several_lines_and_kept_with_the_lab(lab: LabSession) -> None:
    assert lab.run("gpus() {").prompt == "> "
    lab.run('  kubectl get nodes -o name | grep -c "${1:-gpu}"')
    lab.run("}")
    assert lab.run("gpus node").output == "3"
    restored = LabSession.from_json(lab.encode())
    assert restored.run("gpus gpu-node1").output == "1"
    assert restored.run("type gpus").output.startswith("gpus is a function\ngpus () \n{")


def test_a_function_reads_its_pipe_and_sees_aliases(lab: LabSession) -> None:
    lab.run("up() { tr a-z A-Z; }; names() { k get nodes -o name; }")
    assert lab.run("names | up | head -1").output == "NODE/GPU-NODE1"


def test_unset_f_and_command_skip_or_remove_a_function(lab: LabSession) -> None:
    lab.run("echo() { printf 'mine\\n'; }")
    assert lab.run("echo hi; command echo hi").output == "mine\nhi"
    assert lab.run("unset -f echo; echo hi").output == "hi"


def test_a_new_bash_does_not_see_the_shells_functions(lab: LabSession) -> None:
    lab.run("f() { echo f; }")
    assert lab.run("bash -c f; f").output == "bash: f: command not found\nf"


def test_a_function_that_calls_itself_stops_in_one_line(lab: LabSession) -> None:
    result = lab.run("loop() { loop; }; loop; echo after $?")
    assert result.output == "bash: loop: maximum function nesting level exceeded (32)\nafter 1"


def test_return_and_local_outside_a_function_are_bashs_errors(lab: LabSession) -> None:
    assert lab.run("return; echo $?").output == (
        "bash: return: can only `return' from a function or sourced script\n2"
    )
    assert lab.run("local x; echo $?").output == "bash: local: can only be used in a function\n1"
