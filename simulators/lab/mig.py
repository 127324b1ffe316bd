"""MIG Manager as a state machine over steps.

Per node, one step after `nvidia.com/mig.config` changes MIG Manager validates
the requested layout against its ConfigMap (the key must be `config.yaml`),
sets `nvidia.com/mig.config.state=pending` and shuts the GPU clients down; two
steps later the layout is on the GPUs (`success`), or the apply failed because
a user pod still holds a GPU ("In use by another client"). A new MIG Manager pod
(after `kubectl delete pod`) applies the current label when it starts, which is
how a failed apply is retried. Re-labelling with the same value is no change,
so nothing happens.
"""

from __future__ import annotations

from typing import Any

import yaml

from simulators.backends.base import GPU_OPERATOR_NS, Gpu, MigDevice
from simulators.backends.mock import MockBackend
from simulators.engine.errors import EngineError
from simulators.engine.mig import (
    H100_PROFILES,
    NAMED_LAYOUTS,
    MigDeviceConfig,
    MigLayout,
    mig_profile,
)
from simulators.lab import gpu_operator
from simulators.lab.state import MigManagerState, WorldState, fake_uuid, sim_datetime

CONFIG_LABEL = "nvidia.com/mig.config"
STATE_LABEL = "nvidia.com/mig.config.state"
CONFIG_KEY = "config.yaml"
CONFIG_PATH = "/mig-parted-config/config.yaml"
PAUSABLE_LABELS = tuple(
    c.deploy_label for c in gpu_operator.COMPONENTS if c.deploy_label is not None
)
# Steps from "pending" to the result.
APPLY_STEPS = 2


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
    text = yaml.safe_dump(
        {"version": "v1", "mig-configs": configs}, sort_keys=False, default_flow_style=False
    )
    return str(text)


DEFAULT_CONFIG_TEXT = render_config(dict(NAMED_LAYOUTS))


class ConfigError(Exception):
    """The requested layout cannot be read from MIG Manager's configuration."""


def parse_config(text: str) -> dict[str, MigLayout]:
    """Parse a mig-parted config.yaml into layouts; raise ConfigError with mig-parted's words."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"error parsing {CONFIG_PATH}: {_first_line(exc)}") from None
    if not isinstance(data, dict) or not isinstance(data.get("mig-configs"), dict):
        raise ConfigError(f"error parsing {CONFIG_PATH}: no 'mig-configs' section")
    layouts: dict[str, MigLayout] = {}
    for name, entries in data["mig-configs"].items():
        if not isinstance(entries, list):
            raise ConfigError(f"error parsing {CONFIG_PATH}: mig-config '{name}' is not a list")
        devices: list[MigDeviceConfig] = []
        for entry in entries:
            if not isinstance(entry, dict):
                raise ConfigError(f"error parsing {CONFIG_PATH}: bad entry in '{name}'")
            raw_devices = entry.get("devices", "all")
            gpus: tuple[int, ...] | None
            if raw_devices == "all":
                gpus = None
            elif isinstance(raw_devices, list) and all(isinstance(i, int) for i in raw_devices):
                gpus = tuple(raw_devices)
            else:
                raise ConfigError(f"error parsing {CONFIG_PATH}: bad 'devices' in '{name}'")
            enabled = bool(entry.get("mig-enabled", False))
            raw_profiles = entry.get("mig-devices") or {}
            if not isinstance(raw_profiles, dict):
                raise ConfigError(f"error parsing {CONFIG_PATH}: bad 'mig-devices' in '{name}'")
            try:
                profiles = {str(k): int(v) for k, v in raw_profiles.items()}
                devices.append(MigDeviceConfig(mig_enabled=enabled, profiles=profiles, gpus=gpus))
            except (EngineError, ValueError, TypeError) as exc:
                raise ConfigError(f"invalid mig-config '{name}': {exc}") from None
        layouts[str(name)] = MigLayout(str(name), tuple(devices))
    return layouts


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def available_layouts(backend: MockBackend) -> dict[str, MigLayout]:
    """Layouts in the ConfigMap MIG Manager currently reads ({} when it cannot read it)."""
    try:
        return _load_layouts(backend)
    except ConfigError:
        return {}


def _load_layouts(backend: MockBackend) -> dict[str, MigLayout]:
    name = gpu_operator.mig_config_name(backend)
    configmap = backend.get_configmap(GPU_OPERATOR_NS, name)
    if configmap is None:
        raise ConfigError(f'ConfigMap "{name}" not found in namespace "{GPU_OPERATOR_NS}"')
    if CONFIG_KEY not in configmap.data:
        raise ConfigError(f"open {CONFIG_PATH}: no such file or directory")
    return parse_config(configmap.data[CONFIG_KEY])


def layout_on_gpus(layout: MigLayout, gpus: list[Gpu]) -> list[dict[str, int] | None]:
    return layout.profiles_per_gpu(len(gpus))


def gpus_match(layout: MigLayout, gpus: list[Gpu]) -> bool:
    wanted = layout_on_gpus(layout, gpus)
    for gpu, profiles in zip(gpus, wanted, strict=True):
        if profiles is None:
            if gpu.mig_enabled:
                return False
            continue
        have: dict[str, int] = {}
        for dev in gpu.mig_devices:
            have[dev.profile] = have.get(dev.profile, 0) + 1
        if not gpu.mig_enabled or have != profiles:
            return False
    return True


def apply_layout(seed: int, node: str, layout: MigLayout, gpus: list[Gpu]) -> None:
    """Put a layout on the GPUs: MIG mode and the instances, largest first like nvidia-smi."""
    for gpu, profiles in zip(gpus, layout_on_gpus(layout, gpus), strict=True):
        if profiles is None:
            gpu.mig_enabled = False
            gpu.mig_devices = []
            continue
        gpu.mig_enabled = True
        devices: list[MigDevice] = []
        order = sorted(profiles, key=lambda p: (-mig_profile(p).compute_slices, p))
        for profile in order:
            for _ in range(profiles[profile]):
                uuid = fake_uuid(seed, node, gpu.index, len(devices), profile)
                devices.append(MigDevice(profile=profile, uuid=f"MIG-{uuid}"))
        gpu.mig_devices = devices


def _ts(seconds: int, offset: int = 0) -> str:
    return sim_datetime(seconds + offset).strftime("%Y-%m-%dT%H:%M:%SZ")


def _info(now: int, offset: int, msg: str, level: str = "info") -> str:
    return f'time="{_ts(now, offset)}" level={level} msg="{msg}"'


def reconcile(state: WorldState, backend: MockBackend) -> None:
    for manager in state.mig_managers:
        if backend.get_node(manager.node) is None:
            continue
        pod = gpu_operator.find_ds_pod(backend, manager.node, gpu_operator.MIG_MANAGER)
        if pod is None:
            # The DaemonSet brings a new pod; on start it applies whatever the label says.
            gpu_operator.create_ds_pod(state, backend, manager.node, gpu_operator.MIG_MANAGER)
            manager.phase = "idle"
            manager.observed = ""
            _unpause(backend, manager.node)
        _step(state, backend, manager)


def _log(backend: MockBackend, node: str, lines: list[str]) -> None:
    pod = gpu_operator.find_ds_pod(backend, node, gpu_operator.MIG_MANAGER)
    if pod is not None:
        pod.logs.extend(lines)


def _unpause(backend: MockBackend, node: str) -> None:
    backend.set_node_labels(node, dict.fromkeys(PAUSABLE_LABELS, "true"))


def _step(state: WorldState, backend: MockBackend, manager: MigManagerState) -> None:
    node = backend.get_node(manager.node)
    assert node is not None
    now = backend.now()
    if manager.phase == "idle":
        wanted = node.labels.get(CONFIG_LABEL)
        if wanted is None or wanted == manager.observed:
            return
        _start(state, backend, manager, wanted)
        return
    manager.countdown -= 1
    if manager.countdown > 0:
        _log(
            backend,
            manager.node,
            [
                "Applying the selected MIG config to the node",
                _info(now, 0, "Parsing config file..."),
                _info(now, 0, "Selecting specific MIG config..."),
                _info(now, 0, "Running apply-start hook"),
                _info(now, 2, "Applying MIG mode change..."),
            ],
        )
        return
    _finish(state, backend, manager)


def _start(state: WorldState, backend: MockBackend, manager: MigManagerState, wanted: str) -> None:
    node_name = manager.node
    node = backend.get_node(node_name)
    assert node is not None
    current_state = node.labels.get(STATE_LABEL, "success")
    lines = [
        f"Updating to MIG config: {wanted}",
        "Getting current value of the 'nvidia.com/gpu.deploy.device-plugin' node label",
        "Current value of 'nvidia.com/gpu.deploy.device-plugin=true'",
        "Asserting that the requested configuration is present in the configuration file",
    ]
    manager.observed = wanted
    try:
        layouts = _load_layouts(backend)
        if wanted not in layouts:
            raise ConfigError(f"selected mig-config '{wanted}' not present in {CONFIG_PATH}")
        layout = layouts[wanted]
        layout.profiles_per_gpu(len(backend.node_gpus(node_name)))
    except (ConfigError, EngineError) as exc:
        lines += [
            f"Error validating MIG config: {exc}",
            "Changing the 'nvidia.com/mig.config.state' node label to 'failed'",
            "Waiting for change to 'nvidia.com/mig.config' label",
        ]
        _log(backend, node_name, lines)
        backend.set_node_labels(node_name, {STATE_LABEL: "failed"})
        return
    lines += [
        "Selected MIG configuration is valid",
        "Getting current value of the 'nvidia.com/mig.config.state' node label",
        f"Current value of 'nvidia.com/mig.config.state={current_state}'",
        "Checking if the selected MIG config is currently applied or not",
    ]
    if current_state == "success" and gpus_match(layout, backend.node_gpus(node_name)):
        lines += [
            "Selected MIG configuration currently applied",
            "Waiting for change to 'nvidia.com/mig.config' label",
        ]
        _log(backend, node_name, lines)
        return
    lines += [
        f"Persisting {wanted} to /etc/systemd/system/nvidia-mig-manager.service.d/override.conf",
        "Changing the 'nvidia.com/mig.config.state' node label to 'pending'",
        "Shutting down all GPU clients in Kubernetes by disabling their component-specific "
        "nodeSelector labels",
        "Waiting for the device-plugin to shutdown",
        "Waiting for gpu-feature-discovery to shutdown",
        "Waiting for dcgm-exporter to shutdown",
    ]
    _log(backend, node_name, lines)
    changes: dict[str, str | None] = dict.fromkeys(PAUSABLE_LABELS, gpu_operator.PAUSED)
    changes[STATE_LABEL] = "pending"
    backend.set_node_labels(node_name, changes)
    manager.phase = "applying"
    manager.target = wanted
    manager.countdown = APPLY_STEPS


def gpu_holders(backend: MockBackend, node: str) -> list[str]:
    """User pods on the node that hold a GPU (MIG Manager does not stop those)."""
    holders = []
    for pod in backend.list_pods():
        if pod.node_name != node or pod.namespace == GPU_OPERATOR_NS:
            continue
        if pod.phase != "Running":
            continue
        if pod.gpu_resources():
            holders.append(f"{pod.namespace}/{pod.name}")
    return holders


def _finish(state: WorldState, backend: MockBackend, manager: MigManagerState) -> None:
    node_name = manager.node
    now = backend.now()
    manager.phase = "idle"
    gpus = backend.node_gpus(node_name)
    restart = (
        "Restarting all GPU clients previously shutdown in Kubernetes by reenabling their "
        "component-specific nodeSelector labels"
    )
    try:
        layout = _load_layouts(backend)[manager.target]
    except (ConfigError, KeyError):
        layout = None
    holders = gpu_holders(backend, node_name)
    if layout is None or holders:
        cause = (
            f"error enabling MIG mode on GPU 0 ({gpus[0].uuid if gpus else 'GPU-0'}): "
            "In use by another client"
            if holders
            else f"selected mig-config '{manager.target}' not present in {CONFIG_PATH}"
        )
        _log(
            backend,
            node_name,
            [
                _info(now, 0, f"Error setting MIG mode: {cause}", level="error"),
                _info(now, 0, "Running apply-exit hook"),
                restart,
                f"Error applying MIG configuration: {cause}",
                "Changing the 'nvidia.com/mig.config.state' node label to 'failed'",
                "Waiting for change to 'nvidia.com/mig.config' label",
            ],
        )
        changes: dict[str, str | None] = dict.fromkeys(PAUSABLE_LABELS, "true")
        changes[STATE_LABEL] = "failed"
        backend.set_node_labels(node_name, changes)
        return
    apply_layout(state.seed, node_name, layout, gpus)
    _log(
        backend,
        node_name,
        [
            _info(now, 1, "Applying MIG device configuration..."),
            _info(now, 6, "Running apply-exit hook"),
            "MIG configuration applied successfully",
            "Restarting validator pod to re-run all validations",
            restart,
            "Changing the 'nvidia.com/mig.config.state' node label to 'success'",
            "Waiting for change to 'nvidia.com/mig.config' label",
        ],
    )
    validator = gpu_operator.find_ds_pod(backend, node_name, gpu_operator.VALIDATOR)
    if validator is not None:
        backend.delete_pod(validator.namespace, validator.name)
    changes = dict.fromkeys(PAUSABLE_LABELS, "true")
    changes[STATE_LABEL] = "success"
    backend.set_node_labels(node_name, changes)


def known_profiles() -> list[str]:
    return list(H100_PROFILES)
