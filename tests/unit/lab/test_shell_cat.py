"""kadmin's cat against the real GNU cat of this machine (coreutils): for generated texts and
generated options, the same bytes out, the same refusals."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.lab import files
from simulators.lab.tool import Context, Output

REAL_CAT = "/usr/bin/cat"
# Lines, blank runs, tabs, controls, DEL, a carriage return and multibyte characters.
CHARACTERS = ["a", "b", " ", "\t", "\n", "\n", "\n", "\r", "\x01", "\x7f", "é", "€"]
TEXT = st.text(alphabet=st.sampled_from(CHARACTERS), max_size=40)
OPTION = st.sampled_from(
    [
        "-A", "-b", "-e", "-E", "-n", "-s", "-t", "-T", "-u", "-v", "-nA", "-bET", "-sn", "-vt",
        "--show-all", "--number-nonblank", "--show-ends", "--number", "--squeeze-blank",
        "--show-tabs", "--show-nonprinting",
    ]
)  # fmt: skip


def _stdout(result: Output) -> str:
    """What a pipe or a file gets from the tool (simulators.lab.shell)."""
    return result.text + ("\n" if result.text and result.newline else "")


def _ours(texts: list[str], options: list[str], also: tuple[str, ...] = ()) -> Output:
    """cat on a host holding `texts` as f0, f1...; `also`: names after them (none there)."""
    names = [f"f{number}" for number in range(len(texts))]
    host = SimpleNamespace(files=dict(zip(names, texts, strict=True)))
    world: Any = SimpleNamespace(state=host)
    return files.cat(Context(world), [*options, *names, *also])


def _real(texts: list[str], options: list[str], folder: Path) -> subprocess.CompletedProcess[bytes]:
    names = []
    for number, text in enumerate(texts):
        (folder / f"f{number}").write_bytes(text.encode())
        names.append(f"f{number}")
    return subprocess.run(
        [REAL_CAT, *options, *names],
        cwd=folder,
        capture_output=True,
        env={"LC_ALL": "C"},
        check=False,
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=3), st.lists(OPTION, max_size=3))
def test_cat_prints_what_gnu_cat_prints_for_any_files_and_options(
    texts: list[str], options: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        real = _real(texts, options, Path(folder))
    ours = _ours(texts, options)
    assert _stdout(ours) == real.stdout.decode(), (texts, options)
    assert ours.code == real.returncode


def test_cat_refuses_an_unknown_option_in_gnu_cats_words(tmp_path: Path) -> None:
    for option in ("-z", "-nz", "--fast"):
        real = _real(["x"], [option], tmp_path)
        ours = _ours(["x"], [option])
        assert ours.text == real.stderr.decode().rstrip("\n").replace("/usr/bin/cat", "cat")
        assert ours.code == real.returncode == 1


def test_a_missing_file_is_reported_and_the_others_still_printed(tmp_path: Path) -> None:
    real = subprocess.run(
        [REAL_CAT, "-n", "f0", "missing"], cwd=_write(tmp_path, "a\n"), capture_output=True
    )
    ours = _ours(["a\n"], ["-n"], also=("missing",))
    assert _stdout(ours) == real.stdout.decode()
    assert ours.stderr == real.stderr.decode().rstrip("\n").replace("/usr/bin/cat", "cat")
    assert ours.code == real.returncode == 1


def _write(folder: Path, text: str) -> Path:
    (folder / "f0").write_text(text)
    return folder
