"""The lab's world: a ticket's cluster as objects in the mock API, and kadmin's home folder.

`build_cluster(ticket, seed)` builds the cluster the guide describes (``dgx-cluster``,
Kubernetes v1.31.4, three DGX H100 worker nodes ``gpu-node1..3`` with 8x H100 80GB HBM3, 224
CPUs and 2113302Mi each; kube-system, the GPU Operator, Run:ai) by creating objects through the
API and letting the controllers bring it up, then stages the ticket's story at the times it
says (a colleague's change yesterday, a Job 42 minutes old, a workspace submitted an hour ago)
and warms up for a few steps, so every initial state (a failed MIG apply, a Pending pod and its
events, ages) comes from the same rules as everything the learner does.

The control plane: the guide's samples show the nodes with ROLES ``<none>`` and kube-scheduler's
"0/3 nodes are available", so the three GPU nodes are the only nodes; the control plane runs
outside the node list (as on a hosted or separately managed control plane), which is why
kube-system has coredns and kube-proxy but no etcd or kube-apiserver mirror pods.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from simulators.cluster import saved
from simulators.cluster.api import ApiError, ClusterAPI
from simulators.cluster.changes import Changes
from simulators.cluster.clock import STEP_SECONDS
from simulators.cluster.seed import seed_defaults
from simulators.cluster.store import WATCH_LOG_SIZE, MockCluster
from simulators.controllers import mig_manager, runai
from simulators.controllers.manager import run_controllers
from simulators.lab import fs, gpu_health, kubeconfig, nvidia_smi
from simulators.lab.errors import LabError
from simulators.lab.home_files import HOME_FILES
from simulators.lab.world_cluster import CLUSTER_AGE, CLUSTER_NAME, RUNAI_VERSION, base_cluster
from simulators.lab.world_story import story

# Steps the world runs just before the learner's first command.
WARMUP_STEPS = 6

# Steps the cluster runs after each staged change, so it settles before the clock jumps on.
SETTLE_STEPS = 3

TICKETS_DIR = Path(__file__).resolve().parents[2] / "content" / "tickets"


@dataclass
class RunaiCli:
    """The runai CLI's own configuration on kadmin (~/.runai), not cluster state."""

    installed: bool = True
    logged_in: bool = True
    default_project: str = ""
    cluster: str = CLUSTER_NAME


@dataclass
class HelmRelease:
    name: str
    namespace: str
    chart: str
    revision: int
    deployed: int
    values: dict[str, str] = field(default_factory=dict)


@dataclass
class HostState:
    """The admin host's side of a lab: home folder, CLI configs, the step counter."""

    seed: int
    step: int = 0
    files: dict[str, str] = field(
        default_factory=lambda: {kubeconfig.NAME: kubeconfig.starting_text(), **HOME_FILES}
    )
    # The layout of `files`: from 2 on, a lab starts with ~/.kube/config (kubeconfig.NAME, mode
    # 0600 as kubeadm's admin.conf copied); an older saved lab gets it when loaded. Every lab
    # has the admin's own dot files (simulators.lab.home_files), saved only as changed or
    # removed (to_json), so a lab saved before them gets them when loaded.
    version: int = 3
    # Permission bits of the files and folders that have other than their defaults (chmod).
    modes: dict[str, int] = field(default_factory=lambda: {kubeconfig.NAME: kubeconfig.MODE})
    # The folders the admin (or the ticket) made, by key (simulators.lab.fs): from layout 3 on,
    # every folder above a file is named here; an older saved lab gets its own when loaded.
    folders: list[str] = field(default_factory=lambda: fs.with_ancestors([kubeconfig.NAME], []))
    runai: RunaiCli = field(default_factory=RunaiCli)
    helm: list[HelmRelease] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["files"] = {k: v for k, v in self.files.items() if HOME_FILES.get(k) != v}
        removed = [name for name in HOME_FILES if name not in self.files]
        if removed:
            data["removed"] = removed
        return data

    @classmethod
    def holding(cls, files: dict[str, str], seed: int = 0) -> HostState:
        """A host whose files are `files` (that dict itself, by key), every folder above them
        there, no mode but the defaults."""
        return cls(seed=seed, files=files, modes={}, folders=fs.with_ancestors(files, []))

    @classmethod
    def from_json(cls, data: Any) -> HostState:
        if not isinstance(data, dict):
            raise LabError("saved lab state is damaged: host is not an object")
        try:
            files = {str(k): str(v) for k, v in (data.get("files") or {}).items()}
            modes = {str(k): int(v) & 0o7777 for k, v in (data.get("modes") or {}).items()}
            if int(data.get("version", 1)) < 2 and kubeconfig.NAME not in files:
                files[kubeconfig.NAME] = kubeconfig.starting_text()
                modes[kubeconfig.NAME] = kubeconfig.MODE
            removed = {str(name) for name in data.get("removed") or ()}
            unchanged = {k: v for k, v in HOME_FILES.items() if k not in removed}
            files = {**files, **{k: v for k, v in unchanged.items() if k not in files}}
            made = [str(k) for k in data.get("folders") or []]
            return cls(
                seed=int(data["seed"]),
                step=int(data.get("step", 0)),
                files=files,
                modes=modes,
                folders=fs.with_ancestors(files, made),
                runai=RunaiCli(**(data.get("runai") or {})),
                helm=[HelmRelease(**h) for h in data.get("helm") or []],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise LabError(f"saved lab state is damaged: {exc}") from None


@dataclass(frozen=True)
class Origin:
    """The template a world was forked from (new_world): while the world is still equal to it,
    a snapshot names it instead of holding its objects (World.as_template)."""

    template: World
    digest: str
    seed: int


class HostWorld:
    """What the lab's tools work on: a cluster through its API, and the kadmin host.

    `World` is a simulated cluster; `simulators.lab.explore.ClusterWorld` a real one (which
    moves by itself). Each says how a step goes and what of it is saved.
    """

    origin: Origin | None = None

    def __init__(self, api: ClusterAPI, state: HostState) -> None:
        self.api = api
        self.state = state

    @property
    def now(self) -> int:
        """Seconds on the cluster clock since the session started (negative before)."""
        raise NotImplementedError

    def tick(
        self, stop: Callable[[], bool] | None = None, give_way: Callable[[], None] | None = None
    ) -> bool:
        """One step; False if `stop` (the command's budget) cut it short."""
        raise NotImplementedError

    def as_template(self) -> dict[str, Any] | None:
        """The template this world was forked from and what changed since; None: saved whole."""
        return None

    def to_json(self, *, copy: bool = True) -> dict[str, Any]:
        raise NotImplementedError

    def controllers_to_json(self) -> dict[str, Any] | None:
        """What the controllers know to be quiet, if the world has controllers of its own."""
        return None

    def pack_idle(self) -> None:
        """Hold what the cluster changed packed until a command reads it again (between two
        commands); nothing where the cluster is not this process's own."""


class World(HostWorld):
    """The simulated cluster (through its API) plus kadmin; `tick()` is one step of simulated
    time."""

    api: MockCluster

    def __init__(self, api: MockCluster, state: HostState) -> None:
        super().__init__(api, state)
        # Controllers a step leaves out (the apiserver's --scheduler external: the engine).
        self.left_out: frozenset[str] = frozenset()
        # A template's name in its labs' saved forms (template_world), None for other worlds.
        self.built_digest: str | None = None
        # What runs in the lab's containers beyond the store's own shell answers.
        api.add_exec_handler(nvidia_smi.exec_nvidia_smi)
        api.add_exec_handler(gpu_health.exec_gpu_health)

    @property
    def now(self) -> int:
        """Seconds on the cluster clock since the session started (negative before)."""
        return int(self.api.clock.seconds)

    def tick(
        self, stop: Callable[[], bool] | None = None, give_way: Callable[[], None] | None = None
    ) -> bool:
        """One step; False if `stop` (the command's budget) cut the controllers short (see
        run_controllers: the rest run at the next step). `give_way` paces the step: the store
        calls it on every write."""
        self.state.step += 1
        self.api.clock.advance()
        if give_way is None:
            return run_controllers(self.api, leave_out=self.left_out, stop=stop)
        previous = self.api.give_way
        self.api.give_way = give_way
        try:
            return run_controllers(self.api, leave_out=self.left_out, stop=stop)
        finally:
            self.api.give_way = previous

    def pack_idle(self) -> None:
        self.api.pack_idle()

    def fork(self) -> World:
        """An independent world equal to this one, sharing the cluster's objects
        (MockCluster.fork): what a learner's lab starts from (see template_world)."""
        other = World(self.api.fork(), HostState.from_json(self.state.to_json()))
        other.left_out = self.left_out
        return other

    def as_template(self) -> dict[str, Any] | None:
        """This world's saved form as the name of the template it was forked from and, once
        anything changed, what did (``saved.dump_changes``: the objects that are no longer the
        template's, the logs that differ, the host): a few KB where the whole cluster is a few
        hundred. None for a world not forked from a template. Shares the live objects: only
        for encoding at once. ``from_template`` reads it back."""
        origin = self.origin
        if origin is None:
            return None
        template = origin.template
        named: dict[str, Any] = {"template": {"world": origin.digest, "seed": origin.seed}}
        if (self.api.resource_version, self.api.clock.seconds, self.state) == (
            template.api.resource_version,
            template.api.clock.seconds,
            template.state,
        ):
            return named  # still the template: nobody typed in this lab yet
        return {
            **named,
            "changes": saved.dump_changes(self.api, template.api),
            "host": self.state.to_json(),
        }

    def to_json(self, *, copy: bool = True) -> dict[str, Any]:
        """The whole world (copy=False: see MockCluster.to_json). The watch history is
        compacted first: a saved lab has no watchers."""
        self.api.compact_watch_log()
        return {"cluster": self.api.to_json(copy=copy), "host": self.state.to_json()}

    def controllers_to_json(self) -> dict[str, Any] | None:
        """What the controllers know to be quiet (simulators.cluster.changes), saved beside
        the world so that a restored lab's first command skips what the kept lab would."""
        return self.api.changes.to_json()

    def restore_controllers(self, data: Any) -> None:
        self.api.changes = Changes.from_json(data)

    @classmethod
    def from_json(cls, data: Any) -> World:
        if not isinstance(data, dict) or "cluster" not in data or "host" not in data:
            raise LabError("saved lab state is damaged: no cluster")
        try:
            api = MockCluster.from_json(data["cluster"])
        except (ApiError, KeyError, TypeError, ValueError) as exc:
            raise LabError(f"saved lab state is damaged: {exc}") from None
        return cls(api, HostState.from_json(data["host"]))


def load_world_spec(ticket_id: str) -> dict[str, Any]:
    path = TICKETS_DIR / f"{ticket_id}.yaml"
    if not ticket_id.replace("-", "").isalnum() or not path.is_file():
        raise LabError(f"unknown ticket {ticket_id!r}")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    world = data.get("world") or {}
    if not isinstance(world, dict):
        raise LabError(f"ticket {ticket_id}: world must be a mapping")
    return world


def build_cluster(ticket: str | dict[str, Any], seed: int = 0) -> MockCluster:
    """A ticket's cluster (by id or by its `world:` mapping), warmed up to the session's start."""
    return build_world(ticket, seed).api


# Ticket worlds kept per process (see template_world): about 1 MB each, fifteen tickets and a few
# seeds apiece.
TEMPLATES = 64  # fifteen tickets x SEED_VARIANTS (studysite.lab.saved), with room
_templates: OrderedDict[tuple[str, int], World] = OrderedDict()
_templates_lock = threading.Lock()
# Called with no arguments after each template is built and kept (a server process freezes it
# out of the garbage collector's walks: studysite.interpreter).
template_built: list[Callable[[], None]] = []


def template_world(ticket: str | dict[str, Any], seed: int = 0) -> World:
    """``build_world(ticket, seed)``, built once per process and kept (the newest TEMPLATES):
    never changed, only forked (``new_world``)."""
    spec = load_world_spec(ticket) if isinstance(ticket, str) else dict(ticket)
    key = (_spec_key(spec), seed)
    with _templates_lock:
        found = _templates.get(key)
        if found is not None:
            _templates.move_to_end(key)
            return found
    # Built outside the lock: another ticket's learners need not wait; two threads building
    # the same template at once both build it, and the second is kept.
    built = build_world(spec, seed)
    built.built_digest = _built_digest(spec, built)
    with _templates_lock:
        _templates[key] = built
        while len(_templates) > TEMPLATES:
            _templates.popitem(last=False)
    for hook in template_built:
        hook()
    return built


def new_world(ticket: str | dict[str, Any], seed: int = 0) -> World:
    """A ticket's world at the session's start, equal to ``build_world(ticket, seed)``: a fork
    of its template, so it costs a few ms at most and its memory is what its learner changes."""
    spec = load_world_spec(ticket) if isinstance(ticket, str) else dict(ticket)
    template = template_world(spec, seed)
    world = template.fork()
    world.origin = Origin(template, template.built_digest or _digest(spec), seed)
    return world


def share_with_template(world: World, ticket: str | dict[str, Any]) -> None:
    """Let a world restored from its saved form hold its ticket's template objects (and parts)
    wherever it still equals them (MockCluster.share_with), so a lab opened from the database
    costs about what a forked one does. Only a template already built: none is built for this;
    the same seed's is best, another seed's still shares the parts no name or uid is in."""
    spec = load_world_spec(ticket) if isinstance(ticket, str) else dict(ticket)
    spec_key = _spec_key(spec)
    with _templates_lock:
        found = _templates.get((spec_key, world.api.seed))
        if found is None:
            found = next((t for (k, _), t in reversed(_templates.items()) if k == spec_key), None)
    if found is not None:
        world.api.share_with(found.api)


def from_template(ticket: str | dict[str, Any], data: Any) -> World:
    """The world a saved ``as_template()`` holds: its template forked, with the saved changes
    applied. LabError if the ticket's world is no longer the one it was saved from, or the
    data is damaged."""
    spec = load_world_spec(ticket) if isinstance(ticket, str) else dict(ticket)
    named = data.get("template") if isinstance(data, dict) else None
    seed = named.get("seed") if isinstance(named, dict) else None
    if type(seed) is not int:
        raise LabError("saved lab state is damaged: seed is not a number")
    world = new_world(spec, seed)
    origin = world.origin
    assert origin is not None and isinstance(named, dict)
    if named.get("world") != origin.digest:
        raise LabError("saved lab state is damaged: its ticket's world has changed")
    if "changes" not in data:
        return world
    try:
        api = saved.load_changes(origin.template.api, data["changes"])
    except (ApiError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise LabError(f"saved lab state is damaged: {exc}") from None
    changed = World(api, HostState.from_json(data.get("host")))
    changed.origin = origin
    return changed


def _spec_key(spec: dict[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True, default=str)


def _digest(spec: dict[str, Any]) -> str:
    return hashlib.sha256(_spec_key(spec).encode()).hexdigest()[:16]


def _built_digest(spec: dict[str, Any], built: World) -> str:
    """What a saved lab names its template by: the ticket's spec and the world built from it,
    so that a change to how worlds are built (a new object every cluster starts with), and not
    only to the ticket, starts its saved labs afresh instead of applying their changes to a
    template they were not made from. About 7 ms, once per template."""
    text = json.dumps(
        [_spec_key(spec), saved.dump(built.api, copy=False), built.state.to_json()],
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def build_world(ticket: str | dict[str, Any], seed: int = 0) -> World:
    spec = load_world_spec(ticket) if isinstance(ticket, str) else dict(ticket)
    api = MockCluster(seed=seed)
    # Nobody watches the build: its writes keep no copies for watchers (the saved state had
    # none either), and the built cluster keeps the usual history from its start.
    api.keep_watch_history(0)
    api.clock.seconds = -CLUSTER_AGE
    world = World(api, HostState(seed=seed))
    world.state.files.update({str(k): str(v) for k, v in (spec.get("files") or {}).items()})
    made = [str(k).rstrip("/") for k in spec.get("folders") or []]
    world.state.folders = fs.with_ancestors(world.state.files, made)
    runai_spec = spec.get("runai") or {}
    world.state.runai = RunaiCli(
        installed=bool(runai_spec.get("installed", True)),
        logged_in=bool(runai_spec.get("logged_in", True)),
        default_project=str(runai_spec.get("default_project", "") or ""),
    )
    world.state.helm = [
        HelmRelease("gpu-operator", "gpu-operator", "gpu-operator-v24.9.2", 1, -CLUSTER_AGE),
        HelmRelease("runai-cluster", "runai", f"runai-cluster-{RUNAI_VERSION}", 1, -CLUSTER_AGE),
    ]
    seed_defaults(api)
    base_cluster(api, spec)
    _settle(api, SETTLE_STEPS)
    for when, action in story(spec, api, world.state.files):
        if when > api.clock.seconds:
            api.clock.seconds = when
        action()
        _settle(api, SETTLE_STEPS)
    api.clock.seconds = max(api.clock.seconds, -WARMUP_STEPS * STEP_SECONDS)
    while api.clock.seconds < 0:
        _settle(api, 1)
    api.clock.seconds = 0
    api.keep_watch_history(WATCH_LOG_SIZE)
    return world


def _settle(api: MockCluster, steps: int) -> None:
    for _ in range(steps):
        api.clock.advance()
        run_controllers(api)


def describe_world(world: World) -> dict[str, Any]:
    """A small summary, handy in tests and debugging."""
    out: dict[str, Any] = {"step": world.state.step, "nodes": {}, "workloads": {}}
    for node in world.api.list("nodes")["items"]:
        labels = node["metadata"].get("labels", {})
        out["nodes"][node["metadata"]["name"]] = {
            "mig.config": labels.get(mig_manager.CONFIG_LABEL),
            "state": labels.get(mig_manager.STATE_LABEL),
            "unschedulable": bool(node["spec"].get("unschedulable")),
        }
    for wl in runai.all_workloads(world.api):
        out["workloads"][wl["metadata"]["name"]] = wl.get("status", {}).get("phase")
    return out


__all__ = [
    "HostState",
    "RunaiCli",
    "World",
    "build_cluster",
    "build_world",
    "describe_world",
    "from_template",
    "new_world",
    "share_with_template",
    "template_world",
]
