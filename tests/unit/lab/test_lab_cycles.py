"""A command leaves nothing for the cycle collector: what it built (its shell, its context, its
output) is freed by reference counting as soon as it answers. A server process runs a full
collection rarely (studysite.interpreter), so anything a command left in a reference cycle,
and everything that held, stayed in memory until then (issue 30)."""

from __future__ import annotations

import gc

from simulators.lab import LabSession

LINES = [
    "kubectl get nodes",
    "kubectl get pods -A | grep gpu | wc -l",
    "kubectl describe node gpu-node2 | head -5",
    "kubectl get nodes -o name | xargs -n 1 echo",
    "echo $(kubectl get nodes --no-headers | wc -l) nodes",
    "kubectl label node gpu-node1 bench=yes --overwrite",
    "kubectl get pods -A -o yaml | sed 's/a/b/' | tail -2",
    "kubectl get pods -n nowhere",
    "cat /nothing/here",
    "nosuchcommand",
    "for n in 1 2; do echo $n; done",
    "export A=1; echo $A > /tmp/x; cat /tmp/x",
]


def test_a_labs_commands_leave_no_reference_cycle() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("kubectl get nodes")  # the process's first command warms its caches
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for line in LINES:
            lab.run(line)
        lab.complete("kubectl get no")
        gc.collect()
        left = sorted({type(o).__qualname__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
