"""The kinds every cluster has, in the mock store and the lab's kubectl: seeded defaults, their
printer columns, RBAC answers to access reviews, and the verbs the lab says it cannot serve."""

from __future__ import annotations

from simulators.cluster import access
from simulators.cluster.api import ApiError
from simulators.cluster.seed import seed_defaults
from simulators.cluster.store import MockCluster
from simulators.cluster.unsupported import check_pod, limit
from simulators.lab.world import build_world
from tests.unit.lab.kubectl_cluster import Lab

RBAC = "rbac.authorization.k8s.io"


def seeded() -> Lab:
    lab = Lab()
    seed_defaults(lab.api)
    lab.api.clock.advance()
    return lab


def test_get_priorityclasses_prints_the_system_and_runai_classes() -> None:
    lines = seeded().out("kubectl get pc").splitlines()
    assert lines[0].split() == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["system-node-critical"] == ["2000001000", "false", "10s", "PreemptLowerPriority"]
    assert rows["interactive-preemptible"][0] == "75"
    assert [rows[n][0] for n in ("train", "build", "inference")] == ["50", "100", "125"]


def test_the_default_storage_class_says_so_in_its_name() -> None:
    lines = seeded().out("kubectl get storageclass").splitlines()
    assert lines[0].split() == [
        "NAME",
        "PROVISIONER",
        "RECLAIMPOLICY",
        "VOLUMEBINDINGMODE",
        "ALLOWVOLUMEEXPANSION",
        "AGE",
    ]
    assert lines[1].split()[:6] == [
        "local-path",
        "(default)",
        "rancher.io/local-path",
        "Delete",
        "WaitForFirstConsumer",
        "false",
    ]


def test_bindings_print_their_role_and_wide_adds_subjects() -> None:
    lab = seeded()
    wide = lab.out("kubectl get clusterrolebinding kubeadm:cluster-admins -o wide").splitlines()
    assert wide[0].split() == ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    assert wide[1].split() == [
        "kubeadm:cluster-admins",
        "ClusterRole/cluster-admin",
        "10s",
        "kubeadm:cluster-admins",
    ]
    roles = lab.out("kubectl get clusterroles").splitlines()
    assert roles[0].split() == ["NAME", "CREATED", "AT"]
    assert [r.split() for r in roles[1:3]] == [
        ["admin", "2026-11-10T09:40:00Z"],
        ["cluster-admin", "2026-11-10T09:40:00Z"],
    ]


def test_a_quota_shows_what_is_used_of_each_hard_limit() -> None:
    lab = seeded()
    lab.api.create(
        "resourcequotas",
        {
            "metadata": {"name": "q", "namespace": "default"},
            "spec": {"hard": {"configmaps": "5", "limits.memory": "1Gi", "requests.cpu": "2"}},
        },
    )
    lines = lab.out("kubectl get quota").splitlines()
    assert lines[0].split() == ["NAME", "AGE", "REQUEST", "LIMIT"]
    # every namespace has its kube-root-ca.crt ConfigMap
    assert lines[1].split()[2:] == [
        "configmaps:",
        "1/5,",
        "requests.cpu:",
        "0/2",
        "limits.memory:",
        "0/1Gi",
    ]


def test_a_cronjob_gets_its_defaults_and_columns() -> None:
    lab = seeded()
    lab.api.create(
        "cronjobs.batch",
        {
            "metadata": {"name": "nightly", "namespace": "default"},
            "spec": {
                "schedule": "0 2 * * *",
                "jobTemplate": {
                    "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}
                },
            },
        },
    )
    stored = lab.api.get("cronjobs.batch", "nightly", "default")
    assert stored["spec"]["concurrencyPolicy"] == "Allow"
    assert stored["spec"]["successfulJobsHistoryLimit"] == 3
    lines = lab.out("kubectl get cj").splitlines()
    assert lines[0].split() == [
        "NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE",
    ]  # fmt: skip
    assert lines[1].split()[:10] == [
        "nightly",
        "0",
        "2",
        "*",
        "*",
        "*",
        "<none>",
        "False",
        "0",
        "<none>",
    ]


def test_access_reviews_follow_the_rbac_bindings() -> None:
    api = MockCluster(seed=0)
    seed_defaults(api)
    pods = {"verb": "delete", "resource": "pods", "namespace": "default"}
    assert access.can(api, pods) == (
        True,
        'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole '
        '"cluster-admin" to Group "kubeadm:cluster-admins"',
    )
    api.delete(f"clusterrolebindings.{RBAC}", "kubeadm:cluster-admins")
    assert access.can(api, pods) == (False, "")
    assert access.can(api, {"verb": "get", "path": "/version"})[0] is True
    api.create(
        f"roles.{RBAC}",
        {
            "metadata": {"name": "pod-reader", "namespace": "default"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}],
        },
    )
    api.create(
        f"rolebindings.{RBAC}",
        {
            "metadata": {"name": "me", "namespace": "default"},
            "roleRef": {"apiGroup": RBAC, "kind": "Role", "name": "pod-reader"},
            "subjects": [{"kind": "User", "name": "kubernetes-admin"}],
        },
    )
    reads = {"verb": "list", "resource": "pods", "namespace": "default"}
    assert access.can(api, reads)[1] == (
        'RBAC: allowed by RoleBinding "me/default" of Role "pod-reader" to User "kubernetes-admin"'
    )
    assert access.can(api, {**reads, "namespace": "kube-system"})[0] is False
    rules = access.rules(api, "default")["resourceRules"]
    assert {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]} in rules


def test_rbac_names_may_hold_colons_but_not_slashes() -> None:
    api = MockCluster(seed=0)
    api.create(f"clusterroles.{RBAC}", {"metadata": {"name": "system:thing"}})
    try:
        api.create(f"clusterroles.{RBAC}", {"metadata": {"name": "a/b"}})
    except ApiError as error:
        assert error.code == 422 and "may not contain '/'" in error.message
    else:
        raise AssertionError("a slash in an RBAC name was accepted")


def test_the_lab_says_in_one_line_what_it_cannot_serve() -> None:
    lab = seeded()
    for line, verb in (
        ("kubectl port-forward pod/x 8080:80", "port-forward"),
        ("kubectl attach x", "attach"),
        ("kubectl cp x:/etc/hosts hosts", "cp"),
        ("kubectl debug x -it --image=busybox", "debug"),
        ("kubectl run tmp --rm -it --image=busybox -- sh", "run -i"),
        ("kubectl run tmp -i --image=busybox", "run -i"),
    ):
        result = lab.run(line)
        assert (result.code, result.text) == (1, f"error: {limit(verb)}"), line
    assert "\n" not in limit("port-forward")


def test_the_pod_run_i_creates_is_refused_by_the_server() -> None:
    pod = {"spec": {"containers": [{"name": "tmp", "image": "busybox", "stdinOnce": True}]}}
    try:
        check_pod(pod)
    except ApiError as error:
        assert (error.code, error.message) == (400, limit("run -i"))
    else:
        raise AssertionError("run -i's pod was accepted")
    check_pod({"spec": {"containers": [{"name": "web", "image": "nginx"}]}})


def test_every_tickets_world_has_the_clusters_defaults() -> None:
    world = build_world("inference-priority", 0)
    classes = {
        pc["metadata"]["name"]: pc["value"]
        for pc in world.api.list("priorityclasses.scheduling.k8s.io")["items"]
    }
    assert classes["inference"] == 125 and classes["system-node-critical"] == 2000001000
    assert access.can(world.api, {"verb": "*", "resource": "nodes"})[0] is True
    leases = world.api.list("leases.coordination.k8s.io", "kube-system")["items"]
    assert [lease["metadata"]["name"] for lease in leases] == [
        "kube-controller-manager",
        "kube-scheduler",
    ]
    accounts = world.api.list("serviceaccounts", "runai-team-serve")["items"]
    assert "default" in [sa["metadata"]["name"] for sa in accounts]


def test_a_pod_takes_its_priority_from_its_priority_class() -> None:
    api = MockCluster(seed=0)
    seed_defaults(api)

    def pod(name: str, **spec: object) -> dict[str, object]:
        body = {"containers": [{"name": "c", "image": "x:1"}], **spec}
        created = api.create(
            "pods", {"metadata": {"name": name, "namespace": "default"}, "spec": body}
        )
        return dict(created["spec"])

    assert pod("serve", priorityClassName="inference")["priority"] == 125
    assert pod("train", priorityClassName="train")["priority"] == 50
    assert pod("plain")["priority"] == 0
    api.create(
        "priorityclasses.scheduling.k8s.io",
        {
            "metadata": {"name": "low"},
            "value": -5,
            "globalDefault": True,
            "preemptionPolicy": "Never",
        },
    )
    spec = pod("defaulted")
    assert (spec["priority"], spec["preemptionPolicy"]) == (-5, "Never")
