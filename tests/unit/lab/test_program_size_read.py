"""A program's file is its ELF header to read and a real build's size to stat
(simulators.lab.system_files): what a tool reads of it is an fs.Prefix carrying that size,
so `wc -c < PROGRAM` counts the program's bytes as `wc -c PROGRAM` and `ls -l` do, and no
string of the program's size is ever made."""

from __future__ import annotations

import copy
import pickle

import pytest

from simulators.lab import LabSession, files, fs, system_files
from simulators.lab.tool import Context

KUBECTL = "/usr/local/bin/kubectl"
SIZE = system_files.SIZES["kubectl"]


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single")


def test_wc_c_of_a_program_on_stdin_is_its_size_as_ls_and_wc_with_a_name_say(
    lab: LabSession,
) -> None:
    assert lab.run(f"wc -c < {KUBECTL}").output == str(SIZE)
    assert lab.run(f"wc -c - < {KUBECTL}").output == f"{SIZE} -"
    assert lab.run(f"wc -c {KUBECTL}").output == f"{SIZE} {KUBECTL}"
    assert f" {SIZE} " in lab.run(f"ls -l {KUBECTL}").output
    assert lab.run("wc -c < /bin/ls").output == str(system_files.SIZES["ls"])  # through /bin


def test_files_that_are_read_whole_still_count_their_text(lab: LabSession) -> None:
    assert lab.run("wc -c < /proc/version").output == lab.run("cat /proc/version | wc -c").output
    lab.run("printf 'abc' > small.txt")
    assert lab.run("wc -c < small.txt").output == "3"
    assert lab.run("wc -c < /dev/null").output == "0"


def test_a_programs_text_is_a_bounded_prefix_carrying_its_size(lab: LabSession) -> None:
    ctx = Context(world=lab.world)
    read = files.read(ctx, KUBECTL)
    assert isinstance(read, fs.Prefix)
    assert (read, read.size) == (system_files.ELF, SIZE)
    assert len(read) == 64
    assert fs.whole_size(read) == SIZE and fs.whole_size("abc") == 3
    # Changed text is plain text: a slice or a concatenation no longer claims the size.
    assert type(read[:10]) is str and type(read + "x") is str
    for kept in (copy.deepcopy(read), pickle.loads(pickle.dumps(read))):
        assert isinstance(kept, fs.Prefix) and (kept, kept.size) == (read, SIZE)


def test_cat_hands_on_the_size_and_a_copy_stores_plain_text(lab: LabSession) -> None:
    ctx = Context(world=lab.world)
    out = files.cat(ctx, [KUBECTL, KUBECTL])
    assert isinstance(out.text, fs.Prefix) and out.text.size == 2 * SIZE
    assert not isinstance(files.cat(ctx, ["-A", KUBECTL]).text, fs.Prefix)
    assert files.write(ctx, "copy", files.read(ctx, KUBECTL) or "") is None
    assert type(lab.world.state.files["copy"]) is str
    # The stored copy is what it holds: 64 bytes to wc and ls alike (cp makes the same).
    assert lab.run("wc -c < copy").output == "64"
    assert lab.run("wc -c copy").output == "64 copy"


def test_a_program_piped_to_wc_is_counted_whole_and_a_part_of_it_as_that_part(
    lab: LabSession,
) -> None:
    assert lab.run(f"cat {KUBECTL} | wc -c").output == str(SIZE)
    assert lab.run(f"cat {KUBECTL} | cat | wc -c").output == str(SIZE)
    assert lab.run(f"cat {KUBECTL} {KUBECTL} | wc -c").output == str(2 * SIZE)
    assert lab.run(f"cat {KUBECTL} | head -c 10 | wc -c").output == "10"


def test_a_group_reading_a_program_on_stdin_counts_its_size_and_what_read_left(
    lab: LabSession,
) -> None:
    assert lab.run(f"{{ wc -c; }} < {KUBECTL}").output == str(SIZE)
    assert lab.run(f"cat {KUBECTL} | {{ wc -c; }}").output == str(SIZE)
    lab.run("printf 'one\\ntwo\\n' > two.txt")
    assert lab.run("{ read first; wc -c; } < two.txt").output == "4"
