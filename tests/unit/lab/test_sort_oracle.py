"""kadmin's sort against this machine's GNU sort (coreutils 9.1) where stdout alone does not
tell: -c and -C (a status and a line on stderr), -o (a file written, the input itself too),
-m (inputs merged as they are, sorted or not), and the orderings and options the text tools'
test does not draw (-M, -i, -z, -S, -T, --parallel). Generated lines, the C locale."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab.commands import REGISTRY
from simulators.lab.tool import Context
from simulators.lab.world import HostState
from tests.unit.lab.test_shell_oracle import _ours, _real, _stdout, texts

MONTHS = ["jan 3", " Feb", "MARCH 1", "dec", "Decade", "ja", "xyz", "", "apr 2", "\tNov"]
LINES = st.lists(st.sampled_from([*MONTHS, "a\x01b", "ab", "\x7fc", "b", "a", "a b"]), max_size=6)


ORDER_OPTIONS = ["-M", "-Mr", "-k2M", "-i", "-di", "-id", "-f", "-u", "-z", "-S1K", "-S50%"]
ORDER_OPTIONS += ["-T/tmp", "--parallel=2", "--month-sort", "--ignore-nonprinting", "-b", "-s"]


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _ours_all(
    args: list[str], stdin: str, files: dict[str, str]
) -> tuple[str, str, int, dict[str, str]]:
    """Our sort's stdout, stderr, status and the files afterwards."""
    world: Any = SimpleNamespace(state=HostState.holding(dict(files)))
    result = REGISTRY["sort"](Context(world, stdin=stdin), list(args))
    return _stdout("sort", result), result.stderr, result.code, world.state.files


def _real_all(
    args: list[str], stdin: str, files: dict[str, str]
) -> tuple[str, str, int, dict[str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            (Path(folder) / name).write_bytes(text.encode())
        done = subprocess.run(
            ["sort", *args],
            input=stdin.encode(),
            cwd=folder,
            capture_output=True,
            env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"},
            check=False,
            timeout=20,
        )
        after = {path.name: path.read_bytes().decode() for path in Path(folder).iterdir()}
    return done.stdout.decode(), done.stderr.decode().rstrip("\n"), done.returncode, after


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    check=st.sampled_from(["-c", "-C", "-cu", "--check=quiet", "--check=diagnose-first", "-Cu"]),
    keys=st.lists(st.sampled_from(["-k2n", "-n", "-r", "-s", "-t ", "-k1,1", "-f"]), max_size=2),
)
def test_sort_c_finds_the_first_disorder_as_gnu_sort_does(
    data: st.DataObject, check: str, keys: list[str]
) -> None:
    text = data.draw(texts())
    if data.draw(st.booleans()):
        # Sorted already (by our own sort: GNU's check then passes too, or the sorts differ).
        text = _ours("sort", [*keys, *(["-u"] if "u" in check else [])], text, {})[0]
    from_file = data.draw(st.booleans())
    args = [check, *keys, *(["in.txt"] if from_file else [])]
    files = {"in.txt": text} if from_file else {}
    stdin = "" if from_file else text
    assert _ours_all(args, stdin, files) == _real_all(args, stdin, files), args


@settings(max_examples=100, deadline=None)
@given(
    first=texts(),
    second=texts(),
    options=st.lists(st.sampled_from(["-r", "-u", "-n", "-k2", "-s"]), max_size=2),
    sort_inputs=st.booleans(),
)
def test_sort_m_merges_its_inputs_as_gnu_sort_does(
    first: str, second: str, options: list[str], sort_inputs: bool
) -> None:
    if sort_inputs:  # -m's use; unsorted inputs are merged as they come, as GNU's are
        first, second = (_real("sort", options, text, {})[0] for text in (first, second))
    files = {"a.txt": first, "b.txt": second}
    args = ["-m", *options, "a.txt", "b.txt"]
    assert _ours_all(args, "", files) == _real_all(args, "", files), args


@settings(max_examples=60, deadline=None)
@given(text=texts(), options=st.lists(st.sampled_from(["-n", "-r", "-u", "-k2"]), max_size=2))
def test_sort_o_writes_the_sorted_lines_into_a_file_even_its_own_input(
    text: str, options: list[str]
) -> None:
    for args in (["-o", "out.txt", *options, "in.txt"], [*options, "-o", "in.txt", "in.txt"]):
        files = {"in.txt": text}
        assert _ours_all(args, "", files) == _real_all(args, "", files), args


@settings(max_examples=200, deadline=None)
@given(
    lines=LINES,
    options=st.lists(
        st.sampled_from(ORDER_OPTIONS),
        max_size=3,
    ),
)
def test_sort_orders_months_printables_and_records_as_gnu_sort_does(
    lines: list[str], options: list[str]
) -> None:
    if "-z" in options and any("\n" in line for line in lines):
        return
    stdin = _text(lines).replace("\n", "\0") if "-z" in options else _text(lines)
    assert _ours_all(options, stdin, {}) == _real_all(options, stdin, {}), options


def test_sort_refuses_what_gnu_sort_refuses_with_its_words() -> None:
    for args in (
        ["-c", "a.txt", "b.txt"],
        ["-cC"],
        ["-co", "x"],
        ["-cm"],
        ["-S", "x"],
        ["--parallel=0"],
        ["-o", "no/such/out.txt"],
    ):
        files = {"a.txt": "b\na\n", "b.txt": "a\n"}
        ours, real = _ours_all(args, "b\na\n", files), _real_all(args, "b\na\n", files)
        assert ours[:3] == real[:3], args


@pytest.mark.parametrize(
    "args", [["-t,", "-k1.2"], ["-t,", "-k1.3"], ["-t,", "-k2.4,2"], ["-k1.9"], ["-t,", "-bk1.2"]]
)
def test_a_key_starting_past_its_fields_end_runs_on_into_the_line_as_gnus_does(
    args: list[str],
) -> None:
    """coreutils' begfield: `-t, -k1.2` of ",v1.10" starts at "v1.10" (a CI draw found it)."""
    lines = _text([",v1.10", "gpu-node1", "ab,zz", "abc,aa", "a,b,c", " x,y"])
    assert _ours_all(args, lines, {}) == _real_all(args, lines, {})
