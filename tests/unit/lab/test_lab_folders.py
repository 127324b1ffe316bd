"""The admin host's folders where the real tools' oracle (test_filetools_oracle.py, which runs
them as root in a folder of its own) cannot follow: root's folders and /tmp, the limits, the
working folder removed or moved, permissions that stop the admin, -i's questions, and what is
kept when the lab is saved."""

from __future__ import annotations

from simulators.lab import LabSession, fs, kubeconfig


def _lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


def test_writing_in_roots_folders_is_permission_denied() -> None:
    lab = _lab()
    lab.run("touch a")
    assert lab.run("mkdir /etc/x; mkdir -p /opt/a/b; echo $?").output == (
        "mkdir: cannot create directory \u2018/etc/x\u2019: Permission denied\n"
        "mkdir: cannot create directory \u2018/opt/a\u2019: Permission denied\n1"
    )
    assert lab.run("touch /etc/x /etc").output == (
        "touch: cannot touch '/etc/x': Permission denied\n"
        "touch: setting times of '/etc': Permission denied"
    )
    assert lab.run("cp a /etc/; mv a /etc").output == (
        "cp: cannot create regular file '/etc/a': Permission denied\n"
        "mv: cannot move 'a' to '/etc/a': Permission denied"
    )
    assert lab.run("chmod 700 /etc; echo $?").output == (
        "chmod: changing permissions of '/etc': Operation not permitted\n1"
    )


def test_the_root_folder_is_neither_written_nor_removed() -> None:
    lab = _lab()
    assert lab.run("mkdir /x; rmdir /; rmdir /tmp").output == (
        "mkdir: cannot create directory \u2018/x\u2019: Permission denied\n"
        "rmdir: failed to remove '/': Device or resource busy\n"
        "rmdir: failed to remove '/tmp': Permission denied"
    )
    assert lab.run("rm -rf /; rm -r //").output == (
        "rm: it is dangerous to operate recursively on '/'\n"
        "rm: use --no-preserve-root to override this failsafe\n"
        "rm: it is dangerous to operate recursively on '//' (same as '/')\n"
        "rm: use --no-preserve-root to override this failsafe"
    )


def test_tmp_is_writable_by_the_admin_and_stays() -> None:
    lab = _lab()
    lab.run("touch a")
    script = "mkdir /tmp/w; touch /tmp/w/a; cp a /tmp/; mv /tmp/a /tmp/w/b; ls /tmp/w"
    assert lab.run(script).output == "a  b"
    assert lab.run("rm -rv /tmp/w; rm -r /tmp; echo $?; ls -ld /tmp").output == (
        "removed '/tmp/w/a'\nremoved '/tmp/w/b'\nremoved directory '/tmp/w'\n"
        "rm: cannot remove '/tmp': Permission denied\n1\n"
        "drwxrwxrwt 2 root root 4096 Nov 10 09:40 /tmp"
    )


def test_mkdir_and_cp_r_stop_at_the_folder_limit_with_no_space_left() -> None:
    lab = _lab()
    state = lab.world.state
    state.folders.extend(f"full{n:02}" for n in range(fs.MAX_FOLDERS - len(state.folders)))
    assert lab.run("mkdir x; mkdir -p y/z; cp -r .kube k").output == (
        "mkdir: cannot create directory \u2018x\u2019: No space left on device\n"
        "mkdir: cannot create directory \u2018y\u2019: No space left on device\n"
        "cp: cannot create directory 'k': No space left on device"
    )
    assert lab.run("rmdir full00; mkdir x; echo $?").output == "0"


def test_the_working_folder_removed_keeps_the_shell_in_it_and_relative_paths_fail() -> None:
    lab = _lab()
    assert lab.run("mkdir d; cd d; rmdir ../d; echo $?; pwd").output == "0\n/home/admin/d"
    assert lab.run("touch x; mkdir y").output == (
        "touch: cannot touch 'x': No such file or directory\n"
        "mkdir: cannot create directory \u2018y\u2019: No such file or directory"
    )
    assert lab.run("touch ~/x; cd; ls").output == "x"


def test_rm_r_of_the_home_folder_empties_it_kubeconfig_too_and_keeps_the_folder() -> None:
    lab = _lab()
    lab.run("mkdir -p reports/gpu; touch reports/gpu/a")
    assert lab.run("rm -rv ~ 2>&1 >/dev/null; echo $?").output == (
        "rm: cannot remove '/home/admin': Permission denied\n1"
    )
    lab.run("mkdir -p reports/gpu; touch reports/gpu/a; mkdir .kube; echo x > .kube/config")
    assert lab.run("rm -rv ~ 2>/dev/null").output == (
        "removed '/home/admin/.kube/config'\n"
        "removed directory '/home/admin/.kube'\n"
        "removed '/home/admin/reports/gpu/a'\n"
        "removed directory '/home/admin/reports/gpu'\n"
        "removed directory '/home/admin/reports'"
    )
    assert (lab.world.state.files, lab.world.state.folders) == ({}, [])
    assert lab.run("ls -la ~ | wc -l; pwd").output == "3\n/home/admin"


def test_rm_r_of_the_kube_folder_removes_the_kubeconfig() -> None:
    lab = _lab()
    assert lab.run("rm .kube; rmdir .kube; rm -d .kube").output == (
        "rm: cannot remove '.kube': Is a directory\n"
        "rmdir: failed to remove '.kube': Directory not empty\n"
        "rm: cannot remove '.kube': Directory not empty"
    )
    assert lab.run("rm -r .kube; ls -A").output == ".bash_aliases  .bash_logout  .bashrc  .profile"
    assert kubeconfig.NAME not in lab.world.state.files


def test_a_folder_without_write_permission_keeps_what_it_holds() -> None:
    lab = _lab()
    lab.run("mkdir -p d/e; touch d/a d/e/b; chmod 500 d")
    assert lab.run("touch d/x; mkdir d/y").output == (
        "touch: cannot touch 'd/x': Permission denied\n"
        "mkdir: cannot create directory \u2018d/y\u2019: Permission denied"
    )
    # d/e is writable: what it holds goes; d itself is not tried (something in it stays).
    assert lab.run("rm -rv d 2>/tmp/err; echo $?; cat /tmp/err").output == (
        "removed 'd/e/b'\n1\n"
        "rm: cannot remove 'd/a': Permission denied\n"
        "rm: cannot remove 'd/e': Permission denied"
    )
    assert lab.run("ls -R d").output == "d:\na  e\n\nd/e:"


def test_chmod_r_does_not_read_a_folder_it_made_unreadable() -> None:
    lab = _lab()
    lab.run("mkdir -p d/e; touch d/a")
    assert lab.run("chmod -vR 0 d 2>/dev/null; echo $?").output == (
        "mode of 'd' changed from 0755 (rwxr-xr-x) to 0000 (---------)\n"
        "'d' could not be accessed\n1"
    )
    assert lab.run("chmod -R 0 d").output == "chmod: cannot read directory 'd': Permission denied"
    assert lab.run("rm -r d").output == "rm: cannot remove 'd': Permission denied"
    assert lab.run("chmod 755 d; rm -r d; echo $?").output == "0"


def test_mv_of_a_folder_takes_its_files_modes_and_the_working_folder_along() -> None:
    lab = _lab()
    lab.run("mkdir -p d/e; echo x > d/e/f; chmod 700 d/e; chmod 600 d/e/f; cd d/e")
    assert lab.run("mv -v ~/d ~/x; cat f; ls -l ~/x | tail -n 1").output == (
        "renamed '/home/admin/d' -> '/home/admin/x'\nx\n"
        "drwx------ 2 admin admin 4096 Nov 10 09:40 e"
    )
    assert lab.run("ls -l ~/x/e").output.endswith("-rw------- 1 admin admin 2 Nov 10 09:40 f")


def test_cp_r_and_mv_refuse_to_put_a_folder_into_itself() -> None:
    lab = _lab()
    lab.run("mkdir d; touch d/a")
    assert lab.run("cp -r d d; echo $?").output == (
        "cp: cannot copy a directory, 'd', into itself, 'd/d'\n1"
    )
    assert lab.run("mv d d/d/x; mv d .").output == (
        "mv: cannot move 'd' to a subdirectory of itself, 'd/d/x'\n"
        "mv: 'd' and './d' are the same file"
    )


def test_rm_ri_asks_before_it_descends_and_before_it_removes() -> None:
    lab = _lab()
    lab.run("mkdir -p d/e; touch d/a d/e/b")
    # The real rm asks in the directory's order, the lab's in name order; a folder something
    # in which was kept is not asked about.
    assert lab.run("printf 'y\\nn\\ny\\ny\\ny\\n' | rm -ri d").output == (
        "rm: descend into directory 'd'? \n"
        "rm: remove regular empty file 'd/a'? \n"
        "rm: descend into directory 'd/e'? \n"
        "rm: remove regular empty file 'd/e/b'? \n"
        "rm: remove directory 'd/e'? "
    )
    assert lab.run("ls -R d").output == "d:\na"


def test_mkdir_and_rmdir_are_programs_on_the_path() -> None:
    lab = _lab()
    assert lab.run("which mkdir rmdir; type rmdir").output == (
        "/usr/bin/mkdir\n/usr/bin/rmdir\nrmdir is /usr/bin/rmdir"
    )
    assert lab.run("mkdir; rmdir").output == (
        "mkdir: missing operand\nTry 'mkdir --help' for more information.\n"
        "rmdir: missing operand\nTry 'rmdir --help' for more information."
    )


def test_a_folder_and_its_mode_survive_the_lab_being_saved_and_restored() -> None:
    lab = _lab()
    lab.run("mkdir -m 750 -p reports/gpu; touch reports/gpu/a")
    restored = LabSession.from_json(lab.encode())
    assert restored.run("ls -ld reports reports/gpu").output == (
        "drwxr-xr-x 3 admin admin 4096 Nov 10 09:40 reports\n"
        "drwxr-x--- 2 admin admin 4096 Nov 10 09:40 reports/gpu"
    )
