"""`$RANDOM` on the admin host: a seeded sequence is bash 5.2's own (compared with this
machine's bash), an unseeded one the lab's, from its seed: the same lab, the same numbers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from tests.unit.lab.test_shell_compound_oracle import _bash, run_bash


@settings(max_examples=150, deadline=None)
@given(
    seed=st.one_of(
        st.integers(-(1 << 40), 1 << 40).map(str),
        st.sampled_from(
            ["0", " 7 ", "+3", "x", "", "9223372036854775808", "2147483647", "2*3+1", "0x10"]
        ),
    ),
    uses=st.lists(
        st.sampled_from(["$RANDOM", "${RANDOM}", "$((RANDOM % 10))", "${RANDOM:-x}"]),
        min_size=1,
        max_size=5,
    ),
)
def test_a_seeded_random_gives_bashs_numbers(seed: str, uses: list[str]) -> None:
    # Unseeded numbers differ (bash's come from the time); RANDOM is an integer variable, and
    # a seed that is no arithmetic keeps the sequence before it, so every line starts seeded.
    line = f"RANDOM=1; RANDOM='{seed}'; echo {' '.join(uses)}"
    lab = LabSession.new("mig-single", seed=0)
    done = run_bash(line)  # an arithmetic error in the seed comes before the echo's line
    assert lab.run(line).output == (
        done.stderr.replace("bash: line 1: ", "bash: ") + done.stdout
    ).rstrip("\n"), line


def test_random_is_new_at_each_expansion_and_the_labs_own() -> None:
    first = LabSession.new("mig-single", seed=0).run("echo $RANDOM $RANDOM $RANDOM").output
    numbers = [int(n) for n in first.split()]
    assert len(set(numbers)) == 3 and all(0 <= n <= 32767 for n in numbers)
    again = LabSession.new("mig-single", seed=0).run("echo $RANDOM $RANDOM $RANDOM").output
    assert again == first
    other = LabSession.new("mig-single", seed=7).run("echo $RANDOM $RANDOM $RANDOM").output
    assert other != first


def test_random_goes_on_in_a_restored_lab() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("RANDOM=42; echo $RANDOM")
    restored = LabSession.from_json(lab.encode())
    assert restored.run("echo $RANDOM").output == lab.run("echo $RANDOM").output
    assert lab.run("RANDOM=42; echo $RANDOM $RANDOM").output == _bash(
        "RANDOM=42; echo $RANDOM $RANDOM"
    )
