"""A here-document typed line by line through the lab websocket: bash's `> ` prompt comes back
with each unfinished line, Ctrl+C drops it, and the lab saved in the database keeps every
line of it (blank ones too) when it is restored."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from studysite.lab import store
from studysite.lab.models import SavedLab
from tests.web.test_lab_consumer import connect, new_session_key, receive

pytestmark = [pytest.mark.django_db(transaction=True)]


async def send_line(comm, text: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    await comm.send_to(text_data=json.dumps({"type": "line", "data": text}))
    return await receive(comm)


async def test_a_here_document_prompts_with_a_continuation_until_its_end() -> None:
    key = await new_session_key()
    comm = await connect("mig-single", key)
    assert (await send_line(comm, "cat <<EOF > notes.txt")).get("prompt") == "> "
    assert (await send_line(comm, "first")).get("prompt") == "> "
    assert (await send_line(comm, "")).get("prompt") == "> "
    done = await send_line(comm, "EOF")
    assert "prompt" not in done
    shown = await send_line(comm, "cat notes.txt")
    assert shown["data"] == "first\n"
    await comm.disconnect()

    def restored_file() -> str:
        saved = SavedLab.objects.select_related("snapshot").get(
            session_key=key, ticket="mig-single"
        )
        lab, _ = store.restore(saved)
        return lab.world.state.files["notes.txt"]

    assert await sync_to_async(restored_file)() == "first\n\n"


async def test_ctrl_c_drops_an_unfinished_command_and_the_reconnected_prompt_follows_it() -> None:
    key = await new_session_key()
    comm = await connect("mig-single", key)
    await send_line(comm, "kubectl get nodes |")
    await comm.disconnect()
    comm = await connect_with_prompt(key, "> ")
    dropped = await send_line(comm, "\x03")
    assert (dropped["data"], dropped.get("prompt")) == ("", None)
    assert (await send_line(comm, "echo ok"))["data"] == "ok"
    await comm.disconnect()


async def connect_with_prompt(key: str, prompt: str):  # type: ignore[no-untyped-def]
    from tests.web.test_lab_consumer import communicator

    comm = communicator("mig-single", key)
    connected, _ = await comm.connect(timeout=5)
    assert connected
    replay = await receive(comm)
    assert replay["replay"] is True
    assert replay.get("prompt") == prompt
    assert replay["data"].endswith("admin@kadmin:~$ kubectl get nodes |\n")
    return comm
