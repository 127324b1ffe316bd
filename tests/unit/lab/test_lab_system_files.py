"""The admin host's own files (simulators.lab.system_files, read through simulators.lab.fs): an
Ubuntu 22.04.5 host's /etc, /proc and programs, root's and read-only, with the usr-merge links
at the top; and what bash, pwd and more do where the tree moves under the shell (a working
folder moved or removed, a file given as a folder), compared with this machine's bash and
util-linux more where they are here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from simulators.lab import LabSession, commands, fs, kubeconfig, system_files
from simulators.lab.world import HostState


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=0)


# ---------------------------------------------------------------------------- the files


def test_cat_etc_os_release_says_ubuntu_22_04_5_lts_as_the_real_file_does(lab: LabSession) -> None:
    text = lab.run("cat /etc/os-release").output
    assert text.splitlines()[:4] == [
        'PRETTY_NAME="Ubuntu 22.04.5 LTS"',
        'NAME="Ubuntu"',
        'VERSION_ID="22.04"',
        'VERSION="22.04.5 LTS (Jammy Jellyfish)"',
    ]
    assert "UBUNTU_CODENAME=jammy" in text.splitlines()
    assert lab.run("grep DESCRIPTION /etc/lsb-release").output == (
        'DISTRIB_DESCRIPTION="Ubuntu 22.04.5 LTS"'
    )


def test_hostname_timezone_and_proc_version_agree_with_hostname_and_uname(lab: LabSession) -> None:
    assert lab.run("cat /etc/hostname").output == lab.run("hostname").output == "kadmin"
    assert lab.run("cat /etc/timezone").output == "Etc/UTC"
    release, version = lab.run("uname -r; uname -v").output.splitlines()
    proc = lab.run("cat /proc/version").output
    assert proc.startswith(f"Linux version {release} (") and proc.endswith(version)
    assert lab.run("grep -c ^processor /proc/cpuinfo").output == str(system_files.CPUS)
    assert lab.run("head -1 /proc/meminfo").output == "MemTotal:       16367548 kB"


def test_grep_admin_in_passwd_and_group_finds_the_user_id_describes(lab: LabSession) -> None:
    assert lab.run("grep ^admin: /etc/passwd").output == (
        "admin:x:1000:1000:admin,,,:/home/admin:/bin/bash"
    )
    assert lab.run("head -1 /etc/passwd").output == "root:x:0:0:root:/root:/bin/bash"
    assert lab.run("awk -F: '$3 >= 1000 && $3 < 65534 {print $1, $6}' /etc/passwd").output == (
        "admin /home/admin"
    )
    # Every group `id` names, with admin in it (its own by gid, sudo as a member).
    listed = lab.run("grep -w admin /etc/group | cut -d: -f1,3 | tr '\\n' ' '").output
    assert listed.split() == ["sudo:27", "admin:1000"]
    assert lab.run("id").output == "uid=1000(admin) gid=1000(admin) groups=1000(admin),27(sudo)"
    assert lab.run("grep -c . /etc/shells; grep -x /bin/bash /etc/shells").output == "11\n/bin/bash"


def test_etc_hosts_names_the_control_plane_and_the_nodes_at_the_worlds_addresses(
    lab: LabSession,
) -> None:
    hosts = lab.run("cat /etc/hosts").output.splitlines()
    assert hosts[:2] == ["127.0.0.1 localhost", "127.0.1.1 kadmin"]
    named = {line.split()[1]: line.split()[0] for line in hosts if line.startswith("10.")}
    server = kubeconfig.SERVER.removeprefix("https://").rsplit(":", 1)[0]
    assert named.pop("dgx-cluster-api") == server
    nodes = {
        node["metadata"]["name"]: next(
            a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP"
        )
        for node in lab.world.api.list("nodes")["items"]
    }
    assert named == nodes


def test_writing_removing_or_changing_a_system_file_is_refused_as_bash_and_coreutils_do(
    lab: LabSession,
) -> None:
    lines = [
        ("echo x > /etc/hosts", "bash: /etc/hosts"),
        ("echo x >> /etc/os-release", "bash: /etc/os-release"),
        ("rm /etc/hosts", "rm: cannot remove '/etc/hosts'"),
        ("rm -rf /bin", "rm: cannot remove '/bin'"),
        ("mv /etc/hosts /tmp", "mv: cannot move '/etc/hosts' to '/tmp/hosts'"),
        ("touch /etc/hosts", "touch: cannot touch '/etc/hosts'"),
        ("cp ~/.kube/config /etc/hosts", "cp: cannot create regular file '/etc/hosts'"),
        ("echo x | tee /etc/hosts >/dev/null", "tee: /etc/hosts"),
        ("mkdir /etc/kubernetes", "mkdir: cannot create directory \u2018/etc/kubernetes\u2019"),
        ("touch /usr/local/bin/tool", "touch: cannot touch '/usr/local/bin/tool'"),
    ]
    before = lab.run("cat /etc/hosts").output
    for line, said in lines:
        result = lab.run(line)
        assert (result.output, result.exit_code) == (f"{said}: Permission denied", 1), line
    assert lab.run("chmod 600 /etc/passwd").output == (
        "chmod: changing permissions of '/etc/passwd': Operation not permitted"
    )
    sed = lab.run("sed -i s/kadmin/other/ /etc/hosts")
    assert re.fullmatch(
        r"sed: couldn't open temporary file /etc/sed\w{6}: Permission denied", sed.output
    )
    assert sed.exit_code == 4
    assert lab.run("cat /etc/hosts").output == before
    tests = "test -w /etc/hosts || echo read-only; test -r /etc/hosts && echo readable"
    assert lab.run(tests).output == "read-only\nreadable"


def test_ls_l_of_the_top_shows_the_usr_merge_links_and_lost_found(lab: LabSession) -> None:
    lines = {line.rsplit(" ", 1)[-1]: line for line in lab.run("ls -l /").output.splitlines()}
    lines = {line.split(" 09:40 ")[-1]: line for line in lines.values() if " 09:40 " in line}
    assert lines["bin -> usr/bin"] == "lrwxrwxrwx  1 root root    7 Nov 10 09:40 bin -> usr/bin"
    assert lines["sbin -> usr/sbin"].startswith("lrwxrwxrwx  1 root root    8 ")
    for name in ("lib -> usr/lib", "lib32 -> usr/lib32", "lib64 -> usr/lib64"):
        assert lines[name].startswith("lrwxrwxrwx"), name
    assert lines["libx32 -> usr/libx32"].startswith("lrwxrwxrwx  1 root root   10 ")
    assert lines["lost+found"].startswith("drwx------  2 root root 4096 ")
    assert lab.run("ls -F / | grep @").output.split() == [
        "bin@", "lib@", "lib32@", "lib64@", "libx32@", "sbin@",
    ]  # fmt: skip
    assert lab.run("ls /lost+found").output == (
        "ls: cannot open directory '/lost+found': Permission denied"
    )


def test_paths_through_the_links_reach_the_same_files(lab: LabSession) -> None:
    assert lab.run("ls /bin/cat; ls /sbin; ls -ld /bin/ | cut -c1-10").output == (
        "/bin/cat\ndrwxr-xr-x"
    )
    assert lab.run("cat /lib/os-release | head -1").output == 'PRETTY_NAME="Ubuntu 22.04.5 LTS"'
    assert lab.run("ls -l /etc/os-release").output == (
        "lrwxrwxrwx 1 root root 21 Nov 10 09:40 /etc/os-release -> ../usr/lib/os-release"
    )
    tests = "test -L /bin && test -d /bin && test -f /etc/resolv.conf && echo yes"
    assert lab.run(tests).output == "yes"
    assert lab.run("grep nameserver /etc/resolv.conf").output == "nameserver 127.0.0.53"
    assert lab.run("echo /etc/*release; ls -d /b*").output == (
        "/etc/lsb-release /etc/os-release\n/bin  /boot"
    )


def test_ls_usr_local_bin_and_usr_bin_list_the_programs_which_finds(lab: LabSession) -> None:
    assert lab.run("ls /usr/local/bin").output.split() >= ["helm", "kubectl", "runai"]
    assert lab.run("ls -l /usr/local/bin/kubectl").output.startswith("-rwxr-xr-x 1 root root ")
    assert lab.run("ls -l /usr/bin/sudo").output.startswith("-rwsr-xr-x 1 root root ")
    listed = {
        folder: lab.run(f"ls -1 {folder}").output.splitlines()
        for folder in ("/usr/bin", "/usr/local/bin", "/bin")
    }
    for name, path in commands.PATHS.items():
        assert lab.run(f"which '{name}'").output == path, name
        folder, program = path.rsplit("/", 1)
        assert program in listed[folder], path
        assert (program in listed["/bin"]) == (folder == "/usr/bin"), path
        assert lab.run(f"test -x '{path}' && test -f '{path}' && echo yes").output == "yes", path
    assert len(listed["/usr/bin"]) + len(listed["/usr/local/bin"]) == len(commands.PATHS)


def test_find_wc_and_tab_completion_see_the_system_files(lab: LabSession) -> None:
    assert lab.run("find /etc -name '*release*'").output == "/etc/lsb-release\n/etc/os-release"
    assert lab.run("find /etc -type l").output == "/etc/os-release\n/etc/resolv.conf"
    assert lab.run("find / -maxdepth 1 -type l | wc -l").output == "6"
    assert lab.run("find /bin; find /bin/ -name ls").output == "/bin\n/bin/ls"
    assert lab.run("find /proc -type f -empty | wc -l").output == "3"
    lines = len(system_files.PASSWD.splitlines())
    assert lab.run("wc -l < /etc/passwd").output == str(lines)
    assert lab.run("grep -r kadmin /etc").output == (
        "/etc/hostname:kadmin\n/etc/hosts:127.0.1.1 kadmin"
    )  # grep -r skips the links it meets, as GNU's does
    assert lab.complete("cat /etc/os-") == ["/etc/os-release"]
    assert lab.complete("cd /b") == ["/bin/", "/boot/"]
    assert lab.complete("ls /usr/local/bin/ku") == ["/usr/local/bin/kubectl"]


def test_proc_files_are_empty_to_ls_and_hold_text_for_cat(lab: LabSession) -> None:
    assert lab.run("ls -l /proc/version").output == (
        "-r--r--r-- 1 root root 0 Nov 10 09:40 /proc/version"
    )
    assert lab.run("test -s /proc/meminfo || wc -c < /proc/meminfo").output == str(
        len(system_files.MEMINFO)
    )


def test_a_saved_lab_holds_none_of_the_system_files(lab: LabSession) -> None:
    for text in ("Jammy Jellyfish", "ip6-allnodes", "GenuineIntel", "/usr/sbin/nologin"):
        assert text not in lab.encode(), text
    saved = lab.world.state.to_json()
    lab.run("cat /etc/hosts /etc/os-release /proc/cpuinfo > /dev/null; ls -lR /usr /etc")
    after = lab.world.state.to_json()
    assert after == {**saved, "step": after["step"]}
    assert list(saved["files"]) == [kubeconfig.NAME]
    again = LabSession.from_json(json.loads(lab.encode()))
    assert again.run("cat /etc/hostname").output == "kadmin"
    assert len(json.dumps(again.world.state.to_json())) == len(json.dumps(after))


def test_an_imported_lab_with_a_file_at_a_system_path_is_refused() -> None:
    for key in ("/etc/passwd", "/bin/evil", "/usr/local/bin/kubectl", "/etc/os-release"):
        state = HostState.holding({key: "x"})
        assert fs.damaged(state) is not None, key
    assert fs.damaged(HostState.holding({"/etc/motd": "hello\n"})) is None


def test_every_link_points_at_a_folder_or_file_of_the_tree(lab: LabSession) -> None:
    state = lab.world.state
    for path, target in system_files.LINKS.items():
        assert fs.locate_in(state, fs.parent(path), target).exists, path
        assert fs.parent(path) in fs.SYSTEM, path
    for path in [*system_files.FILES, *system_files.programs()]:
        assert fs.parent(path) in fs.SYSTEM, path


# ---------------------------------------------------------------------------- the gaps


def test_pwd_keeps_a_removed_working_folders_path_as_bash_does(lab: LabSession) -> None:
    lab.run("mkdir /tmp/d; cd /tmp/d; rmdir /tmp/d")
    result = lab.run("pwd; echo $PWD; ls; echo ls $?; pwd -P")
    assert result.output == (
        "/tmp/d\n/tmp/d\nls 0\n"
        "pwd: error retrieving current directory: getcwd: cannot access parent directories:"
        " No such file or directory"
    )
    assert result.exit_code == 1
    assert lab.run("touch x").output == "touch: cannot touch 'x': No such file or directory"
    assert lab.run("cd ..; pwd; echo $OLDPWD").output == "/tmp\n/tmp/d"


def test_cd_dotdot_inside_a_removed_tree_keeps_the_path_made_after_getcwds_complaint(
    lab: LabSession,
) -> None:
    lab.run("mkdir -p /tmp/d/e; cd /tmp/d/e; rm -r /tmp/d")
    result = lab.run("cd ..; echo $?; pwd")
    assert result.output == (
        "cd: error retrieving current directory: getcwd: cannot access parent directories:"
        " No such file or directory\n0\n/tmp/d/e/.."
    )
    assert lab.run("cd ..; pwd").output == "/tmp"


def test_pwd_keeps_a_moved_working_folders_old_path_and_cd_dotdot_finds_the_new(
    lab: LabSession,
) -> None:
    lab.run("mkdir -p /tmp/d/e; touch /tmp/d/e/f; cd /tmp/d/e; mv /tmp/d /tmp/g")
    assert lab.run("pwd; echo $PWD; pwd -P; ls").output == "/tmp/d/e\n/tmp/d/e\n/tmp/g/e\nf"
    assert lab.run("cd ..; pwd").output == "/tmp/g"


def test_cd_through_a_file_is_not_a_directory_as_bash_says(lab: LabSession) -> None:
    lab.run("touch f; mkdir d")
    assert lab.run("cd f/..").output == "bash: cd: f/..: Not a directory"
    assert lab.run("cd d/../f/..").output == "bash: cd: d/../f/..: Not a directory"
    assert lab.run("cd nope/..").output == "bash: cd: nope/..: No such file or directory"
    assert lab.run("cd d/../d; pwd").output == "/home/admin/d"


def test_cd_through_a_link_keeps_its_name_and_cd_p_resolves_it(lab: LabSession) -> None:
    result = lab.run("cd /bin")
    assert result.prompt == "admin@kadmin:/bin$ "
    assert lab.run("pwd; pwd -P; ls -d ../lib; cd ..; pwd").output == "/bin\n/usr/bin\n../lib\n/"
    assert lab.run("cd -P /bin/..; pwd; cd //tmp; pwd").output == "/usr\n//tmp"


def test_more_prints_a_folders_line_on_stdout_where_the_folder_comes(lab: LabSession) -> None:
    lab.run("mkdir d; echo a > f")
    result = lab.run("more d 2>/dev/null; echo $?")
    assert result.output == "\n*** d: directory ***\n\n0"
    assert lab.run("more f d | cat").output == (
        "::::::::::::::\nf\n::::::::::::::\na\n\n*** d: directory ***\n"
    )


# ---------------------------------------------------------------------------- the real tools

GAP_SCRIPTS = [
    'mkdir d; cd d; rmdir ../d; pwd; echo "PWD=$PWD"; pwd -P; echo rc=$?',
    'mkdir d; cd d; rmdir ../d; pwd -L; ls; echo "ls rc=$?"; ls -l; ls -a .; ls -d',
    'mkdir d; cd d; rmdir ../d; cd ..; echo rc=$?; pwd; echo "$PWD $OLDPWD"',
    "mkdir -p d/e; cd d/e; rm -r ../../d; cd ..; echo rc=$?; pwd; cd ..; echo rc=$?; pwd",
    'mkdir d; cd d; rmdir ../d; cd .; echo rc=$?; echo "PWD=$PWD"; cd ./; echo "PWD=$PWD"',
    'mkdir d; cd d; rmdir ../d; cd ""; echo rc=$?; cd -; echo rc=$?; pwd',
    "mkdir -p d/e; cd d/e; rm -r ../../d; cd -P ..; echo rc=$?; pwd",
    "mkdir d; cd d; rmdir ../d; cd ../x; echo rc=$?; mkdir ../x; cd ../x; echo rc=$?; pwd",
    "mkdir -p d/e; cd d/e; mv ../../d ../../g; pwd; pwd -P; cd ..; echo rc=$?; pwd; cd -",
    "touch f; mkdir d; cd f/..; cd f; cd nope/..; cd d/../f/..; cd d/../f; cd ./d/..; pwd",
    "cd //tmp; pwd; echo $PWD; cd ///tmp; pwd; cd /tmp//; pwd",
    "pwd x y; pwd -x; echo rc=$?; pwd -LP; cd -x; echo rc=$?; cd a b; cd -L -P /bin; pwd",
    "cd /bin; pwd; pwd -P; cd ..; pwd; cd -P /bin/..; pwd; cd /bin/../etc; pwd",
    "cd -P /bin; pwd; cd /lib; cd -; cd /bin/; pwd; ls -d ../lib; cd /sbin/..; pwd",
    "cd /etc/os-release; echo $?; cd /etc/os-release/..; echo $?",
    'PWD=/usr; pwd; cd .; pwd; unset PWD; pwd; cd /usr; echo "$OLDPWD|$PWD"',
]


def _bash_in(script: str, setup: str = "") -> str:
    """The script run by this machine's bash in a new folder (LC_ALL=C), its path written as
    the lab's /tmp/t; stderr's `line N: ` dropped (bash -c's, not a terminal's)."""
    folder = tempfile.mkdtemp()
    try:
        done = subprocess.run(
            ["bash", "-c", f"{setup}\n{script}"],
            cwd=folder,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": fs.HOME},
            check=False,
            timeout=20,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out = (done.stdout + done.stderr).replace(folder, "/tmp/t")
    return re.sub(r"bash: line \d+: ", "bash: ", out)


def _lab_in(script: str, setup: str = "") -> str:
    lab = LabSession.new("mig-single", seed=0)
    lab.run(f"mkdir /tmp/t; cd /tmp/t; {setup}")
    return lab.run(script).output


@pytest.mark.skipif(
    shutil.which("bash") is None or not os.path.islink("/bin"), reason="no usr-merged bash here"
)
@pytest.mark.parametrize("script", GAP_SCRIPTS)
def test_cd_and_pwd_where_the_tree_moved_print_what_bash_prints(script: str) -> None:
    # The lines as a set: the lab's stderr comes where the terminal shows it, bash -c's later.
    assert sorted(_lab_in(script).splitlines()) == sorted(_bash_in(script).splitlines()), script


MORE_SETUP = "mkdir -p g; echo a > f1; echo b > f2; printf a > f3; : > e"
MORE_LINES = ["more g", "more f1 g f2", "more g f1", "more nope g", "more nope", "more f1 nope"]
MORE_LINES += [
    "echo x | more",
    "echo x | more - f1",
    "more f3 f1",
    "more e f1",
    "more f1",
    "more e",
]
MORE_LINES += ["more f1/"]


@pytest.mark.skipif(shutil.which("more") is None, reason="no util-linux more here")
@pytest.mark.parametrize("line", MORE_LINES)
def test_more_writes_to_a_pipe_what_util_linux_more_writes(line: str) -> None:
    script = f"{{ {line}; }} 2>/dev/null > out; cat -A out; {{ {line}; }} 2>&1 >/dev/null; echo $?"
    assert _lab_in(script, MORE_SETUP) == _bash_in(script, MORE_SETUP).rstrip("\n"), line
