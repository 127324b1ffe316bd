"""A ticket's story, staged at the times it says before the session starts: projects and
departments a month ago, a colleague's changes yesterday (labels, cordons, ConfigMaps, the MIG
config's name), a Job 42 minutes old, applied files, Run:ai workloads submitted an hour ago.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import yaml

from simulators.cluster.api import Obj
from simulators.cluster.clock import EPOCH, format_time
from simulators.cluster.store import MockCluster
from simulators.controllers import fabric, gpu_state, hardware, runai
from simulators.controllers.devices import DEVICE_PLUGIN_APP
from simulators.controllers.runtime import device_plugin_xid
from simulators.engine.mig import NAMED_LAYOUTS
from simulators.lab.errors import LabError
from simulators.lab.world_cluster import DAY, GPUS_PER_NODE


def story(spec: dict[str, Any], api: MockCluster, files: dict[str, str]) -> list[tuple[int, Any]]:
    """The ticket's changes as (time, action), applied in time order; `files` is kadmin's
    home folder, which `apply_files` reads from."""
    actions: list[tuple[int, Any]] = []
    # Projects and departments exist from early on (the install was validated a month ago).
    runai_spec = spec.get("runai") or {}
    projects = list(runai_spec.get("projects") or [])
    departments = {str(d["name"]): d for d in runai_spec.get("departments") or []}
    if projects:
        actions.append((-30 * DAY, lambda: _projects(api, projects, departments)))
    if spec.get("network_operator"):
        actions.append((-30 * DAY + 60, lambda: _network_operator(api)))
    node_specs = spec.get("nodes") or {}
    if (
        node_specs
        or spec.get("configmaps")
        or spec.get("mig_config_name")
        or spec.get("cluster_policy")
    ):
        actions.append((-DAY, lambda: _yesterday(api, spec, files)))
    for node_name, overrides in node_specs.items():
        lost = (overrides or {}).get("gpu_lost")
        if lost:
            at = -int(lost.get("minutes_ago", 40)) * 60
            actions.append((at, lambda n=str(node_name), i=int(lost["index"]): _xid79(api, n, i)))
    for job in spec.get("jobs") or []:
        age = int(job.get("age_minutes", 42)) * 60
        actions.append((-age, lambda job=job: _job(api, job)))
    if spec.get("apply_files"):
        actions.append((-25 * 60, lambda: _apply_files(api, files, list(spec["apply_files"]))))
    for wl in runai_spec.get("workloads") or []:
        age = int(wl.get("age_minutes", 30)) * 60
        actions.append((-age, lambda wl=wl: _workload(api, wl)))
    actions.sort(key=lambda a: a[0])
    return actions


def _yesterday(api: MockCluster, spec: dict[str, Any], files: dict[str, str]) -> None:
    """A colleague's changes: node labels and cordons, ConfigMaps, the MIG config's name, the
    ClusterPolicy's settings (``cluster_policy``: merged into its spec)."""
    for extra in spec.get("configmaps") or []:
        api.create(
            "configmaps",
            {
                "metadata": {
                    "name": str(extra["name"]),
                    "namespace": str(extra.get("namespace", "gpu-operator")),
                },
                "data": {str(k): str(v) for k, v in (extra.get("data") or {}).items()},
            },
        )
    for filename in spec.get("apply_files") or []:
        docs = _documents(files, str(filename))
        for doc in docs:
            if doc.get("kind") == "ConfigMap":
                _apply_doc(api, doc)
    policy = spec.get("cluster_policy")
    if policy:  # a colleague's Helm upgrade: a merge patch of the ClusterPolicy's spec
        api.patch("clusterpolicies.nvidia.com", "cluster-policy", {"spec": dict(policy)})
    name = spec.get("mig_config_name")
    if name:
        api.patch(
            "clusterpolicies.nvidia.com",
            "cluster-policy",
            {"spec": {"migManager": {"config": {"name": str(name)}}}},
        )
    for node_name, overrides in (spec.get("nodes") or {}).items():
        overrides = overrides or {}
        layout_name = overrides.get("applied_layout")
        if layout_name:
            if layout_name not in NAMED_LAYOUTS:
                raise LabError(f"world: unknown applied_layout {layout_name!r} for {node_name}")
            per_gpu = NAMED_LAYOUTS[layout_name].profiles_per_gpu(GPUS_PER_NODE)
            api.patch(
                "nodes",
                str(node_name),
                {
                    "metadata": {
                        "annotations": {hardware.GPUS_ANNOTATION: hardware.encode_layout(per_gpu)}
                    }
                },
            )
        if overrides.get("unschedulable"):
            api.patch("nodes", str(node_name), {"spec": {"unschedulable": True}})
        labels = {str(k): str(v) for k, v in (overrides.get("labels") or {}).items()}
        if labels:
            api.patch("nodes", str(node_name), {"metadata": {"labels": labels}})
        if overrides.get("host_driver"):
            _host_driver(api, str(node_name), str(overrides["host_driver"]))


def _network_operator(api: MockCluster) -> None:
    """The NVIDIA Network Operator with its RDMA shared device plugin on every GPU node: the
    plugin's DaemonSet, and the resource it registered in each node's capacity."""
    api.create("namespaces", {"metadata": {"name": fabric.NAMESPACE}})
    policy = api.create(fabric.NIC_POLICIES, fabric.nic_cluster_policy())
    api.patch(
        fabric.NIC_POLICIES,
        policy["metadata"]["name"],
        {"status": {"state": "ready"}},
        subresource="status",
    )
    config = fabric.nic_cluster_policy()["spec"]["rdmaSharedDevicePlugin"]["config"]
    api.create(
        "configmaps",
        {
            "metadata": {"name": "rdma-devices", "namespace": fabric.NAMESPACE},
            "data": {"config.json": config},
        },
    )
    for node in api.list("nodes")["items"]:
        name = node["metadata"]["name"]
        api.patch("nodes", name, {"metadata": {"labels": {fabric.MELLANOX_LABEL: "true"}}})
        count = str(fabric.RDMA_HCA_MAX)
        resources = {"capacity": {fabric.RDMA_RESOURCE: count}}
        resources["allocatable"] = {fabric.RDMA_RESOURCE: count}
        api.patch("nodes", name, {"status": resources}, subresource="status")
    api.create("deployments.apps", fabric.operator_deployment(), fabric.NAMESPACE)
    api.create("daemonsets.apps", fabric.plugin_daemonset(), fabric.NAMESPACE)


def _host_driver(api: MockCluster, node: str, version: str) -> None:
    """The node was reimaged with its own NVIDIA driver and rebooted: its daemon pods restart."""
    annotation = {gpu_state.HOST_DRIVER_ANNOTATION: version}
    api.patch("nodes", node, {"metadata": {"annotations": annotation}})
    for pod in api.list("pods", "gpu-operator")["items"]:
        if pod["spec"].get("nodeName") == node:
            api.delete("pods", pod["metadata"]["name"], "gpu-operator")


def _xid79(api: MockCluster, node: str, index: int) -> None:
    """One of the node's GPUs falls off the bus (Xid 79): the driver loses it, and the device
    plugin's health check, watching NVML's Xid events, marks it unhealthy (its log lines)."""
    now = format_time(api.now())
    annotations = {hardware.LOST_ANNOTATION: str(index), hardware.LOST_AT_ANNOTATION: now}
    api.patch("nodes", node, {"metadata": {"annotations": annotations}})
    uuid = hardware.gpus(api.get("nodes", node))[index].uuid
    for pod in api.list("pods", "gpu-operator")["items"]:
        labels = pod["metadata"].get("labels") or {}
        if pod["spec"].get("nodeName") == node and labels.get("app") == DEVICE_PLUGIN_APP:
            name = pod["metadata"]["name"]
            container = pod["spec"]["containers"][0]["name"]
            api.append_log("gpu-operator", name, container, device_plugin_xid(api, 79, uuid))


def _documents(files: dict[str, str], filename: str) -> list[dict[str, Any]]:
    text = files.get(filename)
    if text is None:
        raise LabError(f"world: apply_files names {filename!r}, which is not in files")
    return [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]


def _apply_doc(api: MockCluster, doc: dict[str, Any]) -> None:
    """`kubectl apply -f` of one document, with the last-applied annotation kubectl writes."""
    from simulators.lab.kubectl.apply import LAST_APPLIED, go_json

    info = api.registry.by_kind(str(doc.get("apiVersion", "v1")), str(doc.get("kind", "")))
    obj = json.loads(json.dumps(doc))
    meta = obj.setdefault("metadata", {})
    namespace = str(meta.get("namespace") or "default") if info.namespaced else None
    if namespace is not None:
        meta["namespace"] = namespace
    annotations = meta.setdefault("annotations", {})
    annotations[LAST_APPLIED] = go_json(obj) + "\n"
    api.create(info.key, obj, namespace)


def _apply_files(api: MockCluster, files: dict[str, str], names: list[str]) -> None:
    for filename in names:
        for doc in _documents(files, str(filename)):
            if doc.get("kind") == "ConfigMap":
                continue  # applied yesterday with the node changes
            _apply_doc(api, doc)


def _job(api: MockCluster, job: dict[str, Any]) -> None:
    """A Kubernetes Job whose pod the scheduler put on the node the story names."""
    name = str(job["name"])
    namespace = str(job.get("namespace", "default"))
    gpus = str(int(job.get("gpus", 4)))
    image = str(job.get("image", "nvcr.io/nvidia/pytorch:24.05-py3"))
    created = api.create(
        "jobs.batch",
        {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "backoffLimit": 6,
                "completions": 1,
                "parallelism": 1,
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [
                            {
                                "name": "train",
                                "image": image,
                                "command": ["torchrun", "--nproc-per-node", gpus, "train.py"],
                                "resources": {
                                    "limits": {"nvidia.com/gpu": gpus},
                                    "requests": {"nvidia.com/gpu": gpus},
                                },
                            }
                        ],
                    }
                },
            },
        },
        namespace,
    )
    node = job.get("node")
    if not node:
        return
    # Stage the placement: the Job controller makes the pod, the scheduler chose this node.
    from simulators.controllers import workloads
    from simulators.controllers.util import DEFAULT_SCHEDULER

    workloads.run_jobs(api)
    pods = [
        p
        for p in api.list("pods", namespace, label_selector=f"job-name={name}")["items"]
        if p["metadata"].get("ownerReferences", [{}])[0].get("uid") == created["metadata"]["uid"]
    ]
    for pod in pods:
        if not pod["spec"].get("nodeName"):
            api.bind(pod["metadata"]["name"], namespace, str(node))
            from simulators.controllers.util import emit

            emit(
                api,
                api.get("pods", pod["metadata"]["name"], namespace),
                "Normal",
                "Scheduled",
                f"Successfully assigned {namespace}/{pod['metadata']['name']} to {node}",
                DEFAULT_SCHEDULER,
            )


def _limit(spec: dict[str, Any]) -> float:
    return -1 if spec.get("limit") is None else float(spec["limit"])


def _projects(
    api: MockCluster, projects: list[dict[str, Any]], departments: dict[str, dict[str, Any]]
) -> None:
    names = sorted({str(p.get("department", "default")) for p in projects} | set(departments))
    for dept in names:
        # A department without quota or limit in the story has none (-1): its projects' own.
        given = departments.get(dept, {})
        quota: dict[str, Any] = {
            "deservedGpus": float(given["quota"]) if given.get("quota") is not None else -1
        }
        if given.get("limit") is not None:
            quota["maxAllowedGpus"] = _limit(given)
        api.create("departments.run.ai", {"metadata": {"name": dept}, "spec": quota})
    for project in projects:
        name = str(project["name"])
        given = project.get("quota", 0)
        per_pool: dict[str, Any] = dict(given) if isinstance(given, dict) else {}
        total = sum(float(g) for g in per_pool.values()) if per_pool else float(given or 0)
        body: dict[str, Any] = {
            "department": str(project.get("department", "default")),
            "deservedGpus": total,
            "maxAllowedGpus": _limit(project),
            "gpuOverQuotaWeight": float(project.get("over_quota_weight", 1)),
            "namespace": runai.namespace_for(name),
        }
        if per_pool:
            # Run:ai's per-pool resources; new workloads go to the pools with quota first.
            body["nodePools"] = {
                str(pool): {
                    "deservedGpus": float(gpus),
                    "maxAllowedGpus": -1,
                    "gpuOverQuotaWeight": float(project.get("over_quota_weight", 1)),
                }
                for pool, gpus in per_pool.items()
            }
            body["defaultNodePools"] = [str(p) for p, gpus in per_pool.items() if float(gpus) > 0]
        api.create("projects.run.ai", {"metadata": {"name": name}, "spec": body})
    runai.run_queues(api)


def _workload(api: MockCluster, spec: dict[str, Any]) -> None:
    kind = str(spec.get("kind", "training"))
    obj = runai.workload_object(
        kind,
        str(spec["name"]),
        str(spec["project"]),
        str(spec.get("image", "nvcr.io/nvidia/pytorch:24.05-py3")),
        gpu=float(spec.get("gpus", 1)),
        gpu_memory=spec.get("gpu_memory"),
        # A ticket counts a distributed workload's pods: a master plus `pods - 1` workers.
        workers=max(1, int(spec.get("pods", 1)) - (1 if kind == "distributed" else 0)),
        no_master=kind == "distributed" and int(spec.get("pods", 1)) < 2,
        user=str(spec.get("user", "admin")),
        node_pools=[str(p) for p in spec.get("node_pools") or []] or None,
    )
    # What its submitter passed with -e, --extended-resource and --capability.
    for key, field in (
        ("environment", "environment"),
        ("extended_resources", "extendedResources"),
        ("capabilities", "capabilities"),
    ):
        if spec.get(key):
            obj["spec"][field] = {"value": [str(item) for item in spec[key]]}
    created = api.create(runai.WORKLOAD_RESOURCES[kind], obj, obj["metadata"]["namespace"])
    if spec.get("node"):
        _place_runai_pods(api, created, str(spec["node"]))
    # Last activity is told relative to the session's start (EPOCH): "idle for 21 days".
    idle = int(spec.get("idle_minutes") or 0)
    stamp = format_time(EPOCH - timedelta(minutes=idle))
    api.patch(
        runai.WORKLOAD_RESOURCES[kind],
        created["metadata"]["name"],
        {"status": {"lastActivityTime": stamp, "phase": "Pending"}},
        obj["metadata"]["namespace"],
        subresource="status",
    )


def _place_runai_pods(api: MockCluster, workload: Obj, node: str) -> None:
    """Stage where the scheduler put a workload's pods back then (on a fuller cluster)."""
    from simulators.controllers.util import RUNAI_SCHEDULER, emit

    runai.run_workloads(api)
    namespace = str(workload["metadata"]["namespace"])
    name = str(workload["metadata"]["name"])
    for pod in api.list("pods", namespace, label_selector=f"workloadName={name}")["items"]:
        if pod["spec"].get("nodeName"):
            continue
        pod_name = str(pod["metadata"]["name"])
        api.bind(pod_name, namespace, node)
        emit(
            api,
            api.get("pods", pod_name, namespace),
            "Normal",
            "Scheduled",
            f"Successfully assigned {namespace}/{pod_name} to {node}",
            RUNAI_SCHEDULER,
        )
