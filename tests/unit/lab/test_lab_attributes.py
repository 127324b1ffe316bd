"""The lab's variable attributes, `readonly`, indirection, transformations and `-v`, each with
bash 5.2's words (tests/unit/lab/test_attributes_oracle.py compares generated scripts)."""

from __future__ import annotations

import json

import pytest

from simulators.lab import LabSession
from simulators.lab.environment import OWN_ATTRIBUTES, ShellState
from tests.unit.lab.shell_helpers import out, sh


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_assigning_a_readonly_variable_says_so_and_drops_the_rest_of_the_line(
    lab: LabSession,
) -> None:
    assert sh(lab, "declare -r x=1; x=2; echo $x") == ("bash: x: readonly variable", 1)
    assert out(lab, "echo $x") == "1"


def test_unset_refuses_a_readonly_variable_in_bashs_words(lab: LabSession) -> None:
    assert sh(lab, "readonly x=1; unset x; echo $?; echo $x") == (
        "bash: unset: x: cannot unset: readonly variable\n1\n1",
        0,
    )


def test_declare_and_readonly_name_the_builtin_as_bash_does(lab: LabSession) -> None:
    assert sh(lab, "readonly q=1; declare q=2") == ("bash: declare: q: readonly variable", 1)
    assert sh(lab, "readonly q=3") == ("bash: q: readonly variable", 1)
    assert sh(lab, "declare +r q") == ("bash: declare: q: readonly variable", 1)


def test_readonly_p_lists_readonly_names_as_declare_lines(lab: LabSession) -> None:
    # bash's own (BASHOPTS, EUID, PPID, SHELLOPTS, UID) are listed first: names in capitals.
    assert out(
        lab, "readonly a=(1 2) x=y; declare -i n; readonly n; readonly -p | grep ' [a-z]'"
    ) == ('declare -ar a=([0]="1" [1]="2")\ndeclare -ir n\ndeclare -r x="y"')
    assert sh(lab, "readonly -x") == (
        "bash: readonly: -x: invalid option\n"
        "readonly: usage: readonly [-aAf] [name[=value] ...] or readonly -p",
        2,
    )


def test_an_integer_variable_evaluates_each_assignment_and_plus_equals_adds(
    lab: LabSession,
) -> None:
    assert out(lab, "declare -i x=3+4; x+=2; declare -p x; x=x*2; echo $x") == (
        'declare -i x="9"\n18'
    )


def test_case_attributes_change_each_value_assigned(lab: LabSession) -> None:
    assert out(lab, "declare -u y=abc; y+=de; declare -l z=ABC; declare -p y z") == (
        'declare -u y="ABCDE"\ndeclare -l z="abc"'
    )
    assert out(lab, "declare -ul w=AbC; declare -p w") == 'declare -- w="AbC"'


def test_declare_p_shows_attributes_in_bashs_order(lab: LabSession) -> None:
    assert out(lab, "declare -x -r -i q=4; declare -aixr g=(1 2); declare -p q g") == (
        'declare -irx q="4"\ndeclare -airx g=([0]="1" [1]="2")'
    )


def test_a_declared_variable_without_a_value_is_listed_but_unset(lab: LabSession) -> None:
    assert out(lab, "declare x; declare -p x; echo ${x-unset}") == "declare -- x\nunset"


def test_a_nameref_reads_and_writes_the_name_it_holds(lab: LabSession) -> None:
    assert out(lab, "declare -n r=x; r=5; echo $x ${!r}; declare -p r x") == (
        '5 x\ndeclare -n r="x"\ndeclare -- x="5"'
    )
    assert out(lab, "arr=(a b c); declare -n ra=arr; ra[1]=x; echo ${arr[@]} ${#ra[@]}") == (
        "a x c 3"
    )
    assert sh(lab, "declare -n bad=1abc") == (
        "bash: declare: `1abc': invalid variable name for name reference",
        1,
    )


def test_indirection_reads_the_parameter_a_variable_names(lab: LabSession) -> None:
    assert out(lab, "b=3; a=b; arr=(x y); i='arr[1]'; echo ${!a} ${!i}") == "3 y"
    assert sh(lab, "unset u; echo ${!u}") == ("bash: u: invalid indirect expansion", 1)


def test_names_by_prefix_are_listed_sorted(lab: LabSession) -> None:
    assert out(lab, 'xa=1 xb=2; xc=(1); declare -i xd; printf "<%s>" "${!x@}" "${!x*}"') == (
        "<xa><xb><xc><xa xb xc>"
    )


def test_transformations_quote_and_change_case_as_bash_does(lab: LabSession) -> None:
    line = """x="a b'c"; a=(1 "2 3"); declare -i n=3; echo ${x@Q} ${x@U} ${x@u} ${a[@]@Q}"""
    assert out(lab, line) == "'a b'\\''c' A B'C A b'c '1' '2 3'"
    assert out(lab, 'echo "${n@A}" "${a@a}" "${x@A}"') == "declare -i n='3' a x='a b'\\''c'"


def test_dash_v_tells_whether_a_variable_or_element_is_set(lab: LabSession) -> None:
    line = (
        "a=(1 2); declare -A m=([k]=v); declare e; [[ -v a[1] ]]; echo $?; [[ -v a[5] ]];"
        " echo $?; [[ -v m[k] ]]; echo $?; test -v e; echo $?; [ ! -v nope ]; echo $?"
    )
    assert out(lab, line) == "0\n1\n0\n1\n0"


def test_a_local_gives_back_the_callers_attributes_when_the_function_returns(
    lab: LabSession,
) -> None:
    assert out(lab, "declare -u s=AB; f() { local s=low; declare -p s; }; f; declare -p s") == (
        'declare -- s="low"\ndeclare -u s="AB"'
    )


def test_attributes_survive_a_saved_lab_and_old_saved_shells_load(lab: LabSession) -> None:
    lab.run("declare -ir n=4; declare -n r=n; declare t")
    again = LabSession.from_json(json.loads(json.dumps(lab.to_json())))
    assert out(again, "declare -p n r t; n=5") == (
        'declare -ir n="4"\ndeclare -n r="n"\ndeclare -- t\nbash: n: readonly variable'
    )
    saved = ShellState().to_json()
    del saved["attributes"]
    # bash's own readonly variables (EUID...) only: a saved lab gets them back.
    assert ShellState.from_json(saved).attributes == OWN_ATTRIBUTES
