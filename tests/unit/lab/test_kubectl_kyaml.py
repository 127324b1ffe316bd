"""`kubectl -o kyaml` (simulators/lab/kubectl/kyaml.py): the encoder on cases taken from
sigs.k8s.io/yaml's kyaml/kyaml_test.go (TestKYAMLOutput and TestKYAMLFromYAML, regular form),
then the lab's commands that print with it. tests/oracle/test_kyaml_oracle.py compares the
commands with the real kubectl 1.36."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
import yaml

from simulators.lab.kubectl.kyaml import is_type_ambiguous, json_float, needs_quotes, to_kyaml
from tests.unit.lab.kubectl_cluster import Lab, build


def doc(text: str) -> str:
    return "---\n" + textwrap.dedent(text).strip("\n") + "\n"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (5, "5"),
        (-5, "-5"),
        (3.5, "3.5"),
        (-3.5, "-3.5"),
        (0.0, "0"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        ("", '""'),
        ("abc", '"abc"'),
        ({}, "{}"),
        ([], "[]"),
        # "multi-line string": folded, leading spaces kept by escaping them.
        (
            "This\n is a\n  multi-line\n string",
            '"\\\n   This\\n\\\n  \\ is a\\n\\\n  \\  multi-line\\n\\\n  \\ string\\\n  "',
        ),
        ('with "quotes" and \\', '"with \\"quotes\\" and \\\\"'),
        ("bell\a\x01\u2028", '"bell\\a\\x01\\L"'),
    ],
)
def test_scalars_and_empties_render_as_go_does(value: Any, expected: str) -> None:
    assert to_kyaml(value) == f"---\n{expected}\n"


def test_keys_are_quoted_only_when_ambiguous_or_unsafe() -> None:
    keys = {
        # string map with nulls / trues / falses / ints / floats / dates / dash / dot / slash
        **dict.fromkeys(["NULL", "null", "~", "ON", "True", "yes", "no", "Off", "f"], 1),
        **dict.fromkeys(["-1", "1", "_1", "__1__2__", "+.inf", ".nan", "3.14", "1.0"], 1),
        **dict.fromkeys(["11:00", "2006", "2006-1-2", "2026-01-01"], 1),
        **dict.fromkeys(["2006-1-2T15:4:5.999999999-08:00", "0x1F", "1e3", "0b101"], 1),
        **dict.fromkeys(["-", "-leading-dash", "trailing-dash-", ".", ".leading.dot"], 1),
        **dict.fromkeys(["trailing.dot.", "/", "/leading/slash", "trailing/slash/"], 1),
        **dict.fromkeys(["not safe", "with\\backslash", "", "a:b", "tab\tkey", "nl\nkey"], 1),
    }
    bare = ["_", "_with_underscore_", "safe", "with-dash", "with.dot", "with/slash", "unambiguous"]
    bare += [
        "kubernetes.io/metadata.name",
        "2006-13-01",
        "1.2.3",
        "0x",
        "08x",
        "t1",
        "nvidia.com/gpu",
    ]
    for key in keys:
        assert needs_quotes(key), key
    for key in bare:
        assert not needs_quotes(key), key
    out = to_kyaml({"tab\tkey": 1, "nl\nkey": 2, "safe": 3, "no": 4}, sort_keys=False)
    assert out == doc(
        """
        {
          "tab\\tkey": 1,
          "nl\\nkey": 2,
          safe: 3,
          "no": 4,
        }
        """
    )


def test_type_ambiguity_follows_go_parsers() -> None:
    assert is_type_ambiguous("1_000")  # underscores dropped before ParseInt
    assert is_type_ambiguous("Infinity") and is_type_ambiguous("-NaN")  # ParseFloat's words
    assert not is_type_ambiguous("1e400")  # ParseFloat's range error
    assert is_type_ambiguous("2024-02-29") and not is_type_ambiguous("2023-02-29")
    assert is_type_ambiguous("2026-01-01T10:00:00Z") and not is_type_ambiguous("2026-01-01T10:00")


def test_lists_of_maps_and_lists_are_cuddled() -> None:
    # "slice of map", "slice of slice" and "mapping of list".
    assert to_kyaml([{"a": 1, "b": 2}, {"e": 5, "f": 6}]) == doc(
        """
        [{
          a: 1,
          b: 2,
        }, {
          e: 5,
          "f": 6,
        }]
        """
    )
    assert to_kyaml([[1, 2], [3]]) == doc(
        """
        [[
          1,
          2,
        ], [
          3,
        ]]
        """
    )
    assert to_kyaml({"a": [1, 2], "c": ["naked", True], "m": [{"x": {}}, []]}) == doc(
        """
        {
          a: [
            1,
            2,
          ],
          c: [
            "naked",
            true,
          ],
          m: [{
            x: {},
          }, []],
        }
        """
    )


def test_multi_line_strings_fold_with_their_indentation() -> None:
    # "multi-line strings": leading spaces and tabs escaped, blank lines kept.
    value = {
        "simple": "This is a multi-line string.\nIt has multiple lines.\n",
        "leading_spaces": "This is a multi-line string.\n  It can\n",
        "leading_tabs": "This is a multi-line string.\n\tIt can\n",
        "blank_lines": "This is a multi-line string.\n\nIt can retain blank lines.",
    }
    assert to_kyaml(value, sort_keys=False) == doc(
        """
        {
          simple: "\\
             This is a multi-line string.\\n\\
             It has multiple lines.\\n\\
            ",
          leading_spaces: "\\
             This is a multi-line string.\\n\\
            \\  It can\\n\\
            ",
          leading_tabs: "\\
             This is a multi-line string.\\n\\
            \\\tIt can\\n\\
            ",
          blank_lines: "\\
             This is a multi-line string.\\n\\
             \\n\\
             It can retain blank lines.\\
            ",
        }
        """
    )


def test_key_order_is_the_json_order() -> None:
    assert to_kyaml({"b": 1, "a": {"d": 1, "c": 2}}) == doc(
        "{\n  a: {\n    c: 2,\n    d: 1,\n  },\n  b: 1,\n}"
    )
    assert to_kyaml({"b": 1, "a": 2}, sort_keys=False).startswith("---\n{\n  b: 1,")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(8.0, "8"), (0.5, "0.5"), (1e-7, "1e-7"), (1.5e-10, "1.5e-10"), (1e21, "1e+21"), (-0.0, "-0")],
)
def test_floats_print_as_encoding_json_does(value: float, expected: str) -> None:
    assert json_float(value) == expected


def test_output_is_yaml_that_reads_back_the_same() -> None:
    value = {"no": "yes", "1.0": ["a\n b\n", {"x": None, "y": 1.5}], "2026-01-01": "11:00"}
    assert yaml.safe_load(to_kyaml(value)) == value


@pytest.fixture
def lab() -> Lab:
    return build()


def test_get_one_object_prints_one_document(lab: Lab) -> None:
    result = lab.run("kubectl get ns gpu-operator -o kyaml")
    assert result.code == 0
    assert result.text.startswith('---\n{\n  apiVersion: "v1",\n  kind: "Namespace",\n')
    assert (
        '    labels: {\n      kubernetes.io/metadata.name: "gpu-operator",\n    },' in result.text
    )
    assert result.text.endswith("\n}")
    assert yaml.safe_load(result.text) == lab.yaml("kubectl get ns gpu-operator -o yaml")


def test_get_several_objects_prints_one_list(lab: Lab) -> None:
    result = lab.run("kubectl get pods -A -o kyaml")
    assert result.code == 0
    assert result.text.count("---") == 1
    assert result.text.startswith('---\n{\n  apiVersion: "v1",\n  items: [{\n')
    assert result.text.endswith('  kind: "List",\n  metadata: {\n    resourceVersion: "",\n  },\n}')
    assert yaml.safe_load(result.text) == lab.yaml("kubectl get pods -A -o yaml")


def test_create_and_run_print_the_typed_object_in_struct_order(lab: Lab) -> None:
    created = lab.out("kubectl create deployment web --image=nginx --dry-run=client -o kyaml")
    assert created.startswith('---\n{\n  kind: "Deployment",\n  apiVersion: "apps/v1",\n')
    run = lab.out("kubectl run p --image=nginx --expose --port=80 --dry-run=client -o kyaml")
    assert run.count("---\n{") == 2  # one printer, a document header for each object
    assert '  kind: "Service",' in run and '  kind: "Pod",' in run


def test_unknown_format_still_lists_kyaml(lab: Lab) -> None:
    result = lab.run("kubectl get ns -o kyml")
    assert result.code == 1
    assert "jsonpath-file,kyaml,name" in result.text
