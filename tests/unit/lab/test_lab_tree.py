"""The admin host's file tree (simulators.lab.fs) as the shell and kubectl use it: a working
folder, paths resolved from it, root's folders closed to the admin, /tmp open, kubectl's -f and
--from-file over folders, a saved lab keeping where its learner was."""

from __future__ import annotations

import json

import pytest

from simulators.lab import LabSession, editor, fs
from simulators.lab.world import HostState
from tests.unit.lab.real_host import bash, home_folder

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: default
data:
  k: v
"""


def lab_with_reports() -> LabSession:
    lab = LabSession.new("mig-single", seed=0)
    lab.world.state.folders += ["reports", "reports/gpu"]
    lab.world.state.files.update({"reports/a.txt": "alpha\n", "reports/gpu/b.txt": "beta\n"})
    return lab


def test_cd_moves_the_working_folder_and_the_prompt_shows_it() -> None:
    lab = lab_with_reports()
    result = lab.run("cd reports/gpu")
    assert (result.output, result.exit_code) == ("", 0)
    assert result.prompt == "admin@kadmin:~/reports/gpu$ "
    assert lab.run("pwd; echo $PWD $OLDPWD").output == (
        "/home/admin/reports/gpu\n/home/admin/reports/gpu /home/admin"
    )
    assert lab.run("cat b.txt ../a.txt").output == "beta\nalpha"
    assert lab.run("cd /tmp").prompt == "admin@kadmin:/tmp$ "
    assert lab.run("cd -").output == "/home/admin/reports/gpu"
    assert lab.run("cd").prompt == "admin@kadmin:~$ "


def test_cd_refuses_as_bash_does() -> None:
    lab = lab_with_reports()
    assert lab.run("cd nowhere").output == "bash: cd: nowhere: No such file or directory"
    assert lab.run("cd reports/a.txt").output == "bash: cd: reports/a.txt: Not a directory"
    assert lab.run("cd /root").output == "bash: cd: /root: Permission denied"
    assert lab.run("cd a b").output == "bash: cd: too many arguments"
    assert lab.prompt == "admin@kadmin:~$ "


def test_the_working_folder_is_kept_with_the_saved_lab() -> None:
    lab = lab_with_reports()
    lab.run("cd reports")
    again = LabSession.from_json(json.loads(lab.encode()))
    assert again.prompt == "admin@kadmin:~/reports$ "
    assert again.run("cat a.txt").output == "alpha"


def test_the_admin_writes_in_its_folders_and_tmp_but_not_in_roots() -> None:
    lab = LabSession.new("mig-single", seed=0)
    assert lab.run("echo x > /etc/motd").output == "bash: /etc/motd: Permission denied"
    assert lab.run("echo x > /opt/x").output == "bash: /opt/x: Permission denied"
    assert lab.run("echo x > /tmp/nodes.txt; cat /tmp/nodes.txt").output == "x"
    assert lab.run("echo x > missing/f").output == "bash: missing/f: No such file or directory"
    assert lab.run("echo x > .kube").output == "bash: .kube: Is a directory"
    assert lab.run("cat /tmp").output == "cat: /tmp: Is a directory"
    assert "/tmp/nodes.txt" in lab.world.state.files


def test_ls_lists_the_system_top_level_and_cannot_open_roots_home() -> None:
    lab = LabSession.new("mig-single", seed=0)
    assert lab.run("ls -1 /").output.split() == [
        "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "lost+found",
        "media", "mnt", "opt", "proc", "root", "run", "sbin", "srv", "sys", "tmp", "usr", "var",
    ]  # fmt: skip
    result = lab.run("ls /root")
    assert (result.output, result.exit_code) == (
        "ls: cannot open directory '/root': Permission denied",
        2,
    )
    assert lab.run("ls -ld /tmp").output.startswith("drwxrwxrwt 2 root root 4096 ")


def test_kubectl_finds_its_kubeconfig_from_any_working_folder() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("cd /tmp")
    assert lab.run("kubectl config current-context").output == "kubernetes-admin@dgx-cluster"


def test_kubectl_apply_f_folder_applies_its_manifests_in_name_order() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.world.state.folders += ["m", "m/deeper"]
    lab.world.state.files.update(
        {
            "m/b.yaml": CONFIGMAP.format(name="bee"),
            "m/a.yml": CONFIGMAP.format(name="ay"),
            "m/notes.txt": "not a manifest\n",
            "m/deeper/c.json": json.dumps(
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "sea"}}
            ),
        }
    )
    assert lab.run("kubectl apply -f m/").output == ("configmap/ay created\nconfigmap/bee created")
    assert lab.run("kubectl apply -f m -R").output == (
        "configmap/ay unchanged\nconfigmap/bee unchanged\nconfigmap/sea created"
    )


def test_kubectl_reads_a_folder_as_kubectl_does_for_from_file_and_kustomize() -> None:
    lab = lab_with_reports()
    created = lab.run("kubectl create configmap r --from-file=reports -o jsonpath='{.data}'")
    assert created.output == '{"a.txt":"alpha\\n"}'
    assert lab.run("kubectl apply -k reports").output == (
        "error: unable to find one of 'kustomization.yaml', 'kustomization.yml' or "
        "'Kustomization' in directory '/home/admin/reports'"
    )


def test_tests_and_globs_see_the_tree() -> None:
    lab = lab_with_reports()
    line = "[ -d reports/gpu ] && [ -f reports/a.txt ] && [ ! -w /etc ] && [ -w /tmp ]; echo $?"
    assert lab.run(line).output == "0"
    assert lab.run("echo */*").output == "reports/a.txt reports/gpu"
    assert lab.run("cd /; echo t*/ home/*").output == "tmp/ home/admin"


def test_tab_completes_paths_in_folders_and_cd_offers_folders_only() -> None:
    lab = lab_with_reports()
    assert lab.complete("cat reports/") == ["reports/a.txt", "reports/gpu/"]
    assert lab.complete("cd reports/") == ["reports/gpu/"]
    assert lab.complete("cat /tm") == ["/tmp/"]


def test_grep_r_and_scripts_work_in_nested_folders() -> None:
    lab = lab_with_reports()
    assert lab.run("grep -r a reports").output == "reports/a.txt:alpha\nreports/gpu/b.txt:beta"
    lab.world.state.files["reports/gpu/run.sh"] = "#!/bin/bash\necho ran in $PWD\n"
    lab.run("chmod +x reports/gpu/run.sh; cd reports")
    assert lab.run("./gpu/run.sh").output == "ran in /home/admin/reports"


def test_a_lab_saved_before_folders_gets_the_folders_above_its_files() -> None:
    state = HostState.from_json(
        {"seed": 0, "version": 2, "files": {".kube/config": "x", "/tmp/w/a": "y", "b": "z"}}
    )
    assert state.folders == [".kube", "/tmp/w"]
    assert fs.damaged(state) is None


def test_a_tree_the_lab_could_not_build_is_named_as_such() -> None:
    under_a_file = HostState.holding({"a": "x", "a/b": "y"})
    assert fs.damaged(under_a_file) == "has a file where a folder is: 'a'"
    dotted = HostState.holding({"x/../../etc/passwd": "root"})
    assert "a path the lab cannot hold" in str(fs.damaged(dotted))


def test_the_transcript_shows_each_line_at_the_prompt_it_was_typed_at() -> None:
    lab = lab_with_reports()
    lab.run("cd reports")
    result = lab.run("ls")
    assert (result.typed_at, result.prompt) == ("admin@kadmin:~/reports$ ",) * 2
    assert lab.replay().splitlines() == [
        "admin@kadmin:~$ cd reports",
        "admin@kadmin:~/reports$ ls",
        "a.txt  gpu",
    ]
    again = LabSession.from_json(json.loads(lab.encode()))
    assert [entry.prompt for entry in again.transcript] == [
        "admin@kadmin:~$ ",
        "admin@kadmin:~/reports$ ",
    ]


def test_an_editor_opens_a_file_in_a_folder_and_refuses_a_folder() -> None:
    lab = lab_with_reports()
    lab.run("cd reports")
    opened = lab.run("vim gpu/new.yaml")
    assert opened.editor is not None
    saved = lab.run(editor.save_line(opened.editor.token, "a: 1\n", None))
    assert saved.output == '"gpu/new.yaml" [New] 1L, 5B written'
    assert lab.world.state.files["reports/gpu/new.yaml"] == "a: 1\n"
    refused = lab.run("nano gpu")
    assert (refused.output, refused.editor) == ('"gpu" is a directory', None)


@pytest.mark.parametrize(
    "line",
    [
        "wc d f", "sort d", "sed p d", "sed -i p d", "awk 1 d f", "tac d", "nl d", "cut -c1 d",
        "uniq d", "base64 d", "paste d", "column d", "rev d", "cat d", "head d", "grep x d",
        "source d", "bash d",
    ],
)  # fmt: skip
def test_a_tool_given_a_folder_says_what_the_real_tool_says(line: str) -> None:
    script = f'{line}; echo "[$?]"'
    with home_folder() as home:
        (home / "d").mkdir()
        (home / "f").write_text("hi\n", encoding="utf-8")
        real = bash(home, script, LC_ALL="C.UTF-8").replace("bash: line 1: ", "bash: ")
    lab = LabSession.new("mig-single", seed=0)
    lab.run("mkdir d; echo hi > f")
    assert sorted(lab.run(script).output.split("\n")) == sorted(real.rstrip("\n").split("\n"))


def test_a_subshell_or_bash_c_changes_folder_only_for_itself() -> None:
    lab = LabSession.new("mig-single", seed=0)
    out = lab.run("(cd /tmp; pwd); pwd; bash -c 'cd /tmp'; pwd; echo x | (cd /; cat); pwd").output
    assert out.split("\n") == ["/tmp", "/home/admin", "/home/admin", "x", "/home/admin"]
    assert lab.prompt == "admin@kadmin:~$ "


def test_find_exec_and_xargs_run_sh_c_with_its_arguments_in_a_subshell() -> None:
    lab = LabSession.new("mig-single", seed=0)
    lab.run("mkdir -p m && touch m/a.yaml m/b.yaml")
    found = lab.run("""find m -name '*.yaml' -exec sh -c 'echo "got $1"; cd /tmp' sh {} \\;""")
    assert found.output == "got m/a.yaml\ngot m/b.yaml"
    assert lab.run("pwd").output == "/home/admin"
    piped = lab.run("""ls m | xargs -I{} bash -c 'x={}; echo "${x%.yaml}"'; echo "[$x]" """)
    assert piped.output == "a\nb\n[]"
