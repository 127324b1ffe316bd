"""The shell's language: variables, `$?`, lists, pipes, redirections, here-documents typed over
several lines (bash's `> ` prompt), aliases, globs, command substitution, and completion."""

from __future__ import annotations

from simulators.lab import LabSession
from simulators.lab.session import INTERRUPT
from tests.unit.lab.shell_helpers import out, sh


def test_a_variable_set_on_one_line_is_expanded_on_the_next(single: LabSession) -> None:
    assert out(single, "NS=gpu-operator") == ""
    assert out(single, "echo \"$NS\" ${NS} '$NS'") == "gpu-operator gpu-operator $NS"


def test_unquoted_expansions_split_into_words_and_quoted_ones_do_not(single: LabSession) -> None:
    single.run("X='a   b'")
    assert out(single, "printf '[%s]' $X") == "[a][b]"
    assert out(single, "printf '[%s]' \"$X\"") == "[a   b]"


def test_export_puts_a_variable_in_the_environment_of_later_commands(single: LabSession) -> None:
    single.run("LOCAL=1")
    single.run("export EDITOR=nano")
    env = out(single, "env")
    assert "EDITOR=nano" in env.split("\n")
    assert "LOCAL=1" not in env
    assert 'declare -x EDITOR="nano"' in out(single, "export")
    assert out(single, "FOO=bar env | grep FOO") == "FOO=bar"
    assert out(single, "echo ${FOO:-unset}") == "unset"


def test_dollar_question_is_the_status_of_the_last_command(single: LabSession) -> None:
    single.run("kubectl get nodes nope")
    assert out(single, "echo $?") == "1"
    assert out(single, "true; echo $?") == "0"
    assert out(single, "nosuchtool; echo $?") == "bash: nosuchtool: command not found\n127"


def test_and_or_and_semicolon_run_as_bash_runs_them(single: LabSession) -> None:
    assert out(single, "false && echo no; echo yes") == "yes"
    assert out(single, "false || echo rescued") == "rescued"
    assert out(single, "true && echo a || echo b") == "a"


def test_a_pipe_feeds_stdout_and_leaves_errors_on_the_terminal(single: LabSession) -> None:
    assert out(single, "kubectl get nodes -o name | wc -l") == "3"
    output, code = sh(single, "cat nope.yaml | wc -l")
    assert output == "cat: nope.yaml: No such file or directory\n0"
    assert code == 0


def test_stderr_can_be_discarded_or_joined_with_stdout(single: LabSession) -> None:
    assert out(single, "kubectl get pods nope 2>/dev/null") == ""
    single.run("kubectl get pods nope > err.txt 2>&1")
    assert out(single, "cat err.txt") == 'Error from server (NotFound): pods "nope" not found'
    assert out(single, "wc -l nope 2>/dev/null; echo $?") == "1"


def test_output_redirection_writes_and_appends_lab_files(single: LabSession) -> None:
    single.run("echo one > notes.txt")
    single.run("echo two >> notes.txt")
    assert single.world.state.files["notes.txt"] == "one\ntwo\n"
    assert out(single, "wc -l < notes.txt") == "2"
    assert out(single, "cat < missing.txt") == "bash: missing.txt: No such file or directory"


def test_a_here_document_over_several_lines_prompts_with_a_continuation_and_writes_the_file(
    single: LabSession,
) -> None:
    single.run("NAME=triton")
    first = single.run("cat <<EOF > pod.yaml")
    assert (first.output, first.prompt) == ("", "> ")
    assert single.prompt == "> "
    assert single.run("metadata:").prompt == "> "
    assert single.run("  name: $NAME").prompt == "> "
    assert single.run("").prompt == "> "  # a blank line belongs to the document
    done = single.run("EOF")
    assert (done.output, done.prompt) == ("", "admin@kadmin:~$ ")
    assert single.world.state.files["pod.yaml"] == "metadata:\n  name: triton\n\n"
    assert single.history[-1] == "cat <<EOF > pod.yaml\nmetadata:\n  name: $NAME\n\nEOF"
    assert "admin@kadmin:~$ cat <<EOF > pod.yaml\n> metadata:\n" in single.replay()


def test_a_quoted_delimiter_keeps_the_body_as_typed_and_dash_strips_tabs(
    single: LabSession,
) -> None:
    single.run("cat <<'EOF' > a.txt\n$HOME `x`\nEOF")
    assert single.world.state.files["a.txt"] == "$HOME `x`\n"
    single.run("cat <<-END > b.txt\n\tindented\n\tEND")
    assert single.world.state.files["b.txt"] == "indented\n"
    assert out(single, "base64 -d <<< aGk=") == "hi"


def test_a_pasted_here_document_applies_with_kubectl(single: LabSession) -> None:
    manifest = (
        "cat <<EOF | kubectl apply -f -\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n  namespace: default\n"
        "data:\n  a: b\nEOF"
    )
    assert out(single, manifest) == "configmap/notes created"


def test_ctrl_c_drops_an_unfinished_command(single: LabSession) -> None:
    single.run("kubectl get nodes |")
    assert single.prompt == "> "
    result = single.run(INTERRUPT)
    assert (result.output, result.prompt) == ("", "admin@kadmin:~$ ")
    assert out(single, "echo fresh") == "fresh"


def test_an_unfinished_command_survives_saving_and_restoring_the_lab(single: LabSession) -> None:
    single.run("cat <<EOF > saved.txt")
    single.run("kept")
    restored = LabSession.from_json(single.to_json())
    assert restored.prompt == "> "
    restored.run("EOF")
    assert restored.world.state.files["saved.txt"] == "kept\n"


def test_k_is_kubectl_and_aliases_can_be_added_and_removed(single: LabSession) -> None:
    assert out(single, "k get nodes -o name") == out(single, "kubectl get nodes -o name")
    assert "alias k='kubectl'" in out(single, "alias").splitlines()
    single.run("alias kgn='kubectl get nodes'")
    assert out(single, "kgn -o name | head -1") == "node/gpu-node1"
    assert out(single, "type kgn") == "kgn is aliased to `kubectl get nodes'"
    assert out(single, "unalias kgn; alias kgn") == "bash: alias: kgn: not found"
    assert sh(single, "unalias nope") == ("bash: unalias: nope: not found", 1)


def test_tab_completes_k_as_kubectl(single: LabSession) -> None:
    assert single.complete("k get no") == single.complete("kubectl get no") == ["nodes"]
    assert "k" in single.complete("")


def test_globs_match_the_home_folders_files(single: LabSession) -> None:
    single.run("echo 1 > a.yaml; echo 2 > b.yaml; echo 3 > c.txt")
    assert out(single, "echo *.yaml") == "a.yaml b.yaml"
    assert out(single, "echo '*.yaml' nomatch*") == "*.yaml nomatch*"


def test_command_substitution_gives_a_commands_output_to_another(single: LabSession) -> None:
    assert out(single, "echo node=$(kubectl get nodes -o name | head -1)") == "node=node/gpu-node1"
    assert out(single, 'N="$(echo a b)"; echo "$N"') == "a b"


def test_syntax_errors_are_bashs(single: LabSession) -> None:
    assert sh(single, "| wc") == ("bash: syntax error near unexpected token `|'", 2)
    assert out(single, "echo >") == "bash: syntax error near unexpected token `newline'"
    assert out(single, "cat > $UNSET_VAR") == "bash: $UNSET_VAR: ambiguous redirect"


def test_loops_and_conditionals_run_over_several_lines_with_bashs_prompt(
    single: LabSession,
) -> None:
    assert single.run("for n in 1 2").prompt == "> "
    assert single.run("do echo n=$n").prompt == "> "
    assert out(single, "done") == "n=1\nn=2"
    assert out(single, "echo for done") == "for done"
    assert sh(single, "done") == ("bash: syntax error near unexpected token `done'", 2)
    assert sh(single, "if true; then fi") == ("bash: syntax error near unexpected token `fi'", 2)


def test_a_loop_that_never_ends_is_stopped_by_the_commands_budget(single: LabSession) -> None:
    output, code = sh(single, "while true; do echo y; done")
    assert code == 1
    assert output.endswith("it used more than 250 ms of CPU time") or "loop stopped" in output
    assert out(single, "echo next") == "next"  # the lab goes on


def test_a_loop_over_the_cluster_reads_what_kubectl_prints(single: LabSession) -> None:
    line = "kubectl get nodes -o name | while read n; do kubectl get $n --no-headers | wc -l; done"
    assert out(single, line) == "1\n1\n1"
    names = "for n in $(kubectl get nodes -o name); do echo ${n}; done"
    assert out(single, names) == out(single, "kubectl get nodes -o name")


def test_output_without_a_final_newline_reaches_pipes_and_files_exactly(single: LabSession) -> None:
    single.run("printf 'a' > one.txt; echo -n b >> one.txt; printf 'c\\n' >> one.txt")
    assert single.world.state.files["one.txt"] == "abc\n"
    assert out(single, "printf 'x' | wc -c") == "1"
    assert out(single, "echo x | wc -c") == "2"


def test_ls_prints_columns_on_the_terminal_and_a_name_a_line_elsewhere(
    single: LabSession,
) -> None:
    single.run("echo x > b.txt; echo y > c.yaml")
    assert out(single, "ls") == "b.txt  c.yaml"
    assert out(single, "ls | cat") == "b.txt\nc.yaml"
    assert out(single, "ls | wc -l") == "2"
    assert out(single, "ls > names; cat names") == "b.txt\nc.yaml\nnames"
    assert out(single, "for f in $(ls *.txt); do echo [$f]; done") == "[b.txt]"
    assert out(single, "echo | while read; do ls -1; done") == "b.txt\nc.yaml\nnames"
    assert out(single, "echo | while read; do ls; done | cat") == "b.txt\nc.yaml\nnames"


def test_an_expression_nested_past_the_labs_depth_is_refused_in_one_line(
    single: LabSession,
) -> None:
    deep_sum = "echo $((" + "(" * 1000 + "1" + ")" * 1000 + "))"
    deep_not = "[ " + "! " * 1000 + "a ]"
    for line in (deep_sum, deep_not, "echo $((" + "-" * 1000 + "1))"):
        output, code = sh(single, line)
        assert "nested too deep for this lab" in output and "\n" not in output, line[:20]
        assert code != 0
    single.run("a=b; b=a")
    assert out(single, "echo $((a))") == "bash: a: expression nested too deep for this lab"
    assert out(single, "echo $((((1+2))*3))") == "9"  # the lab goes on, shallow ones work


def test_braces_make_the_words_an_admin_loops_over(single: LabSession) -> None:
    assert out(single, "for n in gpu-node{1..3}; do echo $n; done") == (
        "gpu-node1\ngpu-node2\ngpu-node3"
    )
    assert out(single, "echo {a,b}.yaml {01..03} {c..a}") == "a.yaml b.yaml 01 02 03 c b a"
    single.run("for f in job-{train,eval}.yaml; do echo 'kind: Job' > $f; done")
    assert out(single, "ls") == "job-eval.yaml  job-train.yaml"


def test_braces_past_the_labs_bound_are_refused_in_one_line(single: LabSession) -> None:
    for line in ("echo {1..100000000}", "echo " + "{a,b}" * 20):
        assert sh(single, line) == (
            "bash: brace expansion: too many words for this lab (at most 20,000)",
            1,
        )
    assert out(single, "echo {1..3}") == "1 2 3"


def test_a_default_values_word_is_expanded_and_a_missing_required_value_stops_the_line(
    single: LabSession,
) -> None:
    assert out(single, 'echo ${NS:-$HOME} "${NS:-kube-system}" ${NS:+set}') == (
        "/home/admin kube-system"
    )
    assert sh(single, "echo ${NS:?set NS first}; echo never") == ("bash: NS: set NS first", 1)
    assert out(single, "echo ${NS:?} | cat; echo next") == (
        "bash: NS: parameter null or not set\nnext"
    )


def test_a_compound_commands_bad_redirection_is_refused_in_one_line(single: LabSession) -> None:
    single.run("f='a b'")
    assert sh(single, "for i in 1; do echo; done > $f") == ("bash: $f: ambiguous redirect", 1)
    assert sh(single, "{ echo hi; } > {x,y}") == ("bash: {x,y}: ambiguous redirect", 1)


def test_one_commands_output_runs_on_into_the_nexts(single: LabSession) -> None:
    assert out(single, "printf '[%s]' a b; echo") == "[a][b]"
    assert out(single, "printf a; echo b") == "ab"


def test_a_subshell_runs_its_list_and_forgets_what_it_set(single: LabSession) -> None:
    assert out(single, "x=1; (x=2; echo $x); echo $x") == "2\n1"
    assert out(single, "(echo a; echo b) | wc -l") == "2"
    assert out(single, "(echo ${u:?gone}; echo no); echo yes") == "bash: u: gone\nyes"
    loop = "for i in 1 2; do (break); echo $i; done"
    only = "bash: break: only meaningful in a `for', `while', or `until' loop"
    assert out(single, loop) == f"{only}\n1\n{only}\n2"


def test_basename_and_dirname_take_a_loops_names_apart(single: LabSession) -> None:
    single.run("for f in job-{a,b}.yaml; do echo kind: Job > $f; done")
    assert out(single, "for f in $(ls *.yaml); do basename $f .yaml; done") == "job-a\njob-b"
    assert out(single, "dirname /etc/kubernetes/admin.conf; basename -a a/b c/") == (
        "/etc/kubernetes\nb\nc"
    )


def test_arithmetic_commands_and_the_c_style_for_loop(single: LabSession) -> None:
    assert out(single, "for ((i=0; i<3; i++)); do echo $i; done") == "0\n1\n2"
    assert out(single, "n=0; while (( n < 2 )); do (( n++ )); done; echo $n") == "2"
    assert sh(single, "(( 0 ))") == ("", 1)


def test_a_double_bracket_test_joins_its_conditions_with_and_or_and_parentheses(
    single: LabSession,
) -> None:
    line = "x=gpu-node1; [[ $x == gpu-* && ( ${#x} -gt 3 || -z $x ) ]] && echo match"
    assert out(single, line) == "match"
    assert out(single, "[[ a < b ]] && echo before; ls") == "before"  # `<` compares, no file


def test_backquotes_ansi_c_quotes_and_ifs_split_as_in_bash(single: LabSession) -> None:
    assert out(single, "echo `kubectl get nodes -o name | wc -l` nodes") == "3 nodes"
    assert out(single, "echo $'a\\tb' | cut -f2") == "b"
    loop = "IFS=$'\\n'; for l in $(printf 'a b\\nc\\n'); do echo \"[$l]\"; done"
    assert out(single, loop) == "[a b]\n[c]"
    assert out(single, "v=gpu-node1; echo ${v::3} ${v:4:$((2+2))}") == "gpu node"


def test_a_script_from_the_home_folder_runs_with_its_arguments(single: LabSession) -> None:
    script = 'for n in "$@"; do kubectl get node "$n" --no-headers | wc -l; done; exit 3'
    single.world.state.files["count.sh"] = script + "\n"
    assert sh(single, "bash count.sh gpu-node1 gpu-node2") == ("1\n1", 3)
    single.world.state.files["set.sh"] = "NS=gpu-operator\n"
    assert out(single, "bash set.sh; echo [$NS]; source set.sh; echo [$NS]") == (
        "[]\n[gpu-operator]"
    )
    single.world.state.files["self.sh"] = "bash self.sh\n"
    assert out(single, "bash self.sh") == "bash: scripts nested too deep for this lab"
    assert sh(single, "bash -c 'exit 4'; echo $?") == ("4", 0)
