"""MIG profiles, layouts and what a node advertises under each MIG strategy.

The numbers are those of the H100 80GB. The lab terminal reuses
`advertised_resources` to print a node's Allocatable section, so the two never
disagree about what `nvidia.com/gpu: 56` means.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from simulators.engine.errors import EngineError, MigStrategyError

GPU_RESOURCE = "nvidia.com/gpu"
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"

MigStrategy = Literal["single", "mixed"]
MIG_STRATEGIES: tuple[MigStrategy, ...] = ("single", "mixed")


@dataclass(frozen=True)
class MigProfile:
    """One MIG instance size: compute slices out of 7, memory slices out of 8."""

    name: str
    compute_slices: int
    memory_slices: int
    memory_gib: int
    max_per_gpu: int

    @property
    def resource_name(self) -> str:
        return MIG_RESOURCE_PREFIX + self.name

    @property
    def gpu_fraction(self) -> float:
        # Quota accounting counts a slice by its share of the GPU's compute.
        return self.compute_slices / 7


H100_PROFILES: dict[str, MigProfile] = {
    p.name: p
    for p in (
        MigProfile("1g.10gb", 1, 1, 10, 7),
        MigProfile("1g.20gb", 1, 2, 20, 4),
        MigProfile("2g.20gb", 2, 2, 20, 3),
        MigProfile("3g.40gb", 3, 4, 40, 2),
        MigProfile("4g.40gb", 4, 4, 40, 1),
        MigProfile("7g.80gb", 7, 8, 80, 1),
    )
}


def mig_profile(name: str) -> MigProfile:
    """Look up an H100 80GB profile by name ("1g.10gb") or resource ("nvidia.com/mig-1g.10gb")."""
    short = name.removeprefix(MIG_RESOURCE_PREFIX)
    try:
        return H100_PROFILES[short]
    except KeyError:
        known = ", ".join(H100_PROFILES)
        raise EngineError(f"mig_profile: unknown MIG profile {name!r} (known: {known})") from None


@dataclass(frozen=True)
class MigDeviceConfig:
    """One entry of a mig-parted layout: which GPUs, MIG on or off, and the profiles per GPU.

    `gpus` is None for "all GPUs on the node".
    """

    mig_enabled: bool
    profiles: Mapping[str, int] = field(default_factory=dict)
    gpus: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not self.mig_enabled:
            if self.profiles:
                raise EngineError("mig layout: profiles given for GPUs with MIG disabled")
            return
        compute = memory = 0
        for name, count in self.profiles.items():
            profile = mig_profile(name)
            if count < 0 or count > profile.max_per_gpu:
                raise EngineError(
                    f"mig layout: {count} x {profile.name} per GPU is not possible "
                    f"(at most {profile.max_per_gpu})"
                )
            compute += profile.compute_slices * count
            memory += profile.memory_slices * count
        if compute > 7 or memory > 8:
            raise EngineError(
                "mig layout: the profiles do not fit on one GPU "
                f"({compute}/7 compute slices, {memory}/8 memory slices)"
            )


@dataclass(frozen=True)
class MigLayout:
    """A named layout, as in the MIG Manager's config.yaml."""

    name: str
    devices: tuple[MigDeviceConfig, ...]

    def profiles_per_gpu(self, gpu_count: int) -> list[dict[str, int] | None]:
        """For each GPU of a node, its profiles (None = MIG off). Later entries win."""
        result: list[dict[str, int] | None] = [None] * gpu_count
        for device in self.devices:
            indexes = range(gpu_count) if device.gpus is None else device.gpus
            for index in indexes:
                if not 0 <= index < gpu_count:
                    raise EngineError(
                        f"mig layout {self.name}: GPU index {index} is not on a "
                        f"{gpu_count}-GPU node"
                    )
                result[index] = (
                    {k: v for k, v in device.profiles.items() if v} if device.mig_enabled else None
                )
        return result

    @property
    def uses_mig(self) -> bool:
        return any(d.mig_enabled for d in self.devices)


def _uniform(name: str, profiles: dict[str, int]) -> MigLayout:
    return MigLayout(name, (MigDeviceConfig(mig_enabled=True, profiles=profiles),))


NAMED_LAYOUTS: dict[str, MigLayout] = {
    "all-disabled": MigLayout("all-disabled", (MigDeviceConfig(mig_enabled=False),)),
    "all-enabled": MigLayout("all-enabled", (MigDeviceConfig(mig_enabled=True),)),
    "all-1g.10gb": _uniform("all-1g.10gb", {"1g.10gb": 7}),
    "all-1g.20gb": _uniform("all-1g.20gb", {"1g.20gb": 4}),
    "all-2g.20gb": _uniform("all-2g.20gb", {"2g.20gb": 3}),
    "all-3g.40gb": _uniform("all-3g.40gb", {"3g.40gb": 2}),
    "all-4g.40gb": _uniform("all-4g.40gb", {"4g.40gb": 1}),
    "all-7g.80gb": _uniform("all-7g.80gb", {"7g.80gb": 1}),
    "all-balanced": _uniform("all-balanced", {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}),
}


def mig_layout(layout: str | MigLayout) -> MigLayout:
    """Resolve a layout name to its definition; custom layouts pass through."""
    if isinstance(layout, MigLayout):
        return layout
    try:
        return NAMED_LAYOUTS[layout]
    except KeyError:
        raise EngineError(
            f"mig layout: {layout!r} is not a known layout (known: {', '.join(NAMED_LAYOUTS)})"
        ) from None


@dataclass(frozen=True)
class MigAdvertisement:
    """What the device plugin on a node advertises, or why it crash-loops."""

    resources: dict[str, int]
    crash_loop: bool = False
    message: str = ""
    # Memory of each nvidia.com/gpu device, in GiB (whole GPUs, or slices under `single`).
    gpu_device_memory_gib: tuple[int, ...] = ()
    # When slices are advertised as nvidia.com/gpu (single), the profile they are.
    single_profile: str | None = None


def mig_advertisement(
    gpu_count: int,
    layout: str | MigLayout = "all-disabled",
    strategy: MigStrategy = "single",
    gpu_memory_gib: int = 80,
) -> MigAdvertisement:
    """The extended resources a node advertises; flags the single-strategy crash loop.

    Never raises for the crash loop: the device plugin then advertises nothing.
    """
    if gpu_count < 0:
        raise EngineError(f"gpu_count: must be 0 or more, got {gpu_count}")
    if strategy not in MIG_STRATEGIES:
        raise EngineError(f"mig strategy: must be single or mixed, got {strategy!r}")
    per_gpu = mig_layout(layout).profiles_per_gpu(gpu_count)
    whole = sum(1 for p in per_gpu if p is None)
    slices: dict[str, int] = {}
    for profiles in per_gpu:
        for name, count in (profiles or {}).items():
            slices[name] = slices.get(name, 0) + count

    if strategy == "mixed":
        resources: dict[str, int] = {}
        if whole:
            resources[GPU_RESOURCE] = whole
        for name in sorted(slices):
            resources[MIG_RESOURCE_PREFIX + name] = slices[name]
        return MigAdvertisement(resources, gpu_device_memory_gib=(gpu_memory_gib,) * whole)

    # Under `single` every GPU must be MIG-off, or every GPU MIG-on with one same profile.
    if not slices:
        return MigAdvertisement(
            {GPU_RESOURCE: whole} if gpu_count else {},
            gpu_device_memory_gib=(gpu_memory_gib,) * whole,
        )
    if len(slices) > 1 or whole:
        kinds = sorted(slices) + (["MIG disabled"] if whole else [])
        return MigAdvertisement(
            {},
            crash_loop=True,
            message=(
                "nvidia-device-plugin: CrashLoopBackOff: the single MIG strategy needs one "
                f"profile on every GPU of the node, found {', '.join(kinds)}; "
                "patch the ClusterPolicy to mig.strategy=mixed"
            ),
        )
    ((name, count),) = slices.items()
    profile = mig_profile(name)
    return MigAdvertisement(
        {GPU_RESOURCE: count},
        gpu_device_memory_gib=(profile.memory_gib,) * count,
        single_profile=name,
    )


def advertised_resources(
    gpu_count: int,
    layout: str | MigLayout = "all-disabled",
    strategy: MigStrategy = "single",
) -> dict[str, int]:
    """Extended resources a node advertises, e.g. all-1g.10gb single on 8 GPUs → {gpu: 56}.

    Raises MigStrategyError when the device plugin would crash-loop.
    """
    advert = mig_advertisement(gpu_count, layout, strategy)
    if advert.crash_loop:
        raise MigStrategyError(advert.message)
    return advert.resources
