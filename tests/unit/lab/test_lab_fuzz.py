"""No input line makes run() or complete() raise, and nothing hits the internal-error path."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from simulators.lab.session import INTERNAL_ERROR

SESSIONS = {t: LabSession.new(t, seed=1) for t in ("mig-mixed", "validate-runai")}
SESSIONS["validate-runai"].run("runai login")

WORDS = [
    "kubectl",
    "runai",
    "helm",
    "sed",
    "cat",
    "ls",
    "grep",
    "get",
    "describe",
    "label",
    "drain",
    "logs",
    "exec",
    "apply",
    "create",
    "delete",
    "patch",
    "pods",
    "nodes",
    "node/gpu-node3",
    "-n",
    "gpu-operator",
    "-A",
    "-o",
    "yaml",
    "jsonpath={.items[*]}",
    "-L",
    "--overwrite",
    "--",
    "nvidia-smi",
    "-L",
    "-f",
    "triton.yaml",
    "-p",
    '{"spec":{}}',
    "--type",
    "merge",
    "training",
    "workspace",
    "submit",
    "list",
    "t1",
    "team-a",
    "-i",
    "img",
    "-g",
    "0.5",
    "--gpu-portion-request",
    "'",
    '"',
    "|",
    "&&",
    ";",
    ">",
    "x.yaml",
    "s/a/b/g",
    "-i",
    "\\",
    "nvidia.com/mig.config=all-1g.10gb",
    "gpu-node3",
    "pod",
    "triton",
    "#",
    "ünïcødé",
    "\x00",
]

lines = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join),
    st.text(alphabet="'\"\\|&;>< -", max_size=50),
    st.integers(4000, 9000).map(lambda n: "kubectl get pods " + "x" * n),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ticket=st.sampled_from(sorted(SESSIONS)), line=lines)
def test_no_exception_escapes_run_or_complete(ticket: str, line: str) -> None:
    session = SESSIONS[ticket]
    result = session.run(line)
    assert isinstance(result.output, str)
    assert INTERNAL_ERROR not in result.output
    assert all(isinstance(c, str) for c in session.complete(line))
