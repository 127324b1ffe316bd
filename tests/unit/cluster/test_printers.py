from __future__ import annotations

from typing import Any

import pytest

from simulators.cluster import MockCluster
from simulators.cluster.printers import format_label_selector, human_duration, pod_cells, table


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (-5, "<invalid>"),
        (-1, "0s"),
        (5, "5s"),
        (119, "119s"),
        (170, "2m50s"),
        (180, "3m"),
        (27 * 60 + 10, "27m"),
        (179 * 60, "179m"),
        (3 * 3600 + 5 * 60, "3h5m"),
        (8 * 3600 + 59 * 60, "8h"),
        (47 * 3600, "47h"),
        (2 * 86400 + 3 * 3600, "2d3h"),
        (3 * 86400, "3d"),
        (400 * 86400, "400d"),
        (3 * 365 * 86400 + 20 * 86400, "3y20d"),
        (9 * 365 * 86400, "9y"),
    ],
)
def test_human_duration_matches_apimachinery(seconds: int, text: str) -> None:
    assert human_duration(seconds) == text


@pytest.fixture
def api() -> MockCluster:
    return MockCluster(seed=1)


def make_pod(api: MockCluster, name: str, status: dict[str, Any], **meta: Any) -> dict[str, Any]:
    api.create(
        "pods",
        {
            "metadata": {"name": name, **meta},
            "spec": {"containers": [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1"}]},
        },
    )
    api.bind(name, "default", "gpu-node1")
    return api.patch("pods", name, {"status": status}, subresource="status")


def running(ready: bool = True, restarts: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "state": {"running": {"startedAt": "2026-11-10T09:40:00Z"}},
        "ready": ready,
        "restartCount": restarts,
        **extra,
    }


def test_a_running_pod_counts_ready_containers(api: MockCluster) -> None:
    pod = make_pod(
        api,
        "p",
        {"phase": "Running", "containerStatuses": [running(name="a"), running(False, name="b")]},
    )
    assert pod_cells(pod, api.now()) == ("1/2", "Running", "0")


def test_a_waiting_container_names_the_status(api: MockCluster) -> None:
    waiting = {"state": {"waiting": {"reason": "ContainerCreating"}}, "ready": False}
    pod = make_pod(api, "p", {"phase": "Pending", "containerStatuses": [waiting, waiting]})
    assert pod_cells(pod, api.now())[1] == "ContainerCreating"


def test_crash_loop_shows_restarts_with_the_last_restart_age(api: MockCluster) -> None:
    crash = {
        "name": "a",
        "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-11-10T09:40:00Z"}},
        "ready": False,
        "restartCount": 4,
    }
    pod = make_pod(api, "p", {"phase": "Running", "containerStatuses": [running(name="b"), crash]})
    api.clock.advance_seconds(170)
    assert pod_cells(pod, api.now()) == ("1/2", "CrashLoopBackOff", "4 (2m50s ago)")


def test_a_finished_pod_is_completed(api: MockCluster) -> None:
    done = {"state": {"terminated": {"exitCode": 0, "reason": "Completed"}}, "ready": False}
    pod = make_pod(api, "p", {"phase": "Succeeded", "containerStatuses": [done, done]})
    assert pod_cells(pod, api.now()) == ("0/2", "Completed", "0")
    row = table(api, "pods", [pod])["rows"][0]
    assert row["conditions"][0]["reason"] == "Succeeded"


def test_a_pod_being_deleted_is_terminating(api: MockCluster) -> None:
    make_pod(api, "p", {"phase": "Running", "containerStatuses": [running(), running()]})
    pod = api.delete("pods", "p")
    assert pod_cells(pod, api.now())[1] == "Terminating"


def test_init_containers_show_progress(api: MockCluster) -> None:
    api.create(
        "pods",
        {
            "metadata": {"name": "p"},
            "spec": {
                "initContainers": [{"name": "i1", "image": "x"}, {"name": "i2", "image": "x"}],
                "containers": [{"name": "a", "image": "x"}],
            },
        },
    )
    done = {"name": "i1", "state": {"terminated": {"exitCode": 0}}}
    work = {"name": "i2", "state": {"running": {}}}
    pod = api.patch(
        "pods", "p", {"status": {"initContainerStatuses": [done, work]}}, subresource="status"
    )
    assert pod_cells(pod, api.now())[1] == "Init:1/2"
    crash = {"name": "i2", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
    pod = api.patch(
        "pods", "p", {"status": {"initContainerStatuses": [done, crash]}}, subresource="status"
    )
    assert pod_cells(pod, api.now())[1] == "Init:CrashLoopBackOff"


def test_the_pod_table_has_kubectls_columns_and_wide_cells(api: MockCluster) -> None:
    pod = make_pod(api, "p", {"phase": "Running", "podIP": "10.0.0.5"})
    api.clock.advance_seconds(27 * 60)
    result = table(api, "pods", [pod], wide=True)
    assert result["kind"] == "Table" and result["apiVersion"] == "meta.k8s.io/v1"
    names = [c["name"] for c in result["columnDefinitions"]]
    assert names == [
        "Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node",
        "Readiness Gates",
    ]  # fmt: skip
    assert [c["priority"] for c in result["columnDefinitions"]] == [0] * 5 + [1] * 4
    assert result["rows"][0]["cells"] == [
        "p", "0/2", "Running", "0", "27m", "10.0.0.5", "gpu-node1", "<none>", "<none>",
    ]  # fmt: skip
    narrow = table(api, "pods", [pod])
    assert len(narrow["columnDefinitions"]) == 5 and len(narrow["rows"][0]["cells"]) == 5


def test_the_node_table_shows_readiness_cordon_and_roles(api: MockCluster) -> None:
    node = api.create(
        "nodes",
        {
            "metadata": {"name": "n1", "labels": {"node-role.kubernetes.io/control-plane": ""}},
            "spec": {"unschedulable": True},
            "status": {
                "conditions": [{"type": "Ready", "status": "True"}],
                "nodeInfo": {"kubeletVersion": "v1.31.4", "osImage": "Ubuntu 22.04.4 LTS"},
                "addresses": [{"type": "InternalIP", "address": "10.0.0.11"}],
            },
        },
    )
    cells = table(api, "nodes", [node], wide=True)["rows"][0]["cells"]
    assert cells == [
        "n1", "Ready,SchedulingDisabled", "control-plane", "0s", "v1.31.4", "10.0.0.11", "<none>",
        "Ubuntu 22.04.4 LTS", "<unknown>", "<unknown>",
    ]  # fmt: skip


def test_the_event_table_names_the_object(api: MockCluster) -> None:
    event = {
        "metadata": {"name": "e1"},
        "involvedObject": {"kind": "Pod", "name": "p"},
        "type": "Warning",
        "reason": "FailedScheduling",
        "message": "0/3 nodes are available ",
        "source": {"component": "default-scheduler"},
        "firstTimestamp": "2026-11-10T09:40:00Z",
        "lastTimestamp": "2026-11-10T09:40:00Z",
        "count": 3,
    }
    created = api.create("events", event)
    api.clock.advance(6)
    assert table(api, "events", [created])["rows"][0]["cells"] == [
        "60s", "Warning", "FailedScheduling", "pod/p", "0/3 nodes are available",
    ]  # fmt: skip


def test_deployment_daemonset_and_configmap_tables(api: MockCluster) -> None:
    template = {
        "metadata": {"labels": {"app": "w"}},
        "spec": {"containers": [{"name": "w", "image": "nginx"}], "nodeSelector": {"gpu": "yes"}},
    }
    deploy = api.create(
        "deployments.apps",
        {
            "metadata": {"name": "w"},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "w"}},
                "template": template,
            },
        },
    )
    assert table(api, "deploy", [deploy], wide=True)["rows"][0]["cells"] == [
        "w", "0/2", 0, 0, "0s", "w", "nginx", "app=w",
    ]  # fmt: skip
    ds = api.create(
        "daemonsets.apps",
        {
            "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "w"}}, "template": template},
        },
    )
    assert table(api, "ds", [ds])["rows"][0]["cells"] == ["d", 0, 0, 0, 0, 0, "gpu=yes", "0s"]
    cm = api.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}})
    assert table(api, "cm", [cm])["rows"][0]["cells"] == ["c", 2, "0s"]


def test_custom_resources_use_their_printer_columns(api: MockCluster) -> None:
    queue = api.create(
        "queues.scheduling.run.ai",
        {
            "metadata": {"name": "team-a"},
            "spec": {"priority": 100, "parentQueue": "dept"},
        },
    )
    queue = api.patch(
        "queues.scheduling.run.ai",
        "team-a",
        {"status": {"childQueues": ["x", "y"]}},
        subresource="status",
    )
    result = table(api, "queues.scheduling.run.ai", [queue])
    assert [c["name"] for c in result["columnDefinitions"]] == [
        "Name", "Priority", "Parent", "Children", "DisplayName",
    ]  # fmt: skip
    assert result["rows"][0]["cells"] == ["team-a", "100", "dept", '["x","y"]', None]
    policy = api.create(
        "clusterpolicies.nvidia.com",
        {"metadata": {"name": "cluster-policy"}, "spec": {}, "status": {"state": "ready"}},
    )
    assert table(api, "clusterpolicies", [policy])["rows"][0]["cells"] == [
        "cluster-policy", None, "2026-11-10T09:40:00Z",
    ]  # fmt: skip
    group = api.create("podgroups.scheduling.run.ai", {"metadata": {"name": "pg"}, "spec": {}})
    api.clock.advance()
    assert table(api, "pg", [group])["rows"][0]["cells"] == ["pg", "10s"]


def test_label_selectors_format_like_metav1() -> None:
    selector = {
        "matchLabels": {"b": "2", "a": "1"},
        "matchExpressions": [{"key": "c", "operator": "In", "values": ["y", "x"]}],
    }
    assert format_label_selector(selector) == "a=1,b=2,c in (x,y)"
