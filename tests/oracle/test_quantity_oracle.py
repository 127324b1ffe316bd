"""Resource quantities nobody on the project chose (seeded random numbers, fractions, signs,
leading zeros and suffixes, past int64 too) written by `kubectl set resources` and `kubectl
create quota` as the real kubectl writes them (simulators/lab/kubectl/quantities.py, one
implementation for both). Marker `oracle`; about 10 s."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.cluster_server import kubectl_binary
from tests.oracle.harness import oracle, same

SEED = 54
COUNT = 60
SUFFIXES = [
    *("", "m", "u", "n", "k", "M", "G", "T", "P", "E"),
    *("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"),
    *("e3", "e-3", "E2", "e0", "e18", "e-9", "x", "mi"),
]
WHOLES = [0, 1, 2, 7, 8, 10, 100, 1000, 1024, 1536, 123456789, 10**17, 10**19]


def quantities(seed: int, count: int) -> list[str]:
    draw = random.Random(seed)
    out = []
    for _ in range(count):
        number = str(draw.choice(WHOLES))
        if draw.random() < 0.3:
            number = "0" * draw.randint(1, 2) + number
        if draw.random() < 0.4:
            number += "." + "".join(draw.choice("0123456789") for _ in range(draw.randint(0, 4)))
        if draw.random() < 0.15:
            number = draw.choice("+-") + number
        out.append(number + draw.choice(SUFFIXES))
    return out


@pytest.mark.oracle
def test_set_resources_and_create_quota_write_every_quantity_as_the_real_kubectl(
    tmp_path: Path,
) -> None:
    if kubectl_binary() is None:
        pytest.fail("kubectl is missing: pip install -r requirements-test.txt")
    differences = []
    lines = []
    for quantity in quantities(SEED, COUNT):
        lines += [
            f"kubectl set resources deploy w --limits=cpu={quantity} --dry-run=client"
            " -o jsonpath={.spec.template.spec.containers[0].resources.limits.cpu}",
            f"kubectl create quota q --hard=cpu={quantity} --dry-run=client"
            " -o jsonpath={.spec.hard.cpu}",
        ]
    with oracle("department-cap", tmp_path) as running:
        running.both("kubectl create deployment w --image=nginx")
        for line in lines:
            lab, real = running.both(line)
            if not same(line, lab, real):
                differences.append(f"$ {line}\n--- real\n{real.text}\n--- lab\n{lab.text}")
    assert not differences, f"{len(differences)} of {len(lines)} differ:\n\n" + "\n\n".join(
        differences
    )
