"""ls's numbers on the admin host: -i's inode numbers (fs.inode, the ones find's `%i` prints),
-n's user and group ids (admin 1000, root 0), and -u and -c, which show and sort by the access
and change times: the lab keeps one time for every file, so they list as ls lists files of
equal times (test_ls_oracle.py compares -i, -n and -u with GNU ls; -c's real times cannot be
set there)."""

from __future__ import annotations

import pytest

from simulators.lab import LabSession


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_ls_i_prints_the_inode_number_find_prints_for_each_entry(lab: LabSession) -> None:
    found = lab.run(r"find / -maxdepth 1 -name etc -printf '%i\n'").output
    assert lab.run("ls -id /etc").output == f"{found} /etc"
    lines = lab.run("ls -li /etc | tail -n +2").output.splitlines()
    for line in lines:
        number, name = line.split()[0], line.split()[9]  # (a link: `name -> target`)
        assert lab.run(f"find /etc/{name} -maxdepth 0 -printf '%i'").output == number, line


def test_ls_n_prints_admins_and_roots_ids_instead_of_their_names(lab: LabSession) -> None:
    assert lab.run("ls -n ~/.kube/config").output.split()[2:4] == ["1000", "1000"]
    assert lab.run("ls -n /etc/hosts").output.split()[2:4] == ["0", "0"]
    assert lab.run("ls -ld --numeric-uid-gid /tmp").output.split()[2:4] == ["0", "0"]


def test_ls_u_and_ls_c_list_files_of_one_time_in_name_order_as_ls_does(lab: LabSession) -> None:
    lab.run("touch b a c")
    assert lab.run("ls -c").output == lab.run("ls -u").output == lab.run("ls").output
    assert lab.run("ls -ltc").output == lab.run("ls -ltu").output == lab.run("ls -l").output
    assert lab.run("ls -cu; echo $?").output == lab.run("ls; echo $?").output
