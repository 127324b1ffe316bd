"""A lab page leaves no lab to the cycle collector: a rendered template's context is a reference
cycle (Django's Context and its ContextDicts), freed only by a full collection, which a server
process runs rarely (studysite.interpreter). A lab in that context (a page's lab not saved yet,
a world since rested) stayed in memory with it; the page's context holds plain values
(issue 30)."""

from __future__ import annotations

import gc

import pytest
from django.test import Client

from simulators.lab import LabSession
from simulators.lab.world import World

pytestmark = pytest.mark.django_db


def test_a_lab_page_leaves_no_lab_or_world_for_the_collector(client: Client) -> None:
    assert client.get("/lab/mig-single/").status_code == 200  # warm: session, caches
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        page = client.get("/lab/mig-mixed/")
        assert b"Answer key" in page.content and b"Hint 1" in page.content
        del page
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, LabSession | World)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
