"""kadmin's echo and printf against bash 5.2's builtins on this machine, and its xargs against
GNU findutils 4.9's, in a UTF-8 locale: for generated formats, arguments and input, the same
bytes on stdout and the same exit status.

Left out, each a limit of the lab or of the C library: widths past the lab's 4,096 columns
(bash pads to any width it is given), `%f`, `%e` and `%g` of numbers past double precision
(bash's long double keeps 64 bits of mantissa), `%q` and `%(...)T` (their own tests).
"""

from __future__ import annotations

import shlex

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from tests.unit.lab.test_shell_oracle import _ours, _real, texts

FORMATS = [
    "%s\\n", "%d\\n", "%5s|", "%-5s|", "%05d", "%x %X %o", "%c", "%b", "%%", "%.2f\\n", "%e",
    "%g", "%10.3s|", "%i", "%u", "a\\tb\\n", "\\x41\\101\\u00e9", "%s %s\\n", "%3$s", "%*d",
    "%-*s|", "\\c", "%s", "%d%%\\n", "%#x", "%#o", "%+d", "% d", "%'d", "%.0f", "%5.1e",
    "%06.1f|", "%+G", "\\0101\\E\\q\\\"", "\\xe2\\x82\\xac\\377|", "%.1s|",
]  # fmt: skip
ARGUMENTS = [
    "a", "10", "-3", "1.5", "0x1f", "010", "08", "'A", '"b', "", "x y", "abc\\n", "\\t", "3e2",
    "9999999999999999999", "-", "1e", "+7", " 5", "é", "\\0101", "\\u00e9\\c", "-8",
    "\\xc3\\xa9\\0200", "€", "0x.8p1", "-0x1p-2", "0x1P+3x", "inf", "-nan",
]  # fmt: skip
ECHOES = [[], ["-n"], ["-e"], ["-E"], ["-ne"], ["-en", "-E"]]
LONG = "9999999999999999999"


def _bash(builtin: str, args: list[str]) -> tuple[str, int]:
    return _real("bash", ["-c", f'{builtin} "$@"', "_", *args], "", {}, locale="C.UTF-8")


@settings(max_examples=400, deadline=None)
@given(
    formats=st.lists(st.sampled_from(FORMATS), min_size=1, max_size=3),
    args=st.lists(st.sampled_from(ARGUMENTS), max_size=3),
)
# Found by a random seed: %b's \c ends printf with success, even after a bad number.
@example(formats=["%s\\n", "%d\\n", "%b"], args=["a", "a", "\\u00e9\\c"])
def test_printf_prints_what_bashs_printf_prints(formats: list[str], args: list[str]) -> None:
    line = ["".join(formats), *args]
    if LONG in args and any(c in line[0] for c in "*feg"):
        return  # past the lab's widths, or past double precision (the docstring)
    assert _ours("printf", line, "", {}) == _bash("printf", line), line


@settings(max_examples=200, deadline=None)
@given(
    options=st.sampled_from(ECHOES),
    args=st.lists(st.sampled_from(ARGUMENTS + FORMATS), max_size=3),
)
def test_echo_prints_what_bashs_echo_prints(options: list[str], args: list[str]) -> None:
    line = [*options, *args]
    assert _ours("echo", line, "", {}) == _bash("echo", line), line


XARGS_OPTIONS = [[], ["-n1"], ["-n", "2"], ["-r"], ["-I", "{}", "echo", "<{}>"], ["-L1"]]
XARGS_OPTIONS += [["-0"], ["-d,"], ["-rn1"], ["-L", "2"], ["-d", "\\n"], ["--null", "-n1"]]
XARGS_INPUTS = ["'a b' c\n", 'x "y z"\n', "a\\ b c\n", "", "\n", "  \n", "a,b,,c\n", "a\0b\0"]
XARGS_INPUTS += ["it's\n", "  lead  x\ntrail  \n\nq 'r s'\n", "a b 'c", "a ''  b\n"]
XARGS_INPUTS += ["a\\ \nb\nc\n", "a\\\t\nb\n", "a\\\\\nb\n"]
LAB = LabSession.new("mig-single", 1)


@settings(max_examples=300, deadline=None)
@given(
    options=st.sampled_from(XARGS_OPTIONS),
    stdin=st.one_of(texts(), st.sampled_from(XARGS_INPUTS)),
)
def test_xargs_runs_what_gnu_xargs_runs(options: list[str], stdin: str) -> None:
    """With echo as the command: quotes, -0, -d, -n, -L, -I and -r as findutils 4.9's."""
    args = [*options, *([] if "-I" in options else ["echo"])]
    LAB.world.state.files["in.txt"] = stdin
    line = "cat in.txt | xargs " + " ".join(shlex.quote(a) for a in args) + " 2>/dev/null"
    ours = LAB.run(line + "; echo status=$?").output
    out, status = _real("xargs", args, stdin, {}, "C.UTF-8")
    assert ours == f"{out}status={status}", (args, stdin)


@pytest.mark.parametrize("stdin", XARGS_INPUTS[-3:])
def test_an_escaped_blank_at_a_lines_end_carries_it_on_under_dash_l_as_in_gnu_xargs(
    stdin: str,
) -> None:
    LAB.world.state.files["in.txt"] = stdin
    ours = LAB.run("cat in.txt | xargs -L1 echo; echo status=$?").output
    out, status = _real("xargs", ["-L1", "echo"], stdin, {}, "C.UTF-8")
    assert ours == f"{out}status={status}"
