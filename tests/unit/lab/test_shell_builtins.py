"""bash's builtins on kadmin and their wording: echo, printf, pwd, cd, alias, history, sleep,
clear, type, which, and what the host does not have."""

from __future__ import annotations

from simulators.lab import LabSession
from tests.unit.lab.shell_helpers import out, sh


def test_echo_joins_its_arguments_and_reads_escapes_with_e(single: LabSession) -> None:
    assert out(single, "echo  a   b") == "a b"
    assert out(single, r"echo -e 'a\tb\nc'") == "a\tb\nc"
    assert out(single, r"echo 'a\tb'") == r"a\tb"


def test_printf_reuses_its_format_and_says_when_a_number_is_not_one(single: LabSession) -> None:
    assert out(single, r"printf '%s=%d\n' a 1 b 2") == "a=1\nb=2"
    assert out(single, r"printf '%5.2f|%-4s|%x\n' 3.14159 ab 255") == " 3.14|ab  |ff"
    assert sh(single, "printf '%d' abc") == ("bash: printf: abc: invalid number\n0", 1)
    assert sh(single, "printf") == ("bash: printf: usage: printf [-v var] format [arguments]", 2)


def test_pwd_and_cd_know_only_the_home_folder(single: LabSession) -> None:
    assert out(single, "pwd") == "/home/admin"
    assert sh(single, "cd ~ && pwd") == ("/home/admin", 0)
    assert sh(single, "cd /nonexistent") == ("bash: cd: /nonexistent: No such file or directory", 1)
    single.run("echo x > f.txt")
    assert out(single, "cd f.txt") == "bash: cd: f.txt: Not a directory"
    assert out(single, "cd a b") == "bash: cd: too many arguments"


def test_export_and_unset_refuse_names_that_are_not_identifiers(single: LabSession) -> None:
    assert sh(single, "export 1A=x") == ("bash: export: `1A=x': not a valid identifier", 1)
    assert sh(single, "unset 9") == ("bash: unset: `9': not a valid identifier", 1)
    single.run("X=1; unset X")
    assert out(single, "echo [$X]") == "[]"


def test_history_numbers_the_commands_typed(single: LabSession) -> None:
    single.run("echo one")
    single.run("echo two")
    assert out(single, "history 2") == "    2  echo two\n    3  history 2"


def test_sleep_checks_its_operand_as_coreutils_does(single: LabSession) -> None:
    assert sh(single, "sleep 2") == ("", 0)
    assert sh(single, "sleep 0.5s") == ("", 0)
    assert sh(single, "sleep") == (
        "sleep: missing operand\nTry 'sleep --help' for more information.",
        1,
    )
    assert out(single, "sleep soon") == (
        "sleep: invalid time interval 'soon'\nTry 'sleep --help' for more information."
    )


def test_clear_sends_the_escape_sequence_that_clears_screen_and_scrollback(
    single: LabSession,
) -> None:
    result = single.run("clear")
    assert result.output == "\x1b[H\x1b[2J\x1b[3J"
    assert result.clear is True
    assert single.transcript[-1].output == ""  # the page's transcript gets no escape codes


def test_type_and_which_say_where_a_command_comes_from(single: LabSession) -> None:
    assert out(single, "type k cd kubectl") == (
        "k is aliased to `kubectl'\ncd is a shell builtin\nkubectl is /usr/local/bin/kubectl"
    )
    assert sh(single, "type vim") == ("vim is /usr/bin/vim", 0)
    assert sh(single, "type emacs") == ("bash: type: emacs: not found", 1)
    assert sh(single, "which jq awk") == ("/usr/bin/jq\n/usr/bin/awk", 0)
    assert sh(single, "which emacs") == ("", 1)


def test_python_answers_in_one_line_that_the_host_has_none(single: LabSession) -> None:
    output, code = sh(single, "python3 -c 'print(1)'")
    assert code == 127
    assert "\n" not in output
    assert "jq" in output


def test_help_lists_the_shells_tools(single: LabSession) -> None:
    text = out(single, "help")
    for tool in ("jq", "awk", "wc", "sort", "base64", "alias k=kubectl", "<<EOF", "find", "curl"):
        assert tool in text


def test_history_refuses_what_is_not_a_count(single: LabSession) -> None:
    assert sh(single, "history abc") == ("bash: history: abc: numeric argument required", 1)
    assert out(single, "history -z").startswith("bash: history: -z: invalid option\n")
    assert out(single, "python --version").startswith("bash: python: not installed")


def test_date_tells_the_labs_clock_which_moves_a_step_per_command(single: LabSession) -> None:
    first = out(single, "date -u +%Y-%m-%dT%H:%M:%SZ")
    second = out(single, "date -u +%Y-%m-%dT%H:%M:%SZ")
    assert first == "2026-11-10T09:40:00Z"
    assert second == "2026-11-10T09:40:10Z"
    assert out(single, "date -z") == (
        "date: invalid option -- 'z'\nTry 'date --help' for more information."
    )


def test_an_empty_echo_prints_a_blank_line(single: LabSession) -> None:
    assert out(single, "echo $UNSET; echo next") == "\nnext"
    assert out(single, "echo | wc -l") == "1"
