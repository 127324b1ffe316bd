"""The verbs a learner types beside get and describe: create's generators, run, expose, set
image, taint, wait, auth, events, get --raw; and describe for StatefulSets, Jobs and Secrets.
Each prints what the real kubectl 1.36 prints (checked against it by tests/oracle)."""

from __future__ import annotations

import base64
import json

import pytest

from tests.unit.lab.kubectl_world import World


@pytest.fixture
def world() -> World:
    return World()


def test_create_deployment_dry_run_prints_kubectls_manifest_and_creates_nothing(
    world: World,
) -> None:
    before = world.state()
    out = world.run("kubectl create deployment web -n runai --image=nginx --dry-run=client -o yaml")
    assert out.code == 0
    assert out.text == (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    app: web\n  name: web\n"
        "  namespace: runai\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: web\n"
        "  strategy: {}\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n"
        "      containers:\n      - image: nginx\n        name: nginx\n        resources: {}\n"
        "status: {}"
    )
    assert world.state() == before


@pytest.mark.parametrize(
    ("line", "printed", "resource", "name"),
    [
        (
            "kubectl create deployment web --image=nginx",
            "deployment.apps/web created",
            "deployments.apps",
            "web",
        ),
        ("kubectl create namespace scratch", "namespace/scratch created", "namespaces", "scratch"),
        (
            "kubectl create configmap cm -n runai --from-literal=a=1",
            "configmap/cm created",
            "configmaps",
            "cm",
        ),
        (
            "kubectl create serviceaccount bot -n runai",
            "serviceaccount/bot created",
            "serviceaccounts",
            "bot",
        ),
        (
            "kubectl create service clusterip web -n runai --tcp=80:8080",
            "service/web created",
            "services",
            "web",
        ),
        ("kubectl run nginx --image=nginx", "pod/nginx created", "pods", "nginx"),
        (
            "kubectl expose deploy/runai-agent -n runai --port=80 --name=agent",
            "service/agent exposed",
            "services",
            "agent",
        ),
    ],
)
def test_a_generator_creates_its_object(
    world: World, line: str, printed: str, resource: str, name: str
) -> None:
    out = world.run(line)
    assert (out.text, out.code) == (printed, 0)
    ns = None if resource == "namespaces" else ("runai" if "-n runai" in line else "default")
    assert world.api.get(resource, name, ns)["metadata"]["name"] == name


def test_expose_selects_what_the_deployment_selects(world: World) -> None:
    world.run("kubectl expose deploy/runai-agent -n runai --port=80 --target-port=8080")
    service = world.api.get("services", "runai-agent", "runai")
    deploy = world.api.get("deployments.apps", "runai-agent", "runai")
    assert service["spec"]["selector"] == deploy["spec"]["selector"]["matchLabels"]
    assert service["spec"]["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 8080}]


def test_create_secret_generic_encodes_its_literals(world: World) -> None:
    out = world.run("kubectl create secret generic s -n runai --from-literal=token=abc -o name")
    assert out.text == "secret/s"
    assert world.api.get("secrets", "s", "runai")["data"] == {"token": "YWJj"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("kubectl create deployment web", 'error: required flag(s) "image" not set'),
        (
            "kubectl create deployment --image=nginx",
            "error: exactly one NAME is required, got 0\n"
            "See 'kubectl create deployment -h' for help and examples",
        ),
        ("kubectl run", 'error: required flag(s) "image" not set'),
        (
            "kubectl create widget x",
            "error: Unexpected args: [widget x]\nSee 'kubectl create -h' for help and examples",
        ),
        (
            "kubectl create namespace runai",
            'Error from server (AlreadyExists): namespaces "runai" already exists',
        ),
    ],
)
def test_a_generator_mistake_fails_with_kubectls_message(
    world: World, line: str, message: str
) -> None:
    out = world.run(line)
    assert (out.text, out.code) == (message, 1)


def test_create_secret_alone_prints_its_help_and_fails(world: World) -> None:
    out = world.run("kubectl create secret")
    assert out.code == 1
    assert out.text.startswith("Create a secret with specified type.")


def test_taint_adds_removes_and_refuses_a_duplicate(world: World) -> None:
    assert world.run("kubectl taint nodes gpu-node1 gpu=true:NoSchedule").text == (
        "node/gpu-node1 tainted"
    )
    taints = world.api.get("nodes", "gpu-node1")["spec"]["taints"]
    assert {"key": "gpu", "value": "true", "effect": "NoSchedule"} in taints
    again = world.run("kubectl taint nodes gpu-node1 gpu=false:NoSchedule")
    assert (again.text, again.code) == (
        "error: node gpu-node1 already has gpu taint(s) with same effect(s) and --overwrite is "
        "false",
        1,
    )
    assert world.run("kubectl taint nodes gpu-node1 gpu-").text == "node/gpu-node1 untainted"
    missing = world.run("kubectl taint nodes gpu-node1 gpu-")
    assert (missing.text, missing.code) == ('error: taint "gpu" not found', 1)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("kubectl taint nodes", "error: at least one taint update is required"),
        (
            "kubectl taint nodes gpu-node1 a=b:Bad",
            "error: invalid taint effect: Bad, unsupported taint effect\n"
            "See 'kubectl taint -h' for help and examples",
        ),
    ],
)
def test_a_taint_mistake_fails_with_kubectls_message(world: World, line: str, message: str) -> None:
    out = world.run(line)
    assert (out.text, out.code) == (message, 1)


def test_set_image_changes_the_template_and_names_a_missing_container(world: World) -> None:
    deploy = world.api.get("deployments.apps", "runai-agent", "runai")
    container = deploy["spec"]["template"]["spec"]["containers"][0]["name"]
    out = world.run(f"kubectl set image deploy/runai-agent -n runai {container}=img:v2")
    assert (out.text, out.code) == ("deployment.apps/runai-agent image updated", 0)
    after = world.api.get("deployments.apps", "runai-agent", "runai")
    assert after["spec"]["template"]["spec"]["containers"][0]["image"] == "img:v2"
    missing = world.run("kubectl set image deploy/runai-agent -n runai nope=img:v2")
    assert (missing.text, missing.code) == ('error: unable to find container named "nope"', 1)


def test_wait_answers_at_once_met_or_timed_out(world: World) -> None:
    met = world.run("kubectl wait --for=condition=Available deploy/runai-agent -n runai")
    assert (met.text, met.code) == ("deployment.apps/runai-agent condition met", 0)
    late = world.run("kubectl wait --for=condition=Stalled deploy/runai-agent -n runai")
    assert (late.text, late.code) == (
        "error: timed out waiting for the condition on deployments/runai-agent",
        1,
    )
    none = world.run("kubectl wait --for=condition=Ready pod -l app=nope -n runai")
    assert (none.text, none.code) == ("error: no matching resources found", 1)


def test_auth_answers_as_the_cluster_admin(world: World) -> None:
    assert world.run("kubectl auth can-i delete pods").text == "yes"
    assert world.run("kubectl auth can-i delete nodes").text == (
        "Warning: resource 'nodes' is not namespace scoped\n\nyes"
    )
    assert world.run("kubectl auth can-i list foos").text == (
        "Warning: the server doesn't have a resource type 'foos'\n\nyes"
    )
    assert world.run("kubectl auth whoami").text == (
        "ATTRIBUTE   VALUE\nUsername    kubernetes-admin\n"
        "Groups      [kubeadm:cluster-admins system:authenticated]"
    )
    missing = world.run("kubectl auth can-i")
    assert missing.code == 1
    assert missing.text.startswith("error: you must specify two arguments")


def test_get_raw_returns_the_servers_body(world: World) -> None:
    assert world.run("kubectl get --raw /healthz").text == "ok"
    body = json.loads(world.run("kubectl get --raw /api/v1/namespaces/runai").text)
    assert body["metadata"]["name"] == "runai"
    assert json.loads(world.run("kubectl get --raw /version").text)["gitVersion"] == "v1.31.4"
    nope = world.run("kubectl get --raw /nope")
    assert (nope.text, nope.code) == (
        "Error from server (NotFound): the server could not find the requested resource",
        1,
    )


def test_ignore_not_found_prints_nothing(world: World) -> None:
    for line in (
        "kubectl get pods nope --ignore-not-found",
        "kubectl get pods nope -o yaml --ignore-not-found",
    ):
        out = world.run(line)
        assert (out.text, out.code) == ("", 0)


def test_events_with_none_says_so_for_the_namespace(world: World) -> None:
    assert world.run("kubectl events -n runai").text == "No events found in runai namespace."


def test_events_print_kubectls_columns_oldest_first() -> None:
    lines = World("mig-mixed").run("kubectl events -A").text.split("\n")
    assert lines[0].split() == ["NAMESPACE", "LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert len(lines) > 2


def test_describe_secret_shows_byte_counts_never_the_data(world: World) -> None:
    config = b'{"auths":{"nvcr.io":{"auth":"eDp5"}}}'
    world.api.create(
        "secrets",
        {
            "metadata": {"name": "regcred", "namespace": "runai"},
            "type": "kubernetes.io/dockerconfigjson",
            "data": {".dockerconfigjson": base64.b64encode(config).decode()},
        },
        "runai",
    )
    text = world.run("kubectl describe secret regcred -n runai").text
    assert f".dockerconfigjson:  {len(config)} bytes" in text
    assert "eDp5" not in text and "Type:  kubernetes.io/dockerconfigjson" in text


def test_describe_statefulset_uses_kubectls_describer(world: World) -> None:
    text = world.run("kubectl describe statefulset prometheus-runai -n runai").text
    assert "Replicas:           1 desired | 1 total" in text
    assert "Volume Claims:" in text
    assert "API Version:" not in text


def test_describe_job_uses_kubectls_describer() -> None:
    text = World("mig-single").run("kubectl describe jobs -A").text
    assert "Pods Statuses:" in text and "Completion Mode:  NonIndexed" in text


def test_api_versions_lists_every_group_version_sorted_as_strings(world: World) -> None:
    lines = world.run("kubectl api-versions").text.split("\n")
    assert lines == sorted(lines)
    assert {"v1", "apps/v1", "batch/v1", "nvidia.com/v1", "run.ai/v2"} <= set(lines)


@pytest.mark.parametrize(
    ("line", "manifest"),
    [
        (
            "kubectl create cronjob cj --image=busybox '--schedule=*/5 * * * *' "
            "--dry-run=client -o yaml -- date",
            "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: cj\nspec:\n  jobTemplate:\n"
            "    metadata:\n      name: cj\n    spec:\n      template:\n        metadata: {}\n"
            "        spec:\n          containers:\n          - command:\n            - date\n"
            "            image: busybox\n            name: cj\n            resources: {}\n"
            "          restartPolicy: OnFailure\n  schedule: '*/5 * * * *'\nstatus: {}",
        ),
        (
            "kubectl create clusterrolebinding crb --clusterrole=cr --group=g --dry-run=client "
            "-o yaml",
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n"
            "  name: crb\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n"
            "  name: cr\nsubjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n"
            "  name: g",
        ),
        (
            "kubectl create ingress ing --rule='foo.com/bar=svc:80' --dry-run=client -o yaml",
            "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ing\nspec:\n"
            "  rules:\n  - host: foo.com\n    http:\n      paths:\n      - backend:\n"
            "          service:\n            name: svc\n            port:\n"
            "              number: 80\n        path: /bar\n        pathType: Exact\n"
            "status:\n  loadBalancer: {}",
        ),
        (
            "kubectl create rolebinding rb --role=r --user=alice --dry-run=client -o json",
            '{\n    "kind": "RoleBinding",\n    "apiVersion": "rbac.authorization.k8s.io/v1",\n'
            '    "metadata": {\n        "name": "rb"\n    },\n    "subjects": [\n        {\n'
            '            "kind": "User",\n            "apiGroup": "rbac.authorization.k8s.io",\n'
            '            "name": "alice"\n        }\n    ],\n    "roleRef": {\n'
            '        "apiGroup": "rbac.authorization.k8s.io",\n        "kind": "Role",\n'
            '        "name": "r"\n    }\n}',
        ),
    ],
)
def test_a_client_dry_run_prints_kubectls_manifest_even_for_a_kind_not_served(
    world: World, line: str, manifest: str
) -> None:
    before = world.state()
    out = world.run(line)
    assert (out.text, out.code) == (manifest, 0)
    assert world.state() == before


def test_a_jsonpath_that_fails_on_the_data_prints_kubectls_dump_of_it(world: World) -> None:
    out = world.run("kubectl get svc -n nothing-here -o jsonpath='{.items[0].metadata.name}'")
    assert out.code == 1
    assert out.text == (
        'error: error executing jsonpath "{.items[0].metadata.name}": Error executing template: '
        "array index out of bounds: index 0, length 0. Printing more information for debugging "
        "the template:\n\ttemplate was:\n\t\t{.items[0].metadata.name}\n\tobject given to "
        'jsonpath engine was:\n\t\tmap[string]interface {}{"apiVersion":"v1", '
        '"items":[]interface {}{}, "kind":"List", "metadata":map[string]interface '
        '{}{"resourceVersion":""}}'
    )
