"""kubectl's -o go-template: the text/template subset, one construct at a time."""

from __future__ import annotations

from typing import Any

import pytest

from simulators.lab.gotemplate import TemplateError, evaluate

DATA: dict[str, Any] = {
    "kind": "List",
    "items": [
        {
            "metadata": {"name": "a", "labels": {"app": "web", "tier": "front"}},
            "spec": {"replicas": 3, "memory": 8000000},
        },
        {"metadata": {"name": "b"}, "spec": {"replicas": 1}},
    ],
}


@pytest.mark.parametrize(
    ("template", "printed"),
    [
        ("{{.kind}}", "List"),
        ('{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}', "a\nb\n"),
        ("{{len .items}}", "2"),
        ("{{(index .items 0).metadata.name}}", "a"),
        ('{{index (index .items 0).metadata.labels "app"}}', "web"),
        ('{{range .items}}{{printf "%s=%d;" .metadata.name .spec.replicas}}{{end}}', "a=3;b=1;"),
        ('{{printf "%-4s|%5.1f|%q" "x" 2.25 "y"}}', 'x   |  2.2|"y"'),
        ("{{range $i, $p := .items}}{{$i}}:{{$p.metadata.name}} {{end}}", "0:a 1:b "),
        (
            "{{range $k, $v := (index .items 0).metadata.labels}}{{$k}}={{$v}},{{end}}",
            "app=web,tier=front,",
        ),
        ("{{range .items}}{{if .metadata.labels}}L{{else}}-{{end}}{{end}}", "L-"),
        (
            "{{range .items}}{{if gt .spec.replicas 2.0}}big{{else if eq .spec.replicas 1.0}}one"
            "{{end}}{{end}}",
            "bigone",
        ),
        ("{{with (index .items 0)}}{{.metadata.name}}{{end}}", "a"),
        ("{{(index .items 0).spec.replicas}}", "3"),
        ("{{(index .items 0).spec.memory}}", "8e+06"),
        ("{{(index .items 0).metadata.labels}}", "map[app:web tier:front]"),
        ("{{.missing}}", "<no value>"),
        ('{{.kind | printf "%s!"}}', "List!"),
        ("{{- .kind -}}  \n", "List"),
        ("{{/* a comment */}}x", "x"),
        ("{{range .nothing}}x{{else}}empty{{end}}", "empty"),
        ("{{$n := len .items}}{{$n}}", "2"),
        ('{{not (exists . "kind")}}', "false"),
    ],
)
def test_a_go_template_construct_prints_what_kubectl_prints(template: str, printed: str) -> None:
    assert evaluate(template, DATA) == printed


def test_index_of_a_missing_map_fails_as_text_template_does() -> None:
    with pytest.raises(TemplateError, match="index of untyped nil"):
        evaluate('{{index .missing "app"}}', DATA)


def test_an_unclosed_block_is_a_parse_error() -> None:
    with pytest.raises(TemplateError, match="error parsing template"):
        evaluate("{{range .items}}x", DATA)


def test_an_unknown_function_is_an_error() -> None:
    with pytest.raises(TemplateError, match='function "nope" not defined'):
        evaluate("{{nope .kind}}", DATA)
