"""The simulated cluster: building a ticket's world and advancing it one step.

`World` wraps a :class:`~simulators.lab.state.WorldState` and its mock backend.
`tick()` runs the simulated controllers in the order a real cluster would
settle: MIG Manager, the GPU Operator (DaemonSets, device plugin, what nodes
advertise), Kubernetes Job controller, kube-scheduler for default-scheduler
pods, then the Run:ai scheduler through the engine.
"""

from __future__ import annotations

from typing import Any

from simulators.backends.base import (
    DEFAULT_SCHEDULER,
    GPU_OPERATOR_NS,
    RUNAI_NS,
    ClusterPolicy,
    ConfigMap,
    Container,
    Event,
    Gpu,
    Node,
    Pod,
)
from simulators.backends.mock import MockBackend
from simulators.backends.serde import JSON, from_json, to_json
from simulators.engine.mig import NAMED_LAYOUTS
from simulators.lab import gpu_operator, manifests, mig, runai_sched
from simulators.lab.errors import LabError
from simulators.lab.state import (
    CLUSTER_BIRTH,
    STEP_SECONDS,
    HelmRelease,
    KubeJob,
    MigManagerState,
    RunaiProject,
    RunaiState,
    RunaiWorkload,
    WorldState,
    fake_uuid,
    name_suffix,
)

NODE_NAMES = ("gpu-node1", "gpu-node2", "gpu-node3")
GPUS_PER_NODE = 8
# Steps the world runs before the learner's first command, so initial states
# (a failed MIG apply, a Pending pod and its events) come from the same rules.
WARMUP_STEPS = 6

RUNAI_COMPONENTS: tuple[tuple[str, int], ...] = (
    ("accessrule-controller-6b9f7c8d5-x2k4p", 1),
    ("cluster-api-7d5c9b6f4-q8w2n", 1),
    ("cluster-sync-5f8d7c6b9-m3j7r", 1),
    ("metrics-exporter-6c7b8d9f5-t4v6z", 1),
    ("nodepool-controller-8d9c7b6f5-k2l8s", 1),
    ("pod-grouper-5b6c7d8f9-p9q3w", 1),
    ("prometheus-runai-0", 2),
    ("queue-controller-7c8d9f6b5-h5n2x", 1),
    ("researcher-service-6f7c8d9b5-r7t4y", 1),
    ("runai-admission-controller-5d6f7c8b9-w3e6u", 1),
    ("runai-agent-8b9c7d6f5-z1x9c", 1),
    ("runai-operator-6d7c8b9f5-a4s8d", 1),
    ("runai-scheduler-default-7f8d9c6b5-f6g2h", 1),
    ("status-updater-5c6d7f8b9-j8k1l", 1),
    ("workload-controller-6b7c8d9f5-n5m3b", 1),
)


class World:
    """The lab's cluster: state plus the controllers that move it forward."""

    def __init__(self, state: WorldState) -> None:
        self.state = state
        self.backend = MockBackend(state.cluster)

    # -- persistence -----------------------------------------------------------
    def to_json(self) -> JSON:
        return to_json(self.state)

    @classmethod
    def from_json(cls, data: JSON) -> World:
        return cls(from_json(WorldState, data))

    # -- time ------------------------------------------------------------------
    @property
    def now(self) -> int:
        return self.state.cluster.clock

    def tick(self) -> None:
        """Advance the clock one step and let every controller reconcile once."""
        self.state.step += 1
        self.state.cluster.clock += STEP_SECONDS
        self.reconcile()

    def reconcile(self) -> None:
        mig.reconcile(self.state, self.backend)
        gpu_operator.reconcile(self.state, self.backend)
        self._reconcile_jobs()
        self._schedule_default_pods()
        runai_sched.reconcile(self.state, self.backend)

    # -- Kubernetes Jobs ---------------------------------------------------------
    def job_pod_name(self, job: KubeJob) -> str:
        return f"{job.name}-{name_suffix(self.state.seed, 'job', job.name, job.generation)}"

    def _reconcile_jobs(self) -> None:
        for job in self.state.jobs:
            if any(p.owner_kind == "Job" and p.owner_name == job.name for p in self._pods()):
                continue
            job.generation += 1
            self.backend.create_pod(self.job_pod(job))

    def job_pod(self, job: KubeJob) -> Pod:
        return Pod(
            name=self.job_pod_name(job),
            namespace=job.namespace,
            containers=[
                Container(
                    name="train",
                    image=job.image,
                    limits={"nvidia.com/gpu": str(job.gpus)},
                    requests={"nvidia.com/gpu": str(job.gpus)},
                    command=["torchrun", "--nproc-per-node", str(job.gpus), "train.py"],
                )
            ],
            labels={"job-name": job.name, "batch.kubernetes.io/job-name": job.name},
            owner_kind="Job",
            owner_name=job.name,
            created=self.now,
        )

    def _pods(self) -> list[Pod]:
        return self.backend.list_pods()

    # -- kube-scheduler for default-scheduler pods --------------------------------
    def gpu_usage(self, node: str) -> dict[str, float]:
        """Extended GPU resources held on a node by pods of every scheduler."""
        used: dict[str, float] = {}
        for pod in self._pods():
            if pod.node_name != node or pod.phase in ("Succeeded", "Failed"):
                continue
            for key, value in pod.gpu_resources().items():
                used[key] = used.get(key, 0.0) + value
        return used

    def _schedule_default_pods(self) -> None:
        for pod in self._pods():
            if pod.scheduler_name != DEFAULT_SCHEDULER or pod.node_name or pod.phase != "Pending":
                continue
            if pod.namespace in (GPU_OPERATOR_NS, RUNAI_NS):
                continue
            self._schedule_one(pod)

    def _schedule_one(self, pod: Pod) -> None:
        nodes = self.backend.list_nodes()
        reasons: dict[str, int] = {}
        fits: list[tuple[float, str]] = []
        wanted = pod.gpu_resources()
        for node in nodes:
            if node.unschedulable:
                reasons["node(s) were unschedulable"] = (
                    reasons.get("node(s) were unschedulable", 0) + 1
                )
                continue
            if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
                key = "node(s) didn't match Pod's node affinity/selector"
                reasons[key] = reasons.get(key, 0) + 1
                continue
            used = self.gpu_usage(node.name)
            short = [
                r
                for r, amount in sorted(wanted.items())
                if float(node.allocatable.get(r, "0")) - used.get(r, 0.0) < amount
            ]
            if short:
                key = f"Insufficient {short[0]}"
                reasons[key] = reasons.get(key, 0) + 1
                continue
            free = sum(float(node.allocatable.get(r, "0")) - used.get(r, 0.0) for r in wanted)
            fits.append((-free, node.name))
        if not fits:
            parts = ", ".join(f"{count} {reason}" for reason, count in sorted(reasons.items()))
            message = (
                f"0/{len(nodes)} nodes are available: {parts}. preemption: 0/{len(nodes)} "
                f"nodes are available: {len(nodes)} Preemption is not helpful for scheduling."
            )
            self.event(pod, "Warning", "FailedScheduling", message, DEFAULT_SCHEDULER)
            return
        # kube-scheduler's default scoring spreads: the node with the most free GPUs wins.
        fits.sort()
        self.start_pod(pod, fits[0][1])

    def start_pod(self, pod: Pod, node: str) -> None:
        pod.node_name = node
        pod.phase = "Running"
        pod.reason = ""
        pod.started = self.now
        pod.ip = gpu_operator.pod_ip(self.state.seed, pod.namespace, pod.name)
        self.event(
            pod,
            "Normal",
            "Scheduled",
            f"Successfully assigned {pod.namespace}/{pod.name} to {node}",
            DEFAULT_SCHEDULER,
        )
        image = pod.containers[0].image if pod.containers else ""
        self.event(pod, "Normal", "Pulled", f'Container image "{image}" already present on machine')
        for c in pod.containers:
            self.event(pod, "Normal", "Created", f"Created container {c.name}")
            self.event(pod, "Normal", "Started", f"Started container {c.name}")
        if not pod.logs:
            pod.logs = _workload_logs(image)

    def event(
        self, pod: Pod, type_: str, reason: str, message: str, source: str = "kubelet"
    ) -> None:
        self.backend.record_event(
            Event(
                namespace=pod.namespace,
                kind="Pod",
                name=pod.name,
                type=type_,
                reason=reason,
                message=message,
                source=source,
                first_seen=self.now,
                last_seen=self.now,
            )
        )


def _workload_logs(image: str) -> list[str]:
    if "tritonserver" in image:
        return [
            "I1110 09:41:02.114305 1 server.cc:677] ",
            "+----------+---------+--------+",
            "| Model    | Version | Status |",
            "+----------+---------+--------+",
            "| resnet50 | 1       | READY  |",
            "+----------+---------+--------+",
            'I1110 09:41:02.214418 1 grpc_server.cc:2463] "Started GRPCInferenceService at '
            '0.0.0.0:8001"',
            'I1110 09:41:02.214913 1 http_server.cc:4692] "Started HTTPService at 0.0.0.0:8000"',
        ]
    if "pytorch" in image or "train" in image:
        return [
            "[rank0]: world size 4, backend nccl",
            "[rank0]: epoch 12 step 4100 loss 1.874 tokens/s 182340",
            "[rank0]: epoch 12 step 4200 loss 1.861 tokens/s 183012",
        ]
    return []


# ---------------------------------------------------------------------------- building


def build_world(spec: dict[str, Any], seed: int) -> World:
    """Build the base cluster, apply a ticket's world variations, warm it up."""
    state = WorldState(seed=seed)
    world = World(state)
    backend = world.backend
    # The warm-up runs before the learner's step 0.
    state.cluster.clock = -WARMUP_STEPS * STEP_SECONDS
    for ns in ("default", "kube-system", "kube-public", "kube-node-lease", GPU_OPERATOR_NS):
        backend.ensure_namespace(ns)

    strategy = str(spec.get("strategy", "single"))
    config_name = str(spec.get("mig_config_name", gpu_operator.DEFAULT_MIG_CONFIG))
    state.strategy_seen = strategy
    backend.state.cluster_policies.append(
        ClusterPolicy(
            name=gpu_operator.CLUSTER_POLICY,
            spec=gpu_operator.default_cluster_policy_spec(strategy, config_name),
            created=CLUSTER_BIRTH,
        )
    )
    backend.put_configmap(
        ConfigMap(
            name=gpu_operator.DEFAULT_MIG_CONFIG,
            namespace=GPU_OPERATOR_NS,
            data={mig.CONFIG_KEY: mig.DEFAULT_CONFIG_TEXT},
            labels={"app.kubernetes.io/part-of": "gpu-operator"},
            created=CLUSTER_BIRTH,
        )
    )
    backend.put_configmap(
        ConfigMap(
            name="default-gpu-clients",
            namespace=GPU_OPERATOR_NS,
            data={
                "clients.yaml": "version: v1\nsystemd-services:\n  - nvsm.service\n"
                "  - nvsm-mqtt.service\n  - nvsm-core.service\n  - nvsm-api-gateway.service\n"
                "  - nvsm-notifier.service\n  - nv_peer_mem.service\n"
                "  - nvidia-dcgm.service\n  - dcgm.service\n  - dcgm-exporter.service\n"
            },
            created=CLUSTER_BIRTH,
        )
    )
    for extra in spec.get("configmaps", []) or []:
        backend.put_configmap(
            ConfigMap(
                name=str(extra["name"]),
                namespace=str(extra.get("namespace", GPU_OPERATOR_NS)),
                data={str(k): str(v) for k, v in (extra.get("data") or {}).items()},
                created=CLUSTER_BIRTH + 30 * 86400,
            )
        )

    node_specs: dict[str, Any] = spec.get("nodes", {}) or {}
    for index, name in enumerate(NODE_NAMES, start=1):
        overrides = node_specs.get(name, {}) or {}
        _add_node(world, name, index, overrides)

    state.files = {str(k): str(v) for k, v in (spec.get("files", {}) or {}).items()}
    for job in spec.get("jobs", []) or []:
        _add_job(world, job)
    for filename in spec.get("apply_files", []) or []:
        _apply_file(world, str(filename))
    _add_runai(world, spec.get("runai", {}) or {})
    state.helm.append(
        HelmRelease(
            name="runai-cluster",
            namespace=RUNAI_NS,
            chart="runai-cluster-2.17.42",
            revision=1,
            deployed=CLUSTER_BIRTH,
        )
    )
    state.helm.append(
        HelmRelease(
            name="gpu-operator",
            namespace=GPU_OPERATOR_NS,
            chart="gpu-operator-v24.9.2",
            revision=1,
            deployed=CLUSTER_BIRTH,
        )
    )

    # Operator pod (a Deployment, not per node).
    backend.create_pod(
        Pod(
            name=f"gpu-operator-7c9f6d8b5-{name_suffix(seed, 'gpu-operator')}",
            namespace=GPU_OPERATOR_NS,
            containers=[Container("gpu-operator", "nvcr.io/nvidia/gpu-operator:v24.9.2")],
            labels={"app": "gpu-operator"},
            owner_kind="ReplicaSet",
            owner_name="gpu-operator-7c9f6d8b5",
            node_name="gpu-node1",
            phase="Running",
            created=CLUSTER_BIRTH,
            started=CLUSTER_BIRTH,
            ip=gpu_operator.pod_ip(seed, "gpu-operator"),
        )
    )
    world.reconcile()
    for _ in range(WARMUP_STEPS):
        state.cluster.clock += STEP_SECONDS
        world.reconcile()
    state.step = 0
    state.cluster.clock = 0
    _backdate(world)
    return world


def _backdate(world: World) -> None:
    """Workloads the ticket says started long ago should look it, not warm-up fresh."""
    start = -WARMUP_STEPS * STEP_SECONDS
    for wl in world.state.runai.workloads:
        if wl.created >= start:
            continue
        then = wl.created + STEP_SECONDS
        for lab_pod in wl.pods:
            if lab_pod.started is not None:
                lab_pod.started = then
            pod = world.backend.get_pod(wl.namespace, lab_pod.name)
            if pod is not None:
                pod.created = wl.created
                pod.started = lab_pod.started
        for event in wl.events:
            if event.reason == "Scheduled":
                event.time = then
        for kube_event in world.backend.list_events(wl.namespace):
            if any(kube_event.name == p.name for p in wl.pods):
                kube_event.first_seen = then
                if kube_event.reason == "Scheduled":
                    kube_event.last_seen = then


def _add_node(world: World, name: str, index: int, overrides: dict[str, Any]) -> None:
    state, backend = world.state, world.backend
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "dgx-h100",
        "nvidia.com/gpu.deploy.device-plugin": "true",
        "nvidia.com/gpu.deploy.dcgm-exporter": "true",
        "nvidia.com/gpu.deploy.gpu-feature-discovery": "true",
        "nvidia.com/gpu.deploy.driver": "true",
        "nvidia.com/gpu.deploy.mig-manager": "true",
        "nvidia.com/gpu.deploy.container-toolkit": "true",
        "nvidia.com/gpu.deploy.operator-validands": "true",
        "nvidia.com/gpu.machine": "DGXH100",
        "nvidia.com/gpu.family": "hopper",
        "run.ai/node-pool": "default",
        mig.CONFIG_LABEL: "all-disabled",
        mig.STATE_LABEL: "success",
    }
    for key, value in (overrides.get("labels") or {}).items():
        labels[str(key)] = str(value)
    applied = str(overrides.get("applied_layout", "all-disabled"))
    node = Node(
        name=name,
        labels=labels,
        annotations={
            "node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        },
        unschedulable=bool(overrides.get("unschedulable", False)),
        capacity={
            "cpu": "224",
            "ephemeral-storage": "1699505060Ki",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
            "memory": "2113302Mi",
            "pods": "110",
        },
        allocatable={
            "cpu": "224",
            "ephemeral-storage": "1699505060Ki",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
            "memory": "2113302Mi",
            "pods": "110",
        },
        created=CLUSTER_BIRTH,
        internal_ip=f"10.10.0.{10 + index}",
    )
    backend.state.nodes.append(node)
    gpus = [Gpu(index=i, uuid=f"GPU-{fake_uuid(state.seed, name, i)}") for i in range(8)]
    layouts = mig.available_layouts(backend) or dict(NAMED_LAYOUTS)
    if applied not in layouts:
        raise LabError(f"world: unknown applied_layout {applied!r} for {name}")
    mig.apply_layout(state.seed, name, layouts[applied], gpus)
    backend.state.gpus[name] = gpus
    # MIG Manager already acted on the starting label, unless the ticket says it has not.
    observed = str(overrides.get("mig_manager_observed", labels[mig.CONFIG_LABEL]))
    state.mig_managers.append(MigManagerState(node=name, observed=observed))
    for comp in gpu_operator.COMPONENTS:
        gpu_operator.create_ds_pod(state, backend, name, comp.name)


def _add_job(world: World, spec: dict[str, Any]) -> None:
    job = KubeJob(
        name=str(spec["name"]),
        namespace=str(spec.get("namespace", "default")),
        image=str(spec.get("image", "nvcr.io/nvidia/pytorch:24.05-py3")),
        gpus=int(spec.get("gpus", 4)),
        created=-int(spec.get("age_minutes", 42)) * 60,
        initial_node=spec.get("node"),
    )
    world.state.jobs.append(job)
    world.backend.ensure_namespace(job.namespace)
    pod = world.job_pod(job)
    pod.created = job.created
    world.backend.create_pod(pod)
    if job.initial_node:
        world.start_pod(pod, job.initial_node)
        pod.started = job.created


def _apply_file(world: World, filename: str) -> None:
    """Objects from one of the home folder's manifests, as if applied a while ago."""
    text = world.state.files.get(filename)
    if text is None:
        raise LabError(f"world: apply_files names {filename!r}, which is not in files")
    created = world.now - 25 * 60
    for doc in manifests.load_documents(text, filename):
        if doc.get("kind") == "Pod":
            world.backend.create_pod(manifests.pod_from_manifest(doc, "default", created, filename))
        elif doc.get("kind") == "ConfigMap":
            world.backend.put_configmap(
                manifests.configmap_from_manifest(doc, "default", created, filename)
            )
        else:
            raise LabError(f"world: cannot pre-apply kind {doc.get('kind')!r}")


def _add_runai(world: World, spec: dict[str, Any]) -> None:
    backend = world.backend
    runai = RunaiState(
        installed=bool(spec.get("installed", True)),
        logged_in=bool(spec.get("logged_in", True)),
        default_project=str(spec.get("default_project", "") or ""),
    )
    world.state.runai = runai
    backend.ensure_namespace(RUNAI_NS)
    for name, containers in RUNAI_COMPONENTS:
        backend.create_pod(
            Pod(
                name=name,
                namespace=RUNAI_NS,
                containers=[
                    Container(name=f"c{i}", image="gcr.io/run-ai-prod/runai:2.17.42")
                    for i in range(containers)
                ],
                owner_kind="StatefulSet" if name.endswith("-0") else "ReplicaSet",
                owner_name=name.rsplit("-", 2)[0],
                labels={"app": name.rsplit("-", 2)[0]},
                node_name="gpu-node1",
                phase="Running",
                created=CLUSTER_BIRTH,
                started=CLUSTER_BIRTH,
                ip=gpu_operator.pod_ip(world.state.seed, "runai", name),
            )
        )
    for project in spec.get("projects", []) or []:
        p = RunaiProject(
            name=str(project["name"]),
            department=str(project.get("department", "default")),
            quota=float(project.get("quota", 0)),
            over_quota_weight=float(project.get("over_quota_weight", 1)),
            limit=None if project.get("limit") is None else float(project["limit"]),
        )
        runai.projects.append(p)
        backend.ensure_namespace(f"runai-{p.name}")
    for wl in spec.get("workloads", []) or []:
        age = int(wl.get("age_minutes", 30)) * 60
        workload = runai_sched.new_workload(
            world.state,
            name=str(wl["name"]),
            project=str(wl["project"]),
            kind=str(wl.get("kind", "training")),
            image=str(wl.get("image", "nvcr.io/nvidia/pytorch:24.05-py3")),
            pod_count=int(wl.get("pods", 1)),
            gpus=float(wl.get("gpus", 1)),
            gpu_memory=wl.get("gpu_memory"),
            created=-age,
            user=str(wl.get("user", "admin")),
        )
        if wl.get("idle_minutes") is not None:
            workload.last_activity = -int(wl["idle_minutes"]) * 60
        else:
            workload.last_activity = 0
        runai_sched.add_workload(world.state, backend, workload)


def describe_world(world: World) -> dict[str, Any]:
    """A small summary, handy in tests and debugging."""
    return {
        "step": world.state.step,
        "nodes": {
            n.name: {
                "mig.config": n.labels.get(mig.CONFIG_LABEL),
                "state": n.labels.get(mig.STATE_LABEL),
                "unschedulable": n.unschedulable,
            }
            for n in world.backend.list_nodes()
        },
        "workloads": {w.name: w.status for w in world.state.runai.workloads},
    }


__all__ = ["RunaiWorkload", "World", "build_world", "describe_world"]
