"""kadmin's diff against this machine's real one (GNU diffutils 3.8) in the C locale: for
generated pairs of files from a small vocabulary of lines (many repeat, so that several
shortest edit scripts exist and GNU's choice among them shows), and options, the same bytes on
stdout and the same exit status; for generated command lines, right and wrong, the same words
on stderr too. The file times in -u's and -c's headers are the lab's own: they are masked
before comparing."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from simulators.lab.commands import REGISTRY
from simulators.lab.tool import Context
from simulators.lab.world import HostState
from tests.unit.lab.test_shell_oracle import _real, _stdout

LINES = ["a", "b", "c", "", "", " ", "a ", " a", "A", "x  y", "x y", "x\ty", "\t", "B", "}"]
LINES += ["key: 1", "key: 2", "  key: 1", "a\r", "é", "a\tb", "a\rb", "ab\bc", " \t "]
FORMATS = [[], [], ["-u"], ["-U0"], ["-U1"], ["-U", "5"], ["-c"], ["-C1"], ["--unified=2"]]
FORMATS += [["-q"], ["--normal"], ["-C0"], ["-2", "-u"], ["-u1"], ["--context"]]
MODIFIERS = ["-i", "-b", "-w", "-B", "-Z", "--strip-trailing-cr", "-s", "-d", "-T", "-t"]
MODIFIERS += ["--ignore-blank-lines", "-bB", "-wB", "-iw", "--horizon-lines=1", "-a", "-N"]
OPERANDS = [["old.txt", "new.txt"]] * 4 + [["-", "new.txt"], ["old.txt", "-"], ["-", "-"]]
OPERANDS += [["old.txt", "old.txt"], ["old.txt", "gone.txt"], ["gone.txt", "new.txt"]]
# Command lines, right and wrong: diff's words for each mistake (on stderr) are compared too.
WORDS = ["-u", "-U", "3", "-U3", "--unified", "--unified=1", "--uni", "--u", "-c", "-C", "2"]
WORDS += ["--context=x", "--context=", "-q", "-s", "--brief=1", "--label", "L", "-L", "-5"]
WORDS += ["-12", "--normal", "-z", "--foo", "-i", "--ignore-c", "--ign", "--", "-Nq", "-"]
WORDS += ["--lab=M", "-uc", "-U-1", "-U+2", "-C 1", "--horizon-lines=x", "-h", "-qU", "-v"]


def _ours(args: list[str], stdin: str, files: dict[str, str]) -> tuple[str, int]:
    world: Any = SimpleNamespace(state=HostState.holding(dict(files)), now=0)
    result = REGISTRY["diff"](Context(world, stdin=stdin), list(args))
    return _stdout("diff", result), result.code


def _masked(out: str) -> str:
    """The two header lines of -u and -c without their times."""
    lines = out.split("\n")
    if out.startswith(("--- ", "*** ")) and len(lines) > 2:
        lines[:2] = [re.sub(r"\t.*", "\t<time>", line) for line in lines[:2]]
    return "\n".join(lines)


def _same(args: list[str], files: dict[str, str], stdin: str = "") -> None:
    ours, code = _ours(args, stdin, files)
    theirs, real_code = _real("diff", args, stdin, files, "C")
    assert (_masked(ours), code) == (_masked(theirs), real_code), (args, files, stdin)


@st.composite
def texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(LINES), max_size=12))
    text = "\n".join(lines)
    return text + "\n" if lines and draw(st.booleans()) else text


@st.composite
def edited(draw: st.DrawFn, text: str) -> str:
    """The text with a few lines deleted, inserted or replaced, and its end changed or not."""
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(lines)))
        what = draw(st.sampled_from(["insert", "delete", "replace"]))
        if what != "insert" and at < len(lines):
            del lines[at]
        if what != "delete":
            lines.insert(at, draw(st.sampled_from(LINES)))
    changed = "\n".join(lines)
    if draw(st.booleans()):
        changed = changed.rstrip("\n") + draw(st.sampled_from(["", "\n"]))
    return changed


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_diff_prints_what_gnu_diff_prints(data: st.DataObject) -> None:
    old = data.draw(texts(), label="old")
    new = data.draw(st.one_of(edited(old), texts(), st.just(old), st.just("")), label="new")
    options = [*data.draw(st.sampled_from(FORMATS), label="format")]
    options += data.draw(st.lists(st.sampled_from(MODIFIERS), max_size=3), label="modifiers")
    if data.draw(st.integers(0, 5), label="labels") == 0:
        options += ["--label", "old", "--label=new"]
    files = {"old.txt": old, "new.txt": new}
    operands = data.draw(st.sampled_from(OPERANDS), label="operands")
    stdin = old if operands[0] == "-" else new
    if data.draw(st.booleans(), label="options last"):
        _same([*operands, *options], files, stdin)
    else:
        _same([*options, *operands], files, stdin)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from([*WORDS, "a", "b", "gone"]), max_size=5))
def test_command_lines_are_read_as_gnu_diff_reads_them(words: list[str]) -> None:
    files = {"a": "one\ntwo\n", "b": "one\nthree\n"}
    world: Any = SimpleNamespace(state=HostState.holding(files), now=0)
    result = REGISTRY["diff"](Context(world, stdin="one\n"), words)
    ours = (_masked(_stdout("diff", result)), result.code, result.stderr)
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            (Path(folder) / name).write_text(text)
        done = subprocess.run(
            ["diff", *words], input=b"one\n", capture_output=True, check=False, timeout=20,
            cwd=folder, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"},
        )  # fmt: skip
    theirs = (_masked(done.stdout.decode()), done.returncode, done.stderr.decode().rstrip("\n"))
    assert ours == theirs, words


def _lab(files: dict[str, str]) -> LabSession:
    lab = LabSession.new("mig-single", seed=0)
    lab.world.state.files.update(files)
    return lab


def test_a_yaml_edit_shows_as_one_unified_hunk_with_three_lines_of_context() -> None:
    old = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n"
    old += "  - name: web\n    image: nginx:1.25\n    resources:\n      limits:\n"
    old += "        nvidia.com/gpu: 1\n"
    new = old.replace("nginx:1.25", "nginx:1.27").replace("gpu: 1", "gpu: 2")
    args = ["-u", "--label", "pod.yaml", "--label", "pod.yaml.new", "pod.yaml", "new.yaml"]
    ours, code = _ours(args, "", {"pod.yaml": old, "new.yaml": new})
    assert code == 1
    assert ours == (
        "--- pod.yaml\n+++ pod.yaml.new\n@@ -5,7 +5,7 @@\n spec:\n   containers:\n"
        "   - name: web\n-    image: nginx:1.25\n+    image: nginx:1.27\n     resources:\n"
        "       limits:\n-        nvidia.com/gpu: 1\n+        nvidia.com/gpu: 2\n"
    )
    _same(args, {"pod.yaml": old, "new.yaml": new})


def test_unified_headers_carry_the_time_ls_shows_and_the_pipe_the_lab_clock() -> None:
    lab = _lab({"a.txt": "one\n", "b.txt": "two\n"})
    shown = lab.run("diff -u a.txt b.txt").output.split("\n")
    assert shown[:2] == [
        "--- a.txt\t2026-11-10 09:40:00.000000000 +0000",
        "+++ b.txt\t2026-11-10 09:40:00.000000000 +0000",
    ]
    piped = lab.run("echo two | diff -u - a.txt").output.split("\n")
    assert re.fullmatch(r"--- -\t2026-11-10 \d\d:\d\d:\d\d\.000000000 \+0000", piped[0])
    assert lab.run("echo one | diff -u - a.txt").exit_code == 0


def test_names_are_quoted_and_binary_files_only_said_to_differ_as_gnu_does() -> None:
    files = {"my file.txt": "a\n", "é.txt": "b\n", "X.bin": "a\0b\n", "y.bin": "a\0c\n"}
    _same(["-u", "my file.txt", "é.txt"], files)
    _same(["-c", "é.txt", "my file.txt"], files)
    assert _ours(["X.bin", "y.bin"], "", files) == ("Binary files X.bin and y.bin differ\n", 1)
    _same(["-q", "X.bin", "y.bin"], files)
    _same(["-a", "X.bin", "y.bin"], files)
    _same(["-N", "-u", "my file.txt", "gone"], files)


def test_a_last_line_without_its_newline_is_marked_as_gnu_marks_it() -> None:
    files = {"a": "x\ny\n", "b": "x\ny"}
    assert _ours(["a", "b"], "", files) == (
        "2c2\n< y\n---\n> y\n\\ No newline at end of file\n",
        1,
    )
    _same(["-u", "a", "b"], files)
    _same(["-c", "b", "a"], files)
    assert _ours(["-b", "a", "b"], "", files) == ("", 0)


def test_a_missing_file_is_trouble_with_status_2() -> None:
    world: Any = SimpleNamespace(state=HostState.holding({"a": "x\n"}), now=0)
    result = REGISTRY["diff"](Context(world), ["a", "nope"])
    assert (result.text, result.code, result.stderr) == (
        "",
        2,
        "diff: nope: No such file or directory",
    )
    assert REGISTRY["diff"](Context(world), ["-N", "a", "nope"]).code == 1


def test_brief_says_only_whether_the_files_differ() -> None:
    files = {"a": "x\ny\n", "b": "x\nz\n"}
    assert _ours(["-q", "a", "b"], "", files) == ("Files a and b differ\n", 1)
    assert _ours(["--brief", "a", "a"], "", files) == ("", 0)
    assert _ours(["-qs", "a", "a"], "", files) == ("Files a and a are identical\n", 0)


def test_a_folder_operand_is_refused_in_one_line() -> None:
    lab = _lab({"a.txt": "one\n"})
    result = lab.run("diff . a.txt")
    assert result.exit_code == 2
    assert "diff: .: comparing folders is not available in this lab" in result.output


def test_process_substitution_compares_two_commands_outputs() -> None:
    lab = _lab({})
    result = lab.run("diff <(printf 'a\\nb\\n') <(printf 'a\\nc\\n')")
    assert (result.output, result.exit_code) == ("2c2\n< b\n---\n> c", 1)
