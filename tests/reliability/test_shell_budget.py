"""Hostile jq and awk programs stay within the command's budget, and the lab answers after.

jq is C code that Python cannot interrupt: its child process must be killed at the budget
(`repeat(.)` never ends, `[range(1e9)]` is one call that would take gigabytes); awk is
interpreted here and must check the budget in its loops and cap its strings.
"""

from __future__ import annotations

import random
import time

import pytest

from simulators.lab import LabSession, budget

pytestmark = pytest.mark.reliability

CPU_SECONDS = 0.25
# The wall time a stopped command may take: its budget, paced, on a busy 2-core machine.
WALL_SECONDS = 3.0

HOSTILE = [
    "jq 'repeat(.)' <<< 1",
    "jq '[range(1e9)]' <<< 1",
    "jq -n '[limit(100000000; repeat(\"x\"))] | add'",
    "jq -n 'def f: [f]; f'",
    "jq -n '\"a\" * 100000000'",
    "awk 'BEGIN{while(1);}'",
    "awk 'BEGIN{for(;;) a[i++] = i}'",
    "awk 'BEGIN{x = \"ab\"; while (1) x = x x}'",
    "awk 'BEGIN{printf \"%*d\", 1000000000, 1}'",
    "awk 'BEGIN{while (1) print \"yes\"}'",
]


@pytest.mark.parametrize("line", HOSTILE)
def test_a_hostile_program_stops_within_the_budget_and_the_lab_still_answers(line: str) -> None:
    lab = LabSession.new("mig-single", seed=0)
    meter = budget.Meter(budget.Limits(cpu_seconds=CPU_SECONDS), pace=budget.Pace())
    started = time.monotonic()
    with budget.metered(meter):
        result = lab.run(line)
    took = time.monotonic() - started
    assert took < WALL_SECONDS, f"{line!r} took {took:.2f} s"
    assert meter.spent() < CPU_SECONDS * 2
    assert result.output
    assert "internal error" not in result.output
    assert len(result.output) <= budget.DEFAULT_OUTPUT_BYTES + 1024
    with budget.metered(budget.Meter()):
        assert lab.run("echo '{\"ok\": true}' | jq -c .").output == '{"ok":true}'


def test_expanding_a_long_variable_many_times_stops_at_the_output_limit() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("X=" + "a" * 4000)
    lab.run("X=" + "$X" * 15)
    started = time.monotonic()
    for line in ("echo " + "$X" * 1000, "cat <<EOF\n" + "$X" * 1000 + "\nEOF"):
        assert lab.run(line).output == (
            "bash: expansion too long for this lab (over the output limit)"
        )
    assert time.monotonic() - started < WALL_SECONDS


ALPHABET = "ab $(){}[]<>|&;'\"\\*?~=#!-\n\t0123456789%.:/,^+"
HEADS = [
    "echo ", "awk '", "jq '", "printf '", "cat <<", "X=", "export ", "alias ", "tr ",
    "cut -d", "sort -k", "k get ", "base64 -d <<< ", "xargs ", "cat ", "$(",
]  # fmt: skip


def test_random_shell_syntax_never_breaks_the_lab() -> None:
    """Seeded: quotes, expansions, here-documents, redirections and Ctrl+C in any order get
    bash's answers (or a tool's), never an internal error, each within the budget."""
    rng = random.Random(2)
    lab = LabSession.new("mig-single", seed=0)
    for _ in range(1000):
        line = rng.choice(HEADS) + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))
        if rng.random() < 0.1:
            lab.run("\x03")
        started = time.monotonic()
        with budget.metered(budget.Meter()):
            result = lab.run(line)
        assert "internal error" not in result.output, line
        assert time.monotonic() - started < WALL_SECONDS, line
    lab.run("\x03")
    assert lab.run("echo done").output == "done"
