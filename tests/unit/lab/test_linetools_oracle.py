"""kadmin's tac, rev, nl, paste, column and seq against this machine's real ones (GNU coreutils
9.1; util-linux 2.38's rev and column), in a UTF-8 locale: for generated lines, files and
options, the same bytes on stdout and the same exit status."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.lab.test_shell_oracle import RAW, WORDS, _ours, _real, texts

OPTIONS = {
    "tac": [[]],
    "rev": [[]],
    "nl": [[], ["-ba"], ["-bn"], ["-nln"], ["-nrz"], ["-w3"], ["-s:"], ["-v5"], ["-i2"]],
    "paste": [[], ["-s"], ["-d,"], ["-d", ",:"], ["-sd", "\\t-"], ["-d", "\\n"], ["-d", ""]],
    "column": [["-t"], ["-t", "-s,"], ["-t", "-o", "|"], [], ["-t", "-s", ":,"], ["-c", "40"]],
}
OPTIONS["nl"] += [["-ba", "-nrz", "-w2"], ["-bx"]]
OPTIONS["column"] += [["-x"]]
NUMBERS = ["1", "3", "10", "-3", "0", "2", "0.5", "0.1", "1.25", "-1.5", "1e1", "2e0", "1.5e1"]
NUMBERS += ["007", "+4", ".5", "x", "-0", "1e-1", "-.5", "1.", "2.50", "1e-2", "0x10", "1e2"]
# Hex floats (strtold's): a point or a lower-case p leaves their places unknown, and GNU's seq
# then prints every number with %g.
NUMBERS += ["0x1p3", "0x1.8p1", "0x.8p1", "-0x2p1", "0x1p-2", "0xAp0", "0x1.8", "0x3P1"]
SEQ_OPTIONS = [[], ["-w"], ["-s,"], ["-s", ", "], ["-f", "%.2f"], ["-f", "%g"], ["-f", "%e"]]
SEQ_OPTIONS += [["-f", "n=%03g|"], ["-w", "-s:"], ["-f", "x"], ["-f", "%d"], ["-f", "%g%g"]]
SEQ_OPTIONS += [["-w", "-f", "%g"], ["--equal-width"], ["--separator=;"], ["-s", ""]]


@pytest.mark.parametrize("tool", sorted(OPTIONS))
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_a_line_tool_prints_what_the_real_one_prints(tool: str, data: st.DataObject) -> None:
    options = data.draw(st.sampled_from(OPTIONS[tool]), label="options")
    text = st.one_of(texts(), RAW) if tool in ("tac", "rev") else texts()
    files = {
        f"f{n}.txt": data.draw(text, label=f"f{n}") for n in range(data.draw(st.integers(0, 2)))
    }
    args = [*options, *files]
    stdin = data.draw(texts(), label="stdin")
    assert _ours(tool, args, stdin, files) == _real(tool, args, stdin, files, "C.UTF-8"), args


@settings(max_examples=300, deadline=None)
@given(
    options=st.sampled_from(SEQ_OPTIONS),
    numbers=st.lists(st.sampled_from(NUMBERS), max_size=3),
)
def test_seq_prints_what_gnu_seq_prints(options: list[str], numbers: list[str]) -> None:
    args = [*options, *numbers]
    assert _ours("seq", args, "", {}) == _real("seq", args, "", {}, "C.UTF-8"), args


# nl's logical pages: lines of the delimiter three, two or one times start a header, body or
# footer; each section has its own style, and the numbers start over at each unless -p.
NL_PAGE_LINES = ["\\:\\:\\:", "\\:\\:", "\\:", "XYXY", "X:", "X:X:X:", "", "", "ab", "b a", "\\:x"]
NL_PAGE_OPTIONS = [
    [], ["-p"], ["-ha", "-fa"], ["-ht", "-bn", "-fa"], ["-dX"], ["-dXY", "-ha"], ["-d", ""],
    ["-ba", "-l2"], ["-ba", "-l3", "-p"], ["-bpa"], ["-hp^b", "-bpb$"], ["-v3", "-i2", "-ha"],
    ["--header-numbering=a", "--no-renumber"], ["--section-delimiter=X", "--footer-numbering=t"],
]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    options=st.sampled_from(NL_PAGE_OPTIONS),
    lines=st.lists(st.sampled_from([*NL_PAGE_LINES, *WORDS]), max_size=12),
    ended=st.booleans(),
)
def test_nl_numbers_logical_pages_as_gnu_nl_does(
    options: list[str], lines: list[str], ended: bool
) -> None:
    stdin = "\n".join(lines) + ("\n" if lines and ended else "")
    assert _ours("nl", options, stdin, {}) == _real("nl", options, stdin, {}, "C.UTF-8"), (
        options,
        stdin,
    )
