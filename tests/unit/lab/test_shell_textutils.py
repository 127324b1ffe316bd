"""coreutils on kadmin with GNU's output and wording: wc, sort, uniq, cut, tr, head, tail,
base64, less and more."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession
from tests.unit.lab.shell_helpers import out, sh


@pytest.fixture
def lab(single: LabSession) -> LabSession:
    single.world.state.files["gpus.txt"] = "node3 4\nnode1 8\nnode2 8\nnode1 8\n"
    return single


def test_wc_counts_lines_words_and_bytes_like_gnu(lab: LabSession) -> None:
    assert out(lab, "wc -l gpus.txt") == "4 gpus.txt"
    assert out(lab, "wc gpus.txt") == " 4  8 32 gpus.txt"
    assert out(lab, "cat gpus.txt | wc") == "      4       8      32"
    assert sh(lab, "wc nope") == ("wc: nope: No such file or directory", 1)
    assert out(lab, "wc -z") == "wc: invalid option -- 'z'\nTry 'wc --help' for more information."


def test_sort_orders_by_key_number_and_reverse(lab: LabSession) -> None:
    assert out(lab, "sort gpus.txt | head -1") == "node1 8"
    assert out(lab, "sort -k2,2n -k1,1r gpus.txt") == "node3 4\nnode2 8\nnode1 8\nnode1 8"
    assert out(lab, "sort -u gpus.txt") == "node1 8\nnode2 8\nnode3 4"
    assert out(lab, "printf '10\\n9\\n100\\n' | sort -n") == "9\n10\n100"
    assert out(lab, "printf '1Gi\\n512Mi\\n' | sort -h") == "512Mi\n1Gi"
    assert sh(lab, "sort -y") == (
        "sort: invalid option -- 'y'\nTry 'sort --help' for more information.",
        2,
    )
    assert sh(lab, "sort nope") == ("sort: cannot read: nope: No such file or directory", 2)


def test_sort_h_weighs_a_unit_only_after_a_digit_above_zero_as_gnu_does(lab: LabSession) -> None:
    # -0 equals 0 and 0K is no kilo: found by the GNU oracle (tests/unit/lab/test_shell_oracle.py).
    assert out(lab, "printf '5\\n0K\\n-1K\\n2M\\n-0\\n1.5K\\n' | sort -h") == (
        "-1K\n-0\n0K\n5\n1.5K\n2M"
    )
    assert out(lab, "printf 'gpu-node1\\n-0x1p-2\\n' | sort -u -h") == "gpu-node1"


def test_uniq_counts_adjacent_lines(lab: LabSession) -> None:
    assert (
        out(lab, "sort gpus.txt | uniq -c") == "      2 node1 8\n      1 node2 8\n      1 node3 4"
    )
    assert out(lab, "sort gpus.txt | uniq -d") == "node1 8"


def test_cut_picks_fields_and_characters(lab: LabSession) -> None:
    assert out(lab, "cut -d' ' -f2 gpus.txt | head -2") == "4\n8"
    assert out(lab, "echo abcdef | cut -c2-4") == "bcd"
    assert out(lab, "echo a:b:c | cut -d: -f1,3") == "a:c"
    assert out(lab, "cut gpus.txt") == (
        "cut: you must specify a list of bytes, characters, or fields\n"
        "Try 'cut --help' for more information."
    )
    assert out(lab, "cut -f0 gpus.txt") == (
        "cut: fields are numbered from 1\nTry 'cut --help' for more information."
    )
    assert out(lab, "cut -d ab -f1 gpus.txt") == (
        "cut: the delimiter must be a single character\nTry 'cut --help' for more information."
    )


def test_tr_translates_deletes_and_squeezes(lab: LabSession) -> None:
    assert out(lab, "echo Hello | tr a-z A-Z") == "HELLO"
    assert out(lab, "echo 'a  b   c' | tr -s ' '") == "a b c"
    assert out(lab, "echo a-b-c | tr -d -- -") == "abc"
    assert out(lab, "echo a | tr '[:lower:]' '[:upper:]'") == "A"
    assert out(lab, "echo a | tr abc") == (
        "tr: missing operand after 'abc'\nTwo strings must be given when translating.\n"
        "Try 'tr --help' for more information."
    )


def test_head_and_tail_take_the_ends(lab: LabSession) -> None:
    assert out(lab, "head -n 1 gpus.txt") == "node3 4"
    assert out(lab, "tail -1 gpus.txt") == "node1 8"


def test_base64_encodes_and_decodes_as_kubernetes_secrets_need(lab: LabSession) -> None:
    assert out(lab, "echo -n admin | base64") == "YWRtaW4="
    assert out(lab, "echo admin | base64") == "YWRtaW4K"
    assert out(lab, "echo YWRtaW4= | base64 -d") == "admin"
    assert sh(lab, "echo '!!!' | base64 -d") == ("base64: invalid input", 1)


def test_less_and_more_print_the_file_for_the_terminal_to_scroll(lab: LabSession) -> None:
    assert out(lab, "less gpus.txt") == "node3 4\nnode1 8\nnode2 8\nnode1 8"
    assert out(lab, "kubectl get nodes | more | wc -l") == "4"
    assert out(lab, "less nope") == "nope: No such file or directory"
    assert out(lab, "more nope") == "more: cannot open nope: No such file or directory"


def test_head_and_tail_refuse_an_unknown_option_as_gnu_does(lab: LabSession) -> None:
    assert sh(lab, "head -z gpus.txt") == (
        "head: invalid option -- 'z'\nTry 'head --help' for more information.",
        1,
    )
    assert (
        out(lab, "tail nope") == "tail: cannot open 'nope' for reading: No such file or directory"
    )


def test_cat_n_numbers_lines_and_tee_copies_to_a_file(lab: LabSession) -> None:
    assert out(lab, "cat -n gpus.txt | head -2") == "     1\tnode3 4\n     2\tnode1 8"
    assert out(lab, "echo saved | tee copy.txt") == "saved"
    assert lab.world.state.files["copy.txt"] == "saved\n"


def test_xargs_runs_a_command_with_the_pipes_words(lab: LabSession) -> None:
    names = "kubectl get nodes -o name | head -2 | "
    assert out(lab, names + "xargs echo") == "node/gpu-node1 node/gpu-node2"
    assert out(lab, names + "xargs -n1 echo got") == "got node/gpu-node1\ngot node/gpu-node2"
    assert out(lab, names + "xargs -I{} echo {} ok") == "node/gpu-node1 ok\nnode/gpu-node2 ok"
    assert sh(lab, "echo a | xargs nope") == ("xargs: nope: No such file or directory", 127)


def test_tail_plus_n_starts_at_a_line_and_head_minus_n_drops_the_last(lab: LabSession) -> None:
    assert out(lab, "kubectl get nodes | tail -n +2 | wc -l") == "3"
    assert out(lab, "head -n -1 gpus.txt") == "node3 4\nnode1 8\nnode2 8"
    assert out(lab, "tail -n 1 gpus.txt") == "node1 8"


def test_column_nl_paste_tac_rev_and_seq_are_on_the_admin_host(lab: LabSession) -> None:
    """Each as the real one prints it (tests/unit/lab/test_linetools_oracle.py), here through
    the shell's pipes and PATH."""
    assert out(lab, "sort -u gpus.txt | column -t -o ' | '") == ("node1 | 8\nnode2 | 8\nnode3 | 4")
    assert out(lab, "kubectl get nodes -o name | nl | head -1") == "     1\tnode/gpu-node1"
    assert out(lab, "cut -d' ' -f2 gpus.txt | paste -sd+") == "4+8+8+8"
    assert out(lab, "seq -w 8 10 | tac | rev") == "01\n90\n80"
    assert out(lab, "which column seq") == "/usr/bin/column\n/usr/bin/seq"
    assert sh(lab, "seq 1 0 3") == (
        "seq: invalid Zero increment value: '0'\nTry 'seq --help' for more information.",
        1,
    )
