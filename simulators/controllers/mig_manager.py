"""NVIDIA MIG Manager (k8s-mig-manager v0.10.0) on each node, as a state machine over steps.

Its pod watches the node's ``nvidia.com/mig.config`` label. When the value changes (or when the
pod starts) it runs ``reconfigure-mig.sh``: one step after the change it validates the layout
against its ConfigMap (mounted at ``/mig-parted-config``, so the data key must be
``config.yaml``), marks ``nvidia.com/mig.config.state=pending`` and pauses the GPU clients by
setting their ``nvidia.com/gpu.deploy.*`` labels to ``paused-for-mig-change``; two steps later the
layout is on the GPUs (``success``) or the apply failed because a pod still holds a GPU
(``failed``, "In use by another client"). The same value again is no change, so nothing
happens. Its memory lives on its own pod, so a new pod starts afresh and re-applies the label.

Every line it logs is one the real program prints: the Go binary's logrus lines, the script's
``echo`` lines, ``kubectl``'s replies and ``nvidia-mig-parted -d``'s debug lines.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Protocol

import yaml

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.controllers import gpu_state, hardware
from simulators.controllers.gpu_operator import MIG_MANAGER, NAMESPACE, PAUSED, VALIDATOR
from simulators.controllers.runtime import logrus
from simulators.controllers.util import (
    annotations_of,
    get_or_none,
    gpu_requests,
    holds_resources,
    is_deleting,
    items,
    labels_of,
    name_of,
    namespace_of,
    spec,
    status,
)
from simulators.engine.errors import EngineError
from simulators.engine.mig import NAMED_LAYOUTS, MigDeviceConfig, MigLayout

CONFIG_LABEL = "nvidia.com/mig.config"
STATE_LABEL = "nvidia.com/mig.config.state"
CONFIG_KEY = "config.yaml"
CONFIG_PATH = "/mig-parted-config/config.yaml"
STATE_ANNOTATION = "lab.kadmin/mig-manager"
APPLY_STEPS = 2
HOST_STATE_FILE = "/etc/systemd/system/nvidia-mig-manager.service.d/override.conf"
# (label, what the script calls it while waiting) in reconfigure-mig.sh's order.
CLIENTS: tuple[tuple[str, str, str], ...] = (
    ("nvidia.com/gpu.deploy.device-plugin", "device-plugin", "nvidia-device-plugin-daemonset"),
    (
        "nvidia.com/gpu.deploy.gpu-feature-discovery",
        "gpu-feature-discovery",
        "gpu-feature-discovery",
    ),
    ("nvidia.com/gpu.deploy.dcgm-exporter", "dcgm-exporter", "nvidia-dcgm-exporter"),
    ("nvidia.com/gpu.deploy.dcgm", "dcgm", "nvidia-dcgm"),
    ("nvidia.com/gpu.deploy.nvsm", "nvsm", ""),
)
GPU_CLIENT_LABELS = tuple(c[0] for c in CLIENTS)
SHUTDOWN = (
    "Shutting down all GPU clients in Kubernetes by disabling their component-specific "
    "nodeSelector labels"
)
RESTART = (
    "Restarting all GPU clients previously shutdown in Kubernetes by reenabling their "
    "component-specific nodeSelector labels"
)
APPLY_MODE = (
    "Applying the MIG mode change from the selected config to the node (and double checking it "
    "took effect)"
)
REBOOT_NOTE = (
    "If the -r option was passed, the node will be automatically rebooted if this is not successful"
)


class LogAPI(ClusterAPI, Protocol):
    def append_log(self, namespace: str, pod: str, container: str, lines: list[str]) -> None: ...


class ConfigError(Exception):
    """The requested layout cannot be read from MIG Manager's configuration."""


@dataclass
class Memory:
    """What the MIG Manager process remembers (it forgets everything when its pod goes)."""

    seen: str | None = None
    phase: str = "idle"  # idle | applying
    target: str = ""
    countdown: int = 0
    started: bool = False


# ---------------------------------------------------------------------------- config files


def render_config(layouts: dict[str, MigLayout]) -> str:
    """A mig-parted config.yaml for the given layouts (the ConfigMap's text)."""
    configs: dict[str, Any] = {}
    for name, layout in layouts.items():
        entries = []
        for device in layout.devices:
            entry: dict[str, Any] = {
                "devices": "all" if device.gpus is None else list(device.gpus),
                "mig-enabled": device.mig_enabled,
            }
            if device.mig_enabled:
                entry["mig-devices"] = dict(device.profiles)
            entries.append(entry)
        configs[name] = entries
    return str(yaml.safe_dump({"version": "v1", "mig-configs": configs}, sort_keys=False))


DEFAULT_CONFIG_TEXT = render_config(dict(NAMED_LAYOUTS))


_PARSED: dict[str, dict[str, MigLayout] | ConfigError] = {}


def parse_config(text: str) -> dict[str, MigLayout]:
    """Parse a mig-parted config.yaml; raise ConfigError with mig-parted's words.

    Remembered per text: the ConfigMap is read every step and rarely changes.
    """
    known = _PARSED.get(text)
    if known is None:
        try:
            known = _parse_config(text)
        except ConfigError as exc:
            known = exc
        if len(_PARSED) > 64:
            _PARSED.clear()
        _PARSED[text] = known
    if isinstance(known, ConfigError):
        raise ConfigError(str(known))
    return dict(known)


def _parse_config(text: str) -> dict[str, MigLayout]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(f"Error parsing config file: unmarshal error: {first}") from None
    if not isinstance(data, dict) or not isinstance(data.get("mig-configs"), dict):
        raise ConfigError("Error parsing config file: unmarshal error: no mig-configs")
    layouts: dict[str, MigLayout] = {}
    for name, entries in data["mig-configs"].items():
        if not isinstance(entries, list):
            raise ConfigError(f"Error parsing config file: unmarshal error: mig-config {name}")
        devices: list[MigDeviceConfig] = []
        for entry in entries:
            if not isinstance(entry, dict):
                raise ConfigError(f"Error parsing config file: unmarshal error: mig-config {name}")
            raw = entry.get("devices", "all")
            gpus: tuple[int, ...] | None
            if raw == "all":
                gpus = None
            elif isinstance(raw, list) and all(isinstance(i, int) for i in raw):
                gpus = tuple(raw)
            else:
                raise ConfigError(f"Error parsing config file: unmarshal error: devices in {name}")
            profiles_raw = entry.get("mig-devices") or {}
            if not isinstance(profiles_raw, dict):
                raise ConfigError(
                    f"Error parsing config file: unmarshal error: mig-devices in {name}"
                )
            try:
                profiles = {str(k): int(v) for k, v in profiles_raw.items()}
                devices.append(
                    MigDeviceConfig(
                        mig_enabled=bool(entry.get("mig-enabled", False)),
                        profiles=profiles,
                        gpus=gpus,
                    )
                )
            except (EngineError, ValueError, TypeError) as exc:
                raise ConfigError(f"Error parsing config file: unmarshal error: {exc}") from None
        layouts[str(name)] = MigLayout(str(name), tuple(devices))
    return layouts


def load_layouts(api: ClusterAPI) -> dict[str, MigLayout]:
    """The layouts in the ConfigMap MIG Manager reads; ConfigError as mig-parted reports it."""
    name = gpu_state.mig_config_name(api)
    configmap = get_or_none(api, "configmaps", name, NAMESPACE)
    data = (configmap or {}).get("data") or {}
    if CONFIG_KEY not in data:
        # The ConfigMap is mounted as a directory: a missing key is a missing file.
        raise ConfigError(
            f"Error parsing config file: read error: open {CONFIG_PATH}: no such file or directory"
        )
    return parse_config(str(data[CONFIG_KEY]))


def available_layouts(api: ClusterAPI) -> dict[str, MigLayout]:
    try:
        return load_layouts(api)
    except ConfigError:
        return {}


# ---------------------------------------------------------------------------- the loop


def _memory(pod: Obj) -> Memory | None:
    raw = annotations_of(pod).get(STATE_ANNOTATION)
    if not raw:
        return None
    try:
        data = json.loads(raw)
        return Memory(**data)
    except (ValueError, TypeError):
        return None


def _remember(api: ClusterAPI, pod: Obj, memory: Memory) -> None:
    text = json.dumps(asdict(memory), sort_keys=True)
    if annotations_of(pod).get(STATE_ANNOTATION) == text:
        return
    api.patch(
        "pods",
        name_of(pod),
        {"metadata": {"annotations": {STATE_ANNOTATION: text}}},
        namespace_of(pod),
    )


def _running(pod: Obj) -> bool:
    if is_deleting(pod):
        return False
    return any(
        "running" in (c.get("state") or {}) for c in status(pod).get("containerStatuses") or []
    )


def run(api: LogAPI) -> None:
    pods = [p for p in items(api, "pods", NAMESPACE) if labels_of(p).get("app") == MIG_MANAGER]
    for pod in pods:
        if not _running(pod):
            continue
        node = get_or_none(api, "nodes", str(spec(pod).get("nodeName") or ""))
        if node is None:
            continue
        _step(api, pod, node)


class _Log:
    def __init__(self, api: LogAPI, pod: Obj) -> None:
        self.api = api
        self.pod = pod
        self.lines: list[str] = []

    @functools.cached_property
    def now(self) -> datetime:
        # Read only when a line is written: an idle pass must not depend on the time.
        return self.api.now()

    def echo(self, *lines: str) -> None:
        self.lines.extend(lines)

    def info(self, message: str, offset: int = 0) -> None:
        self.lines.append(logrus(self.now, "info", message, offset))

    def debug(self, message: str, offset: int = 0) -> None:
        self.lines.append(logrus(self.now, "debug", message, offset))

    def fatal(self, message: str, offset: int = 0) -> None:
        self.lines.append(logrus(self.now, "fatal", message, offset))

    def error(self, message: str, offset: int = 0) -> None:
        self.lines.append(logrus(self.now, "error", message, offset))

    def flush(self) -> None:
        if self.lines:
            container = str((spec(self.pod).get("containers") or [{}])[0].get("name", MIG_MANAGER))
            self.api.append_log(namespace_of(self.pod), name_of(self.pod), container, self.lines)
            self.lines = []


def _label(api: ClusterAPI, node: Obj, changes: dict[str, str], log: _Log) -> Obj:
    """`kubectl label --overwrite node ...` as the script runs it, with kubectl's reply."""
    labels = labels_of(node)
    diff = {k: v for k, v in changes.items() if labels.get(k) != v}
    if diff:
        node = api.patch("nodes", name_of(node), {"metadata": {"labels": diff}})
        log.echo(f"node/{name_of(node)} labeled")
    else:
        log.echo(f"node/{name_of(node)} not labeled")
    return node


def _paused(value: str | None) -> str:
    return "false" if value == "false" else PAUSED


def _true(value: str | None) -> str:
    return "false" if value == "false" else "true"


def _step(api: LogAPI, pod: Obj, node: Obj) -> None:
    memory = _memory(pod)
    log = _Log(api, pod)
    if memory is None:
        memory = Memory(started=True)
        log.info(f"Waiting for change to '{CONFIG_LABEL}' label")
    if memory.phase == "idle":
        wanted = labels_of(node).get(CONFIG_LABEL)
        if wanted is not None and wanted != memory.seen:
            memory.seen = wanted
            _begin(api, node, memory, wanted, log)
    else:
        # The GPUs are being reset and reconfigured: nothing to say until it is done.
        memory.countdown -= 1
        if memory.countdown <= 0:
            _finish(api, pod, node, memory, log)
    log.flush()
    _remember(api, pod, memory)


def _begin(api: LogAPI, node: Obj, memory: Memory, wanted: str, log: _Log) -> None:
    log.info(f"Updating to MIG config: {wanted}")
    labels = labels_of(node)
    for label, _short, _app in CLIENTS:
        log.echo(
            f"Getting current value of the '{label}' node label",
            f"Current value of '{label}={labels.get(label, '')}'",
        )
    log.echo("Asserting that the requested configuration is present in the configuration file")
    try:
        layouts = load_layouts(api)
        if wanted not in layouts:
            raise ConfigError(
                f"Error selecting MIG config: selected mig-config not present: {wanted}"
            )
        layout = layouts[wanted]
        layout.profiles_per_gpu(len(hardware.read_layout(node)))
    except (ConfigError, EngineError) as exc:
        log.fatal(str(exc))
        log.echo("Unable to validate the selected MIG configuration")
        _exit(api, node, "failed", log, restore_clients=True)
        log.error("Error: exit status 1")
        log.info(f"Waiting for change to '{CONFIG_LABEL}' label")
        return
    log.echo("Selected MIG configuration is valid")
    state = labels.get(STATE_LABEL, "")
    log.echo(
        f"Getting current value of the '{STATE_LABEL}' node label",
        f"Current value of '{STATE_LABEL}={state}'",
        "Checking if the selected MIG config is currently applied or not",
    )
    if hardware.layout_matches(layout, node):
        log.echo("Selected MIG configuration currently applied")
        _exit(api, node, "success", log, restore_clients=True)
        log.info(f"Successfully updated to MIG config: {wanted}")
        log.info(f"Waiting for change to '{CONFIG_LABEL}' label")
        return
    log.fatal("Assertion failure: selected configuration not currently applied")
    log.echo(
        f"Persisting {wanted} to {HOST_STATE_FILE}",
        "Checking if the MIG mode setting in the selected config is currently applied or not",
        "If the state is 'rebooting', we expect this to always return true",
    )
    if _mode_matches(layout, node):
        log.echo("Selected MIG mode settings from configuration currently applied")
    else:
        log.fatal("Assertion failure: selected configuration not currently applied")
    log.echo(f"Changing the '{STATE_LABEL}' node label to 'pending'")
    node = _label(api, node, {STATE_LABEL: "pending"}, log)
    log.echo(SHUTDOWN)
    _label(api, node, {label: _paused(labels.get(label)) for label in GPU_CLIENT_LABELS}, log)
    _wait_for_clients(api, node, log)
    memory.phase = "applying"
    memory.target = wanted
    memory.countdown = APPLY_STEPS


def _mode_matches(layout: MigLayout, node: Obj) -> bool:
    have = hardware.read_layout(node)
    want = layout.profiles_per_gpu(len(have))
    return [p is None for p in have] == [p is None for p in want]


def _wait_for_clients(api: ClusterAPI, node: Obj, log: _Log) -> None:
    """`kubectl wait --for=delete pod -l app=...` for each paused client, with kubectl's replies."""
    node_name = name_of(node)
    pods = items(api, "pods", NAMESPACE)
    for _label_key, short, app in CLIENTS[:4]:
        log.echo(f"Waiting for {'the ' if short == 'device-plugin' else ''}{short} to shutdown")
        mine = [
            p
            for p in pods
            if labels_of(p).get("app") == app and spec(p).get("nodeName") == node_name
        ]
        if mine:
            log.echo(*(f"pod/{name_of(p)} condition met" for p in mine))
        else:
            log.echo("error: no matching resources found")
    log.echo("Removing the cuda-validator pod", "No resources found")
    log.echo("Removing the plugin-validator pod", "No resources found")


def _holders(api: ClusterAPI, node_name: str) -> list[Obj]:
    """Pods on the node that hold a GPU (MIG Manager does not stop workloads)."""
    out = []
    for pod in items(api, "pods"):
        if namespace_of(pod) == NAMESPACE or spec(pod).get("nodeName") != node_name:
            continue
        if not holds_resources(pod):
            continue
        if gpu_requests(pod) or "gpu-fraction" in annotations_of(pod) or hardware.pod_devices(pod):
            out.append(pod)
    return out


def _apply_lines(log: _Log, mode_change: bool, failure: str = "") -> None:
    log.debug("Parsing config file...", 1)
    log.debug("Selecting specific MIG config...", 1)
    log.debug("Running apply-start hook", 1)
    log.debug("Checking current MIG mode...", 1)
    if mode_change:
        log.debug("Walking MigConfig for (devices=all)", 1)
        log.debug("Running pre-apply-mode hook", 1)
        log.debug("Applying MIG mode change...", 2)
    if failure:
        log.debug("Running apply-exit hook", 3)
        log.fatal(f"Error applying MIG configuration with hooks: {failure}", 3)


def _finish(api: LogAPI, pod: Obj, node: Obj, memory: Memory, log: _Log) -> None:
    memory.phase = "idle"
    target = memory.target
    log.echo(
        APPLY_MODE,
        REBOOT_NOTE,
    )
    try:
        layout: MigLayout | None = load_layouts(api).get(target)
    except ConfigError:
        layout = None
    if layout is None:
        log.fatal(
            f"Error parsing config file: read error: open {CONFIG_PATH}: no such file or directory"
        )
        _exit(api, node, "failed", log, restore_clients=True)
        log.error("Error: exit status 1")
        log.info(f"Waiting for change to '{CONFIG_LABEL}' label")
        return
    mode_change = not _mode_matches(layout, node)
    holders = _holders(api, name_of(node))
    if holders:
        cause = (
            "error setting MIG mode: error setting Mig mode: In use by another client"
            if mode_change
            else "error setting MIGConfig: error creating GPU instance for '"
            + next(
                iter(layout.profiles_per_gpu(len(hardware.read_layout(node)))[0] or {"1g.10gb": 1})
            )
            + "': In use by another client"
        )
        _apply_lines(log, mode_change, cause)
        log.debug("Parsing config file...", 3)
        log.debug("Selecting specific MIG config...", 3)
        log.debug("Asserting MIG mode configuration...", 3)
        log.fatal("Assertion failure: selected configuration not currently applied", 3)
        log.echo("Applying the selected MIG config to the node")
        _apply_lines(log, mode_change, cause)
        _exit(api, node, "failed", log, restore_clients=True)
        log.error("Error: exit status 1", 4)
        log.info(f"Waiting for change to '{CONFIG_LABEL}' label", 4)
        return
    _apply_lines(log, mode_change)
    log.debug("Running apply-exit hook", 3)
    log.echo("MIG configuration applied successfully")
    log.debug("Parsing config file...", 3)
    log.debug("Selecting specific MIG config...", 3)
    log.debug("Asserting MIG mode configuration...", 3)
    log.echo(
        "Selected MIG mode settings from configuration currently applied",
        "Applying the selected MIG config to the node",
    )
    log.debug("Parsing config file...", 4)
    log.debug("Selecting specific MIG config...", 4)
    log.debug("Running apply-start hook", 4)
    log.debug("Checking current MIG mode...", 4)
    log.debug("Checking current MIG device configuration...", 4)
    log.debug("Running pre-apply-config hook", 4)
    log.debug("Applying MIG device configuration...", 5)
    log.debug("Running apply-exit hook", 9)
    log.echo("MIG configuration applied successfully")
    per_gpu = layout.profiles_per_gpu(len(hardware.read_layout(node)))
    node = api.patch(
        "nodes",
        name_of(node),
        {"metadata": {"annotations": {hardware.GPUS_ANNOTATION: hardware.encode_layout(per_gpu)}}},
    )
    log.echo("Restarting validator pod to re-run all validations")
    for validator in items(api, "pods", NAMESPACE, label_selector=f"app={VALIDATOR}"):
        if spec(validator).get("nodeName") != name_of(node):
            continue
        try:
            api.delete("pods", name_of(validator), NAMESPACE)
            log.echo(f'pod "{name_of(validator)}" deleted')
        except ApiError:
            pass
    log.echo(RESTART)
    labels = labels_of(node)
    node = _label(api, node, {label: _true(labels.get(label)) for label in GPU_CLIENT_LABELS}, log)
    log.echo(f"Changing the '{STATE_LABEL}' node label to 'success'")
    _label(api, node, {STATE_LABEL: "success"}, log)
    log.info(f"Successfully updated to MIG config: {target}", 10)
    log.info(f"Waiting for change to '{CONFIG_LABEL}' label", 10)


def _exit(api: ClusterAPI, node: Obj, state: str, log: _Log, *, restore_clients: bool) -> None:
    """__set_state_and_exit: re-enable the GPU clients, then set the state label."""
    if restore_clients:
        log.echo(
            "Restarting any GPU clients previously shutdown in Kubernetes by reenabling their "
            "component-specific nodeSelector labels"
        )
        labels = labels_of(node)
        node = _label(
            api, node, {label: _true(labels.get(label)) for label in GPU_CLIENT_LABELS[:4]}, log
        )
    log.echo(f"Changing the '{STATE_LABEL}' node label to '{state}'")
    _label(api, node, {STATE_LABEL: state}, log)
