"""kubectl create role, clusterrole, token and secret tls in the lab's own kubectl: the rules,
tokens and Secrets kubectl builds, its validation errors word for word, and dry runs that store
nothing (checked against the real kubectl 1.36 by tests/oracle)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from simulators.lab.kubectl.create_token import parse_duration
from simulators.lab.kubectl.go_order import struct_order
from tests.unit.lab.kubectl_world import World

FILES = Path(__file__).resolve().parents[2] / "oracle" / "files"
CERT = (FILES / "tls.crt").read_text(encoding="utf-8")
KEY = (FILES / "tls.key").read_text(encoding="utf-8")


@pytest.fixture
def world() -> World:
    w = World()
    w.ctx.world.state.files.update({"tls.crt": CERT, "tls.key": KEY})
    return w


def test_create_role_stores_one_rule_per_api_group_with_resources_resolved(world: World) -> None:
    out = world.run(
        "kubectl create role reader -n runai --verb=get,list --verb=get "
        "--resource=po,deploy,pods/log --resource-name=a"
    )
    assert (out.text, out.code) == ("role.rbac.authorization.k8s.io/reader created", 0)
    role = world.api.get("roles.rbac.authorization.k8s.io", "reader", "runai")
    assert role["rules"] == [
        {
            "verbs": ["get", "list"],
            "apiGroups": [""],
            "resources": ["pods", "pods/log"],
            "resourceNames": ["a"],
        },
        {
            "verbs": ["get", "list"],
            "apiGroups": ["apps"],
            "resources": ["deployments"],
            "resourceNames": ["a"],
        },
    ]


def test_a_client_dry_run_role_prints_kubectls_manifest_and_stores_nothing(world: World) -> None:
    before = world.state()
    out = world.run(
        "kubectl create role reader -n runai --verb=get,*,list --resource=pods "
        "--dry-run=client -o yaml"
    )
    assert (out.text, out.code) == (
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\n"
        '  namespace: runai\nrules:\n- apiGroups:\n  - ""\n  resources:\n  - pods\n'
        "  verbs:\n  - '*'",
        0,
    )
    assert world.state() == before


def test_a_server_dry_run_role_prints_its_json_in_the_role_structs_field_order(
    world: World,
) -> None:
    before = world.state()
    out = world.run(
        "kubectl create role reader -n runai --verb=get --resource=pods --dry-run=server -o json"
    )
    doc = json.loads(out.text)
    assert list(doc) == ["kind", "apiVersion", "metadata", "rules"]
    assert list(doc["rules"][0]) == ["verbs", "apiGroups", "resources"]
    assert world.state() == before


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("kubectl create role r --resource=pods", "error: at least one verb must be specified"),
        ("kubectl create role r --verb=get", "error: at least one resource must be specified"),
        (
            "kubectl create role r --verb=get --resource=foos",
            'the server doesn\'t have a resource type "foos"',
        ),
        (
            "kubectl create role r --verb=get --resource=foos.apps",
            'the server doesn\'t have a resource type "foos" in group "apps"',
        ),
        (
            "kubectl create role r --verb=bind --resource=pods",
            "error: can not perform 'bind' on 'pods' in group ''",
        ),
        (
            "kubectl create role r --verb=get --resource=/log",
            "error: resource must be specified if apiGroup/subresource specified",
        ),
        (
            "kubectl create role --verb=get --resource=pods",
            "error: exactly one NAME is required, got 0\n"
            "See 'kubectl create role -h' for help and examples",
        ),
        (
            "kubectl create clusterrole c --verb=get",
            "error: one of resource or nonResourceURL must be specified",
        ),
        (
            "kubectl create clusterrole c --verb=get --non-resource-url=logs",
            "error: nonResourceURL should start with /",
        ),
        (
            "kubectl create clusterrole c --verb=get --non-resource-url=/a*b",
            "error: nonResourceURL only supports wildcard matches when '*' is at the end",
        ),
        (
            "kubectl create clusterrole c --verb=list --non-resource-url=/a",
            "error: invalid verb: 'list' for nonResourceURL",
        ),
        (
            "kubectl create clusterrole c --aggregation-rule=a=b --verb=get",
            "error: aggregation rule must be specified without nonResourceURLs, verbs, "
            "resources or resourceNames",
        ),
        (
            "kubectl create role r --verb=get --resource=pods -o wide",
            'error: unable to match a printer suitable for the output format "wide", allowed '
            "formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,"
            "jsonpath-file,kyaml,name,template,templatefile,yaml",
        ),
    ],
)
def test_a_role_kubectl_refuses_fails_with_its_message_and_stores_nothing(
    world: World, line: str, message: str
) -> None:
    before = world.state()
    out = world.run(line)
    assert (out.text, out.code) == (message, 1)
    assert world.state() == before


def test_a_verb_kubectl_does_not_know_is_a_warning_before_the_result(world: World) -> None:
    out = world.run("kubectl create role r -n runai --verb=fly --resource=pods")
    assert out.text == (
        "Warning: 'fly' is not a standard resource verb\nrole.rbac.authorization.k8s.io/r created"
    )
    out = world.run("kubectl create role r2 -n runai --verb=fly --resource=foos")
    assert (out.text, out.code) == (
        "Warning: 'fly' is not a standard resource verb\n"
        'the server doesn\'t have a resource type "foos"',
        1,
    )


def test_create_clusterrole_puts_non_resource_urls_in_a_rule_of_their_own(world: World) -> None:
    out = world.run(
        "kubectl create clusterrole c --verb=get --resource=nodes "
        "--non-resource-url=/logs/* --non-resource-url=/logs/*"
    )
    assert out.text == "clusterrole.rbac.authorization.k8s.io/c created"
    role = world.api.get("clusterroles.rbac.authorization.k8s.io", "c")
    assert role["rules"] == [
        {"verbs": ["get"], "apiGroups": [""], "resources": ["nodes"]},
        {"verbs": ["get"], "nonResourceURLs": ["/logs/*"]},
    ]


def test_an_aggregated_clusterrole_has_a_selector_and_null_rules(world: World) -> None:
    out = world.run(
        "kubectl create clusterrole agg --aggregation-rule=a=b,c=d --dry-run=client -o json"
    )
    doc = json.loads(out.text)
    assert list(doc) == ["kind", "apiVersion", "metadata", "rules", "aggregationRule"]
    assert doc["rules"] is None
    assert doc["aggregationRule"] == {
        "clusterRoleSelectors": [{"matchLabels": {"a": "b", "c": "d"}}]
    }


def _claims(token: str) -> dict[str, object]:
    header, payload, signature = token.split(".")
    assert header and signature
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


def test_create_token_prints_a_jwt_for_the_service_account_valid_for_its_duration(
    world: World,
) -> None:
    out = world.run("kubectl create token default -n runai --duration=2h")
    assert out.code == 0
    claims = _claims(out.text)
    assert claims["sub"] == "system:serviceaccount:runai:default"
    assert int(str(claims["exp"])) - int(str(claims["iat"])) == 7200
    assert _claims(world.run("kubectl create token default -n runai").text)["aud"] == [
        "https://kubernetes.default.svc.cluster.local"
    ]


def test_create_token_with_output_prints_the_token_request(world: World) -> None:
    doc = json.loads(world.run("kubectl create token default -n runai --audience=lab -o json").text)
    assert list(doc) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert doc["metadata"] == {"name": "default", "namespace": "runai"}
    assert doc["spec"] == {"audiences": ["lab"], "expirationSeconds": 3600, "boundObjectRef": None}
    assert list(doc["status"]) == ["token", "expirationTimestamp"]
    name = world.run("kubectl create token default -n runai -o name").text
    assert name == "tokenrequest.authentication.k8s.io/default"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "kubectl create token nope -n runai",
            'error: failed to create token: serviceaccounts "nope" not found',
        ),
        (
            "kubectl create token default -n runai --duration=5m",
            'error: failed to create token: TokenRequest.authentication.k8s.io "default" is '
            "invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration "
            "less than 10 minutes",
        ),
        (
            "kubectl create token default -n runai --duration=abc",
            'error: invalid argument "abc" for "--duration" flag: time: invalid duration "abc"\n'
            "See 'kubectl create token --help' for usage.",
        ),
        (
            "kubectl create token default --duration=-1s",
            "error: --duration must be greater than or equal to 0",
        ),
        (
            "kubectl create token default --duration=1500ms",
            "error: --duration cannot be expressed in units less than seconds",
        ),
        (
            "kubectl create token default --bound-object-kind=Deployment --bound-object-name=x",
            "error: supported --bound-object-kind values are Node, Pod, Secret",
        ),
        (
            "kubectl create token default --dry-run=client",
            "error: unknown flag: --dry-run\nSee 'kubectl create token --help' for usage.",
        ),
        (
            "kubectl create token",
            "error: exactly one NAME is required, got 0\n"
            "See 'kubectl create token -h' for help and examples",
        ),
    ],
)
def test_a_token_kubectl_refuses_fails_with_its_message(
    world: World, line: str, message: str
) -> None:
    out = world.run(line)
    assert (out.text, out.code) == (message, 1)


def test_go_durations_parse_as_go_parses_them() -> None:
    assert parse_duration("1h30m") == 5400 * 10**9
    assert parse_duration("1.5h") == 5400 * 10**9
    assert parse_duration("0") == 0
    with pytest.raises(ValueError, match='missing unit in duration "10"'):
        parse_duration("10")
    with pytest.raises(ValueError, match='unknown unit "x" in duration "10x"'):
        parse_duration("10x")


def test_create_secret_tls_reads_the_pair_from_the_home_folder(world: World) -> None:
    out = world.run("kubectl create secret tls web-tls -n runai --cert=tls.crt --key=~/tls.key")
    assert (out.text, out.code) == ("secret/web-tls created", 0)
    secret = world.api.get("secrets", "web-tls", "runai")
    assert secret["type"] == "kubernetes.io/tls"
    assert base64.b64decode(secret["data"]["tls.crt"]).decode() == CERT
    assert base64.b64decode(secret["data"]["tls.key"]).decode() == KEY


def test_a_dry_run_tls_secret_stores_nothing_and_append_hash_names_it_by_content(
    world: World,
) -> None:
    before = world.state()
    out = world.run(
        "kubectl create secret tls t -n runai --cert=tls.crt --key=tls.key --append-hash "
        "--dry-run=client -o name"
    )
    assert out.code == 0 and out.text.startswith("secret/t-") and len(out.text) == 19
    # kubectl's hash of a generic secret, as the real kubectl prints it.
    out = world.run(
        "kubectl create secret generic s -n runai --from-literal=a=b --append-hash "
        "--dry-run=server -o name"
    )
    assert out.text == "secret/s-7fd2tm89d8"
    assert world.state() == before


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("kubectl create secret tls t --cert=tls.crt", "error: key and cert must be specified"),
        (
            "kubectl create secret tls t --cert=missing.crt --key=tls.key",
            "error: Cannot read file missing.crt, open missing.crt: no such file or directory",
        ),
        (
            "kubectl create secret tls t --cert=tls.key --key=tls.crt",
            "error: tls: failed to find certificate PEM data in certificate input, but did "
            "find a private key; PEM inputs may have been switched",
        ),
        (
            "kubectl create secret tls t --cert=tls.crt --key=tls.crt",
            "error: tls: found a certificate rather than a key in the PEM for the private key",
        ),
        (
            "kubectl create secret tls t -n nope --cert=tls.crt --key=tls.key",
            'error: failed to create secret namespaces "nope" not found',
        ),
    ],
)
def test_a_tls_secret_kubectl_refuses_fails_with_its_message(
    world: World, line: str, message: str
) -> None:
    out = world.run(line)
    assert (out.text, out.code) == (message, 1)


def test_json_field_order_is_each_go_structs_own() -> None:
    account = struct_order(
        {
            "automountServiceAccountToken": False,
            "imagePullSecrets": [{"name": "r"}],
            "kind": "ServiceAccount",
            "metadata": {"name": "a"},
        }
    )
    assert list(account) == ["kind", "metadata", "imagePullSecrets", "automountServiceAccountToken"]
    pod = struct_order(
        {
            "kind": "Pod",
            "spec": {
                "imagePullSecrets": [{"name": "r"}],
                "automountServiceAccountToken": False,
                "containers": [{"resources": {}, "name": "c", "image": "i"}],
            },
        }
    )
    assert list(pod["spec"]) == ["containers", "automountServiceAccountToken", "imagePullSecrets"]
    assert list(pod["spec"]["containers"][0]) == ["name", "image", "resources"]
