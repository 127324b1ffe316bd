"""bash's `$RANDOM` on the admin host: 0 to 32767, a new number at each expansion, from bash
5.2's own generator (variables.c's intrand32, Park and Miller's minimal standard, and
lib/sh/random.c's brand: the state's halves XORed, never the same number twice in a row).
`RANDOM=N` seeds it with N (RANDOM is an integer variable: N is arithmetic, the shell works
it out), so a seeded sequence is bash's own. Unseeded, a lab starts it from the lab's seed
(a `random.Random` of its own, never the global one): the same lab gives the same numbers.
The state is kept with the shell (ShellState.random).
"""

from __future__ import annotations

import random
import re

_MASK = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
# What strtoul reads: blanks, a sign, decimal digits.
_NUMBER = re.compile(r"[ \t\n\v\f\r]*([-+]?)([0-9]+)")


def start(lab_seed: int) -> int:
    """The state an unseeded lab's shell starts from."""
    return random.Random(lab_seed).getrandbits(31)


def _intrand32(last: int) -> int:
    ret = last or 123459876  # it cannot go on from 0
    high, low = divmod(ret, 127773)
    t = 16807 * low - 2836 * high
    return t + 0x7FFFFFFF if t < 0 else t


def following(state: int, last: int) -> tuple[int, int]:
    """(the next state, the number) after `state`, whose last number was `last`."""
    while True:
        state = _intrand32(state)
        number = ((state >> 16) ^ (state & 0xFFFF)) & 32767
        if number != last:
            return state, number


def seed_of(value: str) -> int:
    """The state `RANDOM=value` seeds: the value as C's strtoul reads it (leading digits after
    blanks and a sign; none is 0; past 64 bits the largest), in 32 bits."""
    found = _NUMBER.match(value)
    if found is None:
        return 0
    sign, digits = found.groups()
    number = _MASK64 if len(digits) > 20 else int(digits)
    number = _MASK64 if number > _MASK64 else number
    return (-number if sign == "-" else number) & _MASK
