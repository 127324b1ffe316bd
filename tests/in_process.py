"""Loaded by pytest before Django reads its settings (`-p tests.in_process` in pyproject.toml).

Tests that import the ASGI application in this process never start a page process: it could
not open the tests' in-memory database, and every test run would leave children behind. The
servers the tests start set PAGE_PROCESS=1 themselves (tests.live_server, tests.reliability.
server, tests.multiproc.servers), and test_page_process.py tests the child against them.
"""

from __future__ import annotations

import os

os.environ["PAGE_PROCESS"] = "0"
