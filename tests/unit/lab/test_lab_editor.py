"""vi, vim, nano and kubectl edit: the editor the page opens, and what a save does."""

from __future__ import annotations

import io
import json

import pytest

from simulators.lab import LabSession, editor
from simulators.lab.cli import main
from simulators.lab.results import CommandResult
from tests.unit.lab.kubectl_cluster import build

HEADER = (
    "# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
    "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
    "# reopened with the relevant failures.\n"
    "#\n"
)


@pytest.fixture
def lab() -> LabSession:
    return LabSession.new("mig-single", seed=1)


def save(
    lab: LabSession, opened: CommandResult, text: str, path: str | None = None
) -> CommandResult:
    assert opened.editor is not None
    return lab.run(editor.save_line(opened.editor.token, text, path))


def test_vi_opens_a_new_file_and_writing_it_says_what_vim_says(lab: LabSession) -> None:
    opened = lab.run("vi pod.yaml")
    assert opened.output == "" and opened.editor is not None
    assert (opened.editor.mode, opened.editor.path, opened.editor.text) == ("vim", "pod.yaml", "")
    saved = save(lab, opened, "a: 1\nb: 2")
    assert saved.output == '"pod.yaml" [New] 2L, 10B written'
    assert lab.run("cat pod.yaml").output == "a: 1\nb: 2"
    again = save(lab, lab.run("vim pod.yaml"), "a: 3\n")
    assert again.output == '"pod.yaml" 1L, 5B written'


def test_vim_opens_an_existing_file_with_its_lines_and_writes_the_last_ones_end(
    lab: LabSession,
) -> None:
    save(lab, lab.run("vi notes.txt"), "hello\n")
    # vim's buffer is the file's lines: its final newline is no empty line of its own, so `G`
    # then `o` adds the second line, and the write ends it again ('fixendofline').
    opened = lab.run("vim notes.txt")
    assert opened.editor is not None and opened.editor.text == "hello"
    assert save(lab, opened, "hello\nworld").output == '"notes.txt" 2L, 12B written'
    assert lab.run("cat -A notes.txt").output == "hello$\nworld$"
    # nano shows that newline as its empty last line, as nano does.
    assert lab.run("nano notes.txt").editor.text == "hello\nworld\n"  # type: ignore[union-attr]


def test_nano_writes_with_nanos_words_and_asks_for_a_name_when_it_has_none(
    lab: LabSession,
) -> None:
    opened = lab.run("nano job.yaml")
    assert opened.editor is not None and opened.editor.mode == "nano"
    assert save(lab, opened, "x\n").output == "[ Wrote 1 line ]"
    assert save(lab, opened, "x\ny\n").output == "[ Wrote 2 lines ]"
    unnamed = lab.run("nano")
    assert save(lab, unnamed, "text").output == "[ No file name ]"
    assert save(lab, lab.run("vi"), "text").output == "E32: No file name"
    # vim's `:w NAME` writes where it says.
    assert save(lab, lab.run("vi"), "text", "named.txt").output.startswith('"named.txt" [New]')
    assert lab.run("cat named.txt").output == "text"


def test_a_file_that_cannot_be_written_gets_the_editors_error(lab: LabSession) -> None:
    assert (
        save(lab, lab.run("vi dir/x"), "a").output == '"dir/x" E212: Can\'t open file for writing'
    )
    assert save(lab, lab.run("nano dir/x"), "a").output == (
        "[ Error writing dir/x: No such file or directory ]"
    )


def test_saves_are_no_history_and_the_transcript_says_what_was_saved(lab: LabSession) -> None:
    save(lab, lab.run("vi pod.yaml"), "a: 1\n")
    assert lab.history == ["vi pod.yaml"]
    assert lab.transcript[-1].line == "# saved in vim: pod.yaml"


def test_a_save_line_that_does_not_parse_writes_nothing(lab: LabSession) -> None:
    result = lab.run(editor.SAVE_MARK + "{not json")
    assert result.output == "editor: the save was not understood; nothing was written"
    forged = editor.save_line(json.dumps({"kind": "rm -rf"}), "x")
    assert lab.run(forged).output.startswith("editor: the save was not understood")


def test_kubectl_edit_opens_the_objects_yaml_under_kubectls_header(lab: LabSession) -> None:
    opened = lab.run("kubectl edit node gpu-node2")
    assert opened.output == "" and opened.editor is not None
    assert opened.editor.mode == "vim"
    assert opened.editor.path.startswith("/tmp/kubectl-edit-") and opened.editor.path.endswith(
        ".yaml"
    )
    text = opened.editor.text
    assert text.startswith(HEADER + "apiVersion: v1\nkind: Node\nmetadata:\n")
    # The file's last line, without its newline: vim's buffer (editor.open_editor).
    assert text[len(HEADER) :] == lab.run("kubectl get node gpu-node2 -o yaml").output


def test_kubectl_edit_unchanged_or_only_comments_and_layout_is_cancelled(lab: LabSession) -> None:
    opened = lab.run("kubectl edit node gpu-node2")
    assert opened.editor is not None
    text = opened.editor.text
    assert save(lab, opened, text).output == "Edit cancelled, no changes made."
    assert (
        save(lab, opened, "# mine\n" + text + "\n\n").output == "Edit cancelled, no changes made."
    )
    assert save(lab, opened, "# all gone\n").output == "Edit cancelled, saved file was empty."


def test_a_valid_kubectl_edit_patches_the_object(lab: LabSession) -> None:
    opened = lab.run("kubectl edit node gpu-node2")
    assert opened.editor is not None
    text = opened.editor.text.replace(
        "nvidia.com/mig.config: all-disabled", "nvidia.com/mig.config: all-1g.10gb"
    )
    result = save(lab, opened, text)
    assert (result.output, result.exit_code, result.editor) == ("node/gpu-node2 edited", 0, None)
    shown = lab.run("kubectl get node gpu-node2 -L nvidia.com/mig.config").output
    assert "all-1g.10gb" in shown


def test_an_invalid_kubectl_edit_reopens_with_kubectls_reasons_and_gives_up_when_unchanged(
    lab: LabSession,
) -> None:
    opened = lab.run("kubectl edit node gpu-node2")
    assert opened.editor is not None
    bad = opened.editor.text.replace(
        "kubernetes.io/os: linux", "kubernetes.io/os: linux\n    team: bad value!", 1
    )
    result = save(lab, opened, bad)
    assert (result.output, result.exit_code) == (
        'error: /v1, Resource=nodes "gpu-node2" is invalid',
        1,
    )
    assert result.editor is not None
    reopened = result.editor.text
    assert reopened.startswith(
        HEADER + '# /v1, Resource=nodes "gpu-node2" was not valid:\n'
        '# * metadata.labels: Invalid value: "bad value!": a valid label must be'
    )
    assert "    team: bad value!\n" in reopened
    assert "team" not in lab.run("kubectl get node gpu-node2 --show-labels").output
    # Saved again as it was reopened: kubectl stops trying.
    again = save(lab, result, reopened)
    assert again.output == "error: Edit cancelled, no valid changes were saved."
    assert again.editor is None
    # Fixed in the reopened buffer: edited.
    fixed = save(lab, result, reopened.replace("bad value!", "research"))
    assert fixed.output == "node/gpu-node2 edited"


def test_a_kubectl_edit_with_a_syntax_error_reopens_with_it(lab: LabSession) -> None:
    opened = lab.run("kubectl edit node gpu-node2")
    assert opened.editor is not None
    result = save(lab, opened, opened.editor.text.replace("labels:", "labels: [", 1))
    assert result.editor is not None
    assert result.editor.text.startswith(
        HEADER + "# The edited file had a syntax error: error converting YAML to JSON: yaml: line"
    )


def test_kubectl_edit_refuses_a_changed_name(lab: LabSession) -> None:
    opened = lab.run("kubectl edit node gpu-node2")
    assert opened.editor is not None
    renamed = opened.editor.text.replace("\n  name: gpu-node2\n", "\n  name: gpu-node9\n", 1)
    assert save(lab, opened, renamed).output == (
        "error: At least one of apiVersion, kind and name was changed"
    )


def test_kubectl_edit_follows_kube_editor_then_editor() -> None:
    cluster = build()
    cluster.ctx.env = {"EDITOR": "nano"}
    assert cluster.run("kubectl edit node gpu-node1").text == ""
    assert cluster.ctx.editor is not None and cluster.ctx.editor.mode == "nano"
    cluster.ctx.env = {"EDITOR": "nano", "KUBE_EDITOR": "emacs -nw"}
    result = cluster.run("kubectl edit node gpu-node1")
    assert (result.code, result.text) == (1, 'error: unable to launch the editor "emacs -nw"')


def test_kubectl_edit_of_a_missing_object_is_the_servers_error(lab: LabSession) -> None:
    result = lab.run("kubectl edit node gpu-node7")
    assert result.output == 'Error from server (NotFound): nodes "gpu-node7" not found'
    assert result.editor is None


def test_the_stdin_lab_says_in_one_line_that_the_editor_needs_the_browser() -> None:
    out = io.StringIO()
    main(["--ticket", "mig-single"], stdin=io.StringIO("vi pod.yaml\n"), stdout=out)
    assert out.getvalue().splitlines()[-1] == (
        "vi: the editor opens in the browser terminal; here, change files with sed -i"
    )


def test_kubectl_edit_as_json_has_no_header_and_reopens_without_one(lab: LabSession) -> None:
    opened = lab.run("kubectl edit node gpu-node2 -o json")
    assert opened.editor is not None and opened.editor.path.endswith(".json")
    assert opened.editor.text.startswith("{\n")
    bad = opened.editor.text.replace('"kubernetes.io/os": "linux"', '"kubernetes.io/os": "a b"', 1)
    result = save(lab, opened, bad)
    assert result.output == 'error: /v1, Resource=nodes "gpu-node2" is invalid'
    assert result.editor is not None and result.editor.text.startswith("{\n")


def test_tab_completes_file_names_after_vi_and_nano(lab: LabSession) -> None:
    save(lab, lab.run("vi pod.yaml"), "a: 1\n")
    assert lab.complete("vim po") == ["pod.yaml"]
    assert lab.complete("nano p") == ["pod.yaml"]
    assert "vim" in lab.complete("vi")
