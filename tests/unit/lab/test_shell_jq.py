"""jq on kadmin: the real jq (its C library) with jq's options, output format and wording."""

from __future__ import annotations

import time

import pytest

from simulators.lab import LabSession, jqtool
from tests.unit.lab.shell_helpers import out, sh


def test_jq_reads_kubectl_json_and_prints_raw_strings_with_r(single: LabSession) -> None:
    names = out(single, "kubectl get nodes -o json | jq -r '.items[].metadata.name'")
    assert names == "gpu-node1\ngpu-node2\ngpu-node3"
    gpus = out(single, "k get nodes -o json | jq '[.items[].status.capacity[\"nvidia.com/gpu\"]]'")
    assert gpus == '[\n  "8",\n  "8",\n  "8"\n]'


def test_jq_pretty_prints_by_default_and_compacts_with_c(single: LabSession) -> None:
    assert out(single, 'echo \'{"a":[1,{"b":null}]}\' | jq .') == (
        '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ]\n}'
    )
    assert out(single, 'echo \'{"b":1,"a":2}\' | jq -cS .') == '{"a":2,"b":1}'
    assert out(single, "echo '{\"a\":1}' | jq") == '{\n  "a": 1\n}'


def test_jq_takes_files_arguments_and_slurps(single: LabSession) -> None:
    single.run("""echo '{"n": 2}' > a.json""")
    assert out(single, "jq --arg x hi --argjson y 3 '[.n, $x, $y]' -c a.json") == '[2,"hi",3]'
    assert out(single, "printf '1\\n2\\n3\\n' | jq -s add") == "6"
    assert out(single, "jq -n '[range(3)] | length'") == "3"


def test_jq_sees_the_labs_environment_and_nothing_of_the_hosts(single: LabSession) -> None:
    single.run("export TEAM=research")
    assert out(single, "jq -n -r 'env.TEAM, $ENV.HOME'") == "research\n/home/admin"
    assert out(single, 'jq -n \'env | has("PYTHONPATH") or has("DJANGO_SETTINGS_MODULE")\'') == (
        "false"
    )
    assert sh(single, "jq -n 'import \"x\" as x; 1'") == (
        "jq: error: modules are not available in this lab\njq: 1 compile error",
        3,
    )


def test_jq_errors_are_jqs_with_its_exit_statuses(single: LabSession) -> None:
    assert sh(single, "echo 1 | jq .a") == (
        'jq: error (at <stdin>:1): Cannot index number with string "a"',
        5,
    )
    output, code = sh(single, "jq '.a |||' <<< 1")
    assert code == 3
    assert output.startswith("jq: error: syntax error, unexpected '|'")
    assert output.endswith("jq: 1 compile error")
    assert sh(single, "jq . nope.json") == (
        "jq: error: Could not open nope.json: No such file or directory",
        2,
    )
    output, code = sh(single, "jq -z .")
    assert (output.split("\n")[0], code) == ("jq: Unknown option: -z", 2)
    assert sh(single, "echo null | jq -e .") == ("null", 1)


def test_jq_waits_its_turn_when_it_has_used_its_share_of_the_processor(
    single: LabSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jqtool.WORKER, "tokens", -1.0)
    monkeypatch.setattr(jqtool.WORKER, "refilled", time.monotonic() + 60)
    assert sh(single, "jq -n 1") == ("jq: error: the lab's jq is busy; try again in a moment", 2)
