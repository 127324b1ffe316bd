"""kube-system, DaemonSets, Deployments, Jobs, the kubelet and cordon/drain, through the API."""

from __future__ import annotations

from collections import Counter

from simulators.lab.world import World
from tests.unit.controllers.controller_helpers import (
    events,
    phase,
    pod_on,
    pods,
    ticks,
    waiting_reason,
)


def _drain(world: World, node: str) -> list[str]:
    """What `kubectl drain --ignore-daemonsets` does: cordon, then evict every non-daemon pod."""
    world.api.patch("nodes", node, {"spec": {"unschedulable": True}})
    evicted = []
    for pod in pods(world):
        owners = pod["metadata"].get("ownerReferences") or [{}]
        if pod["spec"].get("nodeName") != node or owners[0].get("kind") == "DaemonSet":
            continue
        world.api.evict(pod["metadata"]["name"], pod["metadata"]["namespace"])
        evicted.append(f"{pod['metadata']['namespace']}/{pod['metadata']['name']}")
    return evicted


def test_kube_system_runs_coredns_and_a_kube_proxy_per_node(single: World) -> None:
    running = [p for p in pods(single, "kube-system") if phase(p) == "Running"]
    names = Counter(p["metadata"]["name"].split("-")[0] for p in running)
    assert names == {"coredns": 2, "kube": 3}
    proxies = {p["spec"]["nodeName"] for p in running if p["metadata"]["name"].startswith("kube-")}
    assert proxies == {"gpu-node1", "gpu-node2", "gpu-node3"}
    deploy = single.api.get("deployments.apps", "coredns", "kube-system")
    assert deploy["status"]["availableReplicas"] == 2


def test_daemonset_pods_on_one_node_have_independent_suffixes(single: World) -> None:
    on_node2 = [p for p in pods(single, "gpu-operator") if p["spec"].get("nodeName") == "gpu-node2"]
    daemon = [p for p in on_node2 if p["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet"]
    assert len(daemon) == 7
    suffixes = [p["metadata"]["name"].rsplit("-", 1)[1] for p in daemon]
    assert len(set(suffixes)) == 7
    assert all(len(s) == 5 for s in suffixes)


def test_a_deleted_daemonset_pod_comes_back_under_a_new_name(single: World) -> None:
    old = pod_on(single, "nvidia-driver-daemonset", "gpu-node1")
    single.api.delete("pods", old["metadata"]["name"], "gpu-operator")
    ticks(single, 1)
    new = pod_on(single, "nvidia-driver-daemonset", "gpu-node1")
    assert new["metadata"]["name"] != old["metadata"]["name"]
    assert waiting_reason(new) == "ContainerCreating"
    ticks(single, 1)
    assert phase(pod_on(single, "nvidia-driver-daemonset", "gpu-node1")) == "Running"
    reasons = [e["reason"] for e in events(single, "gpu-operator", "nvidia-driver-daemonset")]
    assert "SuccessfulCreate" in reasons


def test_drain_with_ignore_daemonsets_never_leaves_runai_or_the_gpu_operator_dead(
    single: World,
) -> None:
    evicted = _drain(single, "gpu-node2")
    assert any(name.startswith("default/train-llm-7-") for name in evicted)
    ticks(single, 3)
    for deploy in single.api.list("deployments.apps")["items"]:
        want = deploy["spec"]["replicas"]
        assert deploy["status"].get("availableReplicas") == want, deploy["metadata"]["name"]
    for pod in pods(single, "runai") + pods(single, "kube-system"):
        assert phase(pod) == "Running", pod["metadata"]["name"]
    operator = pods(single, "gpu-operator", "app=gpu-operator")
    assert [phase(p) for p in operator] == ["Running"]
    assert all(p["spec"]["nodeName"] != "gpu-node2" for p in pods(single, "runai"))


def test_the_evicted_job_pod_is_replaced_on_another_node(single: World) -> None:
    _drain(single, "gpu-node2")
    ticks(single, 3)
    job_pods = pods(single, "default", "job-name=train-llm-7")
    assert len(job_pods) == 1
    assert job_pods[0]["spec"]["nodeName"] in ("gpu-node1", "gpu-node3")
    assert phase(job_pods[0]) == "Running"


def test_cordon_adds_the_unschedulable_taint_and_uncordon_removes_it(single: World) -> None:
    single.api.patch("nodes", "gpu-node3", {"spec": {"unschedulable": True}})
    ticks(single, 1)
    taints = single.api.get("nodes", "gpu-node3")["spec"]["taints"]
    assert [(t["key"], t["effect"]) for t in taints] == [
        ("node.kubernetes.io/unschedulable", "NoSchedule")
    ]
    single.api.patch("nodes", "gpu-node3", {"spec": {"unschedulable": False}})
    ticks(single, 1)
    assert not single.api.get("nodes", "gpu-node3")["spec"].get("taints")


def test_rollout_restart_makes_a_new_replicaset_and_replaces_the_pods(single: World) -> None:
    before = {p["metadata"]["name"] for p in pods(single, "kube-system", "k8s-app=kube-dns")}
    single.api.patch(
        "deployments.apps",
        "coredns",
        {
            "spec": {
                "template": {
                    "metadata": {
                        "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-11-10T09:40:00Z"}
                    }
                }
            }
        },
        "kube-system",
    )
    ticks(single, 4)
    replicasets = single.api.list("replicasets.apps", "kube-system")["items"]
    by_size = sorted((rs["spec"]["replicas"], rs["metadata"]["name"]) for rs in replicasets)
    assert [size for size, _ in by_size] == [0, 2]
    after = [p for p in pods(single, "kube-system", "k8s-app=kube-dns") if phase(p) == "Running"]
    assert len(after) == 2
    assert not before & {p["metadata"]["name"] for p in after}
    messages = [e["message"] for e in events(single, "kube-system", "coredns")]
    assert any(m.startswith("Scaled up replica set coredns-") for m in messages)
    deploy = single.api.get("deployments.apps", "coredns", "kube-system")
    assert deploy["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"


def test_a_pending_pod_has_no_container_statuses_and_says_why(mixed: World) -> None:
    triton = mixed.api.get("pods", "triton", "default")
    assert phase(triton) == "Pending"
    assert "containerStatuses" not in triton["status"]
    conditions = triton["status"]["conditions"]
    assert [(c["type"], c["status"], c.get("reason")) for c in conditions] == [
        ("PodScheduled", "False", "Unschedulable")
    ]


def test_a_bound_pod_is_container_creating_for_one_step_then_runs(single: World) -> None:
    single.api.create(
        "pods",
        {
            "metadata": {"name": "probe"},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]},
        },
        "default",
    )
    ticks(single, 1)
    pod = single.api.get("pods", "probe", "default")
    assert (phase(pod), waiting_reason(pod)) == ("Pending", "ContainerCreating")
    ticks(single, 1)
    pod = single.api.get("pods", "probe", "default")
    assert phase(pod) == "Running"
    reasons = [(e["reason"], e["source"]["component"]) for e in events(single, "default", "probe")]
    assert reasons == [
        ("Scheduled", "default-scheduler"),
        ("Pulled", "kubelet"),
        ("Created", "kubelet"),
        ("Started", "kubelet"),
    ]


def test_a_container_that_exits_under_restart_policy_always_is_restarted_with_back_off(
    single: World,
) -> None:
    single.api.create(
        "pods",
        {
            "metadata": {"name": "quick"},
            "spec": {"containers": [{"name": "c", "image": "gcr.io/run-ai-demo/quickstart"}]},
        },
        "default",
    )
    ticks(single, 6)
    pod = single.api.get("pods", "quick", "default")
    assert phase(pod) == "Running"
    assert waiting_reason(pod) == "CrashLoopBackOff"
    last = pod["status"]["containerStatuses"][0]["lastState"]["terminated"]
    assert (last["reason"], last["exitCode"]) == ("Completed", 0)
    ticks(single, 1)
    restarted = single.api.get("pods", "quick", "default")["status"]["containerStatuses"][0]
    assert restarted["restartCount"] == 1 and "running" in restarted["state"]


def test_a_finished_container_under_restart_policy_never_completes_the_pod(single: World) -> None:
    single.api.create(
        "pods",
        {
            "metadata": {"name": "once"},
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "c", "image": "gcr.io/run-ai-demo/quickstart"}],
            },
        },
        "default",
    )
    ticks(single, 7)
    pod = single.api.get("pods", "once", "default")
    assert phase(pod) == "Succeeded"
    assert pod["status"]["containerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"


def _on(world: World, namespace: str, selector: str, node: str) -> list[str]:
    return [
        p["metadata"]["name"]
        for p in pods(world, namespace, selector)
        if p["spec"].get("nodeName") == node and not p["metadata"].get("deletionTimestamp")
    ]


def test_a_daemonset_honours_taints_no_schedule_keeps_running_pods_no_execute_evicts(
    single: World,
) -> None:
    taint = {"key": "maintenance", "value": "true", "effect": "NoSchedule"}
    single.api.patch("nodes", "gpu-node3", {"spec": {"taints": [taint]}})
    ticks(single, 2)
    # NoSchedule: running daemon pods stay, but a deleted one is not replaced.
    assert _on(single, "gpu-operator", "app=nvidia-driver-daemonset", "gpu-node3")
    (plugin,) = _on(single, "gpu-operator", "app=nvidia-device-plugin-daemonset", "gpu-node3")
    single.api.delete("pods", plugin, "gpu-operator")
    ticks(single, 2)
    assert not _on(single, "gpu-operator", "app=nvidia-device-plugin-daemonset", "gpu-node3")
    # NoExecute: the running ones go too, except kube-proxy, which tolerates every taint.
    single.api.patch("nodes", "gpu-node3", {"spec": {"taints": [{**taint, "effect": "NoExecute"}]}})
    ticks(single, 2)
    assert not _on(single, "gpu-operator", "app=nvidia-driver-daemonset", "gpu-node3")
    assert _on(single, "kube-system", "k8s-app=kube-proxy", "gpu-node3")
    others = [p for p in pods(single) if p["spec"].get("nodeName") == "gpu-node3"]
    assert all(p["metadata"]["namespace"] == "kube-system" for p in others)
