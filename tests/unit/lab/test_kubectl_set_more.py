"""kubectl set env, resources, serviceaccount, subject and selector: what a learner reads."""

from __future__ import annotations

import pytest

from simulators.lab.kubectl.quantities import canonical
from tests.unit.lab.kubectl_cluster import Lab, build


@pytest.fixture
def lab() -> Lab:
    return build()


def web_container(lab: Lab) -> dict[str, object]:
    deploy = lab.api.get("deployments.apps", "web", "default")
    container: dict[str, object] = deploy["spec"]["template"]["spec"]["containers"][0]
    return container


# ------------------------------------------------------------------------- set env


def test_set_env_adds_a_variable_and_reports_the_deployment_updated(lab: Lab) -> None:
    out = lab.run("kubectl set env deployment/web STORAGE_DIR=/local")
    assert (out.text, out.code) == ("deployment.apps/web env updated", 0)
    assert web_container(lab)["env"] == [{"name": "STORAGE_DIR", "value": "/local"}]


def test_list_prints_a_heading_per_container_then_each_variable(lab: Lab) -> None:
    lab.run("kubectl set env deploy/web A=1 B=")
    out = lab.run("kubectl set env deploy/web --list")
    assert out.text == "# Deployment web, container web\nA=1\nB="


def test_list_shows_the_change_it_was_given_without_making_it(lab: Lab) -> None:
    out = lab.run("kubectl set env deploy/web NEW=x --list")
    assert out.text == "# Deployment web, container web\nNEW=x"
    assert "env" not in web_container(lab)


def test_removing_a_variable_that_is_not_there_prints_nothing_and_succeeds(lab: Lab) -> None:
    out = lab.run("kubectl set env deploy/web GONE-")
    assert (out.text, out.code) == ("", 0)


def test_setting_and_removing_the_same_variable_is_refused(lab: Lab) -> None:
    out = lab.run("kubectl set env deploy/web A=1 A-")
    assert (out.text, out.code) == (
        "error: can not both modify and remove the same environment variable in the same command",
        1,
    )


def test_a_name_given_twice_keeps_the_first_value(lab: Lab) -> None:
    lab.run("kubectl set env deploy/web A=1 A=2")
    assert web_container(lab)["env"] == [{"name": "A", "value": "1"}]


def test_overwrite_false_refuses_a_different_value_and_names_the_object(lab: Lab) -> None:
    lab.run("kubectl set env deploy/web A=1")
    out = lab.run("kubectl set env deploy/web A=2 --overwrite=false")
    assert (out.text, out.code) == (
        "error: deployments/web 'A' already has a value (1), and --overwrite is false",
        1,
    )
    same = lab.run("kubectl set env deploy/web A=1 --overwrite=false")
    assert (same.text, same.code) == ("", 0)


def test_a_key_that_is_no_variable_name_is_kubectls_error(lab: Lab) -> None:
    out = lab.run("kubectl set env deploy/web 1A=x")
    assert out.code == 1
    assert out.text.startswith('error: "1A" is not a valid key name: a valid environment')


def test_a_container_selector_that_matches_nothing_only_warns(lab: Lab) -> None:
    out = lab.run("kubectl set env deploy/web -c nope A=1")
    assert (out.text, out.code) == (
        'Warning: Deployment/web does not have any containers matching "nope"',
        0,
    )


def test_env_flag_and_standard_input_give_variables_too(lab: Lab) -> None:
    lab.ctx.stdin = "FROM_STDIN=yes # a comment\nnot a variable\n"
    out = lab.run("kubectl set env deploy/web -e A=1 -e -")
    assert out.code == 0
    assert web_container(lab)["env"] == [
        {"name": "A", "value": "1"},
        {"name": "FROM_STDIN", "value": "yes "},
    ]


def test_from_a_config_map_refers_to_each_key_and_warns_of_renamed_ones(lab: Lab) -> None:
    lab.api.create(
        "configmaps",
        {"metadata": {"name": "settings"}, "data": {"log-level": "debug", "PORT": "80"}},
        "default",
    )
    out = lab.run("kubectl set env deploy/web --from=configmap/settings --prefix=APP_")
    assert out.text == (
        "Warning: key log-level transferred to LOG_LEVEL\ndeployment.apps/web env updated"
    )
    assert web_container(lab)["env"] == [
        {"name": "APP_PORT", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "PORT"}}},
        {
            "name": "APP_LOG_LEVEL",
            "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "log-level"}},
        },
    ]
    listed = lab.run("kubectl set env deploy/web --list --resolve -c web")
    assert listed.text == "# Deployment web, container web\nAPP_PORT=80\nAPP_LOG_LEVEL=debug"


def test_keys_without_from_is_refused(lab: Lab) -> None:
    out = lab.run("kubectl set env deploy/web --keys=a")
    assert out.text == (
        "error: when specifying --keys, a configmap or secret must be provided with --from"
    )


def test_a_kind_without_a_pod_template_is_named_with_its_go_type(lab: Lab) -> None:
    out = lab.run("kubectl set env node/gpu-node1 A=1")
    assert (out.text, out.code) == (
        "error: nodes/gpu-node1 the object is not a pod or does not have a pod template: *v1.Node",
        1,
    )


def test_missing_objects_are_all_reported_and_nothing_is_changed(lab: Lab) -> None:
    out = lab.run("kubectl set env deploy/web deploy/a deploy/b A=1")
    assert out.text == (
        'Error from server (NotFound): deployments.apps "a" not found\n'
        'Error from server (NotFound): deployments.apps "b" not found'
    )
    assert "env" not in web_container(lab)


def test_a_resource_after_a_change_is_refused(lab: Lab) -> None:
    out = lab.run("kubectl set env deploy/web A=1 deploy/other")
    assert out.text == (
        "error: all resources must be specified before environment changes: "
        "deploy/web A=1 deploy/other"
    )


def test_a_client_dry_run_prints_the_change_and_keeps_the_object(lab: Lab) -> None:
    out = lab.run(
        "kubectl set env deploy/web A=1 --dry-run=client "
        "-o jsonpath={.spec.template.spec.containers[0].env[0].value}"
    )
    assert (out.text, out.code) == ("1", 0)
    assert "env" not in web_container(lab)


# ------------------------------------------------------------------------- set resources


def test_set_resources_sends_quantities_in_their_canonical_form(lab: Lab) -> None:
    out = lab.run(
        "kubectl set resources deployment web -c=web --limits=cpu=0.5,memory=1024Mi "
        "--requests=cpu=100m,memory=256Mi"
    )
    assert (out.text, out.code) == ("deployment.apps/web resource requirements updated", 0)
    assert web_container(lab)["resources"] == {
        "limits": {"cpu": "500m", "memory": "1Gi"},
        "requests": {"cpu": "100m", "memory": "256Mi"},
    }


def test_the_same_quantity_again_changes_nothing_and_prints_nothing(lab: Lab) -> None:
    lab.run("kubectl set resources deploy/web --limits=cpu=500m")
    out = lab.run("kubectl set resources deploy/web --limits=cpu=0.5")
    assert (out.text, out.code) == ("", 0)


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("1000", "1k"),
        ("1000m", "1"),
        ("0.5", "500m"),
        ("1.5Gi", "1536Mi"),
        ("1024Mi", "1Gi"),
        ("100Ki", "100Ki"),
        ("+1Gi", "+1Gi"),
        ("1e3", "1e3"),
        ("12e-1", "1200e-3"),
        ("0.0000000001", "1n"),
        ("0", "0"),
        # Past int64, as the real kubectl 1.36 writes them (Go's parse of a huge quantity).
        ("1000E", "1"),
        ("123456789Ti", "9223372036854775807"),
    ],
)
def test_quantities_are_written_as_kubectl_encodes_them(given: str, sent: str) -> None:
    assert canonical(given) == sent


def test_a_bad_quantity_or_statement_is_kubectls_one_line_error(lab: Lab) -> None:
    bad = lab.run("kubectl set resources deploy/web --limits=cpu=abc")
    assert bad.text == (
        "error: quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    syntax = lab.run("kubectl set resources deploy/web --limits=cpu")
    assert syntax.text == "error: Invalid argument syntax cpu, expected <resource>=<value>"
    none = lab.run("kubectl set resources deploy/web")
    assert none.text == (
        "error: you must specify an update to requests or limits (in the form of "
        "--requests/--limits)"
    )


def test_a_missing_container_is_named_without_quotes(lab: Lab) -> None:
    out = lab.run("kubectl set resources deploy/web -c nope --limits=cpu=1")
    assert (out.text, out.code) == ("error: unable to find container named nope", 1)


def test_local_without_a_file_is_refused(lab: Lab) -> None:
    out = lab.run("kubectl set resources deploy/web --limits=cpu=1 --local")
    assert out.text.startswith("error: you must specify resources by --filename when --local")


# ------------------------------------------------------------------------- set serviceaccount


def test_set_sa_reports_an_update_even_when_the_account_is_the_same(lab: Lab) -> None:
    first = lab.run("kubectl set sa deploy/web builder")
    assert first.text == "deployment.apps/web serviceaccount updated"
    spec = lab.api.get("deployments.apps", "web", "default")["spec"]["template"]["spec"]
    assert spec["serviceAccountName"] == "builder"
    again = lab.run("kubectl set serviceaccount deployment web builder -o name")
    assert again.text == "deployment.apps/web"


def test_set_sa_needs_an_account_and_knows_no_selector(lab: Lab) -> None:
    assert lab.run("kubectl set sa").text == "error: serviceaccount is required"
    out = lab.run("kubectl set sa deploy/web x -l app=web")
    assert out.text == (
        "error: unknown shorthand flag: 'l' in -l\n"
        "See 'kubectl set serviceaccount --help' for usage."
    )


# ------------------------------------------------------------------------- set subject


def binding(lab: Lab) -> None:
    lab.api.create(
        "rolebindings.rbac.authorization.k8s.io",
        {
            "metadata": {"name": "admin"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "admin",
            },
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "u"}],
        },
        "default",
    )


def test_set_subject_adds_users_groups_then_accounts_each_sorted(lab: Lab) -> None:
    binding(lab)
    out = lab.run(
        "kubectl set subject rolebinding admin --user=user2 --user=user1 --group=group1 "
        "--serviceaccount=:sa1"
    )
    assert out.text == "rolebinding.rbac.authorization.k8s.io/admin subjects updated"
    names = lab.out("kubectl get rolebinding admin -o jsonpath={.subjects[*].name}")
    assert names == "u user1 user2 group1 sa1"
    again = lab.run("kubectl set subject rolebinding admin --user=u")
    assert (again.text, again.code) == ("", 0)


def test_set_subject_checks_a_service_account_names_a_namespace(lab: Lab) -> None:
    binding(lab)
    out = lab.run("kubectl set subject rolebinding admin --serviceaccount=sa1")
    assert out.text == "error: serviceaccount must be <namespace>:<name>"
    none = lab.run("kubectl set subject rolebinding admin")
    assert (
        none.text == "error: you must specify at least one value of user, group or serviceaccount"
    )


def test_set_subject_on_another_kind_is_refused(lab: Lab) -> None:
    out = lab.run("kubectl set subject deploy/web --user=u")
    assert out.text == (
        "error: deployments/web setting subjects is only supported for RoleBinding/"
        "ClusterRoleBinding"
    )


# ------------------------------------------------------------------------- selector, files


def test_set_selector_replaces_a_services_selector(lab: Lab) -> None:
    lab.api.create(
        "services",
        {
            "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
        },
        "default",
    )
    out = lab.run("kubectl set selector svc/web tier=front")
    assert out.text == "service/web selector updated"
    assert lab.api.get("services", "web", "default")["spec"]["selector"] == {"tier": "front"}
    refused = lab.run("kubectl set selector deploy/web a=b")
    assert refused.text == "error: setting a selector is only supported for Services"


def test_a_local_file_is_changed_and_printed_without_the_server(lab: Lab) -> None:
    lab.files["d.yaml"] = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: local\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: c\n        image: i\n"
    )
    out = lab.run("kubectl set env -f d.yaml --local A=1 -o yaml")
    assert out.code == 0
    assert '- env:\n        - name: A\n          value: "1"' in out.text
    assert "resources: {}" in out.text and "status: {}" in out.text
    assert lab.run("kubectl set env -f d.yaml A=1").text == (
        'Error from server (NotFound): deployments.apps "local" not found'
    )


def test_a_flag_of_another_subcommand_is_unknown_to_this_one(lab: Lab) -> None:
    out = lab.run("kubectl set image deploy/web --containers=x web=nginx:2")
    assert out.text == (
        "error: unknown flag: --containers\nSee 'kubectl set image --help' for usage."
    )


def test_an_unknown_subcommand_is_kubectls_usage_error(lab: Lab) -> None:
    out = lab.run("kubectl set foo")
    assert (out.text, out.code) == (
        "error: unknown command \"foo\"\nSee 'kubectl set -h' for help and examples",
        1,
    )


def test_set_image_still_sends_the_others_when_one_container_is_missing(lab: Lab) -> None:
    out = lab.run("kubectl set image deploy/web nope=a web=nginx:2")
    assert (out.text, out.code) == (
        'deployment.apps/web image updated\nerror: unable to find container named "nope"',
        1,
    )
    assert web_container(lab)["image"] == "nginx:2"
