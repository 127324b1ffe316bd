"""awk on kadmin: what admins type, with gawk's output and wording for its errors."""

from __future__ import annotations

from simulators.lab import LabSession
from tests.unit.lab.shell_helpers import out, sh


def test_awk_prints_fields_of_kubectls_tables(single: LabSession) -> None:
    assert out(single, "kubectl get nodes | awk 'NR > 1 {print $1}'") == (
        "gpu-node1\ngpu-node2\ngpu-node3"
    )
    assert out(single, "kubectl get nodes | awk 'NR == 1 {print NF, $NF}'") == "5 VERSION"


def test_awk_sums_in_an_end_block(single: LabSession) -> None:
    program = "awk '{sum += $2} END {print sum, NR, sum / NR}'"
    assert out(single, "printf 'a 1\\nb 2\\nc 4\\n' | " + program) == "7 3 2.33333"


def test_awk_splits_on_F_and_matches_regex_and_comparison_patterns(single: LabSession) -> None:
    data = "printf 'gpu-node1,8\\ncpu-node1,0\\ngpu-node2,4\\n' | "
    assert out(single, data + "awk -F, '/^gpu/ && $2 >= 8 {print $1}'") == "gpu-node1"
    assert out(single, data + "awk -F, '$1 ~ /cpu/ {print NR\": \"$0}'") == "2: cpu-node1,0"
    assert out(single, data + "awk -F, -v min=1 '$2 > min' | wc -l") == "2"


def test_awk_printf_length_and_string_functions(single: LabSession) -> None:
    line = "echo 'mig-single nvidia' | "
    assert out(single, line + "awk '{printf \"%-12s|%5.1f|%d\\n\", $1, 2.25, length($2)}'") == (
        "mig-single  |  2.2|6"
    )
    assert out(single, line + "awk '{print toupper(substr($1, 5)), index($0, \"n\")}'") == (
        "SINGLE 7"
    )
    assert out(single, line + "awk '{n = gsub(/i/, \"I\"); print n, $0}'") == "4 mIg-sIngle nvIdIa"


def test_awk_arrays_loops_and_begin(single: LabSession) -> None:
    program = "awk 'BEGIN {OFS=\"=\"} {count[$1]++} END {for (k in count) print k, count[k]}'"
    assert out(single, "printf 'x\\ny\\nx\\n' | " + program + " | sort") == "x=2\ny=1"
    assert out(single, "awk 'BEGIN {for (i = 1; i <= 3; i++) s = s i; print s}'") == "123"


def test_awk_errors_are_gawks(single: LabSession) -> None:
    assert sh(single, "awk '{print $1'") == (
        "awk: cmd. line:1: {print $1\n"
        "awk: cmd. line:1:          ^ unexpected newline or end of string",
        1,
    )
    assert sh(single, "awk '{print}' nope.txt") == (
        "awk: fatal: cannot open file `nope.txt' for reading: No such file or directory",
        2,
    )
    assert sh(single, "awk 'BEGIN {print 1/0}'") == (
        "awk: cmd. line:1: fatal: division by zero attempted",
        2,
    )
    output, code = sh(single, "awk")
    assert (output.split("\n")[0], code) == (
        "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...",
        2,
    )
    assert out(single, "awk -z 1").split("\n")[0] == "awk: invalid option -- 'z'"


def test_awk_cannot_run_host_commands(single: LabSession) -> None:
    assert sh(single, "awk 'BEGIN {system(\"id\")}'") == (
        "awk: cmd. line:1: fatal: system() is not available in this lab",
        2,
    )
