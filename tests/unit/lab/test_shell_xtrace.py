"""bash's `set -x` on the admin host: generated scripts traced by the lab and by this machine's
bash 5.2 give the same lines, stdout and stderr in the order a terminal shows them. The
generator knows bash's grammar and xtrace's quoting, not the implementation.

Left out of the generator (and the docs' "Left out"): pipes (bash's commands run at once, their
traces in any order), `[[ ]]` (bash traces each test of it), a function, `eval` or `bash -c`
of several commands (the lab shows their stderr before their stdout), redirections of stderr
(bash traces a `$(...)` before the redirection), and a PS4 with expansions in it.
"""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession

# Words as typed: ones xtrace prints as they are, and ones it quotes ('...' or $'...').
WORDS = [
    "a", "'b c'", '""', "'*'", "'it'\\''s'", "a=b", "'~x'", "x~", "=~", "'#h'", "h#", "%",
    "$'\\x01z'", "$'\\t'", "$x", '"$x"', "'{a}'", "'a\\nb'", "$'\\e'", "é", "gpu-node1", "'$v'",
    '"$(echo a; echo b)"', "$(echo $x)", "~/f", "a:~", "'!'", "$n",
]  # fmt: skip
VALUES = ["1", "'b c'", '""', "$x", "$(echo in)", "'~'", "$((n + 1))", "$'\\001'", "a=b"]
CONDITIONS = ["true", "false", '[ "$x" = a ]', 'test -n "$x"', "(( n < 2 ))", "! false"]


# bash shows a `for`'s words as its parser keeps them: a `$'...'` as '...' with its bytes.
TYPED = [word for word in WORDS if not word.startswith("$'")]


def _words(draw: st.DrawFn, words: list[str] = WORDS) -> str:
    return " ".join(draw(st.lists(st.sampled_from(words), min_size=0, max_size=4)))


@st.composite
def simple(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["echo", "echo", "printf", "assign", "prefixed", "other"]))
    if kind == "echo":
        return f"echo {_words(draw)}"
    if kind == "printf":
        return f"printf '<%s>\\n' {_words(draw)}"
    if kind == "assign":  # n stays a number: bash -c ends at an arithmetic error
        if draw(st.booleans()):
            return f"n={draw(st.sampled_from(['1', '$((n + 1))', '""']))}"
        return f"{draw(st.sampled_from(['x', 'v']))}={draw(st.sampled_from(VALUES))}"
    if kind == "prefixed":
        return f"v={draw(st.sampled_from(VALUES))} x=2 echo $x"
    return draw(
        st.sampled_from(
            [
                ":",
                "true",
                "false",
                "f $x 'p q'",
                'eval "echo $x"',
                "eval 'v=$x'",
                "bash -x -c 'echo \"[$0]\" $1' name 'a b'",
                "bash -c 'echo quiet'",
                "(( n++ ))",
                "(( $n + 1 ))",
                "echo $(echo $(echo deep))",
                "set +x",
                "set -x",
            ]
        )
    )


@st.composite
def commands(draw: st.DrawFn, depth: int = 0) -> str:
    kinds = ["simple"] * 4 + (
        ["for", "case", "if", "cfor", "group", "subshell"] if depth < 2 else []
    )
    kind = draw(st.sampled_from(kinds))
    body = "simple" if kind == "simple" else draw(bodies(depth + 1))
    if kind == "simple":
        return draw(simple())
    if kind == "for":
        return f"for w in {_words(draw, TYPED)}; do {body}; done"
    if kind == "case":
        word = draw(st.sampled_from(["$x", '"$x"', "a", "'b c'", "$(echo a)"]))
        return f"case {word} in a*) {body};; *) :;; esac"
    if kind == "if":
        return f"if {draw(st.sampled_from(CONDITIONS))}; then {body}; else echo no; fi"
    if kind == "cfor":  # each depth counts with its own name, so every loop ends
        heads = ["c=0; c<2; c++", "c=0;c<1;c++", "; c++ < 1; ", " c = 0 ; c < 1 ; c += 1 "]
        head = draw(st.sampled_from(heads)).replace("c", "ijk"[depth])
        return f"for (({head})); do {body}; done"
    if kind == "group":
        return f"{{ {body}; }}"
    return f"( {body} )"


@st.composite
def bodies(draw: st.DrawFn, depth: int = 0) -> str:
    return "; ".join(draw(commands(depth)) for _ in range(draw(st.integers(1, 3))))


def _bash(script: str) -> str:
    """bash's stdout and stderr as one stream, in the order it wrote them."""
    done = subprocess.run(
        ["bash", "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/home/admin"},
        check=False,
        timeout=20,
    )
    return done.stdout.replace("bash: line 1: ", "bash: ").rstrip("\n")


@settings(max_examples=300, deadline=None)
@given(
    ps4=st.sampled_from(["", "PS4=':: '; ", "PS4='+'; "]),
    start=st.sampled_from(["set -x", "set -o xtrace", "set -ex +e"]),
    script=bodies(),
)
def test_traced_scripts_print_what_bashs_trace_prints(ps4: str, start: str, script: str) -> None:
    line = f'x=a; n=0; f() {{ echo "f:$1"; }}; {ps4}{start}; {script}; echo "status $?"'
    lab = LabSession.new("mig-single", seed=0)
    assert lab.run(line).output.rstrip("\n") == _bash(line), line


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_set_x_traces_a_command_with_its_words_quoted(lab: LabSession) -> None:
    assert lab.run("set -x; echo 'a b' c").output == "+ echo 'a b' c\na b c"
    assert lab.run("x=1; y=$(echo in)").output == "+ x=1\n++ echo in\n+ y=in"
    assert lab.run("set +x; echo off").output == "+ set +x\noff"


def test_the_trace_goes_to_stderr_before_the_commands_redirections(lab: LabSession) -> None:
    lab.run("set -x")
    assert lab.run("echo hi > out.txt 2>/dev/null; cat out.txt").output == (
        "+ echo hi\n+ cat out.txt\nhi"
    )
    assert lab.run("{ echo hi; } 2>/dev/null | tr a-z A-Z").output == "+ tr a-z A-Z\nHI"


def test_bash_x_traces_a_script_from_level_one(lab: LabSession) -> None:
    lab.run("printf 'echo \"$1\"\\n' > s.sh")
    assert lab.run("v=$(bash -x s.sh 'a b' 2>&1); echo \"$v\"").output == "+ echo 'a b'\na b"
    assert lab.run("bash s.sh quiet").output == "quiet"
