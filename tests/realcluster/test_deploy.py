"""deploy/: what `kubectl apply -f deploy/` gives a cluster matches what the scheduler needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from simulators.cluster.registry import REGISTRY
from simulators.cluster.sample import sample_cluster
from simulators.cluster.store import MockCluster
from simulators.scheduler.cli import parser
from simulators.scheduler.lease import LeaderElector
from simulators.scheduler.runner import Scheduler

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


class Recording:
    """The scheduler's API, noting every call it makes as RBAC sees it: (group, resource, verb)."""

    VERBS = {
        "get": "get",
        "list": "list",
        "iter_objects": "list",  # the mock store read in place: a list on a real cluster
        "watch": "watch",
        "stream": "watch",
        "create": "create",
        "update": "update",
        "patch": "patch",
        "delete": "delete",
    }

    def __init__(self, api: MockCluster) -> None:
        self.api = api
        self.calls: set[tuple[str, str, str]] = set()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.api, name)
        if name == "bind":
            return self._noting(attribute, lambda *_: ("", "pods/binding", "create"))
        if name == "evict":
            return self._noting(attribute, lambda *_: ("", "pods/eviction", "create"))
        verb = self.VERBS.get(name)
        if verb is None:
            return attribute

        def call(resource: str, *args: Any) -> tuple[str, str, str]:
            info = self.api.info(resource)
            return (info.group, info.plural, verb)

        return self._noting(attribute, call)

    def _noting(self, method: Any, rbac: Any) -> Any:
        def noted(*args: Any, **kwargs: Any) -> Any:
            self.calls.add(rbac(*args))
            return method(*args, **kwargs)

        return noted


def _calls_of_a_busy_scheduler() -> set[tuple[str, str, str]]:
    """Every call the scheduler makes while it takes the lease, binds a project's pods,
    preempts one for an inference pod (evict, events) and binds that one."""
    api = sample_cluster(0)
    recording = Recording(api)
    api.create(
        "queues.scheduling.run.ai",
        {"metadata": {"name": "dept"}, "spec": {"resources": {"gpu": {"quota": 24}}}},
    )
    api.create(
        "queues.scheduling.run.ai",
        {
            "metadata": {"name": "team"},
            "spec": {"parentQueue": "dept", "resources": {"gpu": {"quota": 24}}},
        },
    )

    def pod(name: str, annotations: dict[str, str]) -> None:
        container = {"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "8"}}}
        api.create(
            "pods",
            {
                "metadata": {
                    "name": name,
                    "labels": {"runai/queue": "team"},
                    "annotations": annotations,
                },
                "spec": {"schedulerName": "runai-scheduler", "containers": [container]},
            },
            "default",
        )

    for index in range(3):
        pod(f"train-{index}", {})
    leader = LeaderElector(
        recording,  # type: ignore[arg-type]
        namespace="runai",
        name="runai-scheduler",
        identity="me",
        monotonic=lambda: 100.0,
    )
    assert leader.try_acquire_or_renew()
    scheduler = Scheduler(recording, leader, log=lambda line: None)  # type: ignore[arg-type]
    assert len(scheduler.cycle().bound) == 3
    api.create(
        "podgroups.scheduling.run.ai",
        {"metadata": {"name": "serve"}, "spec": {"minMember": 1, "priorityClassName": "inference"}},
        "default",
    )
    pod("serve", {"pod-group-name": "serve"})
    first = scheduler.cycle()
    assert len(first.evicted) == 1
    scheduler.cycle()
    api.delete("pods", first.evicted[0].split("/")[1], "default", grace_period=0)
    assert scheduler.cycle().bound == ["default/serve"]
    assert leader.try_acquire_or_renew()
    return recording.calls


def test_the_cluster_role_grants_every_call_the_scheduler_makes() -> None:
    rules = _one("ClusterRole", "runai-scheduler")["rules"]
    made = _calls_of_a_busy_scheduler()
    # What the run must have exercised, so the check below covers the writes that matter.
    assert {("", "pods/binding", "create"), ("", "pods/eviction", "create")} <= made
    # The watch loop (Scheduler.watch_pods) isn't run in process: it watches pods.
    needed = made | {("", "pods", "watch")}
    assert sorted(n for n in needed if not _allows(rules, *n)) == []
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
