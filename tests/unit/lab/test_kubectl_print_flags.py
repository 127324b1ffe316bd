"""kubectl's PrintFlags on every command that prints what it changed (-o, --template), scale's
preconditions, get --subresource, config view's -o, and the commands the lab does not serve.

Each expectation was read from the real kubectl 1.36 against the lab's apiserver
(tests/oracle/test_generated_oracle.py's print-flags family and
tests/oracle/test_quick_reference_oracle.py check them on generated and documented lines)."""

from __future__ import annotations

import json

import pytest
import yaml

from simulators.lab.kubectl import COMMANDS, VERBS
from simulators.lab.kubectl.unserved import ABSENT
from simulators.lab.kubectl.unserved import VERBS as POD_PROCESS_VERBS
from tests.unit.lab.kubectl_cluster import Lab, build

NO_PRINTER = (
    'error: unable to match a printer suitable for the output format "{}", allowed formats are: '
    "go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,"
    "template,templatefile,yaml"
)


@pytest.fixture
def lab() -> Lab:
    return build()


def replicas(lab: Lab) -> int:
    return int(lab.api.get("deployments.apps", "web", "default")["spec"]["replicas"])


def test_template_alone_is_a_go_template_and_fills_a_bare_template_format(lab: Lab) -> None:
    assert lab.out("kubectl get deploy web --template={{.metadata.name}}") == "web"
    assert lab.out("kubectl get deploy web -o jsonpath --template={.kind}") == "Deployment"
    assert lab.out("kubectl get deploy web -o template --template={{.kind}}") == "Deployment"
    # A format that has a template of its own matches no printer; others ignore the flag.
    refused = lab.run("kubectl get deploy web -o jsonpath={.kind} --template={.x}")
    assert refused.code == 1 and 'output format "jsonpath={.kind}"' in refused.text
    assert lab.out("kubectl get deploy web -o name --template={{.kind}}") == ("deployment.apps/web")


def test_an_unclosed_go_template_action_is_the_parse_error_go_gives(lab: Lab) -> None:
    assert lab.out("kubectl get deploy web -o go-template={{.kind") == (
        "error: error parsing template {{.kind, template: output:1: unclosed action"
    )
    assert lab.out("kubectl get deploy web -o go-template={{.kind}") == (
        "error: error parsing template {{.kind}, template: output:1: bad character U+007D '}'"
    )


def test_a_missing_named_object_is_all_get_says_whatever_the_output(lab: Lab) -> None:
    assert lab.out("kubectl get deploy nope -o jsonpath") == (
        'Error from server (NotFound): deployments.apps "nope" not found'
    )


def test_patch_prints_the_patched_object_and_names_no_dry_run(lab: Lab) -> None:
    patch = """kubectl patch deploy web -p '{"spec":{"replicas":4}}'"""
    assert lab.out(f"{patch} -o jsonpath={{.spec.replicas}}") == "4"
    assert lab.out(f"{patch} -o name") == "deployment.apps/web"
    lab.run("""kubectl patch deploy web -p '{"spec":{"replicas":1}}'""")
    # A client dry run patches what it read, unchecked, and prints no "(dry run)".
    dry = """kubectl patch deploy web -p '{"spec":{"replicas":"x"}}' --dry-run=client"""
    assert lab.out(dry) == "deployment.apps/web patched"
    assert lab.out(f"{dry} -o jsonpath={{.spec.replicas}}") == "x"
    assert replicas(lab) == 1


def test_patch_refuses_an_output_format_only_after_it_has_patched(lab: Lab) -> None:
    out = lab.run("""kubectl patch deploy web -p '{"spec":{"replicas":3}}' -o wide""")
    assert (out.text, out.code) == (NO_PRINTER.format("wide"), 1)
    assert replicas(lab) == 3


def test_patch_of_the_scale_subresource_answers_with_the_scale(lab: Lab) -> None:
    line = (
        """kubectl patch deploy web --subresource=scale --type=merge -p '{"spec":{"replicas":2}}'"""
    )
    assert lab.out(line) == "scale.autoscaling/web patched"
    assert lab.out(f"{line} -o jsonpath={{.kind}}") == "Scale"
    assert lab.out("kubectl patch pod web-1 --subresource=scale -p '{}'").startswith(
        "Error from server (NotFound): the server could not find the requested resource"
    )


def test_scale_checks_current_replicas_before_it_scales(lab: Lab) -> None:
    out = lab.run("kubectl scale deploy web --replicas=3 --current-replicas=2")
    assert (out.text, out.code) == ("error: Expected replicas to be 2, was 1", 1)
    assert replicas(lab) == 1
    assert lab.out("kubectl scale deploy web --replicas=3 --current-replicas=1") == (
        "deployment.apps/web scaled"
    )
    assert replicas(lab) == 3
    version = lab.api.get("deployments.apps", "web", "default")["metadata"]["resourceVersion"]
    assert lab.out("kubectl scale deploy web --replicas=2 --resource-version=1") == (
        f"error: Expected resource version to be 1, was {version}"
    )


def test_scale_prints_the_object_it_read_with_its_new_size(lab: Lab) -> None:
    assert lab.out("kubectl scale deploy web --replicas=5 -o jsonpath={.spec.replicas}") == "5"
    shown = yaml.safe_load(
        lab.out("kubectl scale deploy web --replicas=2 --dry-run=client -o yaml")
    )
    assert shown["spec"]["replicas"] == 2 and replicas(lab) == 5
    assert lab.out("kubectl scale deploy web --replicas=1 -o wide") == NO_PRINTER.format("wide")


def test_a_server_dry_run_of_the_scale_subresource_changes_nothing(lab: Lab) -> None:
    assert lab.out("kubectl scale deploy web --replicas=7 --dry-run=server -o name") == (
        "deployment.apps/web"
    )
    assert replicas(lab) == 1


def test_taint_removes_by_key_and_effect_past_a_value_and_names_no_dry_run(lab: Lab) -> None:
    assert lab.out("kubectl taint node gpu-node1 gpu=true:NoSchedule -o name") == "node/gpu-node1"
    assert lab.out("kubectl taint node gpu-node1 gpu=true:NoSchedule- --dry-run=client") == (
        "node/gpu-node1 untainted"
    )
    assert lab.out("kubectl taint node gpu-node1 gpu=true:NoSchedule- -o jsonpath={.spec}") == (
        "{}"
    )


def test_set_image_to_the_image_it_has_prints_nothing(lab: Lab) -> None:
    assert lab.out("kubectl set image deploy/web web=nginx:1.27") == ""
    assert lab.out("kubectl set image deploy/web web=nginx:1.28 -o jsonpath={.kind}") == (
        "Deployment"
    )


def test_label_prints_each_object_with_a_printer_of_its_own(lab: Lab) -> None:
    text = lab.out("kubectl label pods --all tier=gold -o yaml")
    assert "kind: List" not in text and "---" not in text
    assert text.count("kind: Pod") == len(lab.api.list("pods", "default")["items"])
    assert lab.out("kubectl label deploy web tier=gold --overwrite -o jsonpath={.kind}") == (
        "Deployment"
    )
    assert lab.out("kubectl label deploy web --list -o name") == (
        "error: --list and --output may not be specified together"
    )


def test_apply_prints_the_object_it_created_configured_or_left(lab: Lab) -> None:
    lab.files["cm.yaml"] = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  a: '1'\n"
    )
    created = json.loads(lab.out("kubectl apply -f cm.yaml -o json"))
    assert created["metadata"]["uid"] and created["data"] == {"a": "1"}
    assert lab.out("kubectl apply -f cm.yaml -o name") == "configmap/demo"
    lab.files["cm.yaml"] = lab.files["cm.yaml"].replace("'1'", "'2'")
    assert lab.out("kubectl apply -f cm.yaml --dry-run=client -o jsonpath={.data.a}") == "2"
    assert lab.out("kubectl get cm demo -o jsonpath={.data.a}") == "1"
    assert lab.out("kubectl replace --force -f cm.yaml --dry-run=server") == (
        "error: --dry-run can not be used when --force is set"
    )


def test_get_subresource_prints_the_scale_or_the_object_by_name_only(lab: Lab) -> None:
    lines = lab.out("kubectl get deploy web --subresource=scale").split("\n")
    assert lines[0].split() == ["NAME", "DESIRED", "AVAILABLE", "AGE"]
    assert lines[1].split()[:3] == ["web", "1", "0"]
    assert lab.out("kubectl get deploy web --subresource=scale -o name") == "scale.autoscaling/web"
    assert lab.out("kubectl get deploy web --subresource=status -o name") == "deployment.apps/web"
    assert lab.out("kubectl get deploy --subresource=status") == (
        "error: subresource cannot be used when bulk resources are specified"
    )
    assert lab.out("kubectl get node gpu-node1 --subresource=scale") == (
        "Error from server (NotFound): the server could not find the requested resource"
    )


def test_config_view_prints_the_kubeconfig_in_any_output_format(lab: Lab) -> None:
    assert list(json.loads(lab.out("kubectl config view -o json"))) == [
        "kind",
        "apiVersion",
        "clusters",
        "users",
        "contexts",
        "current-context",
    ]
    assert lab.out("kubectl config view -o jsonpath={.users[*].name}") == "kubernetes-admin"
    assert "preferences" not in lab.out("kubectl config view")
    assert lab.out("kubectl config view -o wide") == NO_PRINTER.format("wide")


def test_every_command_kubectl_lists_either_runs_or_says_why_it_cannot(lab: Lab) -> None:
    for command in COMMANDS:
        if command in VERBS:
            continue
        out = lab.run(f"kubectl {command}")
        assert out.code == 1 and "is not available in this lab" in out.text, command
        assert command in POD_PROCESS_VERBS or command in ABSENT
    assert "Did you mean" not in lab.out("kubectl autoscale deployment web --max=3")


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("kubectl get deployment web -o YAML", "kind: Deployment"),
        ("kubectl get deployment web -o Name", "deployment.apps/web"),
        ("kubectl create namespace t --dry-run=client -o JSON", '"kind": "Namespace"'),
        ("kubectl scale deployment web --replicas=2 -o NAME", "deployment.apps/web"),
    ],
)
def test_json_yaml_and_name_formats_are_read_in_any_case_as_kubectls_flags_lower_them(
    lab: Lab, line: str, shown: str
) -> None:
    result = lab.run(line)
    assert result.code == 0, result.text
    assert shown in result.text


def test_wide_and_the_templates_keep_their_case(lab: Lab) -> None:
    assert lab.run("kubectl get deployments -o WIDE").code == 1
