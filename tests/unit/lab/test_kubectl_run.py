"""kubectl run as kubectl 1.36 runs it: its own flags only, its checks in its order and words,
the Pod its generator builds (and the Service --expose adds), --overrides of each type, and the
one line an attached run gets in a lab whose pods have no terminal. Each expected text was
checked against the real kubectl (tests/oracle)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from simulators.cluster.api import ApiError
from simulators.cluster.unsupported import limit
from tests.unit.lab.kubectl_cluster import Lab, build

USAGE = "See 'kubectl run -h' for help and examples"


@pytest.fixture
def lab() -> Lab:
    return build()


def _pods(lab: Lab) -> set[str]:
    return {p["metadata"]["name"] for p in lab.api.list("pods", "default")["items"]}


def test_a_flag_of_create_deployment_is_an_unknown_flag_for_run(lab: Lab) -> None:
    result = lab.run("kubectl run web --image=nginx --replicas=2")
    assert (result.text, result.code) == (
        "error: unknown flag: --replicas\nSee 'kubectl run --help' for usage.",
        1,
    )


def test_a_client_dry_run_prints_every_flag_in_the_pod_kubectl_would_send(lab: Lab) -> None:
    pod = lab.yaml(
        "kubectl run web --image=nginx:1.27 --env=A=1 --env=B=x=y --annotations=team=ml "
        "-l app=web,tier=fe --privileged --image-pull-policy=IfNotPresent --port=8080 "
        "--restart=Never --dry-run=client -o yaml",
    )
    assert pod["metadata"] == {
        "annotations": {"team": "ml"},
        "labels": {"app": "web", "tier": "fe"},
        "name": "web",
    }
    assert pod["spec"] == {
        "containers": [
            {
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "x=y"}],
                "image": "nginx:1.27",
                "imagePullPolicy": "IfNotPresent",
                "name": "web",
                "ports": [{"containerPort": 8080}],
                "resources": {},
                "securityContext": {"privileged": True},
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Never",
    }
    assert "web" not in _pods(lab)


def test_a_name_after_the_double_dash_names_the_pod_as_kubectl_1_36_takes_it(lab: Lab) -> None:
    """kubectl 1.36.3 (the oracle's binary) takes NAME as the first word, before `--` or after
    it: the generated oracle on seed 5801 found `kubectl run -n default --image=nginx -- web`
    creating pod/web there, where the lab said NAME is required."""
    pod = lab.yaml("kubectl run --image=busybox --dry-run=client -o yaml -- web a b")
    assert pod["metadata"]["name"] == "web"
    assert pod["spec"]["containers"][0]["args"] == ["a", "b"]


def test_arguments_before_and_after_the_double_dash_keep_their_order(lab: Lab) -> None:
    pod = lab.yaml("kubectl run web --image=busybox a b --dry-run=client -o yaml -- c d")
    assert pod["spec"]["containers"][0]["args"] == ["a", "b", "c", "d"]
    pod = lab.yaml("kubectl run web --image=busybox --command --dry-run=client -o yaml -- sleep 1")
    assert pod["spec"]["containers"][0]["command"] == ["sleep", "1"]


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("kubectl run --image=nginx --", f"error: NAME is required for run\n{USAGE}"),
        ("kubectl run web --image=", "error: --image is required"),
        (
            "kubectl run web --image=Nginx",
            'error: Invalid image name "Nginx": invalid reference format',
        ),
        (
            "kubectl run web --image=busybox -t",
            f"error: -i/--stdin is required for containers with -t/--tty=true\n{USAGE}",
        ),
        (
            "kubectl run web --image=nginx --expose",
            f"error: --port must be set when exposing a service\n{USAGE}",
        ),
        (
            "kubectl run web --image=nginx --port=http",
            'error: strconv.Atoi: parsing "http": invalid syntax',
        ),
        (
            "kubectl run web --image=nginx --rm",
            f"error: --rm should only be used for attached containers\n{USAGE}",
        ),
        (
            "kubectl run web --image=busybox -it --dry-run=client -o yaml",
            "error: --dry-run=[server|client] can't be used with attached containers options "
            f"(--attach, --stdin, or --tty)\n{USAGE}",
        ),
        (
            "kubectl run web --image=nginx --restart=Sometimes",
            f"error: invalid restart policy: Sometimes\n{USAGE}",
        ),
        (
            "kubectl run web --image=nginx --image-pull-policy=Maybe",
            f"error: invalid image pull policy: Maybe\n{USAGE}",
        ),
        ("kubectl run web --image=nginx -l app", "error: unexpected label spec: app"),
        ("kubectl run web --image=nginx -l =web", "error: unexpected empty label key"),
        ("kubectl run web --image=nginx --env=1A=b", "error: invalid env: 1A=b"),
        ("kubectl run web --image=nginx --annotations=a", "error: invalid annotations format: a"),
        (
            "kubectl run web --image=nginx --pod-running-timeout=0s",
            f"error: --pod-running-timeout must be higher than zero\n{USAGE}",
        ),
    ],
)
def test_each_mistake_is_refused_in_kubectls_words_and_nothing_is_created(
    lab: Lab, line: str, error: str
) -> None:
    result = lab.run(line)
    assert (result.text, result.code) == (error, 1)
    assert "web" not in _pods(lab)


def test_the_first_mistake_in_kubectls_order_is_the_one_reported(lab: Lab) -> None:
    # The restart policy is checked before --rm, --rm before what the generator checks.
    result = lab.run("kubectl run web --image=nginx --env=1=2 --rm --restart=Sometimes")
    assert result.text == f"error: invalid restart policy: Sometimes\n{USAGE}"
    result = lab.run("kubectl run web --image=nginx --env=1=2 --rm")
    assert result.text == f"error: --rm should only be used for attached containers\n{USAGE}"
    # The generator's own: the environment, the annotations, the labels, then the port.
    result = lab.run("kubectl run web --image=nginx --port=http -l app --annotations=a --env=1=2")
    assert result.text == "error: invalid env: 1=2"
    result = lab.run("kubectl run web --image=nginx --port=http -l app")
    assert result.text == "error: unexpected label spec: app"


def test_expose_creates_a_service_selecting_the_pod_and_prints_it_first(lab: Lab) -> None:
    result = lab.run("kubectl run api --image=nginx --port=8080 --expose")
    assert (result.text, result.code) == ("service/api created\npod/api created", 0)
    service = lab.api.get("services", "api", "default")
    assert service["spec"]["selector"] == {"run": "api"}
    assert service["spec"]["ports"][0] == {"port": 8080, "protocol": "TCP", "targetPort": 8080}
    assert "api" in _pods(lab)


def test_exposed_yaml_separates_the_service_and_the_pod_as_kubectl_does(lab: Lab) -> None:
    result = lab.run(
        "kubectl run api --image=nginx --port=80 --expose -l app=api --dry-run=client -o yaml"
    )
    service, separators, pod = result.text.partition("\n---\n---\n")
    assert separators
    assert yaml.safe_load(service)["metadata"] == {"labels": {"app": "api"}, "name": "api"}
    assert yaml.safe_load(pod)["kind"] == "Pod"


def test_a_service_that_cannot_be_created_leaves_the_pod_printed_then_the_error(lab: Lab) -> None:
    lab.api.create(
        "services", {"metadata": {"name": "api"}, "spec": {"ports": [{"port": 1}]}}, "default"
    )
    result = lab.run("kubectl run api --image=nginx --port=80 --expose")
    assert (result.text, result.code) == (
        'pod/api created\nError from server (AlreadyExists): services "api" already exists',
        1,
    )


@pytest.mark.parametrize(
    ("flags", "container"),
    [
        (
            """--overrides='{"spec":{"containers":[{"name":"gpu","image":"cuda","x":1}]}}'""",
            {"image": "cuda", "name": "gpu", "resources": {}},
        ),
        (
            "--override-type=strategic "
            """--overrides='{"spec":{"containers":[{"name":"web","stdin":true}]}}'""",
            {"image": "nginx", "name": "web", "resources": {}, "stdin": True},
        ),
        (
            "--override-type=json "
            """--overrides='[{"op":"add","path":"/spec/containers/0/args","value":["-v"]}]'""",
            {"args": ["-v"], "image": "nginx", "name": "web", "resources": {}},
        ),
    ],
)
def test_overrides_of_each_type_change_the_pod_before_it_is_sent(
    lab: Lab, flags: str, container: dict[str, Any]
) -> None:
    result = lab.run(f"kubectl run web --image=nginx {flags}")
    assert (result.text, result.code) == ("pod/web created", 0)
    [sent] = lab.api.get("pods", "web", "default")["spec"]["containers"]
    assert {key: sent.get(key) for key in container} == container
    assert "x" not in sent  # a field a Pod does not have is dropped, as the Go decoder drops it


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        ("""--overrides='{"spec": { ... }}'""", "error: Invalid JSON Patch"),
        (
            """--override-type=strategic --overrides='{"spec": { ... }}'""",
            "error: invalid JSON document",
        ),
        (
            "--override-type=json --overrides='{x'",
            "error: invalid character 'x' looking for beginning of object key string",
        ),
        (
            """--override-type=json --overrides='[{"op":"remove","path":"/spec/nope"}]'""",
            "error: error in remove for path: '/spec/nope': Unable to remove nonexistent key: "
            "nope: missing value",
        ),
        ("--override-type=yaml --overrides='{}'", "error: invalid override type: yaml"),
    ],
)
def test_an_override_that_cannot_apply_is_kubectls_error(lab: Lab, flags: str, error: str) -> None:
    result = lab.run(f"kubectl run web --image=nginx {flags}")
    assert (result.text, result.code) == (error, 1)
    assert "web" not in _pods(lab)


def test_an_interactive_shell_creates_nothing_and_says_what_to_do_instead(lab: Lab) -> None:
    # kubectl's own checks come first: a mistake is reported as kubectl reports it.
    result = lab.run("kubectl run t --image=busybox -it --rm --image-pull-policy=Sometimes -- sh")
    assert result.text == f"error: invalid image pull policy: Sometimes\n{USAGE}"
    result = lab.run("kubectl run t --image=busybox -it --rm -- sh")
    assert (result.text, result.code) == (f"error: {limit('run -i')}", 1)
    assert "t" not in _pods(lab)


def test_an_attached_run_of_one_command_is_refused_in_one_line_before_anything_exists(
    lab: Lab,
) -> None:
    result = lab.run("kubectl run t --image=busybox --attach --rm --restart=Never -- nvidia-smi -L")
    assert result.code == 1
    assert result.text == (
        "error: run --attach is not available in this lab: its pods have no terminal to attach "
        "to; run it without --attach and read its logs"
    )
    assert "t" not in _pods(lab)
    # What the line says to do instead: the same pod, unattached (its logs read later).
    result = lab.run("kubectl run t --image=busybox --restart=Never -- nvidia-smi -L")
    assert (result.text, result.code) == ("pod/t created", 0)
    [container] = lab.api.get("pods", "t", "default")["spec"]["containers"]
    assert container["args"] == ["nvidia-smi", "-L"]


def test_a_server_dry_run_of_an_exposed_pod_stores_nothing(lab: Lab) -> None:
    result = lab.run("kubectl run api --image=nginx --port=80 --expose --dry-run=server")
    assert result.text == "service/api created (server dry run)\npod/api created (server dry run)"
    with pytest.raises(ApiError):
        lab.api.get("services", "api", "default")
    assert "api" not in _pods(lab)


def test_save_config_keeps_the_pod_as_sent_for_a_later_apply(lab: Lab) -> None:
    pod = lab.yaml("kubectl run web --image=nginx --save-config -o yaml")
    applied = pod["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert applied.startswith('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web"')


def test_stdin_without_attaching_is_a_pod_a_client_dry_run_prints_but_the_lab_refuses(
    lab: Lab,
) -> None:
    pod = lab.yaml("kubectl run t --image=busybox -it --attach=false --dry-run=client -o yaml")
    [container] = pod["spec"]["containers"]
    assert (container["stdin"], container["stdinOnce"], container["tty"]) == (True, True, True)
    # Sent, nothing would ever attach to its stdin: the lab's API server refuses such a pod.
    result = lab.run("kubectl run t --image=busybox -i --attach=false")
    assert (result.text, result.code) == (f"error: {limit('run -i')}", 1)
    assert "t" not in _pods(lab)


def test_an_overrides_gpu_limit_given_as_a_number_prints_as_the_quantity_kubectl_decodes(
    lab: Lab,
) -> None:
    pod = lab.yaml(
        "kubectl run g --image=busybox --dry-run=client -o yaml --overrides="
        """'{"spec":{"containers":[{"name":"g","image":"busybox","resources":"""
        """{"limits":{"nvidia.com/gpu":1,"cpu":0.5,"memory":"1024Mi"}}}]}}'"""
    )
    limits = pod["spec"]["containers"][0]["resources"]["limits"]
    assert limits == {"nvidia.com/gpu": "1", "cpu": "500m", "memory": "1Gi"}
