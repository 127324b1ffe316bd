"""What every kubectl setup guide has a learner type first on an exam host, and the process
substitutions it relies on, as bash 5.2 and kubectl run them."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.test_shell_compound_oracle import _bash


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


@pytest.mark.parametrize(
    "line",
    [
        "echo <(true) <(true); echo <(true)",
        "cat <(echo a) <(printf 'b\\nc')",
        "while read a b; do echo \"[$a]\"; done < <(printf 'x 1\\ny 2\\n')",
        "paste <(seq 3) <(seq 4 6)",
        "grep -c a <(printf 'a\\nb\\na\\n'); wc -l < <(printf 'a\\nb\\n')",
        "cat <(echo $(echo inner)) <(cat <(echo nested))",
        "source <(echo 'X=set; echo sourced'); echo \"$X\"",
    ],
)
def test_process_substitution_reads_as_bashs_does(lab: LabSession, line: str) -> None:
    assert lab.run(line).output.rstrip("\n") == _bash(line)


def test_let_evaluates_each_argument_and_fails_on_a_last_zero_as_bash(lab: LabSession) -> None:
    line = 'let x=3+4 "y = x * 2"; echo $x $y $?; let z=0; echo $?; let n++ n++; echo $n $?'
    assert lab.run(line).output == _bash(line)


def test_a_process_substitutions_file_is_gone_after_its_command(lab: LabSession) -> None:
    assert lab.run("cat <(echo a) >/dev/null; cat /dev/fd/63").output == (
        "cat: /dev/fd/63: No such file or directory"
    )


def test_writing_to_a_process_substitution_is_refused_in_one_line(lab: LabSession) -> None:
    assert lab.run("echo hi > >(cat)").output == (
        "bash: >(...): writing to a command is not available in this lab"
    )


def test_the_kubectl_setup_lines_run_and_complete_p_shows_them(lab: LabSession) -> None:
    for line in (
        "source <(kubectl completion bash)",
        "alias k=kubectl",
        "complete -o default -F __start_kubectl k",
    ):
        assert lab.run(line).output == "", line
    assert lab.run("complete -p").output == (
        "complete -o default -F __start_kubectl kubectl\ncomplete -o default -F __start_kubectl k"
    )
    assert lab.run("complete -r k; complete -p k; echo $?").output == (
        "bash: complete: k: no completion specification\n1"
    )


def test_complete_prints_options_in_bashs_order_and_refuses_as_bash(lab: LabSession) -> None:
    lab.run("complete -o nospace -o default -F f x; complete -W 'a b' w")
    assert lab.run("complete -p x w").output == (
        "complete -o default -o nospace -F f x\ncomplete -W 'a b' w"
    )
    assert lab.run("complete -o bogus x; echo $?").output == (
        "bash: complete: bogus: invalid option name\n2"
    )
    assert lab.run("complete -z x").output.startswith(
        "bash: complete: -z: invalid option\ncomplete: usage: complete [-abcdefgjksuv]"
    )


def test_kubectl_completion_prints_a_script_and_refuses_as_kubectl(lab: LabSession) -> None:
    script = lab.run("kubectl completion bash").output
    assert script.startswith("# bash completion V2 for kubectl")
    assert script.endswith("complete -o default -F __start_kubectl kubectl")
    assert lab.run("kubectl completion").output == (
        "error: Shell not specified.\nSee 'kubectl completion -h' for help and examples"
    )
    assert lab.run("kubectl completion tcsh").output == (
        "error: Unsupported shell type \"tcsh\".\nSee 'kubectl completion -h' for help and examples"
    )


def test_completion_specifications_are_kept_with_the_lab(lab: LabSession) -> None:
    lab.run("complete -o default -F __start_kubectl k")
    restored = LabSession.from_json(lab.encode())
    assert restored.run("complete -p k").output == "complete -o default -F __start_kubectl k"
