"""What a learner types, and what their pipes make, is read by the tools' own regular
expressions (numbers, printf directives) with Python's backtracking engine, which the command's
budget cannot stop halfway through. A pattern with two ways to read one run of digits
(`\\d+\\.?\\d*`, or a `0` flag beside a `\\d*` width) took quadratic time to refuse a long
operand: 0.44-0.51 s of processor time for 4,000 digits and one more character, twice the
command's budget; about 16 s for a field of 18,894 digits that a pipe made. Each case here is
such an operand, and each now answers within the budget."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession

DIGITS, ZEROS = "1" * 4000, "0" * 4000
LONG_FIELD = "seq -s '' 5000 | sed 's/$/x/'"  # 18,894 digits, then an x
CASES = {
    "seq refusing a long number": f"seq {DIGITS}x",
    "seq refusing a long hex number": f"seq 0x{'f' * 4000}g",
    "seq refusing a long format": f"seq -f '%{ZEROS}q' 1",
    "awk's printf with a long directive": f"awk 'BEGIN {{ printf \"%{ZEROS}z\" }}'",
    "awk comparing a long field": f"{LONG_FIELD} | awk '$1 > 5'",
    "sort -g on a long key": f"{LONG_FIELD} | sort -g | wc -c",
    "printf reading a long float": f"printf '%f' {DIGITS}x",
}


@pytest.mark.parametrize("line", CASES.values(), ids=CASES.keys())
def test_a_long_operand_is_read_within_the_commands_budget(single: LabSession, line: str) -> None:
    output = single.run(line).output
    assert "command stopped" not in output, output[:200]
    assert "internal error" not in output
    assert "line too long" not in output  # the case is the one it names
