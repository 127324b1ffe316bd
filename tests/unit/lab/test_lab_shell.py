"""The shell: tokenizing, operators, pipes, redirects, and bash's own error messages."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from simulators.lab.shell import Op, ShellSyntaxError, Word, parse, tokenize


def words(line: str) -> list[str]:
    return [t.text for t in tokenize(line) if isinstance(t, Word)]


def test_single_and_double_quotes_keep_spaces_and_json_intact() -> None:
    line = """kubectl patch x --type merge -p '{"spec":{"mig":{"strategy":"mixed"}}}' "a b" c\\ d"""
    assert words(line)[-3:] == ['{"spec":{"mig":{"strategy":"mixed"}}}', "a b", "c d"]


def test_operators_are_split_from_words_but_not_inside_quotes() -> None:
    tokens = tokenize("a && b | c; d 'e;f'")
    ops = [t.text for t in tokens if isinstance(t, Op)]
    assert ops == ["&&", "|", ";"]
    assert words("a && b | c; d 'e;f'")[-1] == "e;f"


def test_a_hash_at_the_start_of_a_word_begins_a_comment() -> None:
    assert words("kubectl get nodes   # all of them") == ["kubectl", "get", "nodes"]
    assert words("echo a#b") == ["echo", "a#b"]


def test_an_unbalanced_quote_asks_for_the_rest_and_is_bashs_error_at_the_end() -> None:
    with pytest.raises(ShellSyntaxError, match="unexpected EOF while looking for matching `''"):
        parse(tokenize("kubectl get nodes -o jsonpath='{.items"))


def test_an_unbalanced_quote_in_the_terminal_prompts_for_more_as_bash_does(
    single: LabSession,
) -> None:
    result = single.run("kubectl get nodes -o jsonpath='{.items")
    assert (result.output, result.prompt) == ("", "> ")
    assert single.run("'").prompt == "admin@kadmin:~$ "
    assert single.run("echo 'one").prompt == "> "
    result = single.run("two'")
    assert (result.output, result.prompt) == ("one\ntwo", "admin@kadmin:~$ ")


def test_a_dangling_operator_is_a_syntax_error() -> None:
    with pytest.raises(ShellSyntaxError, match="unexpected end of file"):
        parse(tokenize("kubectl get nodes &&"))
    with pytest.raises(ShellSyntaxError, match=r"unexpected token `\|'"):
        parse(tokenize("| grep x"))


def test_an_unknown_program_is_command_not_found(single: LabSession) -> None:
    assert single.run("emacs triton.yaml").output == "bash: emacs: command not found"
    assert single.run("nvidia-smi -L").output == "bash: nvidia-smi: command not found"


def test_lines_over_4_kib_are_rejected_with_one_line(single: LabSession) -> None:
    result = single.run("kubectl get nodes " + "x" * 5000)
    assert result.output.startswith("bash: line too long")
    assert "\n" not in result.output


def test_and_runs_the_second_command_only_after_success(single: LabSession) -> None:
    out = single.run("kubectl get nodes nope && kubectl get nodes").output
    assert out == 'Error from server (NotFound): nodes "nope" not found'
    out = single.run("kubectl get nodes nope || kubectl version --client").output
    assert out.endswith("Kustomize Version: v5.4.2")


def test_a_pipe_into_grep_with_context_keeps_the_following_lines(single: LabSession) -> None:
    out = single.run("kubectl describe node gpu-node1 | grep -A8 Allocatable").output
    lines = out.split("\n")
    assert lines[0] == "Allocatable:"
    assert lines[6] == "  nvidia.com/gpu:     8"
    assert lines[8] == "System Info:"


def test_redirecting_output_writes_a_file_in_the_home_folder(mixed: LabSession) -> None:
    assert (
        mixed.run(
            "kubectl get configmap custom-mig-parted-config -n gpu-operator -o yaml > cm.yaml"
        ).output
        == ""
    )
    assert "mig-config.yaml: |" in mixed.run("cat cm.yaml").output
    assert "cm.yaml" in mixed.run("ls").output


def test_every_command_advances_the_clock_one_step_and_blank_lines_do_not(
    single: LabSession,
) -> None:
    assert single.step == 0
    single.run("kubectl get nodes")
    single.run("not-a-command")
    single.run("   ")
    assert single.step == 2


def test_history_lists_what_was_typed_and_clear_asks_to_clear(single: LabSession) -> None:
    single.run("kubectl get nodes")
    assert single.run("history").output.split("\n") == [
        "    1  kubectl get nodes",
        "    2  history",
    ]
    assert single.run("clear").clear is True


def test_hint_cycles_through_the_tickets_hints(single: LabSession) -> None:
    first = single.run("hint").output
    second = single.run("hint").output
    assert first.startswith("Hint 1/") and second.startswith("Hint 2/")


def test_help_names_the_tools(single: LabSession) -> None:
    out = single.run("help").output
    for tool in ("kubectl", "runai", "helm", "sed -i", "history"):
        assert tool in out
