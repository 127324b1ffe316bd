"""`kubectl COMMAND --help` in the lab is the real kubectl's page, for every command it serves.

The pages come from the real binary each run (tests/oracle/help_pages.py), so a page the lab
copied wrong, or one the binary has and the lab lacks, fails here; `python -m
tests.oracle.help_pages --write` copies them again.
"""

from __future__ import annotations

import os
import random
import shlex
import subprocess

import pytest

from simulators.lab.environment import HOME
from simulators.lab.kubectl import help as kubectl_help
from simulators.lab.tool import streams
from tests.cluster_server import kubectl_binary
from tests.oracle.help_pages import global_pages, pages
from tests.unit.lab.kubectl_cluster import Lab

BINARY = kubectl_binary()
pytestmark = pytest.mark.skipif(BINARY is None, reason="the real kubectl is not installed")


def real_pages() -> dict[tuple[str, ...], str]:
    assert BINARY is not None
    return pages(BINARY)


def test_the_lab_has_a_page_for_every_command_and_subcommand_the_real_kubectl_lists() -> None:
    found = real_pages()
    assert len(found) > 80
    copied = {path.stem for path in kubectl_help.HELP_DIR.glob("*.txt")}
    assert copied == {kubectl_help.file_name(command).removesuffix(".txt") for command in found}


def test_every_help_page_is_the_real_kubectls_word_for_word() -> None:
    lab = Lab()
    differ = []
    for command, text in real_pages().items():
        for line in (f"kubectl {' '.join(command)} --help", f"kubectl help {' '.join(command)}"):
            result = lab.run(line)
            if (result.code, result.text) != (0, text.removesuffix("\n")):
                differ.append(line)
    assert not differ, differ


@pytest.mark.parametrize(
    "line",
    [
        "kubectl create deploy -h",
        "kubectl create deploy web --image=nginx --help",
        "kubectl get pods -n kube-system --help",
        "kubectl set image deploy/web web=nginx:1.28 -h",
        "kubectl top po --help",
        "kubectl rollout undo deploy/web --help",
        "kubectl create secret generic -h",
    ],
)
def test_aliases_names_and_flags_around_the_help_flag_find_the_same_page_as_kubectl(
    line: str,
) -> None:
    assert BINARY is not None
    real = subprocess.run(
        [BINARY, *shlex.split(line)[1:]], capture_output=True, text=True, timeout=60, check=False
    )
    result = Lab().run(line)
    assert (result.code, result.text) == (real.returncode, real.stdout.removesuffix("\n"))


def run_in_shell(line: str) -> tuple[int, str, str]:
    """The lab's kubectl: its status, stdout and stderr, each as a file would hold it."""
    output = Lab().run(line)
    out, err = streams("kubectl", output)
    return output.code, out + "\n" if out else "", err + "\n" if err else ""


def real_run(line: str) -> subprocess.CompletedProcess[str]:
    """The real kubectl as the lab's user runs it: HOME is the admin host's, no cache folder
    set (options' `--cache-dir` is HOME's), no cluster needed for these lines."""
    assert BINARY is not None
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECACHEDIR", "KUBECONFIG")}
    env["HOME"] = HOME
    return subprocess.run(
        [BINARY, *shlex.split(line)[1:]],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )


def test_the_root_page_and_the_options_page_are_the_real_kubectls_word_for_word() -> None:
    assert BINARY is not None
    written = {name: kubectl_help.global_page(name) + "\n" for name in ("kubectl", "options")}
    assert written == global_pages(BINARY)


# kubectl's global flags (and -v values: valid, signed, out of range, not a number) drawn
# at random around `options`, before and after it, with a word that is not a flag now and
# then; the lab's answer (stdout, stderr, status) must be the real one's.
_FLAGS = ["-n x", "--namespace=y", "--context c", "--kubeconfig=k", "--request-timeout 5s", "-h"]
_FLAGS += ["--bogus", "-x", "--namespace", "--as=me", "extra", "-o yaml"]


def _verbosity(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return str(rng.randrange(0, 12))
    if kind == 1:
        return rng.choice("+-") + str(rng.randrange(0, 99))
    if kind == 2:
        return str(rng.choice([2**31 - 1, 2**31, 10**12]))
    if kind == 3:
        return rng.choice(["abc", "0x10", "1_0", "", "3.5", "0010"])
    return "0" * rng.randrange(1, 4) + str(rng.randrange(1, 9))


def _options_lines(count: int) -> list[str]:
    rng = random.Random(56)
    lines = []
    for _ in range(count):
        words = rng.sample(_FLAGS, rng.randrange(0, 3))
        if rng.random() < 0.6:
            words.append(f"--v={_verbosity(rng)}")
        split = rng.randrange(len(words) + 1)
        before = [w for w in words[:split] if w.startswith("-") and w != "-h"]
        lines.append(" ".join(["kubectl", *before, "options", *words[split:]]))
    return lines


@pytest.mark.parametrize("line", _options_lines(40))
def test_kubectl_options_answers_as_the_real_one_for_generated_flags(line: str) -> None:
    real = real_run(line)
    result = run_in_shell(line)
    assert result == (real.returncode, real.stdout, real.stderr)


@pytest.mark.parametrize(
    "line",
    [
        "kubectl",
        "kubectl --help",
        "kubectl help",
        "kubectl help foo",
        "kubectl help foo bar",
        "kubectl help 'a`b' x",
        "kubectl help create foo",
        "kubectl get nodes --v=abc",
        "kubectl get nodes -v 2147483648",
        "kubectl get pods --v=+1 --help",
        "kubectl help -n x get",
        "kubectl --bogus --bogus=1 help",
        "kubectl -x help nosuch",
        "kubectl -n x help get",
        "kubectl create deploy web --bogus",
        "kubectl set image --bogus",
        "kubectl --as=me --insecure-skip-tls-verify --warnings-as-errors",
    ],
)
def test_the_root_page_unknown_help_topics_and_bad_verbosity_answer_as_the_real_kubectl(
    line: str,
) -> None:
    real = real_run(line)
    assert run_in_shell(line) == (real.returncode, real.stdout, real.stderr)


# Words around a command as a learner may put them: global flags in both forms, flags kubectl
# does not have, a bare help flag, `--`, stray words; commands that need no cluster.
_AROUND = ["-n dev", "--namespace=dev", "-n", "--context c", "--kubeconfig=k", "-v 2", "--v=1"]
_AROUND += ["--request-timeout 5s", "--bogus", "-x", "--bogus=1", "-h", "--", "stray"]
_COMMANDS = ["", "options", "help", "help get", "help create deploy", "help nosuch"]
_COMMANDS += ["get pods --help", "create deployment -h", "nodes", "optoins", "rollout --help"]


def _found_lines(count: int) -> list[str]:
    rng = random.Random(5600)
    lines = []
    for _ in range(count):
        before = rng.sample(_AROUND, rng.randrange(0, 3))
        after = rng.sample(_AROUND, rng.randrange(0, 2))
        lines.append(" ".join(["kubectl", *before, rng.choice(_COMMANDS), *after]).strip())
    return lines


@pytest.mark.parametrize("line", _found_lines(60))
def test_kubectl_finds_the_command_a_generated_line_names_as_the_real_one_does(line: str) -> None:
    real = real_run(line)
    assert run_in_shell(line) == (real.returncode, real.stdout, real.stderr)
