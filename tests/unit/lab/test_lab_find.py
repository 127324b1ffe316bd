"""find on the admin host where the oracle (test_find_oracle.py) cannot compare: the admin's
rights (the real one runs as root), -exec running the lab's own commands, -delete on root's
folders, the lab's one time against its clock, owners, -ls, -quit, -ok, warnings GNU prints
only to a terminal, and the bounds a learner's command keeps."""

from __future__ import annotations

from simulators.lab import LabSession

WARNING = (
    "find: warning: you have specified the global option -maxdepth after the argument -name,"
    " but global options are not positional, i.e., -maxdepth affects tests specified before it"
    " as well as those specified after it.  Please specify global options before other"
    " arguments."
)


def test_walking_into_roots_folder_is_permission_denied_after_its_own_line(
    single: LabSession,
) -> None:
    assert single.run("find /root 2>/dev/null; echo $?").output == "/root\n1"
    assert single.run("find /root 2>&1 >/dev/null").output == "find: '/root': Permission denied"
    assert single.run("find / -maxdepth 1 -name root; echo $?").output == "/root\n0"
    assert single.run("find /root/x; echo $?").output == "find: '/root/x': Permission denied\n1"


def test_a_folder_the_admin_took_the_read_bit_from_is_not_read(single: LabSession) -> None:
    single.run("mkdir -p box/in && chmod 300 box")
    assert single.run("find box 2>&1 >/dev/null").output == "find: 'box': Permission denied"
    assert single.run("find box -empty 2>/dev/null; echo $?").output == "1"


def test_exec_runs_kubectl_apply_on_each_file_found(mixed: LabSession) -> None:
    mixed.run("kubectl delete pod triton")
    out = mixed.run(r"find . -name 'triton.yaml' -exec kubectl apply -f {} \; ; echo $?")
    assert out.output == "pod/triton created\n0"
    assert "triton" in mixed.run("kubectl get pods").output


def test_exec_cat_prints_each_file_and_cats_own_error_for_a_folder(single: LabSession) -> None:
    single.world.state.files["a.txt"] = "alpha\n"
    assert single.run(r"find . -maxdepth 1 -name '*.txt' -exec cat {} \;").output == "alpha"
    assert single.run(r"find . -maxdepth 1 -exec cat {} \; 2>&1 >/dev/null").output == (
        "cat: .: Is a directory\ncat: ./.kube: Is a directory"
    )


def test_exec_with_a_plus_runs_one_command_for_all_the_names(single: LabSession) -> None:
    single.world.state.files["a.txt"] = "alpha\n"
    names = "./.bash_aliases ./.bash_logout ./.bashrc ./.kube/config ./.profile ./a.txt"
    expected = single.run(f"wc -l {names}").output
    assert single.run("find . -type f -exec wc -l {} +").output == expected
    assert expected.endswith(" total")


def test_exec_ls_prints_columns_on_the_terminal_and_one_a_line_in_a_pipe(
    mixed: LabSession,
) -> None:
    line = r"find . -maxdepth 0 -exec ls {} \;"
    assert mixed.run(line).output == "custom-mig-config.yaml\ttriton.yaml"
    assert mixed.run(f"{line} | cat").output == "custom-mig-config.yaml\ntriton.yaml"


def test_exec_status_is_a_test_and_a_failed_batch_fails_find(single: LabSession) -> None:
    assert single.run(r"find . -maxdepth 0 -exec false \; -o -print; echo $?").output == ".\n0"
    assert single.run("find . -maxdepth 0 -exec false {} +; echo $?").output == "1"
    assert single.run(r"find . -maxdepth 0 -exec nope {} \; ; echo $?").output == (
        "find: 'nope': No such file or directory\n0"
    )


def test_execdir_runs_in_the_folder_of_each_entry(single: LabSession) -> None:
    assert single.run(r"find . -name config -execdir pwd \; -execdir echo {} \;").output == (
        "/home/admin/.kube\n./config"
    )


def test_delete_removes_files_and_empty_folders_depth_first(single: LabSession) -> None:
    single.run("mkdir -p logs/old && echo x > logs/old/a.log && echo y > keep.txt")
    assert single.run("find logs -delete -print; echo $?").output == (
        "logs/old/a.log\nlogs/old\nlogs\n0"
    )
    assert single.run("find . ! -name '.?*' -o -path ./.kube").output == (
        ".\n./.kube\n./.kube/config\n./keep.txt"
    )


def test_delete_refuses_roots_folders(single: LabSession) -> None:
    assert single.run("find /tmp -maxdepth 0 -delete; echo $?").output == (
        "find: cannot delete '/tmp': Permission denied\n1"
    )
    assert single.run("find . -maxdepth 0 -delete; echo $?").output == "0"
    assert single.run("find ~ -maxdepth 0 -delete; echo $?").output == (
        "find: cannot delete '/home/admin': Permission denied\n1"
    )


def test_delete_and_prune_together_need_an_explicit_depth(single: LabSession) -> None:
    assert single.run("find . -prune -delete").output == (
        "find: The -delete action automatically turns on -depth, but -prune does nothing when"
        " -depth is in effect.  If you want to carry on anyway, just explicitly use the -depth"
        " option."
    )


def test_a_global_option_after_a_test_gets_gnus_warning_at_the_terminal(
    single: LabSession,
) -> None:
    assert single.run("find . -name config -maxdepth 2").output == f"{WARNING}\n./.kube/config"
    assert single.run("find . -maxdepth 2 -name config").output == "./.kube/config"
    assert single.run("find . -nowarn -name config -maxdepth 2").output == "./.kube/config"
    # A pipe gave find its standard input: no terminal, no warning (as GNU's isatty(0)).
    assert single.run("echo | find . -name config -maxdepth 2").output == "./.kube/config"


def test_name_with_a_slash_gets_gnus_warning(single: LabSession) -> None:
    assert single.run("find . -name .kube/config").output == (
        "find: warning: '-name' matches against basenames only, but the given pattern contains"
        " a directory separator ('/'), thus the expression will evaluate to false all the time."
        "  Did you mean '-wholename'?"
    )


def test_errors_are_worded_as_gnus(single: LabSession) -> None:
    cases = {
        "find -foo": "find: unknown predicate `-foo'",
        "find . -name": "find: missing argument to `-name'",
        "find . -type q": "find: Unknown argument to -type: q",
        "find . -name a b": "find: paths must precede expression: `b'",
        "find . -name a .kube": (
            "find: paths must precede expression: `.kube'\n"
            "find: possible unquoted pattern after predicate `-name'?"
        ),
        "find nope": "find: 'nope': No such file or directory",
        "find . -maxdepth x": (
            "find: Expected a positive decimal integer argument to -maxdepth, but got 'x'"
        ),
        "find . \\(": (
            "find: invalid expression; expected to find a ')' but didn't see one. Perhaps you"
            " need an extra predicate after '('"
        ),
        "find . -o": (
            "find: invalid expression; you have used a binary operator '-o' with nothing before it."
        ),
    }
    for line, message in cases.items():
        assert single.run(f"{line}; echo $?").output == f"{message}\n1", line


def test_ok_is_refused_in_one_line(single: LabSession) -> None:
    assert single.run(r"find . -ok rm {} \; ; echo $?").output == (
        "find: -ok is not available in this lab: it asks a question before each command, and"
        " the lab's terminal cannot answer; use -exec\n1"
    )


def test_times_are_the_labs_one_time_against_its_clock(single: LabSession) -> None:
    # The first line runs at the lab's second 0: every entry was made that instant.
    assert single.world.now == 0
    at_zero = single.run(
        "find . -maxdepth 0 -mmin 1 -mmin -1 -mtime 0 -ctime -1 -amin 1;"
        " find . -maxdepth 0 -mmin +0 -o -newer .kube/config -o -cmin 0"
    )
    assert at_zero.output == "."
    for _ in range(6):
        single.run("true")  # a line is ten seconds of the lab's clock
    assert single.world.now == 70
    assert single.run("find . -maxdepth 0 -amin +0 -cmin +1 -mmin +0 -mmin 2").output == "."
    assert single.run("find . -maxdepth 0 -mtime +0 -o -atime 1 -o -mmin -1").output == ""


def test_owners_are_admin_and_root(single: LabSession) -> None:
    assert single.run("find / -maxdepth 1 -user admin").output == ""
    assert single.run("find ~ -maxdepth 0 -user admin -group admin -uid 1000").output == (
        "/home/admin"
    )
    assert single.run("find / -maxdepth 1 -user root -name tmp -gid 0").output == "/tmp"
    assert single.run("find . -user bob").output == "find: 'bob' is not the name of a known user"


def test_the_admins_rights_are_the_owners_bits_or_the_others_on_roots(
    single: LabSession,
) -> None:
    assert single.run("find / -maxdepth 1 -writable").output == "/tmp"
    assert single.run("find /root -maxdepth 0 -readable -o -executable").output == ""
    assert single.run("find .kube -type f -readable -writable").output == ".kube/config"
    single.run("chmod 444 .kube/config")
    assert single.run("find .kube -type f -writable").output == ""


def test_ls_prints_gnus_columns_with_the_labs_time(single: LabSession) -> None:
    line = single.run("find .kube -ls").output.split("\n")[1]
    assert line.endswith(" 4 -rw-------   1 admin    admin        1529 Nov 10 09:40 .kube/config")
    assert len(line.split()[0]) >= 6  # an inode number, made from the path


def test_printf_prints_owners_and_the_labs_time(single: LabSession) -> None:
    out = single.run(r"find . -maxdepth 0 -printf '%u %g %U %G|%t|%TY-%Tm-%Td %TT|%T@\n'")
    assert out.output == (
        "admin admin 1000 1000|Tue Nov 10 09:40:00.0000000000 2026"
        "|2026-11-10 09:40:00.0000000000|1794303600.0000000000"
    )


def test_quit_stops_at_the_first_entry_that_reaches_it(single: LabSession) -> None:
    assert single.run("find . -name config -print -quit , -print; echo $?").output == (
        ".\n./.bash_aliases\n./.bash_logout\n./.bashrc\n./.kube\n./.kube/config\n0"
    )


def test_fprint_writes_its_file(single: LabSession) -> None:
    assert single.run("find .kube -fprint found.txt; cat found.txt").output == (
        ".kube\n.kube/config"
    )
    assert single.run("find . -fprint /etc/found").output == (
        "find: '/etc/found': Permission denied"
    )


def test_commands_that_make_folders_end_at_the_labs_limits(single: LabSession) -> None:
    out = single.run(r"find . -type d -exec mkdir {}/x \; 2>/dev/null; echo $?").output
    assert out == "0"
    assert single.run("find . -type d | wc -l").output == "65"  # 64 made, and the home folder


def test_output_stops_at_the_commands_budget(single: LabSession) -> None:
    single.world.state.files["big.txt"] = "x" * 60000 + "\n"
    out = single.run(r"find . -name big.txt -exec cat {} {} {} {} {} {} {} {} {} {} \;").output
    assert out.endswith(
        "find: output stopped at the lab's limit of 512 KiB"
        " (narrow it with grep, head or -o jsonpath)"
    )
