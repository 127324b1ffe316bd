"""The editor over the web: the websocket's editor and save frames, and the form's textarea."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client

from simulators.lab import editor
from tests.web.test_lab_consumer import connect, new_session_key, receive

pytestmark = [pytest.mark.django_db(transaction=True)]


async def test_kubectl_edit_opens_an_editor_frame_and_its_save_patches_the_node() -> None:
    comm = await connect("mig-single", await new_session_key())
    await comm.send_to(
        text_data=json.dumps({"type": "line", "data": "kubectl edit node gpu-node2"})
    )
    opened = await receive(comm)
    assert opened["type"] == "output" and opened["data"] == ""
    request = opened["editor"]
    assert request["mode"] == "vim" and request["text"].startswith("# Please edit the object")
    text = request["text"].replace(
        "nvidia.com/mig.config: all-disabled", "nvidia.com/mig.config: all-1g.10gb"
    )
    # A save frame may carry more than a command line's 4 KiB: it is the whole buffer.
    assert len(text.encode()) > 4096
    frame = {"type": "save", "token": request["token"], "text": text, "path": None}
    await comm.send_to(text_data=json.dumps(frame))
    saved = await receive(comm)
    assert (saved["data"], saved["saved"]) == ("node/gpu-node2 edited", True)
    assert "editor" not in saved
    await comm.send_to(
        text_data=json.dumps(
            {"type": "line", "data": "kubectl get node gpu-node2 -L nvidia.com/mig.config"}
        )
    )
    assert "all-1g.10gb" in (await receive(comm))["data"]
    await comm.disconnect()


async def test_a_saved_file_is_kept_and_comes_back_after_a_reconnect() -> None:
    key = await new_session_key()
    comm = await connect("mig-single", key)
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "nano notes.txt"}))
    request = (await receive(comm))["editor"]
    save = {"type": "save", "token": request["token"], "text": "kept\n"}
    await comm.send_to(text_data=json.dumps(save))
    assert (await receive(comm))["data"] == "[ Wrote 1 line ]"
    await comm.disconnect()
    again = await connect("mig-single", key)
    await again.send_to(text_data=json.dumps({"type": "line", "data": "cat notes.txt"}))
    assert (await receive(again))["data"] == "kept"
    await again.disconnect()


def test_without_javascript_the_editor_is_a_textarea_and_its_button_saves(client: Client) -> None:
    client.get("/lab/mig-single/")
    client.post("/lab/mig-single/command", {"line": "vi pod.yaml"})
    page = client.get("/lab/mig-single/").content.decode()
    assert '<textarea id="editor-text" name="editor_text"' in page
    token = html.unescape(re.search(r'name="editor_token" value="([^"]*)"', page)[1])  # type: ignore[index]
    response = client.post(
        "/lab/mig-single/command", {"editor_token": token, "editor_text": "a: 1\r\nb: 2\r\n"}
    )
    assert response.status_code == 302
    page = client.get("/lab/mig-single/").content.decode()
    assert "&quot;pod.yaml&quot; [New] 2L, 10B written" in page
    assert "editor-text" not in page
    client.post("/lab/mig-single/command", {"line": "cat pod.yaml"})
    assert "a: 1\nb: 2" in client.get("/lab/mig-single/").content.decode()


def test_the_htmx_form_answers_an_editor_command_with_the_textarea(client: Client) -> None:
    response = client.post(
        "/lab/mig-single/command",
        {"line": "kubectl edit node gpu-node1"},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert '<textarea id="editor-text"' in body and "# Please edit the object below." in body


def test_the_annex_answers_an_editor_command_with_its_editor_and_a_save_with_its_code() -> None:
    from studysite.lab import annex, store
    from tests.web.test_lab_annex import _request, _serve

    key = "e" * 32
    store.open_lab(key, "mig-single")
    _, opened = _serve(_request(key, "vi dir/x"))
    assert opened["editor"]["mode"] == "vim" and opened["editor"]["path"] == "dir/x"
    line = editor.save_line(opened["editor"]["token"], "text")
    _, saved = _serve(_request(key, line))
    assert saved["output"] == '"dir/x" E212: Can\'t open file for writing'
    assert saved["exit_code"] == 1
    reopened = annex.CommandResult.from_dict(opened).editor
    assert reopened is not None and reopened.path == "dir/x"


def test_saves_and_stream_steps_replay_from_the_log_as_another_process_sees_them() -> None:
    from simulators.lab import streams
    from studysite.lab import store

    key = "r" * 32
    opened = store.open_lab(key, "mig-single")
    request = store.apply(opened, "kubectl edit node gpu-node2").editor
    assert request is not None
    text = request.text.replace("nvidia.com/mig.config: all-disabled", "nvidia.com/mig.config: x")
    assert store.apply(opened, editor.save_line(request.token, text)).output == (
        "node/gpu-node2 edited"
    )
    watch = store.apply(opened, "kubectl get nodes -w").stream
    assert watch is not None
    for _ in range(3):
        store.apply(opened, streams.step_line(watch))
    step = opened.lab.step
    store.kept.clear()  # as another process sees it: the snapshot and the logged lines
    again = store.open_lab(key, "mig-single")
    assert again.lab.step == step
    shown = again.lab.run("kubectl get node gpu-node2 -L nvidia.com/mig.config").output
    assert shown.split("\n")[1].endswith("   x")
