"""The watch oracle: `kubectl get ... -w` by the real kubectl and by the lab's, on the same
state, while the same writes change it.

The real kubectl watches the in-process API server (tests/oracle/harness.Oracle) in the
background; each write runs on both sides (`Oracle.both`, which keeps both copies equal, one
world step per accepted write), and the lab's watch is resumed after each write, as the
terminal resumes it after each step (simulators.lab.kubectl.get_watch). Once the real
kubectl's output stops growing, both transcripts are compared with ages masked.
"""

from __future__ import annotations

import dataclasses
import os
import random
import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from simulators.lab import kubectl
from simulators.lab.streams import StreamRequest
from simulators.lab.tool import Output
from tests.cluster_server import kubectl_binary
from tests.oracle.harness import Oracle, mask, step
from tests.oracle.pieces import Draw, facts

# How long the real kubectl's output may take to catch up with a write: the server's watch
# polls every WATCH_POLL_SECONDS; a loaded machine needs more.
SETTLE_SECONDS = 8.0
QUIET_SECONDS = 0.4


@dataclass(frozen=True)
class WatchCase:
    ticket: str
    watch: str  # the kubectl get -w (or rollout status) line
    writes: tuple[str, ...]
    setup: tuple[str, ...] = ()  # run on both sides before the watch starts


@dataclass
class Transcripts:
    real: str
    lab: str

    @property
    def agree(self) -> bool:
        return _normal(self.real) == _normal(self.lab)


def _normal(text: str) -> str:
    return mask(text.rstrip("\n"))


class Watcher:
    """The real kubectl's watch in the background, its stdout (and stderr) gathered."""

    def __init__(self, running: Oracle, line: str) -> None:
        binary = kubectl_binary()
        assert binary is not None
        env = {
            **os.environ,
            "KUBECONFIG": str(running.kubeconfig),
            "KUBECACHEDIR": str(running.cache),
            "PATH": str(running.tools),
        }
        self.process = subprocess.Popen(
            [binary, *shlex.split(line)[1:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=running.tmp,
        )
        self.chunks: list[bytes] = []
        self.changed = time.monotonic()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := self.process.stdout.read1(65536):  # type: ignore[attr-defined]
            self.chunks.append(chunk)
            self.changed = time.monotonic()

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", errors="replace")

    def settle(self, until: Callable[[str], bool]) -> str:
        """The output once `until` holds of it and it has been quiet a moment, or after
        SETTLE_SECONDS."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < deadline:
            quiet = time.monotonic() - self.changed > QUIET_SECONDS
            if quiet and (until(self.text) or self.process.poll() is not None):
                break
            time.sleep(0.05)
        return self.text

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=20)
        self.reader.join(timeout=20)
        return self.text


def watched_store_calls(running: Oracle) -> threading.Event:
    """Set once the server's store has been asked for a watch (a named object's watch starts
    from "now": a write before it would be missed)."""
    seen = threading.Event()
    store = running.world.api
    original = store.watch

    def watch(*args: Any, **kwargs: Any) -> Any:
        seen.set()
        return original(*args, **kwargs)

    store.watch = watch  # type: ignore[method-assign]
    return seen


def run_case(running: Oracle, case: WatchCase) -> Transcripts:
    """One case from the ticket's starting state: both watches, then each write."""
    running.reset()
    for line in case.setup:
        running.both(line)
    seen = watched_store_calls(running)
    ctx = running.ctx
    api = running.local.api
    words = shlex.split(case.watch)[1:]
    ctx.stream = ctx.resume = None
    first = kubectl.run(ctx, words)
    lab = [_printed(first)]
    request: StreamRequest | None = ctx.stream
    watcher = Watcher(running, case.watch)
    try:
        if request is not None:
            seen.wait(timeout=SETTLE_SECONDS)
        # The real kubectl's first answer before any write (all of it, where the lab's ended).
        watcher.settle(lambda text: _normal(text).startswith(_normal("".join(lab))))
        for write in case.writes:
            since = str(api.resource_version)
            before = (running.world.steps, ctx.world.api.steps)
            running.both(write)
            # A write the real kubectl sends and the lab's skips (a patch that changes nothing)
            # still steps the server's world: the lab's is stepped as many times.
            server, local = running.world.steps - before[0], ctx.world.api.steps - before[1]
            for _ in range(server - local):
                step(api)
            if request is None:
                continue
            ctx.stream, ctx.resume = None, dataclasses.replace(request, since=since)
            more = kubectl.run(ctx, words)
            ctx.resume = None
            lab.append(_printed(more))
            request = ctx.stream
        expected = _normal("".join(lab))
        real = watcher.settle(lambda text: len(_normal(text)) >= len(expected))
    finally:
        real = watcher.stop()
    return Transcripts(real, "".join(lab))


def _printed(output: Output) -> str:
    """What a terminal shows of one answer: stderr, then stdout as the tool wrote it."""
    text = output.text + ("\n" if output.text and output.newline else "")
    return (output.stderr + "\n" if output.stderr else "") + text


# ------------------------------------------------------------------------- generated cases

WATCHED = (
    "pods",
    "deployments.apps",
    "replicasets.apps",
    "nodes",
    "configmaps",
    "services",
    "namespaces",
    "serviceaccounts",
)
OUTPUTS = (
    "",
    "",
    "",
    "-o wide",
    "-o name",
    "-o yaml",
    "-o json",
    "-o kyaml",
    "-o jsonpath={.metadata.name}",
    "-o custom-columns=NAME:.metadata.name,RV:.metadata.labels",
    "-o go-template='{{.metadata.name}}{{\"\\n\"}}'",
    "-o go-template='{{.metadata.name}}'",
)
FLAGS = (
    "--output-watch-events",
    "--no-headers",
    "--show-labels",
    "-L app",
    "--show-kind",
    "--sort-by=.metadata.name",
    "--ignore-not-found",
)


def generate(seed: int, count: int, tickets: list[str]) -> list[WatchCase]:
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        ticket = tickets[i % len(tickets)]
        cases.append(_case(Draw(rng, facts(ticket)), ticket))
    return cases


def _case(d: Draw, ticket: str) -> WatchCase:
    world = d.world
    key = d.pick([k for k in WATCHED if k in world.kinds])
    kind = world.kinds[key]
    objs = world.of(key)
    parts = ["kubectl get", d.name_of(kind)]
    obj = d.obj(key) if objs and d.chance(0.25) else None
    if obj is not None:
        parts.append(obj.name)
        if obj.namespace:
            parts.append(f"-n {obj.namespace}")
        scope_objs = [obj]
    else:
        scope, scope_objs = d.scope(kind)
        parts.append(scope)
        if d.chance(0.2):
            parts.append(d.selector(scope_objs or objs))
    parts.append(d.pick(["-w", "--watch", "--watch-only", "-w --watch-only"]))
    parts.append(d.pick(OUTPUTS))
    for flag in FLAGS:
        if d.chance(0.15):
            parts.append(flag)
    watch = " ".join(p for p in parts if p)
    writes = tuple(_write(d, key, scope_objs or objs) for _ in range(d.pick([1, 2, 3])))
    return WatchCase(ticket, watch, writes)


def _write(d: Draw, key: str, objs: list[Any]) -> str:
    """A change to one of the objects the watch sees (or another of its kind)."""
    target = d.pick(objs) if objs else None
    if target is None:
        return "kubectl create configmap watched-cm --from-literal=a=b"
    ns = f" -n {target.namespace}" if target.namespace else ""
    ref = f"{key.split('.')[0]} {target.name}{ns}"
    return str(
        d.pick(
            [
                f"kubectl label {ref} watched=yes",
                f"kubectl annotate {ref} note=changed",
                f"kubectl label {ref} app=watched --overwrite",
            ]
            + ([f"kubectl delete {ref} --wait=false"] if key in ("pods", "configmaps") else [])
            + ([f"kubectl scale {ref} --replicas=3"] if key == "deployments.apps" else [])
            + ([f"kubectl cordon {target.name}"] if key == "nodes" else [])
        )
    )
