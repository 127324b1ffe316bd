"""kubectl's JSONPath as client-go implements it, one construct at a time."""

from __future__ import annotations

from typing import Any

import pytest

from simulators.lab.budget import BudgetExceeded
from simulators.lab.jsonpath import JsonPathError, evaluate, find

PODS: dict[str, Any] = {
    "kind": "List",
    "items": [
        {
            "metadata": {"name": "a", "labels": {"app": "web", "k8s.io/zone": "z1"}},
            "spec": {"replicas": 3, "limits": {"limit": 8, "ratio": 0.5}},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]},
        },
        {
            "metadata": {"name": "b"},
            "spec": {"replicas": 1},
            "status": {"conditions": [{"type": "Ready", "status": "False"}]},
        },
        {"metadata": {"name": "c", "labels": {"app": "db"}}, "spec": {"replicas": 2.0}},
    ],
}


@pytest.mark.parametrize(
    ("template", "printed"),
    [
        ("{.items[*].metadata.name}", "a b c"),
        ("{.items[0].metadata.name}", "a"),
        ("{.items[-1].metadata.name}", "c"),
        ("{.items[0:2].metadata.name}", "a b"),
        ("{.items[-2:].metadata.name}", "b c"),
        ("{.items[:1].metadata.name}", "a"),
        ("{.items[::2].metadata.name}", "a c"),
        ("{.items[0,2].metadata.name}", "a c"),
        ('{.items[?(@.metadata.labels.app=="web")].metadata.name}', "a"),
        ('{.items[?(@.metadata.labels.app!="web")].metadata.name}', "c"),
        ("{.items[?(@.spec.replicas>1)].metadata.name}", "a c"),
        ("{.items[?(@.spec.replicas<2)].metadata.name}", "b"),
        ("{.items[?(@.metadata.labels)].metadata.name}", "a c"),
        ('{.items[*].status.conditions[?(@.type=="Ready")].status}', "True False"),
        ("{.items[0].metadata.labels.k8s\\.io/zone}", "z1"),
        ("{.items[0].metadata['labels']}", '{"app":"web","k8s.io/zone":"z1"}'),
        ("{.items[0].spec.limits}", '{"limit":8,"ratio":0.5}'),
        ("{.items[2].spec.replicas}", "2"),
        ("{.items[0].spec.limits.ratio}", "0.5"),
        ("{..replicas}", "3 1 2"),
        ("{.items[*].metadata.missing}", ""),
        (
            '{range .items[*]}{.metadata.name}{"\\t"}{.spec.replicas}{"\\n"}{end}',
            "a\t3\nb\t1\nc\t2\n",
        ),
        ("name: {.items[0].metadata.name}", "name: a"),
        ("{.kind}{.kind}", "ListList"),
    ],
)
def test_a_jsonpath_construct_prints_what_kubectl_prints(template: str, printed: str) -> None:
    assert evaluate(template, PODS) == printed


def test_jsonpath_as_json_prints_each_result_list_as_an_indented_array() -> None:
    assert evaluate("{.items[0:2].metadata.name}", PODS, as_json=True) == (
        '[\n    "a",\n    "b"\n]\n'
    )
    assert evaluate("{.items[0].spec.limits}", PODS, as_json=True) == (
        '[\n    {\n        "limit": 8,\n        "ratio": 0.5\n    }\n]\n'
    )


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{.items[*].metadata.name", "unclosed action"),
        ("{.items[?(@.x==1}", "unterminated filter"),
        ("{.items[a]}", "invalid array index a"),
        ("{.items[0}", "unterminated array"),
        ("{%}", "unrecognized character in action: U+0025 '%'"),
    ],
)
def test_a_broken_template_fails_with_client_gos_parse_error(template: str, message: str) -> None:
    with pytest.raises(JsonPathError) as caught:
        evaluate(template, PODS)
    assert str(caught.value) == f"error parsing jsonpath {template}, {message}"


def test_an_index_past_the_end_fails_as_client_go_does() -> None:
    with pytest.raises(JsonPathError, match="array index out of bounds: index 5, length 3"):
        evaluate("{.items[5].metadata.name}", PODS)


def test_end_outside_a_range_fails_and_an_unclosed_range_runs_to_the_end() -> None:
    with pytest.raises(JsonPathError, match="not in range, nothing to end"):
        evaluate("{end}", PODS)
    # client-go then runs the body once more on the list itself (no name there: nothing).
    assert evaluate("{range .items[*]}{.metadata.name},", PODS) == "a,b,c,,"


def test_recursive_descent_over_strings_ends_at_their_bytes() -> None:
    assert evaluate("{..name}", {"a": {"name": "x"}, "b": [{"name": "y"}]}) == "x y"


def test_find_flattens_every_value_a_path_selects_for_custom_columns() -> None:
    assert find('.items[*].status.conditions[?(@.type=="Ready")].status', PODS) == [
        "True",
        "False",
    ]


def test_a_template_that_prints_every_subtree_is_stopped_at_the_output_limit() -> None:
    deep: dict[str, Any] = {"items": [{"a": {"b": {"c": ["x" * 200] * 50}}}] * 200}
    with pytest.raises(BudgetExceeded, match="output stopped at the lab's limit"):
        evaluate("{..}", deep)
