"""Issue 11's findings, one test each (or a few), in process: the lab socket, forms, import.

The findings that need a real server process (request bodies, crash window,
simultaneous writers, capacity) are in the other files of this folder.
"""

from __future__ import annotations

import html
import json
import threading
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from simulators.lab import LabSession
from studysite.lab.models import SavedLab
from tests.reliability.sockets import communicator, connect, new_session_key, receive, run
from tests.web.test_lab_progress import whole_states

pytestmark = [pytest.mark.reliability, pytest.mark.django_db(transaction=True)]

TICKET = "mig-single"
CATASTROPHIC = [
    (
        "kubectl get nodes | sed 's/.*/aaaaaaaaaaaaaaaaaaaaaaaaaaaa/' | grep -E '(a|a)*b'",
        "",
    ),
    ("kubectl get nodes | sed 's/.*/aaaaaaaaaaaaaaaaaaaaaaaaaaaa/' | sed -E 's/(a|a)*b/x/'", "a"),
    ("kubectl get pods -A -o yaml | grep 'a.*a.*a.*a.*a.*a.*x'", None),
]


def browser_with_session(key: str) -> Client:
    client = Client()
    client.cookies["sessionid"] = key
    return client


@database_sync_to_async
def saved_lab(key: str) -> LabSession:
    from studysite.lab.store import open_lab

    return open_lab(key, TICKET).lab


def transcript_lines(lab: LabSession) -> list[str]:
    return [entry.line for entry in lab.transcript]


# ---------------------------------------------------------------- 1. a command freezes the server


@pytest.mark.parametrize(
    ("line", "expected"), CATASTROPHIC, ids=["grep-alternation", "sed-alternation", "dot-stars"]
)
def test_1_regexes_that_backtrack_forever_in_python_are_answered_by_a_linear_engine(
    line: str, expected: str | None
) -> None:
    lab = LabSession.new(TICKET, seed=1)
    lab.world.state.files["long.txt"] = "a" * 20_000 + "\n"
    result = lab.run(line)
    if expected == "":
        assert result.output == "" and result.exit_code == 1
    elif expected is not None:
        assert result.output.splitlines()[0] == "aaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    assert lab.run("grep 'a.*a.*a.*a.*a.*a.*x' long.txt").exit_code == 1


async def test_1_commands_run_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[int] = []
    original = LabSession.run

    def spy(self: LabSession, line: str, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return original(self, line, **kwargs)

    monkeypatch.setattr(LabSession, "run", spy)
    comm, _ = await connect(TICKET, await new_session_key())
    await run(comm, "kubectl get nodes")
    await comm.disconnect()
    assert threads and threading.get_ident() not in threads


@override_settings(LAB_COMMAND_CPU_MS=10)
async def test_1_a_command_over_budget_stops_in_one_line_and_is_never_replayed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = await new_session_key()
    comm, _ = await connect(TICKET, key)
    line = "kubectl get pods -A -o yaml" + " | sed 's/./&&/g'" * 3
    output = await run(comm, line)
    await comm.disconnect()
    assert output.splitlines()[-1] == "bash: command stopped: it used more than 10 ms of CPU time"
    runs: list[str] = []
    original = LabSession.run

    def spy(self: LabSession, line: str, **kwargs: Any) -> Any:
        runs.append(line)
        return original(self, line, **kwargs)

    monkeypatch.setattr(LabSession, "run", spy)
    again, replay = await connect(TICKET, key)
    await again.disconnect()
    assert "bash: command stopped" in replay["data"]
    assert runs == [], "opening the lab replayed the expensive command"


# ---------------------------------------------------------------- 2. output amplification


def test_2_a_jsonpath_that_repeats_the_list_stops_at_the_output_limit() -> None:
    lab = LabSession.new(TICKET, seed=1)
    result = lab.run("kubectl get pods -A -o jsonpath='" + "{@}" * 1300 + "'")
    assert len(result.output) < 1024 and result.exit_code == 1
    assert result.output == (
        "kubectl: output stopped at the lab's limit of 512 KiB"
        " (narrow it with grep, head or -o jsonpath)"
    )


def test_2_sed_stages_that_multiply_their_input_stop_at_the_output_limit() -> None:
    lab = LabSession.new(TICKET, seed=1)
    result = lab.run("kubectl get pods -A -o yaml" + " | sed 's/./&&&&&&&&/g'" * 2)
    assert len(result.output) < 1024 and result.exit_code == 1
    assert "output stopped at the lab's limit" in result.output or "CPU time" in result.output


@override_settings(LAB_SESSION_CPU_MS_PER_SECOND=10)
async def test_1_a_session_that_keeps_sending_expensive_commands_is_slowed_down() -> None:
    comm, _ = await connect(TICKET, await new_session_key())
    outputs = [await run(comm, "kubectl get pods -A -o yaml") for _ in range(8)]
    await comm.disconnect()
    assert outputs[-1] == (
        "bash: your recent commands used a lot of processor time; wait a few seconds"
    )


# ---------------------------------------------------------------- 3. same-session races


async def test_3_a_form_command_between_two_socket_commands_is_kept() -> None:
    key = await new_session_key()
    comm, _ = await connect(TICKET, key)
    await run(comm, "kubectl cordon gpu-node1")
    response = await database_sync_to_async(browser_with_session(key).post)(
        f"/lab/{TICKET}/command", {"line": "kubectl cordon gpu-node2"}
    )
    assert response.status_code == 302
    await run(comm, "kubectl cordon gpu-node3")
    nodes = await run(comm, "kubectl get nodes")
    await comm.disconnect()
    assert nodes.count("SchedulingDisabled") == 3
    lab = await saved_lab(key)
    assert transcript_lines(lab)[:3] == [f"kubectl cordon gpu-node{n}" for n in (1, 2, 3)]


async def test_3_two_tabs_taking_turns_lose_nothing() -> None:
    key = await new_session_key()
    first, _ = await connect(TICKET, key)
    second, _ = await connect(TICKET, key)
    lines = [f"kubectl label node gpu-node1 turn{n}=yes" for n in range(6)]
    for n, line in enumerate(lines):
        assert "labeled" in await run(first if n % 2 == 0 else second, line)
    await first.disconnect()
    await second.disconnect()
    assert transcript_lines(await saved_lab(key)) == lines


# ---------------------------------------------------------------- 4. large outputs


# 20 YAML dumps back to back, each within its CPU limit even on a slow machine under coverage.
@override_settings(LAB_SESSION_CPU_MS_PER_SECOND=1_000_000, LAB_COMMAND_CPU_MS=10_000)
async def test_4_the_replay_after_many_large_outputs_is_a_bounded_tail() -> None:
    key = await new_session_key()
    comm, _ = await connect(TICKET, key)
    for _ in range(20):
        await run(comm, "kubectl get pods -A -o yaml")
    await comm.send_to(text_data=json.dumps({"type": "line", "data": "echo-marker"}))
    await receive(comm)
    await comm.disconnect()
    again, replay = await connect(TICKET, key)
    assert len(replay["data"].encode()) <= 256 * 1024 + 64
    assert replay["data"].startswith("[earlier output omitted]\n")
    assert replay["data"].rstrip().endswith("bash: echo-marker: command not found")
    assert "gpu-node1" in await run(again, "kubectl get nodes")
    await again.disconnect()


def export_with(client: Client, change: Any) -> bytes:
    client.get(f"/lab/{TICKET}/")
    client.post(f"/lab/{TICKET}/command", {"line": "kubectl get nodes"})
    document = whole_states(json.loads(client.get("/progress/export").content))
    change(document["parts"]["lab"][0]["state"])
    return json.dumps(document).encode()


def upload(client: Client, content: bytes) -> tuple[int, str]:
    response = client.post("/progress/import", {"file": SimpleUploadedFile("p.json", content)})
    return response.status_code, response.content.decode()


def test_4_import_refuses_more_transcript_than_the_lab_keeps(client: Client) -> None:
    def inflate(state: dict[str, Any]) -> None:
        state["transcript"] = [{"line": "ls", "output": "", "step": 1}] * 15_000

    status, body = upload(client, export_with(client, inflate))
    assert status == 400
    assert "has 15000 transcript entries; the lab keeps 300" in body


def test_4_import_refuses_a_file_at_a_path_the_lab_cannot_hold(client: Client) -> None:
    def outside(state: dict[str, Any]) -> None:
        state["world"]["host"]["files"]["../../etc/hosts"] = "10.0.0.1 evil"

    status, body = upload(client, export_with(client, outside))
    assert status == 400
    assert "has a file or folder with a path the lab cannot hold" in body


# ---------------------------------------------------------------- 5. lone surrogates


async def test_5_a_lone_surrogate_in_a_frame_gets_an_error_and_the_socket_lives() -> None:
    key = await new_session_key()
    comm, _ = await connect(TICKET, key)
    await comm.send_to(text_data='{"type": "line", "data": "ls \\ud800"}')
    assert await receive(comm) == {
        "type": "error",
        "data": "frame refused: the text is not valid UTF-8 (a lone surrogate)",
    }
    assert "gpu-node1" in await run(comm, "kubectl get nodes")
    await comm.disconnect()
    assert transcript_lines(await saved_lab(key)) == ["kubectl get nodes"]


@pytest.mark.parametrize("where", ["transcript", "part name"])
def test_5_a_lone_surrogate_in_an_import_is_refused_and_the_pages_still_work(
    client: Client, where: str
) -> None:
    def poison(state: dict[str, Any]) -> None:
        state["transcript"][0]["line"] = "ls \ud800"

    content = export_with(client, poison)
    if where == "part name":
        document = json.loads(content)
        document["parts"]["\ud800"] = []
        content = json.dumps(document).encode()
    status, body = upload(client, content)
    assert status == 400 and "not valid UTF-8" in body
    assert client.get(f"/lab/{TICKET}/").status_code == 200
    assert client.get("/progress/").status_code == 200


# ---------------------------------------------------------------- 6. deep JSON


async def test_6_deeply_nested_json_gets_an_error_frame() -> None:
    comm, _ = await connect(TICKET, await new_session_key())
    await comm.send_to(text_data="[" * 1500 + "]" * 1500)
    assert await receive(comm) == {
        "type": "error",
        "data": "frame refused: not a JSON object with a type",
    }
    assert "gpu-node1" in await run(comm, "kubectl get nodes")
    await comm.disconnect()


# ---------------------------------------------------------------- 7. import values out of range


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0001-01-01T00:00:00+14:00", "has a date this site cannot use"),
        (float("nan"), "not finite (NaN or Infinity)"),
        (float("inf"), "not finite (NaN or Infinity)"),
    ],
)
def test_7_import_values_out_of_range_get_a_400_and_a_message(
    client: Client, value: Any, message: str
) -> None:
    from studysite.study.content import load_study

    card = load_study().cards[0].id
    client.post("/cards/grade", {"card": card, "rating": "3"})
    document = json.loads(client.get("/progress/export").content)
    state = document["parts"]["cards"]["states"][card]
    if isinstance(value, str):
        state["due"] = value
    else:
        state["stability"] = value
    status, body = upload(client, json.dumps(document).encode())
    assert status == 400 and message in body


# ---------------------------------------------------------------- 8. int() of 4,300+ digits


def test_8_a_retake_number_of_5000_digits_gets_a_message(client: Client) -> None:
    response = client.post("/quiz/start", {"mode": "practice", "retake": "9" * 5000}, follow=True)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "That attempt isn't in this browser's quiz history." in page


def test_8_a_step_pool_of_4301_digits_is_read_as_the_first_pool(client: Client) -> None:
    form = {
        "pool-0-name": "default",
        "pool-0-gpus": "24",
        "p-0-name": "team-a",
        "p-0-quota-0": "8",
        "p-0-demand-0": "4",
        "p-0-weight": "1",
        "step-project": "0",
        "step-extra": "4",
        "step-pool": "9" * 4301,
    }
    assert client.get("/simulator/", form).status_code in (200, 302)


# ---------------------------------------------------------------- 9. request bodies


async def test_9_a_body_over_the_limit_is_refused_by_its_declared_length() -> None:
    from studysite.asgi import application

    sent: list[dict[str, Any]] = []
    reads = 0

    async def receive_body() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b"x" * 65536, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = http_scope([(b"content-length", b"104857600")])
    await application(scope, receive_body, send)
    assert sent[0]["status"] == 413 and reads == 0
    assert b"Request body too large" in sent[1]["body"]


async def test_9_a_streamed_body_is_refused_once_it_passes_the_limit() -> None:
    from studysite.asgi import application

    sent: list[dict[str, Any]] = []
    reads = 0

    async def receive_body() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b"x" * (1 << 20), "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await application(http_scope([]), receive_body, send)
    assert sent[0]["status"] == 413
    assert reads <= 5, "read the body past the 4 MiB limit"


def http_scope(headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/progress/import",
        "raw_path": b"/progress/import",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }


# ---------------------------------------------------------------- 10. flood


async def test_10_after_a_flood_closes_the_socket_no_queued_command_runs() -> None:
    key = await new_session_key()
    comm, _ = await connect(TICKET, key)
    for n in range(60):
        line = f"kubectl label node gpu-node1 flood{n}=yes"
        await comm.send_to(text_data=json.dumps({"type": "line", "data": line}))
    outputs, code = 0, None
    while code is None:
        message = await comm.receive_output(timeout=20)
        if message["type"] == "websocket.close":
            code = message["code"]
        elif json.loads(message["text"])["type"] == "output":
            outputs += 1
    assert code == 4429
    await comm.wait(timeout=5)
    saved = transcript_lines(await saved_lab(key))
    assert len(saved) == outputs, f"{len(saved)} commands saved against {outputs} replies"


# ---------------------------------------------------------------- 11. expensive anonymous GETs


def test_11_setups_past_the_fast_limits_are_refused_with_a_message(client: Client) -> None:
    query = "pool=4096&" + "&".join(f"p=t{i},400,512,1" for i in range(8))
    body = client.get(f"/simulator/?{query}").content.decode()
    assert "Too large: at most 1024 GPUs." in body


def test_11_a_client_over_its_cpu_share_gets_a_429_with_a_message(client: Client) -> None:
    from studysite.limits import charge

    charge("simulator", "all:127.0.0.1", 1000.0, time.time())
    response = client.get("/simulator/?pool=24&p=a,8,4,1")
    assert response.status_code == 429
    assert "Too many expensive requests" in response.content.decode()
    assert client.get("/").status_code == 200


# ---------------------------------------------------------------- 12. websocket identity


async def test_12_an_invented_session_is_refused_and_creates_no_row() -> None:
    comm = communicator(TICKET, "inventedsessionkey0123456789abcd")
    connected, code = await comm.connect(timeout=10)
    assert not connected and code == 4401
    assert not await database_sync_to_async(SavedLab.objects.exists)()


@pytest.mark.parametrize(
    "origin",
    [b"http://127.0.0.1:9999", b"https://127.0.0.1:8000", b"http://localhost:8000", b"null"],
)
async def test_12_an_origin_on_another_port_scheme_or_host_is_refused(origin: bytes) -> None:
    comm = communicator(TICKET, await new_session_key(), origin=origin)
    connected, _ = await comm.connect(timeout=10)
    assert not connected


@override_settings(LAB_ALLOWED_ORIGINS=["https://study.example:8443"])
async def test_12_a_configured_origin_is_accepted_exactly() -> None:
    comm = communicator(TICKET, await new_session_key(), origin=b"https://study.example:8443")
    connected, _ = await comm.connect(timeout=10)
    assert connected
    await comm.disconnect()


async def test_12_the_lab_rows_of_expired_sessions_are_deleted_by_cleanlabs() -> None:
    from django.contrib.sessions.models import Session
    from django.core.management import call_command

    key = await new_session_key()
    comm, _ = await connect(TICKET, key)
    await comm.disconnect()
    await database_sync_to_async(Session.objects.filter(session_key=key).delete)()
    await database_sync_to_async(call_command)("cleanlabs", verbosity=0)
    assert not await database_sync_to_async(SavedLab.objects.filter(session_key=key).exists)()


# ---------------------------------------------------------------- 15. a path with no route


async def test_15_a_websocket_path_with_no_route_is_refused_cleanly() -> None:
    comm = communicator(TICKET, await new_session_key(), path="/ws/nowhere/")
    connected, code = await comm.connect(timeout=10)
    assert not connected and code == 4404
