"""Pages travel compressed to a browser that accepts it (Lighthouse's slow-phone budget)."""

from __future__ import annotations

import gzip

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PAGES = ["/", "/guide/mig-gpu-operator/", "/simulator/", "/lab/mig-single/"]


@pytest.mark.parametrize("url", PAGES)
def test_a_page_is_sent_gzipped_to_a_browser_that_accepts_it(client: Client, url: str) -> None:
    plain = client.get(url)
    packed = client.get(url, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert packed.status_code == 200
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    body = gzip.decompress(packed.content)
    assert body.startswith(b"<!doctype html>")
    assert len(packed.content) < len(plain.content) / 2


def test_a_client_that_asks_for_no_compression_gets_plain_html(client: Client) -> None:
    response = client.get("/simulator/")
    assert not response.has_header("Content-Encoding")
    assert response.content.startswith(b"<!doctype html>")
