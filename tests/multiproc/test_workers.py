"""A learner served by two worker processes in turn, over one PostgreSQL and one Redis.

Any worker must serve any request or socket: nothing a learner does may live only in
the memory of the process that happened to serve it.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from typing import Any

import pytest
import websockets

from studysite.study.content import load_study
from tests.live_server import free_port
from tests.multiproc.servers import Services, granian_servers
from tests.web.shown import keys_on_page

pytestmark = pytest.mark.multiproc

TICKET = "mig-single"


class Browser:
    """One learner's browser: one cookie jar, whichever worker it talks to."""

    def __init__(self) -> None:
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        return next(c.value or "" for c in self.jar if c.name == name)

    def get(self, port: int, path: str) -> str:
        with self.opener.open(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
            return str(response.read().decode())

    def post(self, port: int, path: str, fields: dict[str, str]) -> tuple[str, str]:
        """Submit a form as the page would; the page reached and its path."""
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self.cookie("csrftoken")})
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data.encode())
        with self.opener.open(request, timeout=30) as response:
            return response.read().decode(), urllib.parse.urlparse(response.url).path


async def open_lab(browser: Browser, port: int) -> tuple[Any, str]:
    """The lab socket on this worker, as the ticket page opens it; and its replay."""
    headers = {
        "Origin": f"http://127.0.0.1:{port}",
        "Cookie": f"sessionid={browser.cookie('sessionid')}",
    }
    socket = await websockets.connect(
        f"ws://127.0.0.1:{port}/ws/lab/{TICKET}/", additional_headers=headers
    )
    replay = json.loads(await socket.recv())
    assert replay["replay"] is True
    return socket, replay["data"]


async def run(socket: Any, line: str) -> str:
    await socket.send(json.dumps({"type": "line", "data": line}))
    output = json.loads(await socket.recv())
    assert output["type"] == "output", output
    return str(output["data"])


def test_a_lab_typed_on_worker_1_continues_on_worker_2_with_its_state_and_transcript(
    two_workers: list[int],
) -> None:
    first, second = two_workers
    browser = Browser()
    browser.get(first, f"/lab/{TICKET}/")

    async def scenario() -> tuple[str, str]:
        socket, _ = await open_lab(browser, first)
        assert await run(socket, "kubectl cordon gpu-node2") == "node/gpu-node2 cordoned"
        await run(socket, "kubectl label node gpu-node1 team=vision")
        await socket.close()
        # The last command is saved after its answer is sent; give the write a moment.
        await asyncio.sleep(0.5)
        socket, replay = await open_lab(browser, second)
        output = await run(socket, "kubectl get node gpu-node2")
        await socket.close()
        return replay, output

    replay, output = asyncio.run(scenario())
    assert "kubectl cordon gpu-node2\nnode/gpu-node2 cordoned" in replay
    assert "kubectl label node gpu-node1 team=vision\nnode/gpu-node1 labeled" in replay
    assert "Ready,SchedulingDisabled" in output


def test_quiz_progress_answered_on_worker_1_is_read_on_worker_2(two_workers: list[int]) -> None:
    first, second = two_workers
    study = load_study()
    browser = Browser()
    browser.get(first, "/quiz/")
    _, attempt = browser.post(first, "/quiz/start", {"mode": "practice"})
    question = study.questions[0]
    page = browser.get(first, attempt)
    answer = {
        "question": question.id,
        "option": keys_on_page(page, question, question.correct_ids)[0],
    }
    browser.post(first, f"{attempt}answer", answer)
    assert len(question.correct_ids) == 1  # one option answers it fully

    on_second = browser.get(second, f"{attempt}answered/{question.id}/")
    assert ">Correct</h2>" in on_second
    next_question = re.search(r'name="question" value="([^"]+)"', browser.get(second, attempt))
    assert next_question and next_question.group(1) == study.questions[1].id


def test_a_card_graded_on_worker_1_is_scheduled_on_worker_2(two_workers: list[int]) -> None:
    first, second = two_workers
    cards = load_study().cards
    browser = Browser()
    browser.get(first, "/cards/")
    browser.post(first, "/cards/grade", {"card": cards[0].id, "rating": "3"})

    body = browser.get(second, "/cards/")
    assert f'name="card" value="{cards[1].id}"' in body
    assert re.search(r"<strong>1</strong> later", body)


def test_a_section_marked_read_on_worker_1_shows_as_read_on_worker_2(
    two_workers: list[int],
) -> None:
    first, second = two_workers
    browser = Browser()
    browser.get(first, "/guide/stack/read")
    browser.post(first, "/guide/stack/read", {"read": "1"})

    body = browser.get(second, "/guide/stack/read")
    assert "You marked this section as read." in body
    assert "1 of " in body


def test_two_workers_typing_into_one_lab_at_once_lose_no_command(two_workers: list[int]) -> None:
    first, second = two_workers
    browser = Browser()
    browser.get(first, f"/lab/{TICKET}/")

    async def typist(port: int, name: str) -> None:
        socket, _ = await open_lab(browser, port)
        for number in range(10):
            await run(socket, f"kubectl label node gpu-node1 {name}-{number}=yes")
        await socket.close()

    async def scenario() -> tuple[str, str]:
        await asyncio.gather(typist(first, "one"), typist(second, "two"))
        await asyncio.sleep(0.5)
        socket, replay = await open_lab(browser, first)
        labels = await run(socket, "kubectl get node gpu-node1 --show-labels")
        await socket.close()
        return replay, labels

    replay, labels = asyncio.run(scenario())
    for name in ("one", "two"):
        for number in range(10):
            assert f"kubectl label node gpu-node1 {name}-{number}=yes" in replay
            assert f"{name}-{number}=yes" in labels


def health(port: int) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_every_worker_reports_healthy_over_postgresql_and_redis(two_workers: list[int]) -> None:
    for port in two_workers:
        status, body = health(port)
        assert body == {"status": "ok", "checks": {"database": "ok", "channel_layer": "ok"}}
        assert status == 200


def test_a_worker_that_cannot_reach_redis_reports_503_naming_the_channel_layer(
    services: Services,
) -> None:
    unreachable = Services(services.database_url, f"redis://127.0.0.1:{free_port()}/0")
    with granian_servers(unreachable, count=1) as (port,):
        status, body = health(port)
    assert status == 503
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["channel_layer"] != "ok"
