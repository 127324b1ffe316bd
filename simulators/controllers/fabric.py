"""The fabric between the nodes: the NVIDIA Network Operator's RDMA shared device plugin, and
which transport NCCL picks in a training pod (``NET/IB`` or ``NET/Socket``) and how fast it
trains.

A pod reaches the InfiniBand HCAs only through the device plugin's resource
(``rdma/rdma_shared_device_a``: the plugin mounts ``/dev/infiniband`` into the container).
Without it NCCL finds no IB device (``NET/IB : No device found.``) and falls back to TCP
sockets over the pod's ``eth0``; a training whose pods span nodes then spends most of each step
in all-reduce. With the device but without ``IPC_LOCK`` NCCL picks IB, then cannot pin its
buffers (``ibv_reg_mr`` fails with ENOMEM under the container's memlock limit) and the
process dies. ``NCCL_IB_DISABLE=1`` forces sockets; ``NCCL_SOCKET_IFNAME`` picks the
interface for sockets and bootstrap (a name the pod doesn't have ends in ``Bootstrap : no
socket interface found``). Lines as NCCL 2.21.5 prints them (the version in
``nvcr.io/nvidia/pytorch:24.05-py3``), each under ``NCCL_DEBUG=INFO`` (or ``WARN``) only.

``transport(api, pod)`` is the one judgement; the container runtime logs it
(``training_run``) and the lab's checks read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from simulators.cluster.api import ClusterAPI, Obj
from simulators.controllers.util import items, labels_of, name_of, namespace_of, spec, stable_hash

NAMESPACE = "nvidia-network-operator"
NIC_POLICIES = "nicclusterpolicies.mellanox.com"
NIC_POLICY = "nic-cluster-policy"
RESOURCE_NAME = "rdma_shared_device_a"
RDMA_RESOURCE = f"rdma/{RESOURCE_NAME}"
RDMA_HCA_MAX = 63
PLUGIN_DS = "rdma-shared-dp-ds"
PLUGIN_IMAGE = "nvcr.io/nvidia/mellanox/k8s-rdma-shared-dev-plugin:network-operator-v24.10.0"
PLUGIN_VERSION = "v1.5.2"
# NFD's label for a Mellanox (PCI vendor 15b3) device: where the operator runs its plugin.
MELLANOX_LABEL = "feature.node.kubernetes.io/pci-15b3.present"

NCCL_VERSION = "2.21.5"
VERSION_LINE = f"NCCL version {NCCL_VERSION}+cuda12.4"
# A DGX H100's eight compute-fabric ConnectX-7 ports (names illustrative: mlx5_0..mlx5_7).
IB_DEVICES = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(8))
# Seconds a step takes: all-reduce over 8x400 Gb/s InfiniBand, over one TCP interface.
STEP_IB = 1.02
STEP_SOCKET = 4.1

IB = "IB"
SOCKET = "Socket"
NO_MEMLOCK = "ibv_reg_mr"
NO_INTERFACE = "no-interface"
NO_SOCKET = "Bootstrap : no socket interface found"


# ---------------------------------------------------------------------------- the operator


def nic_cluster_policy() -> Obj:
    """The NicClusterPolicy as the operator's example installs the shared RDMA plugin."""
    entry = {
        "resourceName": RESOURCE_NAME,
        "rdmaHcaMax": RDMA_HCA_MAX,
        "selectors": {"vendors": ["15b3"], "deviceIDs": ["1021"]},
    }
    config = json.dumps({"configList": [entry]}, indent=2)
    return {
        "apiVersion": "mellanox.com/v1alpha1",
        "kind": "NicClusterPolicy",
        "metadata": {"name": NIC_POLICY},
        "spec": {
            "rdmaSharedDevicePlugin": {
                "image": "k8s-rdma-shared-dev-plugin",
                "repository": "nvcr.io/nvidia/mellanox",
                "version": "network-operator-v24.10.0",
                "config": config,
            }
        },
    }


def operator_deployment() -> Obj:
    """The operator itself, as its Helm chart deploys it (release ``network-operator``)."""
    labels = {
        "app.kubernetes.io/name": "network-operator",
        "app.kubernetes.io/instance": "network-operator",
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "network-operator", "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": {**labels, "control-plane": "network-operator-controller"}},
                "spec": {
                    "serviceAccountName": "network-operator",
                    "containers": [
                        {
                            "name": "network-operator",
                            "image": "nvcr.io/nvidia/cloud-native/network-operator:v24.10.0",
                            "resources": {
                                "limits": {"cpu": "500m", "memory": "128Mi"},
                                "requests": {"cpu": "5m", "memory": "64Mi"},
                            },
                        }
                    ],
                },
            },
        },
    }


def plugin_daemonset() -> Obj:
    """The operator's ``rdma-shared-dp-ds`` (manifests/state-rdma-shared-device-plugin)."""
    labels = {"app": "rdma-shared-dp", "ds-owner": "nic-cluster-policy"}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": PLUGIN_DS, "namespace": NAMESPACE, "labels": {"ds-owner": NIC_POLICY}},
        "spec": {
            "selector": {"matchLabels": {"app": "rdma-shared-dp"}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "priorityClassName": "system-node-critical",
                    "hostNetwork": True,
                    "nodeSelector": {MELLANOX_LABEL: "true"},
                    "tolerations": [
                        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
                    ],
                    "containers": [
                        {
                            "name": "rdma-shared-dp",
                            "image": PLUGIN_IMAGE,
                            "command": ["/bin/k8s-rdma-shared-dp"],
                            "securityContext": {"privileged": True},
                        }
                    ],
                },
            },
        },
    }


def plugin_log(now: datetime) -> tuple[str, ...]:
    """k8s-rdma-shared-dev-plugin's start (cmd/k8s-rdma-shared-dp/main.go, pkg/resources)."""
    stamp = now.strftime("%Y/%m/%d %H:%M:%S")
    lines = (
        f"Starting K8s RDMA Shared Device Plugin version= {PLUGIN_VERSION}",
        "resource manager reading configs",
        "Reading /k8s-rdma-shared-dev-plugin/config.json",
        "Discovering host devices",
        "discovering host network devices",
        "Initializing resource servers",
        "Starting all servers...",
        f"starting {RDMA_RESOURCE} device plugin endpoint at: {RESOURCE_NAME}.sock",
        f"{RDMA_RESOURCE} device plugin endpoint started serving",
        "All servers started.",
        "Listening for term signals",
        "Starting OS watcher.",
        f"{RESOURCE_NAME}.sock gets registered successfully at Kubelet ",
        f"ListAndWatch called by kubelet for: {RDMA_RESOURCE}",
        f'Updating "{RDMA_RESOURCE}" devices',
        f'exposing "{RDMA_HCA_MAX}" devices',
    )
    return tuple(f"{stamp} {line}" for line in lines)


# ---------------------------------------------------------------------------- NCCL


def _container(pod: Obj) -> dict[str, object]:
    containers = spec(pod).get("containers") or [{}]
    first = containers[0]
    return first if isinstance(first, dict) else {}


def environment(container: dict[str, object]) -> dict[str, str]:
    out: dict[str, str] = {}
    entries = container.get("env")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("name"):
            out[str(entry["name"])] = str(entry.get("value", ""))
    return out


def has_rdma(container: dict[str, object]) -> bool:
    resources = container.get("resources")
    if not isinstance(resources, dict):
        return False
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    wanted = limits.get(RDMA_RESOURCE, requests.get(RDMA_RESOURCE, "0"))
    return str(wanted) not in ("", "0")


def has_ipc_lock(container: dict[str, object]) -> bool:
    context = container.get("securityContext")
    if not isinstance(context, dict):
        return False
    if context.get("privileged") is True:
        return True
    added = (context.get("capabilities") or {}).get("add") or []
    return any(str(cap).upper().removeprefix("CAP_") == "IPC_LOCK" for cap in added)


def _interface_found(ifname: str) -> bool:
    """NCCL_SOCKET_IFNAME against the pod's own interfaces (eth0, lo): prefixes, ``^`` to
    exclude, ``=`` for exact names, as NCCL's findInterfaces matches them."""
    if len(ifname) <= 1:
        return True  # unset (or one character): NCCL picks on its own
    exclude = ifname.startswith("^")
    body = ifname[1:] if exclude else ifname
    exact = body.startswith("=")
    names = [n for n in (body[1:] if exact else body).split(",") if n]

    def matches(iface: str) -> bool:
        return any(iface == n if exact else iface.startswith(n) for n in names)

    found = [i for i in ("eth0", "lo") if matches(i) != exclude]
    return bool(found)


def crosses_nodes(api: ClusterAPI, pod: Obj) -> bool:
    """Whether the pod's workload has pods bound to more than one node (NCCL then needs the
    network between them; within a node NVLink carries the all-reduce)."""
    workload = labels_of(pod).get("workloadName")
    if not workload:
        return False
    nodes = {
        str(spec(p).get("nodeName"))
        for p in items(api, "pods", namespace_of(pod))
        if labels_of(p).get("workloadName") == workload and spec(p).get("nodeName")
    }
    return len(nodes) > 1


def ib_disabled(env: dict[str, str]) -> bool:
    """NCCL_IB_DISABLE set to anything but 0: ncclIbInit returns before looking for HCAs."""
    return env.get("NCCL_IB_DISABLE", "0").strip() not in ("", "0")


def transport(pod: Obj) -> str:
    """What NCCL in this pod does: IB, Socket, or the failure (NO_MEMLOCK, NO_INTERFACE)."""
    container = _container(pod)
    env = environment(container)
    if not _interface_found(env.get("NCCL_SOCKET_IFNAME", "")):
        return NO_INTERFACE
    if ib_disabled(env) or not has_rdma(container):
        return SOCKET
    return IB if has_ipc_lock(container) else NO_MEMLOCK


@dataclass(frozen=True)
class Run:
    """A training container's log and fate (the runtime turns it into its Behaviour)."""

    logs: tuple[str, ...]
    crash_logs: tuple[str, ...] = ()

    @property
    def crashed(self) -> bool:
        return bool(self.crash_logs)


def _ids(pod: Obj) -> tuple[int, int, int]:
    pid = 120 + stable_hash("nccl-pid", name_of(pod)) % 300
    return pid, pid + 79, stable_hash("nccl-comm", namespace_of(pod)) % (2**63)


def _rank(api: ClusterAPI, pod: Obj, gpus: int) -> tuple[int, int]:
    """(this pod's first global rank, all ranks): Run:ai's master-0 holds ranks 0..gpus-1,
    worker-N the next ones; every pod of the workload runs `gpus` ranks."""
    name = name_of(pod)
    index = int(name.rsplit("-", 1)[-1]) + 1 if "-worker-" in name else 0
    workload = labels_of(pod).get("workloadName")
    peers = [
        p
        for p in items(api, "pods", namespace_of(pod))
        if workload and labels_of(p).get("workloadName") == workload
    ]
    return index * gpus, max(1, len(peers)) * gpus


def training_run(api: ClusterAPI, pod: Obj, gpus: int) -> Run:
    """What ``torchrun`` with NCCL logs in this pod: the transport, then steps or the error."""
    container = _container(pod)
    env = environment(container)
    level = env.get("NCCL_DEBUG", "").upper()
    info = level in ("INFO", "TRACE")
    warn = info or level == "WARN"
    pid, tid, comm = _ids(pod)
    host = name_of(pod)
    ip = str((pod.get("status") or {}).get("podIP") or "10.244.0.2")
    first_rank, ranks = _rank(api, pod, max(1, gpus))

    def nccl(message: str, thread: int = tid) -> str:
        return f"{host}:{pid}:{thread} [0] NCCL INFO {message}"

    lines: list[str] = []
    if level in ("VERSION", "WARN", "INFO", "TRACE"):
        lines.append(VERSION_LINE)
    if info:
        if env.get("NCCL_SOCKET_IFNAME"):
            lines.append(
                nccl(f"NCCL_SOCKET_IFNAME set by environment to {env['NCCL_SOCKET_IFNAME']}", pid)
            )
        if "NCCL_IB_DISABLE" in env:
            lines.append(nccl(f"NCCL_IB_DISABLE set by environment to {env['NCCL_IB_DISABLE']}."))
    how = transport(pod)
    if how == NO_INTERFACE:
        warning = f"{host}:{pid}:{pid} [0] bootstrap.cc:48 NCCL WARN {NO_SOCKET}"
        return Run(
            tuple(lines),
            crash_logs=(*(("", warning) if warn else ()), *_torch_error("internal", "")),
        )
    if info:
        lines.append(nccl(f"Bootstrap : Using eth0:{ip}<0>", pid))
        if how == SOCKET and not ib_disabled(env):
            lines.append(nccl("NET/IB : No device found."))
        if how == SOCKET:
            lines += [nccl(f"NET/Socket : Using [0]eth0:{ip}<0>"), nccl("Using network Socket")]
        else:
            lines += [
                nccl(f"NET/IB : Using {IB_DEVICES} [RO]; OOB eth0:{ip}<0>"),
                nccl("Using network IB"),
            ]
    if how == NO_MEMLOCK:
        last = "Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory"
        warning = f"{host}:{pid}:{tid} [0] misc/ibvwrap.cc:169 NCCL WARN {last}"
        noise = ("", warning, nccl("transport/net_ib.cc:1419 -> 2")) if warn else ()
        return Run(tuple(lines), crash_logs=(*noise, *_torch_error("system", last)))
    if info:
        lines.append(
            nccl(
                f"ncclCommInitRank comm 0x55d0c3a0e2f0 rank {first_rank} nranks {ranks} cudaDev 0 "
                f"nvmlDev 0 busId 18000 commId 0x{comm:016x} - Init COMPLETE"
            )
        )
    slow = how == SOCKET and crosses_nodes(api, pod)
    seconds = STEP_SOCKET if slow else STEP_IB
    loss = (2.913, 2.871, 2.842)
    for n, value in enumerate(loss, start=1):
        jitter = (stable_hash("step", host, n) % 7 - 3) / 100
        lines.append(f"step {n * 100} | loss {value:.3f} | {seconds + jitter:.2f} s/step")
    return Run(tuple(lines))


def _torch_error(kind: str, last: str) -> tuple[str, ...]:
    """PyTorch's DistBackendError from C10D_NCCL_CHECK, as torchrun prefixes rank 0's lines."""
    if kind == "system":
        what = "unhandled system error (run with NCCL_DEBUG=INFO for details)"
        detail = (
            "ncclSystemError: System call (e.g. socket, malloc) or external library call "
            "failed or device error. "
        )
    else:
        what = "internal error - please report this issue to the NCCL developers"
        detail = "ncclInternalError: Internal check failed."
    lines = (
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 41, in <module>',
        "    dist.barrier()",
        "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/"
        f"distributed/c10d/ProcessGroupNCCL.cpp:1970, {what}, NCCL version {NCCL_VERSION}",
        detail,
        "Last error:",
        last or NO_SOCKET,
    )
    return tuple(f"[rank0]: {line}" for line in lines)
