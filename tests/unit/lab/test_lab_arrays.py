"""bash's arrays and PIPESTATUS in the lab's terminal, as a learner meets them: a list of node
names from kubectl looped over, quoted words kept whole, associative arrays, `declare -p`,
`read -a` and `mapfile`, what a function's `local -a` leaves, the lab's bounds, and arrays
kept with a saved lab (tests/unit/lab/test_arrays_oracle.py compares generated scripts with
bash 5.2)."""

from __future__ import annotations

import json

import pytest

from simulators.lab import LabSession
from simulators.lab.environment import MAX_ELEMENTS, ShellState
from tests.unit.lab.shell_helpers import out, sh


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_a_loop_over_node_names_from_kubectl_prints_each_node(lab: LabSession) -> None:
    names = out(lab, "kubectl get nodes -o name").splitlines()
    shown = out(
        lab,
        'nodes=($(kubectl get nodes -o name)); echo "${#nodes[@]} nodes"; '
        'for n in "${nodes[@]}"; do echo "${n#node/}"; done',
    )
    assert shown.splitlines() == [f"{len(names)} nodes", *(n.removeprefix("node/") for n in names)]


def test_the_node_list_is_still_there_on_the_next_line(lab: LabSession) -> None:
    lab.run("nodes=($(kubectl get nodes -o name))")
    assert out(lab, "echo ${nodes[0]} ${nodes[-1]}") == "node/gpu-node1 node/gpu-node3"


def test_a_list_keeps_quoted_words_whole_and_splits_and_globs_the_rest(lab: LabSession) -> None:
    lab.run("mkdir -p g && cd g && touch b.yaml a.yaml c.txt")
    shown = out(lab, "v='p q'; a=(x \"y z\" $v *.yaml {1,2}); printf '[%s]' \"${a[@]}\"")
    assert shown == "[x][y z][p][q][a.yaml][b.yaml][1][2]"


def test_element_zero_is_the_array_name_alone(lab: LabSession) -> None:
    assert out(lab, "a=(first second); echo $a ${a} ${#a} ${a[1]}") == "first first 5 second"


def test_quoted_at_gives_a_word_per_element_and_quoted_star_joins_with_ifs(
    lab: LabSession,
) -> None:
    lab.run('a=(x "" "y z")')
    assert out(lab, "printf '[%s]' \"${a[@]}\"") == "[x][][y z]"
    assert out(lab, "printf '[%s]' ${a[@]}") == "[x][y][z]"
    assert out(lab, "printf '[%s]' \"${a[*]}\"") == "[x  y z]"
    assert out(lab, "IFS=,; printf '[%s]' \"${a[*]}\"") == "[x,,y z]"


def test_an_empty_array_in_quotes_is_no_word_at_all(lab: LabSession) -> None:
    assert out(lab, 'a=(); set -- "${a[@]}"; echo $#') == "0"
    assert out(lab, 'a=(); set -- "${a[*]}"; echo $#') == "1"


def test_a_sparse_array_keeps_its_indexes(lab: LabSession) -> None:
    shown = out(lab, "a=(x y); a[7]=z; a[i+3]=w; echo ${#a[@]} ${!a[@]}; declare -p a")
    assert shown == 'four 0 1 3 7\ndeclare -a a=([0]="x" [1]="y" [3]="w" [7]="z")'.replace(
        "four", "4"
    )


def test_negative_subscripts_count_from_the_end_and_past_it_say_so(lab: LabSession) -> None:
    lab.run("a=(x y z)")
    assert out(lab, "echo ${a[-1]} ${a[-3]}") == "z x"
    assert sh(lab, "echo ${a[-4]}; echo after") == ("bash: a: bad array subscript\n\nafter", 0)
    assert sh(lab, "a[-4]=q") == ("bash: a[-4]: bad array subscript", 1)


def test_slices_and_operators_apply_to_each_element(lab: LabSession) -> None:
    lab.run("a=(one two three four)")
    assert out(lab, 'echo "${a[@]:1:2}" / "${a[@]: -1}"') == "two three / four"
    assert out(lab, 'echo "${a[@]/o/0}" / "${a[@]#t}" / "${a[@]^^}"') == (
        "0ne tw0 three f0ur / one wo hree four / ONE TWO THREE FOUR"
    )
    assert out(lab, 'echo "${a[9]:-none}" "${#a[2]}"') == "none 5"


def test_an_associative_array_lists_its_keys_in_bashs_order(lab: LabSession) -> None:
    shown = out(
        lab,
        'declare -A m=([a]=1 [b]=2 [key]=v); m["x y"]=z; echo "${!m[@]}"; echo ${m[key]}; '
        "declare -p m",
    )
    assert shown == 'b a key x y\nv\ndeclare -A m=([b]="2" [a]="1" [key]="v" ["x y"]="z" )'


def test_unset_takes_one_element_or_the_whole_array(lab: LabSession) -> None:
    lab.run("a=(x y z)")
    assert out(lab, "unset 'a[1]'; declare -p a") == 'declare -a a=([0]="x" [2]="z")'
    assert sh(lab, "unset a; declare -p a") == ("bash: declare: a: not found", 1)


def test_pipestatus_holds_each_commands_status_after_a_pipeline(lab: LabSession) -> None:
    assert out(lab, "false | true; echo ${PIPESTATUS[@]}") == "1 0"
    assert out(lab, "true | false | (exit 3); echo ${PIPESTATUS[@]}") == "0 1 3"
    assert out(lab, "(exit 4); echo ${PIPESTATUS[0]}") == "4"
    lab.run("false | true")
    assert out(lab, "echo ${PIPESTATUS[@]}") == "1 0"  # kept until the next command


def test_pipefail_changes_the_status_not_pipestatus(lab: LabSession) -> None:
    shown = out(lab, "set -o pipefail; false | true; echo $? ${PIPESTATUS[@]}; set +o pipefail")
    assert shown == "1 1 0"


def test_read_a_splits_a_line_into_an_array(lab: LabSession) -> None:
    assert out(lab, 'IFS=, read -ra parts <<< "gpu,,cpu,"; declare -p parts') == (
        'declare -a parts=([0]="gpu" [1]="" [2]="cpu")'
    )


def test_mapfile_reads_lines_from_a_here_string_but_not_from_a_pipe(lab: LabSession) -> None:
    lab.run('mapfile -t lines <<< "$(kubectl get nodes -o name)"')
    assert out(lab, "echo ${#lines[@]} ${lines[1]}") == "3 node/gpu-node2"
    # Piped, mapfile runs in a subshell, as bash's does: its array is gone after the pipe.
    assert sh(lab, "printf 'a\\nb\\n' | readarray -t piped; echo ${#piped[@]}") == ("0", 0)


def test_local_a_inside_a_function_is_gone_after_it(lab: LabSession) -> None:
    shown = out(
        lab,
        "a=(outer); f() { local -a a=(1 2); a+=(3); echo ${a[@]}; }; f; echo ${a[@]}",
    )
    assert shown == "1 2 3\nouter"


def test_arithmetic_reads_and_sets_elements(lab: LabSession) -> None:
    shown = out(lab, "n=(3 5 7); i=1; (( n[i] += 2, n[i+1]++ )); echo $(( n[0] * n[1] )) ${n[@]}")
    assert shown == "21 3 7 8"


def test_arrays_are_not_exported(lab: LabSession) -> None:
    shown = out(lab, "a=(1 2); export a; env | grep -c '^a='; export -p | grep ' a='")
    assert shown == '0\ndeclare -ax a=([0]="1" [1]="2")'
    shown = out(lab, "export e=(x 'y z') f=1; env | grep -c '^e='; declare -p e f")
    assert shown == '0\ndeclare -ax e=([0]="x" [1]="y z")\ndeclare -x f="1"'


def test_set_x_shows_array_assignments_as_bash_does(lab: LabSession) -> None:
    assert out(lab, 'set -x; a=(x "y z"); a[1]+=q; set +x') == (
        '+ a=(x "y z")\n+ a[1]+=q\n+ set +x'
    )


def test_a_command_substitution_changes_none_of_the_callers_variables(lab: LabSession) -> None:
    assert out(lab, "x=1; a=(1); echo $(x=2; a+=(2); echo $x); echo $x ${a[@]}") == "2\n1 1"


def test_declare_refuses_what_the_lab_does_not_do_in_one_line(lab: LabSession) -> None:
    assert sh(lab, "declare -t n=1") == (
        "bash: declare: -t: not available in this lab (only -a -A -i -l -n -r -u -x -p -g -f -F)",
        2,
    )
    assert sh(lab, "a=(1); declare -A a") == (
        "bash: declare: a: cannot convert indexed to associative array",
        1,
    )


def test_an_array_past_the_labs_bounds_is_refused_in_one_line(lab: LabSession) -> None:
    shown, code = sh(lab, f"a=($(seq {MAX_ELEMENTS + 1})); echo ${{#a[@]}}")
    assert shown.splitlines()[0].startswith("bash: a: array too large for this lab")
    assert code == 0
    lab.run(f"b=($(seq {MAX_ELEMENTS - 1}))")
    assert out(lab, "b+=(x); b+=(y z); echo ${#b[@]} ${b[-1]}") == (
        f"bash: b: array too large for this lab (over {MAX_ELEMENTS} elements or 64 KiB)\n"
        f"{MAX_ELEMENTS} x"
    )
    lab.run("x=$(seq 9000)")  # 38 893 bytes: two of them are past 64 KiB
    assert out(lab, 'c=("$x" "$x"); echo ${#c[@]}') == (
        f"bash: c: array too large for this lab (over {MAX_ELEMENTS} elements or 64 KiB)\n0"
    )


def test_arrays_are_kept_with_a_saved_lab(lab: LabSession) -> None:
    lab.run('a=(x "y z"); a[5]=q; declare -A m=([k]=v); declare -a e; false | true')
    saved = json.loads(json.dumps(lab.to_json()))
    again = LabSession.from_json(saved)
    assert out(again, "declare -p a m e PIPESTATUS") == "\n".join(
        [
            'declare -a a=([0]="x" [1]="y z" [5]="q")',
            'declare -A m=([k]="v" )',
            "declare -a e",
            'declare -a PIPESTATUS=([0]="1" [1]="0")',
        ]
    )


def test_arrays_are_still_there_after_the_lab_rests(lab: LabSession) -> None:
    lab.run("nodes=($(kubectl get nodes -o name)); declare -A seen=([gpu-node1]=ok)")
    assert lab.rest()
    assert out(lab, 'echo ${#nodes[@]} "${!seen[@]}"') == "3 gpu-node1"


def test_a_lab_saved_before_arrays_loads_with_none() -> None:
    saved = ShellState().to_json()
    del saved["arrays"]
    assert ShellState.from_json(saved).arrays == {}


def test_a_saved_array_past_the_bounds_is_refused() -> None:
    saved = ShellState().to_json()
    saved["arrays"] = {"a": ["a", {str(i): "x" for i in range(MAX_ELEMENTS + 1)}]}
    with pytest.raises(ValueError):
        ShellState.from_json(saved)
