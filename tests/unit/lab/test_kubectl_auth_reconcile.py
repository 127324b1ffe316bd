"""kubectl auth reconcile -f FILE: what a learner reads as roles and bindings are reconciled."""

from __future__ import annotations

import pytest

from tests.unit.lab.kubectl_cluster import Lab, build

HEAD = "apiVersion: rbac.authorization.k8s.io/v1\n"


def role(rules: str, name: str = "r1", namespace: str = "default", meta: str = "") -> str:
    """A Role document with the given `rules:` block (already indented)."""
    where = f"  namespace: {namespace}\n" if namespace else ""
    return f"{HEAD}kind: Role\nmetadata:\n  name: {name}\n{where}{meta}rules:\n{rules}"


PODS_GET = '- apiGroups: [""]\n  resources: ["pods"]\n  verbs: ["get"]\n'
WIDE = (
    '- apiGroups: ["", "apps"]\n  resources: ["pods", "deployments"]\n  verbs: ["get", "list"]\n'
    '- apiGroups: [""]\n  resources: ["configmaps"]\n  resourceNames: ["a"]\n  verbs: ["get"]\n'
)
BINDING = (
    f"{HEAD}kind: RoleBinding\nmetadata:\n  name: rb1\n  namespace: default\nroleRef:\n"
    "  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: r1\nsubjects:\n"
    "- kind: User\n  name: jane\n  apiGroup: rbac.authorization.k8s.io\n"
    "- kind: ServiceAccount\n  name: default\n  namespace: default\n"
)
CREATED = (
    "role.rbac.authorization.k8s.io/r1 reconciled\n\treconciliation required create\n"
    "\tmissing rules added:\n"
    "\t\t{Verbs:[get] APIGroups:[] Resources:[pods] ResourceNames:[] NonResourceURLs:[]}"
)


@pytest.fixture
def lab() -> Lab:
    return build()


def test_a_new_role_is_created_with_all_its_rules_listed_as_missing(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET)
    assert lab.out("kubectl auth reconcile -f r.yaml") == CREATED
    assert lab.api.get("roles.rbac.authorization.k8s.io", "r1", "default")["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
    ]


def test_reconciling_again_says_reconciled_and_nothing_more(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET)
    lab.run("kubectl auth reconcile -f r.yaml")
    assert lab.out("kubectl auth reconcile -f r.yaml") == (
        "role.rbac.authorization.k8s.io/r1 reconciled"
    )


def test_a_partly_covered_role_gains_only_the_broken_down_rules_it_lacks(lab: Lab) -> None:
    lab.files["small.yaml"] = role(PODS_GET)
    lab.files["wide.yaml"] = role(WIDE)
    lab.run("kubectl auth reconcile -f small.yaml")
    lines = lab.out("kubectl auth reconcile -f wide.yaml").split("\n")
    assert lines[:3] == [
        "role.rbac.authorization.k8s.io/r1 reconciled",
        "\treconciliation required update",
        "\tmissing rules added:",
    ]
    assert lines[3] == (
        "\t\t{Verbs:[list] APIGroups:[] Resources:[pods] ResourceNames:[] NonResourceURLs:[]}"
    )
    assert lines[-1] == (
        "\t\t{Verbs:[get] APIGroups:[] Resources:[configmaps] ResourceNames:[a] NonResourceURLs:[]}"
    )
    assert len(lines) == 3 + 8  # 2 groups x 2 resources x 2 verbs, less pods get, + 1 named


def test_a_wildcard_rule_covers_every_rule_so_nothing_changes(lab: Lab) -> None:
    lab.files["star.yaml"] = role('- apiGroups: ["*"]\n  resources: ["*"]\n  verbs: ["*"]\n')
    lab.files["wide.yaml"] = role(WIDE)
    lab.run("kubectl auth reconcile -f star.yaml")
    assert lab.out("kubectl auth reconcile -f wide.yaml") == (
        "role.rbac.authorization.k8s.io/r1 reconciled"
    )


def test_a_rule_limited_to_names_does_not_cover_one_for_every_name(lab: Lab) -> None:
    named = '- apiGroups: [""]\n  resources: ["pods"]\n  resourceNames: ["a"]\n  verbs: ["get"]\n'
    lab.files["named.yaml"] = role(named)
    lab.files["r.yaml"] = role(PODS_GET)
    lab.run("kubectl auth reconcile -f named.yaml")
    assert "\treconciliation required update" in lab.out("kubectl auth reconcile -f r.yaml")
    assert "required" not in lab.out("kubectl auth reconcile -f named.yaml")


def test_star_subresources_and_url_prefixes_cover_what_they_match(lab: Lab) -> None:
    lab.files["owner.yaml"] = role(
        '- apiGroups: ["apps"]\n  resources: ["*/scale"]\n  verbs: ["get"]\n'
        '- nonResourceURLs: ["/logs/*"]\n  verbs: ["get"]\n'
    )
    lab.files["wanted.yaml"] = role(
        '- apiGroups: ["apps"]\n  resources: ["deployments/scale"]\n  verbs: ["get"]\n'
        '- nonResourceURLs: ["/logs/kubelet"]\n  verbs: ["get"]\n'
    )
    lab.run("kubectl auth reconcile -f owner.yaml")
    assert lab.out("kubectl auth reconcile -f wanted.yaml") == (
        "role.rbac.authorization.k8s.io/r1 reconciled"
    )


def test_remove_extra_permissions_stomps_the_rules_and_lists_the_removed_ones(lab: Lab) -> None:
    lab.files["wide.yaml"] = role(WIDE)
    lab.files["r.yaml"] = role(PODS_GET)
    lab.run("kubectl auth reconcile -f wide.yaml")
    out = lab.out("kubectl auth reconcile -f r.yaml --remove-extra-permissions")
    assert out.split("\n")[:3] == [
        "role.rbac.authorization.k8s.io/r1 reconciled",
        "\treconciliation required update",
        "\textra rules removed:",
    ]
    assert lab.api.get("roles.rbac.authorization.k8s.io", "r1", "default")["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
    ]


def test_a_client_dry_run_says_so_and_writes_nothing(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET)
    out = lab.out("kubectl auth reconcile -f r.yaml --dry-run=client")
    assert out == CREATED.replace("reconciled", "reconciled (dry run)")
    assert "No resources found" in lab.out("kubectl get roles")


def test_yaml_output_prints_each_object_then_its_reconciliation_lines(lab: Lab) -> None:
    lab.files["two.yaml"] = role(PODS_GET) + "---\n" + role(PODS_GET, name="r2")
    out = lab.out("kubectl auth reconcile -f two.yaml --dry-run=client -o yaml")
    first, second = out.split("\n---\n")
    assert first.startswith("apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n")
    assert first.endswith("verbs:\n  - get\n" + CREATED.split("\n", 1)[1])
    assert "  name: r2\n" in second


def test_name_output_prints_kind_and_name_before_the_lines(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET)
    out = lab.out("kubectl auth reconcile -f r.yaml -o name")
    assert out.split("\n")[:2] == [
        "role.rbac.authorization.k8s.io/r1",
        "\treconciliation required create",
    ]


def test_a_new_binding_lists_its_subjects_as_go_prints_them(lab: Lab) -> None:
    lab.files["rb.yaml"] = BINDING
    assert lab.out("kubectl auth reconcile -f rb.yaml") == (
        "rolebinding.rbac.authorization.k8s.io/rb1 reconciled\n"
        "\treconciliation required create\n\tmissing subjects added:\n"
        "\t\t{Kind:User APIGroup:rbac.authorization.k8s.io Name:jane Namespace:}\n"
        "\t\t{Kind:ServiceAccount APIGroup: Name:default Namespace:default}"
    )


def test_a_binding_gains_missing_subjects_and_can_drop_extra_ones(lab: Lab) -> None:
    lab.files["rb.yaml"] = BINDING
    lab.run("kubectl auth reconcile -f rb.yaml")
    bob = BINDING.split("subjects:")[0] + "subjects:\n- kind: Group\n  name: devs\n"
    lab.files["bob.yaml"] = bob
    assert lab.out("kubectl auth reconcile -f bob.yaml").endswith(
        "\tmissing subjects added:\n\t\t{Kind:Group APIGroup: Name:devs Namespace:}"
    )
    out = lab.out("kubectl auth reconcile -f bob.yaml --remove-extra-subjects")
    assert "\textra subjects removed:\n\t\t{Kind:User APIGroup:rbac.authorization" in out
    stored = lab.api.get("rolebindings.rbac.authorization.k8s.io", "rb1", "default")
    assert stored["subjects"] == [{"kind": "Group", "name": "devs"}]


def test_a_changed_role_ref_recreates_the_binding(lab: Lab) -> None:
    lab.files["rb.yaml"] = BINDING
    lab.run("kubectl auth reconcile -f rb.yaml")
    lab.files["view.yaml"] = BINDING.replace(
        "kind: Role\n  name: r1", "kind: ClusterRole\n  name: view"
    )
    assert lab.out("kubectl auth reconcile -f view.yaml") == (
        "rolebinding.rbac.authorization.k8s.io/rb1 reconciled\n\treconciliation required recreate"
    )
    stored = lab.api.get("rolebindings.rbac.authorization.k8s.io", "rb1", "default")
    assert stored["roleRef"]["name"] == "view"


def test_a_role_that_opted_out_is_left_alone_and_said_so(lab: Lab) -> None:
    opted = '  annotations:\n    rbac.authorization.kubernetes.io/autoupdate: "false"\n'
    lab.files["opted.yaml"] = role(PODS_GET, meta=opted)
    lab.files["wide.yaml"] = role(WIDE)
    lab.run("kubectl auth reconcile -f opted.yaml")
    out = lab.out("kubectl auth reconcile -f wide.yaml")
    assert out.split("\n")[1] == (
        "\treconciliation required update, but object opted out "
        "(rbac.authorization.kubernetes.io/autoupdate: false)"
    )
    assert len(lab.api.get("roles.rbac.authorization.k8s.io", "r1", "default")["rules"]) == 1


def test_labels_merge_with_the_clusters_values_winning(lab: Lab) -> None:
    lab.files["a.yaml"] = role(PODS_GET, meta="  labels:\n    team: ml\n")
    lab.files["b.yaml"] = role(PODS_GET, meta="  labels:\n    team: other\n    env: dev\n")
    lab.run("kubectl auth reconcile -f a.yaml")
    assert lab.out("kubectl auth reconcile -f b.yaml") == (
        "role.rbac.authorization.k8s.io/r1 reconciled\n\treconciliation required update"
    )
    labels = lab.api.get("roles.rbac.authorization.k8s.io", "r1", "default")["metadata"]["labels"]
    assert labels == {"team": "ml", "env": "dev"}


def test_a_missing_namespace_is_created_for_a_new_role(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET, namespace="team-a")
    assert lab.out("kubectl auth reconcile -f r.yaml") == CREATED
    assert lab.api.get("namespaces", "team-a")["metadata"]["name"] == "team-a"


def test_a_role_without_a_namespace_cannot_be_created(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET, namespace="")
    assert lab.out("kubectl auth reconcile -f r.yaml") == "error: resource name may not be empty"
    assert lab.out("kubectl auth reconcile -f r.yaml -n default") == (
        "error: resource name may not be empty"
    )
    assert lab.run("kubectl auth reconcile -f r.yaml --dry-run=client").code == 0


def test_a_namespace_other_than_the_files_is_kubectls_mismatch_error(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET)
    assert lab.out("kubectl auth reconcile -f r.yaml -n kube-system") == (
        'error: the namespace from the provided object "default" does not match the namespace '
        "\"kube-system\". You must pass '--namespace=default' to perform this operation."
    )


def test_other_kinds_are_skipped_and_old_rbac_versions_refused(lab: Lab) -> None:
    lab.files["cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n"
    lab.files["beta.yaml"] = (
        "apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: Role\nmetadata:\n  name: x\n"
    )
    result = lab.run("kubectl auth reconcile -f cm.yaml")
    assert (result.text, result.code) == ("", 0)
    assert lab.out("kubectl auth reconcile -f beta.yaml") == (
        "error: only rbac.authorization.k8s.io/v1 is supported: not *v1beta1.Role"
    )


def test_several_errors_follow_the_objects_one_a_line_decoding_errors_last(lab: Lab) -> None:
    lab.files["mix.yaml"] = (
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n---\n"
        + role(PODS_GET, namespace="")
        + "---\n"
        + role(PODS_GET, name="r2")
    )
    result = lab.run("kubectl auth reconcile -f mix.yaml")
    assert result.code == 1
    assert result.text.split("\n")[-2:] == [
        "resource name may not be empty",
        'unable to decode "mix.yaml": no kind "Widget" is registered for version '
        '"example.com/v1" in scheme "pkg/scheme/scheme.go:28"',
    ]
    assert result.text.startswith("role.rbac.authorization.k8s.io/r2 reconciled\n")


def test_a_field_of_the_wrong_type_is_gos_json_error(lab: Lab) -> None:
    lab.files["r.yaml"] = role('- verbs: get\n  apiGroups: [""]\n')
    assert lab.out("kubectl auth reconcile -f r.yaml") == (
        'error: unable to decode "r.yaml": json: cannot unmarshal string into Go struct field '
        "PolicyRule.rules.verbs of type []string"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("kubectl auth reconcile", "error: must specify one of -f and -k"),
        ("kubectl auth reconcile -f r.yaml extra", "error: no arguments are allowed"),
        ("kubectl auth reconcile -f nope.yaml", 'error: the path "nope.yaml" does not exist'),
        (
            "kubectl auth reconcile -f r.yaml --dry-run=server",
            "error: --dry-run=server for command reconcile is not supported yet",
        ),
        ("kubectl auth reconcile -f r.yaml -k dir", "error: only one of -f or -k can be specified"),
    ],
)
def test_bad_command_lines_are_kubectls_one_line_errors(lab: Lab, line: str, message: str) -> None:
    lab.files["r.yaml"] = role(PODS_GET)
    result = lab.run(line)
    assert (result.text, result.code) == (message, 1)


def test_a_wide_output_matches_no_printer_before_anything_is_written(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET)
    assert lab.out("kubectl auth reconcile -f r.yaml -o wide").startswith(
        'error: unable to match a printer suitable for the output format "wide"'
    )
    assert "No resources found" in lab.out("kubectl get roles")


def test_a_name_no_url_can_hold_is_client_gos_error(lab: Lab) -> None:
    lab.files["r.yaml"] = role(PODS_GET, name="a/b")
    assert lab.out("kubectl auth reconcile -f r.yaml") == (
        "error: invalid resource name \"a/b\": [may not contain '/']"
    )


def test_a_binding_that_fails_is_kubectls_panic(lab: Lab) -> None:
    lab.files["rb.yaml"] = BINDING.replace("name: rb1", "name: a/b")
    result = lab.run("kubectl auth reconcile -f rb.yaml")
    assert result.code == 2
    assert result.text.startswith(
        "panic: runtime error: invalid memory address or nil pointer dereference\n"
    )


def test_a_cluster_role_gains_missing_aggregation_selectors(lab: Lab) -> None:
    agg = (
        f"{HEAD}kind: ClusterRole\nmetadata:\n  name: agg\naggregationRule:\n"
        '  clusterRoleSelectors:\n  - matchLabels:\n      {label}: "true"\n'
    )
    lab.files["a.yaml"] = agg.replace("{label}", "a")
    lab.files["b.yaml"] = agg.replace("{label}", "b")
    lab.run("kubectl auth reconcile -f a.yaml")
    assert lab.out("kubectl auth reconcile -f b.yaml") == (
        "clusterrole.rbac.authorization.k8s.io/agg reconciled\n\treconciliation required update"
    )
    stored = lab.api.get("clusterroles.rbac.authorization.k8s.io", "agg")
    assert stored["aggregationRule"]["clusterRoleSelectors"] == [
        {"matchLabels": {"a": "true"}},
        {"matchLabels": {"b": "true"}},
    ]
