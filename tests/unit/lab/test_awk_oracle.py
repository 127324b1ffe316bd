"""kadmin's awk against the real gawk of this machine (Debian's gawk 5.2, installed by `make
test`), in a UTF-8 locale: for generated programs, files, stdin and options, the same bytes on
stdout and the same exit status.

The programs are built from pieces an admin types (patterns, ranges, BEGIN and END, print and
printf, fields and NF assignment, arithmetic, string functions, arrays, getline) over the same
generated lines as the other text tools (tests/unit/lab/test_shell_oracle.py). Left out, each a
gawk quirk no admin relies on: printing `for (k in a)` (gawk's order is its hash's), `length(a)`
of a name before it is known to be an array, NaN and infinities stored in a field (gawk 5.2.1
writes stray NUL bytes), `%c` of an empty field (gawk prints the byte after it), and deleting
an element of a new array by an unset name (gawk 5.2.1 stops: "attempt to use array `(null)'").
"""

from __future__ import annotations

import shutil
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab.commands import REGISTRY
from simulators.lab.tool import Context
from simulators.lab.world import HostState
from tests.unit.lab.test_shell_oracle import _ours, _real, texts

GAWK = shutil.which("gawk")

VALUES = [
    "$1", "$2", "$NF", "NR", "NF", "FNR", "FILENAME", "x", "y", "u", "\"10\"", "\"9\"",
    "\"abc\"", "\"\"", "0.1", "3", "-2", "1e3", "\" 12 \"", "\"0x1A\"", "\"+5\"", "\".5\"", "$0",
    "length", "length($0)", "$(NF+1)", "1/3", "2^10", "100000 * 100000", "-2^2", "7 % -3",
    "-7 % 3", "int(-3.7)", "int(\"4abc\")", "substr($0, 0, 2)", "substr($0, -1)",
    "substr($0, 2.5, 2)", "substr(\"hello\", 2)", "substr($1, 2, 1.5)", "index($0, \"node\")",
    "toupper($1)", "tolower(\"AbC\")", "sprintf(\"%05.1f\", $2)",
    "sprintf(\"%i|%o|%X|%e|%g\", $2, 8, 255, 12345.678, 0.0001)", "$1 $2", "($1 < $2)",
    "($1 == $2)", "(\"10\" < \"9\")", "($2 < 10)", "(u == 0)", "(u == \"\")", "(c[9] == 0)",
    "!$2", "$2 ? \"t\" : \"f\"", "$1 ~ \"^[gx]\"", "$0 ~ /[[:digit:]]{2}/", "/\\./",
    "x++ + ++x", "match($0, /[a-z]+/)", "RSTART", "RLENGTH", "split($0, q, /[-.]/)", "q[1]",
    "(1 in c)", "n", "s", "$1 + $2", "$2 - $1", "$2 / 4", "-$1", "+$1", "0.1 + 0.2",
    "\"a\" 1 + 2", "1 \" \" 2", "$1 * 1", "x y",
]  # fmt: skip
STATEMENTS = [
    "print {v}", "print {v}, {v}", "printf \"%s|\\n\", {v}",
    "printf \"%d %5.2f %-4s|\\n\", {v}, {v}, {v}", "printf \"%c\", {c}", "s += {v}", "x = {v}",
    "y = {v}; print y", "c[{v}]++", "n++", "gsub(/[0-9]/, \"<&>\"); print",
    "gsub(/a/, \"\\\\&\"); print", "sub(/ /, \"_\", $2); print", "$2 = {v}; print",
    "$5 = \"e\"; print; print NF", "NF = 2; print", "$0 = \"p q r\"; print $2, NF",
    "if ({v}) print \"yes\"; else print \"no\"", "for (i = 1; i <= NF; i++) t += $i; print t",
    "while (k < 3) k++; print k", "delete c", "delete c[$1]", "next", "exit", "exit 3",
    "OFS = \"-\"; $1 = $1; print", "ORS = \";\"; print", "print {v} > \"/dev/stderr\"",
    "getline; print \"got\", $0", "getline w; print w, NR",
    "CONVFMT = \"%.2g\"; z = 0.123456 \"\"; print z",
    "OFMT = \"%.2f\"; print 3.14159, 3.14159 \"\"",
    "split(\"a b c\", sp); print sp[3]", "print substr({v}, 2, 3)", "print index({v}, \"a\")",
    "print ({v}) ({v})", "print 1e300 * 1e10, -1e300 * 1e10", "for (k in c) m++; print m + 0",
]  # fmt: skip
CHARACTERS = ["65", '"xyz"', "NR", "1e3", "u", '$1 ""']
PATTERNS = ["", "", "NR==2", "NR>1", "/a/", "!/a/", "$2>5", "NF>2", "$1 ~ /^g/", "NR==FNR"]
PATTERNS += ["/a/,/b/", "NR==1,NR==2", "$2", "BEGIN", "END"]
OPTIONS = [[], ["-F,"], ["-F:"], ["-F", "\t"], ["-F", "[ ,]+"], ["-v", "x=1"], ["-v", "y=ab"]]
OPTIONS += [["-F", "a"], ["-F", " "], ["-F", ""]]


@st.composite
def programs(draw: st.DrawFn) -> str:
    rules = []
    for _ in range(draw(st.integers(1, 3))):
        pattern = draw(st.sampled_from(PATTERNS))
        statements = []
        for _ in range(draw(st.integers(1, 2))):
            statement = draw(st.sampled_from(STATEMENTS))
            statement = statement.replace("{c}", draw(st.sampled_from(CHARACTERS)))
            while "{v}" in statement:
                statement = statement.replace("{v}", draw(st.sampled_from(VALUES)), 1)
            statements.append(statement)
        body = "; ".join(statements)
        if pattern in ("BEGIN", "END"):  # gawk refuses next there (tested below)
            body = body.replace("next", "n++")
        rules.append(f"{pattern} {{ {body} }}" if pattern or draw(st.booleans()) else pattern)
    if draw(st.booleans()):
        rules.append("END { print s, n, x, t }")
    return "\n".join(rule for rule in rules if rule) or "1"


def _gawk(args: list[str], stdin: str, files: dict[str, str]) -> tuple[str, int]:
    if GAWK is None:
        pytest.fail("gawk is not installed: `make test` installs Debian's gawk for this test")
    return _real(GAWK, args, stdin, files, locale="C.UTF-8")


def _same(args: list[str], stdin: str, files: dict[str, str]) -> None:
    assert _ours("awk", args, stdin, files) == _gawk(args, stdin, files), (args, files)


@settings(max_examples=400, deadline=None)
@given(program=programs(), options=st.sampled_from(OPTIONS), data=st.data())
def test_awk_prints_what_gawk_prints(program: str, options: list[str], data: st.DataObject) -> None:
    names = [f"f{n}.txt" for n in range(data.draw(st.integers(0, 2), label="files"))]
    files = {name: data.draw(texts(), label=name) for name in names}
    _same([*options, program, *names], data.draw(texts(), label="stdin"), files)


RECORD_SEPARATORS = ["", ";", "e", "[0-9]+", "\\n\\n", "\\n", "a|b", "\\n+"]
RECORD_PROGRAMS = [
    '{ print NR ": [" $0 "] NF=" NF " RT=[" RT "]" }', "{ print $1, $NF }", "END { print NR }",
    '{ for (i = 1; i <= NF; i++) printf "%s|", $i; print "" }', 'NR == 2 { RS = "\\n" } 1',
    '{ while ((getline l < "f.txt") > 0) print "got [" l "]" }', "{ print FNR, NR, $2 }",
]  # fmt: skip


@settings(max_examples=250, deadline=None)
@given(
    rs=st.sampled_from(RECORD_SEPARATORS),
    fs=st.sampled_from([[], ["-F,"], ["-F", "\n"], ["-F", "[ ,]"], ["-F", "-"]]),
    program=st.sampled_from(RECORD_PROGRAMS),
    paragraphs=st.lists(texts(), max_size=4),
    gaps=st.lists(st.integers(0, 3), min_size=5, max_size=5),
)
def test_awk_splits_records_at_rs_as_gawk_does(
    rs: str, fs: list[str], program: str, paragraphs: list[str], gaps: list[int]
) -> None:
    """RS a character, a regular expression, or "" (paragraphs: blank lines between records,
    and a newline a field separator too), in the input and in getline from a file."""
    stdin = "\n" * gaps[4] + "".join(p + "\n" * g for p, g in zip(paragraphs, gaps, strict=False))
    files = {"f.txt": stdin[::-1]}
    _same([*fs, "-v", f"RS={rs}", program], stdin, files)
    _same([*fs, f'BEGIN {{ RS = "{rs}" }} {program}', "f.txt", "-"], stdin, files)


@pytest.mark.parametrize(
    "program",
    [
        "END { print }",
        "END { print s }",
        '{ print > "/dev/stderr" } END { print NR }',
        "NR==1 { while ((getline line) > 0) n++; print n, NR }",
        '{ getline x < "f.txt"; print x }',
        'BEGIN { while ((getline line < "f.txt") > 0) print "got", line }',
        'BEGIN { getline; print "first", $0, NR }',
        "END { print getline, $0 }",
        "{ getline $2; print; print NF }",
        "{ print ($2 > $1), length($2 > 1) }",
        '{ print ("a" > "b") > "/dev/stdout" }',
        "END { next }",
        "BEGIN { if (1) { nextfile } }",
        "{ print FILENAME }",
        '{ printf "%c%c%c", 65, "", 256 }',
        '{ s = "abcdefgh"; print substr(s, 2.99, 2), substr(s, 0, 3), substr(s, 2, 1.7) }',
        '{ print (u == 0), (u == ""), (a[1] == 0), ($5 == 0), ($2 < 1) }',
        '{ sub(/ /, "_", $3); print NF; OFS = "-"; $1 = $1; print }',
        '{ c[x++]++; c[++y] += 5; sub(/a/, "X", $(++n)); print x, y, n, c[1], c[0]; print }',
        "{ i = 1; a[i++] = i; print a[1], i }",
    ],
)
def test_awk_answers_these_as_gawk_does(program: str) -> None:
    files = {"f.txt": "a 1\nb 2\nc 3\n"}
    _same([program, "f.txt"], "x\ny\nz\n", files)
    _same([program], "p,,q\nr\n", files)


@pytest.mark.parametrize("program", ['"date" | getline', '{ "ls" | getline name; print name }'])
def test_awk_refuses_to_read_from_a_command_and_says_why(program: str) -> None:
    world: Any = SimpleNamespace(state=HostState.holding({}))
    result = REGISTRY["awk"](Context(world, stdin="a\n"), [program])
    assert (result.text, result.code) == ("", 1)
    assert result.stderr.splitlines()[-1].endswith(
        "`command | getline' is not available in this lab (no command runs here)"
    )
