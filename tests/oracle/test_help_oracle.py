"""`kubectl COMMAND --help` in the lab is the real kubectl's page, for every command it serves.

The pages come from the real binary each run (tests/oracle/help_pages.py), so a page the lab
copied wrong, or one the binary has and the lab lacks, fails here; `python -m
tests.oracle.help_pages --write` copies them again.
"""

from __future__ import annotations

import shlex
import subprocess

import pytest

from simulators.lab.kubectl import help as kubectl_help
from tests.cluster_server import kubectl_binary
from tests.oracle.help_pages import pages
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
