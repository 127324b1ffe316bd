from __future__ import annotations

import asyncio

import pytest
from django.test import AsyncClient

from studysite import health

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_healthy_worker_answers_ok_for_the_database_and_the_channel_layer() -> None:
    response = await AsyncClient().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "channel_layer": "ok"},
    }
    assert "no-cache" in response["Cache-Control"]


async def test_a_broken_database_answers_503_naming_the_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse() -> None:
        raise ConnectionError("connection refused")

    monkeypatch.setattr(health, "check_database", refuse)
    response = await AsyncClient().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "failing"
    assert body["checks"]["database"] == "ConnectionError: connection refused"
    assert body["checks"]["channel_layer"] == "ok"


async def test_a_missing_channel_layer_answers_503_naming_the_layer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(health, "get_channel_layer", lambda: None)
    response = await AsyncClient().get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"] == {
        "database": "ok",
        "channel_layer": "RuntimeError: no channel layer is configured",
    }


async def test_a_channel_layer_that_never_answers_is_reported_not_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def hang() -> None:
        await asyncio.sleep(60)

    monkeypatch.setattr(health, "CHECK_TIMEOUT_SECONDS", 0.05)
    monkeypatch.setattr(health, "check_channel_layer", hang)
    response = await AsyncClient().get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["channel_layer"] == "no answer within 0.05 s"
