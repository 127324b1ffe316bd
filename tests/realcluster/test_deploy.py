"""deploy/: what `kubectl apply -f deploy/` gives a cluster matches what the scheduler needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from simulators.cluster.registry import REGISTRY
from simulators.scheduler.cli import parser

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _objects() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(DEPLOY.glob("*.yaml")):
        out.extend(doc for doc in yaml.safe_load_all(path.read_text()) if doc)
    return out


def _one(kind: str, name: str) -> dict[str, Any]:
    return next(o for o in _objects() if o["kind"] == kind and o["metadata"]["name"] == name)


def test_the_crds_define_queue_and_podgroup_as_the_scheduler_reads_them() -> None:
    for key in ("queues.scheduling.run.ai", "podgroups.scheduling.run.ai"):
        info = REGISTRY.by_key(key)
        crd = _one("CustomResourceDefinition", key)["spec"]
        assert crd["group"] == info.group
        assert crd["names"]["kind"] == info.kind
        assert crd["names"]["plural"] == info.plural
        assert tuple(crd["names"].get("shortNames", ())) == info.short_names
        assert crd["scope"] == ("Namespaced" if info.namespaced else "Cluster")
        assert [v["name"] for v in crd["versions"]] == [info.version]
    queue = _one("CustomResourceDefinition", "queues.scheduling.run.ai")["spec"]["versions"][0]
    columns = [(c["name"], c["jsonPath"]) for c in queue["additionalPrinterColumns"]]
    assert columns == [
        (c["name"], c["jsonPath"])
        for c in REGISTRY.by_key("queues.scheduling.run.ai").printer_columns
    ]


def _allows(rules: list[dict[str, Any]], group: str, resource: str, verb: str) -> bool:
    return any(
        group in rule.get("apiGroups", [])
        and resource in rule.get("resources", [])
        and verb in rule.get("verbs", [])
        for rule in rules
    )


def test_the_cluster_role_grants_every_call_the_scheduler_makes() -> None:
    rules = _one("ClusterRole", "runai-scheduler")["rules"]
    needed = [
        ("", "nodes", "list"),
        ("", "pods", "list"),
        ("", "pods", "watch"),
        ("", "pods", "patch"),  # the GPUs it chose, annotated before binding
        ("", "pods/binding", "create"),
        ("", "pods/eviction", "create"),
        ("", "events", "list"),
        ("", "events", "create"),
        ("", "events", "patch"),
        ("scheduling.run.ai", "queues", "list"),
        ("scheduling.run.ai", "podgroups", "list"),
        ("coordination.k8s.io", "leases", "get"),
        ("coordination.k8s.io", "leases", "create"),
        ("coordination.k8s.io", "leases", "update"),
    ]
    assert [n for n in needed if not _allows(rules, *n)] == []
    # Nothing that changes nodes, queues or other objects.
    assert not _allows(rules, "", "nodes", "patch")
    assert not _allows(rules, "", "pods", "delete")
    assert not _allows(rules, "scheduling.run.ai", "queues", "update")


def test_the_deployment_runs_the_scheduler_as_its_service_account() -> None:
    deployment = _one("Deployment", "runai-scheduler")
    pod = deployment["spec"]["template"]["spec"]
    binding = _one("ClusterRoleBinding", "runai-scheduler")
    account = binding["subjects"][0]
    assert (pod["serviceAccountName"], deployment["metadata"]["namespace"]) == (
        account["name"],
        account["namespace"],
    )
    container = pod["containers"][0]
    assert container["command"] == ["python", "-m", "simulators", "scheduler"]
    args = parser().parse_args(container["args"])
    assert (args.lease_namespace, args.lease_name) == ("runai", "runai-scheduler")
    assert deployment["spec"]["replicas"] == 2


def test_the_example_queues_form_a_department_and_its_projects() -> None:
    queues = {o["metadata"]["name"]: o for o in _objects() if o["kind"] == "Queue"}
    assert queues["team-a"]["spec"]["parentQueue"] == "research"
    assert queues["team-b"]["spec"]["parentQueue"] == "research"
    assert "parentQueue" not in queues["research"]["spec"]
