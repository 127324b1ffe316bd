"""kubectl create, run, expose and create token print through every PrintFlags printer the
real kubectl accepts (name, yaml, json, jsonpath, jsonpath-as-json, go-template, template),
and refuse any other format with kubectl's line before sending anything."""

from __future__ import annotations

import pytest

from tests.unit.lab.kubectl_world import World


@pytest.fixture
def world() -> World:
    return World()


@pytest.mark.parametrize(
    ("line", "printed"),
    [
        ("kubectl create namespace scratch -o jsonpath={.metadata.name}", "scratch"),
        (
            "kubectl create configmap cm -n runai --from-literal=a=1 --dry-run=client "
            "-o go-template={{.data.a}}",
            "1",
        ),
        ("kubectl run p -n runai --image=nginx --dry-run=client -o template={{.kind}}", "Pod"),
        (
            "kubectl create deployment web -n runai --image=nginx --replicas=2 --dry-run=client "
            "-o jsonpath-as-json={.spec.replicas}",
            "[\n    2\n]",
        ),
        (
            "kubectl expose deploy/runai-agent -n runai --port=80 --name=lab-svc "
            "-o jsonpath={.spec.ports[0].port}",
            "80",
        ),
        ("kubectl create token default -n runai -o jsonpath={.kind}", "TokenRequest"),
    ],
)
def test_a_template_output_prints_the_template_over_the_object_sent(
    world: World, line: str, printed: str
) -> None:
    out = world.run(line)
    assert (out.text, out.code) == (printed, 0)


def test_a_missing_key_in_a_jsonpath_prints_nothing_as_kubectl_allows(world: World) -> None:
    out = world.run("kubectl create namespace scratch -o jsonpath={.nothing.here}")
    assert (out.text, out.code) == ("", 0)


@pytest.mark.parametrize("output", ["wide", "custom-columns=A:.a", "table"])
def test_a_format_create_has_no_printer_for_is_refused_and_nothing_is_created(
    world: World, output: str
) -> None:
    before = world.state()
    out = world.run(f"kubectl create namespace scratch -o {output}")
    assert out.code == 1
    assert out.text == (
        f'error: unable to match a printer suitable for the output format "{output}", allowed '
        "formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,"
        "kyaml,name,template,templatefile,yaml"
    )
    assert world.state() == before


def test_a_template_format_without_a_template_says_so(world: World) -> None:
    out = world.run("kubectl run p -n runai --image=nginx -o go-template")
    assert (out.text, out.code) == ("error: template format specified but no template given", 1)
