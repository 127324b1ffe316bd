"""The container runtime's side of the mock: what a container does when the kubelet starts it.

A real container runs its image's program; here each image family has a behaviour: keep
running, exit after some steps, or crash at start. What a container logs when it starts comes
from the same place, in the program's own format (klog, logrus, plain echo), with the cluster
clock's times.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.versions import GIT_VERSION
from simulators.controllers import containerd, fabric, gpu_state
from simulators.controllers.util import name_of, spec

# Run:ai's quickstart images train for about a minute, then exit 0.
QUICKSTART_STEPS = 4


@dataclass(frozen=True)
class Behaviour:
    """What a started container does. ``exit_after`` counts steps (None: runs until stopped)."""

    logs: tuple[str, ...] = ()
    exit_after: int | None = None
    exit_code: int = 0
    crash: bool = False
    crash_logs: tuple[str, ...] = field(default=())
    # A running container that is not (yet) ready: see readiness().
    ready: bool = True
    # The runtime could not start the container's process (the kubelet's StartError).
    start_error: str = ""


Rule = Callable[[ClusterAPI, Obj, dict[str, object], Obj | None], Behaviour]


def klog(
    now: datetime, level: str, where: str, message: str, offset_ms: int = 0, pid: int = 1
) -> str:
    """A klog line: ``I1110 09:40:02.181735       1 main.go:317] message`` (the process id
    right-aligned in seven places; 1 in a container)."""
    moment = now + timedelta(milliseconds=offset_ms)
    stamp = moment.strftime("%m%d %H:%M:%S.") + f"{moment.microsecond:06d}"
    return f"{level}{stamp} {pid:>7} {where}] {message}"


def logrus(now: datetime, level: str, message: str, offset_s: int = 0) -> str:
    moment = now + timedelta(seconds=offset_s)
    return f'time="{moment.strftime("%Y-%m-%dT%H:%M:%SZ")}" level={level} msg="{message}"'


# ---------------------------------------------------------------------------- images


def _device_plugin(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    now = api.now()
    start = [
        klog(now, "I", "main.go:235", '"Starting NVIDIA Device Plugin" version="v0.17.1"'),
        klog(now, "I", "main.go:238", "Starting FS watcher for /var/lib/kubelet/device-plugins", 1),
        klog(now, "I", "main.go:245", "Starting OS watcher.", 1),
        klog(now, "I", "main.go:260", "Starting Plugins.", 1),
        klog(now, "I", "main.go:317", "Loading configuration.", 2),
        klog(
            now, "I", "main.go:342", "Updating config with default resource matching patterns.", 40
        ),
        klog(now, "I", "main.go:356", "Retrieving plugins.", 45),
    ]
    if node is None:
        return Behaviour(tuple(start))
    strategy = gpu_state.mig_strategy(api)
    problem = gpu_state.device_plugin_error(node, strategy)
    if problem:
        # The whole chain as main.go's klog.Error(err) prints it (k8s-device-plugin v0.17.1).
        error = klog(
            now,
            "E",
            "main.go:173",
            "error starting plugins: error getting plugins: unable to create plugins: failed to "
            "construct resource managers: error building device map: error building device map "
            f"from config.resources: {problem}",
            60,
        )
        return Behaviour(tuple(start), crash=True, exit_code=1, crash_logs=(error,))
    lines = list(start)
    resources = gpu_state.advertised(api, node, strategy, plugin_running=True)
    for resource in sorted(resources):
        short = resource.removeprefix("nvidia.com/")
        lines += [
            klog(now, "I", "server.go:195", f"Starting GRPC server for '{resource}'", 60),
            klog(
                now,
                "I",
                "server.go:139",
                f"Starting to serve '{resource}' on /var/lib/kubelet/device-plugins/"
                f"nvidia-{short}.sock",
                61,
            ),
            klog(
                now,
                "I",
                "server.go:146",
                f"Registered device plugin for '{resource}' with Kubelet",
                63,
            ),
        ]
    if not resources:
        lines.append(klog(now, "I", "main.go:380", "No devices found. Waiting indefinitely.", 60))
    return Behaviour(tuple(lines))


def device_plugin_xid(api: ClusterAPI, xid: int, uuid: str) -> list[str]:
    """The device plugin's health check on a critical Xid (k8s-device-plugin v0.17.1:
    ``internal/rm/health.go`` checkHealth, then ``internal/plugin/server.go`` ListAndWatch)."""
    now = api.now()
    # %+v of go-nvml's EventData: EventTypeXidCriticalError is 0x8; no MIG instance (0xFFFFFFFF).
    event = (
        "{Device:{Handle:0x7f1c5c0d2b48} EventType:8 "
        f"EventData:{xid} GpuInstanceId:4294967295 ComputeInstanceId:4294967295}}"
    )
    return [
        klog(now, "I", "health.go:153", f"Processing event {event}"),
        klog(
            now,
            "I",
            "health.go:159",
            f"XidCriticalError: Xid={xid} on Device={uuid}; marking device as unhealthy.",
        ),
        klog(now, "I", "server.go:276", f"'nvidia.com/gpu' device marked unhealthy: {uuid}", 1),
    ]


def _gfd(api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None) -> Behaviour:
    now = api.now()
    lines = [
        klog(now, "I", "main.go:163", "Starting OS watcher."),
        klog(now, "I", "main.go:168", "Loading configuration.", 1),
        klog(now, "I", "main.go:214", "Start running", 40),
    ]
    if node is not None:
        strategy = gpu_state.mig_strategy(api)
        reason = gpu_state.gfd_single_problem(node) if strategy == "single" else ""
        if reason:
            lines.append(
                klog(
                    now,
                    "W",
                    "mig-strategy.go:245",
                    f"Invalid configuration detected for mig-strategy=single: {reason}",
                    41,
                )
            )
    lines += [
        klog(now, "I", "main.go:278", "Creating Labels", 42),
        klog(now, "I", "main.go:287", "Sleeping for 60000000000", 43),
    ]
    return Behaviour(tuple(lines))


DRIVER_START = ("DRIVER_ARCH is x86_64", "Creating directory NVIDIA-Linux-x86_64-550.127.08")

# `lsmod | grep nvidia` on a host whose own 550 driver is loaded, persistenced holding it.
HOST_LSMOD = (
    "nvidia_uvm           4956160  0",
    "nvidia_drm             122880  0",
    "nvidia_modeset        1355776  1 nvidia_drm",
    "nvidia               54386688  10 nvidia_uvm,nvidia_modeset",
    "drm_kms_helper         274432  1 nvidia_drm",
    "drm                    708608  4 drm_kms_helper,nvidia,nvidia_drm",
)


def _driver(api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None) -> Behaviour:
    """The driver container's ``nvidia-driver init`` (NVIDIA/gpu-driver-container, ubuntu22.04).

    Where the host already loaded its own driver, ``_unload_driver`` finds the modules in use,
    prints ``lsmod | grep nvidia`` and gives up; the EXIT trap's ``_shutdown`` tries once more.
    """
    if node is not None and gpu_state.driver_blocked(api, node):
        kernel = str((node.get("status") or {}).get("nodeInfo", {}).get("kernelVersion", ""))
        unload = (
            "Stopping NVIDIA persistence daemon...",
            "Unloading NVIDIA driver kernel modules...",
            *HOST_LSMOD,
            "Could not unload NVIDIA driver kernel modules, driver is in use",
        )
        return Behaviour(
            DRIVER_START,
            crash=True,
            exit_code=1,
            crash_logs=(
                "",
                "========== NVIDIA Software Installer ==========",
                "",
                "Starting installation of NVIDIA driver version 550.127.08 for Linux kernel "
                f"version {kernel}",
                "",
                *unload,
                *unload,
            ),
        )
    return Behaviour(
        (
            *DRIVER_START,
            "Loading NVIDIA driver kernel modules...",
            "+ modprobe nvidia",
            "+ modprobe nvidia-uvm",
            "+ modprobe nvidia-modeset",
            "+ set +o xtrace -o nounset",
            "Starting NVIDIA persistence daemon...",
            "Mounting NVIDIA driver rootfs...",
            "Done, now waiting for signal",
        )
    )


def _toolkit(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    now = api.now()
    return Behaviour(
        (
            logrus(now, "info", "Parsing arguments"),
            logrus(now, "info", "Starting nvidia-toolkit"),
            logrus(now, "info", "Verifying Flags"),
            logrus(now, "info", "Initializing"),
            logrus(
                now, "info", "Installing NVIDIA container toolkit to '/usr/local/nvidia/toolkit'"
            ),
            logrus(now, "info", "Starting 'setup' for containerd"),
            logrus(now, "info", "Sending SIGHUP signal to containerd", 1),
            logrus(now, "info", "Successfully signaled containerd", 1),
            logrus(now, "info", "Completed 'setup' for containerd", 1),
            logrus(now, "info", "Waiting for signal", 1),
        )
    )


def _dcgm_exporter(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    now = api.now()
    return Behaviour(
        (
            logrus(now, "info", "Starting dcgm-exporter"),
            logrus(now, "info", "DCGM successfully initialized!"),
            logrus(now, "info", "Collecting DCP Metrics"),
            logrus(
                now,
                "info",
                "Falling back to metric file '/etc/dcgm-exporter/dcp-metrics-included.csv'",
            ),
            logrus(now, "info", "Initializing system entities of type: GPU", 1),
            logrus(now, "info", "Pipeline starting", 2),
            logrus(now, "info", "Starting webserver", 2),
            logrus(now, "info", "Listening on", 2).replace(
                '"Listening on"', '"Listening on" address="[::]:9400"'
            ),
        )
    )


VALIDATED = "all validations are successful"


def _validator_waiting(now: datetime) -> tuple[str, ...]:
    """gpu-operator-validator's runCommandWithWait on the driver container's ready file."""
    ready = "/run/nvidia/validations/.driver-ctr-ready"
    return (
        f"running command /bin/sh with args [-c stat {ready}]",
        f"stat: cannot stat '{ready}': No such file or directory",
        logrus(now, "warning", "error running command: exit status 1"),
        "command failed, retrying after 5 seconds",
    )


def _validator(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    if node is not None and gpu_state.driver_blocked(api, node):
        return Behaviour(_validator_waiting(api.now()), ready=False)
    return Behaviour(_validated(api.now(), node))


def _validated(now: datetime, node: Obj | None) -> tuple[str, ...]:
    """The validator's lines once its checks pass; a host's own driver is detected first."""
    if node is None or not gpu_state.host_driver(node):
        return (VALIDATED,)
    return (
        logrus(now, "info", "Attempting to validate a pre-installed driver on the host"),
        logrus(now, "info", "Detected a pre-installed driver on the host"),
        VALIDATED,
    )


def probed(container: dict[str, object]) -> bool:
    """Whether the kubelet asks readiness() about this container while it runs."""
    return "gpu-operator-validator" in str(container.get("image", ""))


def readiness(api: ClusterAPI, container: dict[str, object], node: Obj) -> bool | None:
    """A running container whose readiness follows the cluster (None: it has no such probe).

    Only the operator validator has one: it waits, unready, while the node's driver container
    can't come up, and passes once the node has a driver. Reads no clock, so a kubelet pass
    that finds nothing changed stays quiet.
    """
    if not probed(container):
        return None
    return not gpu_state.driver_blocked(api, node)


def readiness_log(api: ClusterAPI, ready: bool, node: Obj) -> tuple[str, ...]:
    """What a probed container logs when its readiness turns."""
    return _validated(api.now(), node) if ready else _validator_waiting(api.now())


def _mig_manager(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    # MIG Manager's own lines are written by its controller as it moves through its states.
    return Behaviour(())


def _operator(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    now = api.now()
    ts = f"{now.timestamp():.3f}"
    return Behaviour(
        (
            f'{{"level":"info","ts":{ts},"logger":"setup","msg":"version: v24.9.2"}}',
            f'{{"level":"info","ts":{ts},"logger":"setup","msg":"starting manager"}}',
            f'{{"level":"info","ts":{now.timestamp() + 1:.3f},"logger":"controllers.ClusterPolicy",'
            '"msg":"ClusterPolicy is ready as all resources have been successfully reconciled"}',
        )
    )


def _coredns(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    return Behaviour(
        (
            ".:53",
            "[INFO] plugin/reload: Running configuration SHA512 = 591cf328cccc12bc490481273e738df5"
            "9329c62c0b729d94e8b61db9961c2fa5f046dd37f1cf888b953814040d180f52594972691cd6ff41be96"
            "639138a43908",
            "CoreDNS-1.11.3",
            "linux/amd64, go1.21.11, a6338e9",
        )
    )


def _kube_proxy(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    now = api.now()
    host = _internal_ip(node) or node_name(pod)
    return Behaviour(
        (
            klog(now, "I", "server_linux.go:66", '"Using iptables proxy"'),
            klog(
                now, "I", "server.go:677", f'"Successfully retrieved node IP(s)" IPs=["{host}"]', 12
            ),
            klog(now, "I", "server.go:489", '"Version info" version="' + GIT_VERSION + '"', 20),
            klog(now, "I", "config.go:199", '"Starting service config controller"', 30),
            klog(
                now,
                "I",
                "shared_informer.go:320",
                '"Caches are synced" controller="service config"',
                131,
            ),
        )
    )


def _quickstart(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    return Behaviour(
        (
            "Epoch 1/2",
            "1875/1875 [==============================] - 9s 4ms/step - loss: 0.2150 - acc: 0.9364",
            "Epoch 2/2",
            "1875/1875 [==============================] - 8s 4ms/step - loss: 0.0885 - acc: 0.9731",
            "Training complete.",
        ),
        exit_after=QUICKSTART_STEPS,
    )


def _triton(api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None) -> Behaviour:
    now = api.now()
    stamp = now.strftime("%m%d %H:%M:%S.") + "114305"
    return Behaviour(
        (
            f"I{stamp} 1 server.cc:677] ",
            "+----------+---------+--------+",
            "| Model    | Version | Status |",
            "+----------+---------+--------+",
            "| resnet50 | 1       | READY  |",
            "+----------+---------+--------+",
            f'I{stamp} 1 grpc_server.cc:2463] "Started GRPCInferenceService at 0.0.0.0:8001"',
            f'I{stamp} 1 http_server.cc:4692] "Started HTTPService at 0.0.0.0:8000"',
        )
    )


def _jupyter(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    now = api.now()
    clock = now.strftime("%H:%M:%S.") + "441"
    host = name_of(pod)
    return Behaviour(
        (
            f"[I {clock} ServerApp] Jupyter Server 2.14.2 is running at:",
            f"[I {clock} ServerApp] http://{host}:8888/lab",
        )
    )


def _pytorch(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    """torchrun with NCCL: its transport and step times, or NCCL's error (``fabric``)."""
    run = fabric.training_run(api, pod, int(_gpu_limit(container)))
    if run.crashed:
        return Behaviour(run.logs, crash=True, exit_code=1, crash_logs=run.crash_logs)
    return Behaviour(run.logs)


def _gpu_limit(container: dict[str, object]) -> str:
    resources = container.get("resources")
    if not isinstance(resources, dict):
        return "0"
    limits = resources.get("limits") or {}
    if not isinstance(limits, dict):
        return "0"
    value = limits.get("nvidia.com/gpu", 0)
    try:
        return str(int(str(value)))
    except ValueError:
        return "0"


def _rdma_plugin(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    return Behaviour(fabric.plugin_log(api.now()))


def _runai_component(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    now = api.now()
    return Behaviour((logrus(now, "info", f"{container.get('name', 'runai')} started"),))


def _default(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    return Behaviour(())


# Checked in order: the first image fragment found in the image name wins.
RULES: tuple[tuple[str, Rule], ...] = (
    ("k8s-device-plugin", _device_plugin),
    ("gpu-feature-discovery", _gfd),
    ("nvidia/driver", _driver),
    ("container-toolkit", _toolkit),
    ("dcgm-exporter", _dcgm_exporter),
    ("gpu-operator-validator", _validator),
    ("k8s-mig-manager", _mig_manager),
    ("nvidia/gpu-operator", _operator),
    ("coredns", _coredns),
    ("kube-proxy", _kube_proxy),
    ("quickstart", _quickstart),
    ("tritonserver", _triton),
    ("notebook", _jupyter),
    ("jupyter", _jupyter),
    ("pytorch", _pytorch),
    ("k8s-rdma-shared-dev-plugin", _rdma_plugin),
    ("run-ai-prod", _runai_component),
)


# Images whose containers finish on their own (the kubelet checks only these for an exit).
EXITING_IMAGES = ("quickstart",)


def may_exit(container: dict[str, object]) -> bool:
    image = str(container.get("image", ""))
    return any(fragment in image for fragment in EXITING_IMAGES) or _runs_nvidia_smi(container)


def exec_not_found(program_name: str) -> str:
    """containerd 1.7 and runc when a container's program is not in the image."""
    return (
        "failed to create containerd task: failed to create shim task: OCI runtime create "
        "failed: runc create failed: unable to start container process: exec: "
        f'"{program_name}": executable file not found in $PATH: unknown'
    )


def start_error_state(behaviour: Behaviour, container_id: str, now: str) -> dict[str, object]:
    """A container whose process never started, as the kubelet records it."""
    return {
        "terminated": {
            "exitCode": behaviour.exit_code or 128,
            "reason": "StartError",
            "message": behaviour.start_error,
            "startedAt": "1970-01-01T00:00:00Z",
            "finishedAt": now,
            "containerID": container_id,
        }
    }


def program(container: dict[str, object]) -> list[str]:
    """The command line a container runs, when its spec gives one (command, then args)."""
    words = [*(container.get("command") or ()), *(container.get("args") or ())]  # type: ignore[misc]
    return [str(w) for w in words]


def _runs_nvidia_smi(container: dict[str, object]) -> bool:
    words = program(container)
    return bool(words) and words[0].rsplit("/", 1)[-1] == "nvidia-smi"


def _nvidia_smi(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    """A container whose command is ``nvidia-smi ...``: it prints what nvidia-smi prints in the
    pod (the cluster's exec handlers answer it) and exits. Under runc, without the NVIDIA
    runtime's hook, the image has no nvidia-smi: the container can't start (StartError, 128)."""
    if node is None:
        try:  # the kubelet asks again at exit time, without the node
            node = api.get("nodes", node_name(pod))
        except ApiError:
            return Behaviour(exit_after=1)
    if not containerd.runs_nvidia(api, pod, node):
        return Behaviour(exit_code=128, start_error=exec_not_found(program(container)[0]))
    run = getattr(api, "run_program", None)
    answer = run(pod, str(container.get("name")), program(container)) if callable(run) else None
    text = str(answer or "")
    code = 0
    lines = text.rstrip("\n").split("\n") if text else []
    if lines and lines[-1].startswith("command terminated with exit code "):
        code = int(lines.pop().rsplit(" ", 1)[-1])
    return Behaviour(tuple(lines), exit_after=1, exit_code=code)


def behaviour(
    api: ClusterAPI, pod: Obj, container: dict[str, object], node: Obj | None
) -> Behaviour:
    image = str(container.get("image", ""))
    # GFD ships in the device plugin's image; the container's name tells them apart.
    if container.get("name") == "gpu-feature-discovery":
        return _gfd(api, pod, container, node)
    if _runs_nvidia_smi(container):
        return _nvidia_smi(api, pod, container, node)
    for fragment, rule in RULES:
        if fragment in image:
            return rule(api, pod, container, node)
    return _default(api, pod, container, node)


def _internal_ip(node: Obj | None) -> str:
    for address in (node or {}).get("status", {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return str(address.get("address", ""))
    return ""


def node_name(pod: Obj) -> str:
    return str(spec(pod).get("nodeName") or "")
