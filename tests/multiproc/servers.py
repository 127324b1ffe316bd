"""Several production server processes over one PostgreSQL and one Redis.

Used by the multi-process tests and the scale benchmark. PostgreSQL and Redis come
from scripts/services: the URLs in the environment when it already runs (`scripts/
services run ...`), else throwaway instances started here.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.live_server import REPO_ROOT, free_port, wait_for_port

SERVICES = REPO_ROOT / "scripts" / "services"


@dataclass(frozen=True)
class Services:
    database_url: str
    redis_url: str


def missing_services() -> str:
    """Why PostgreSQL and Redis cannot be started here, or "" when they can."""
    if not list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")):
        return "PostgreSQL is not installed (make test installs it: scripts/services install)"
    if shutil.which("redis-server") is None:
        return "Redis is not installed (make test installs it: scripts/services install)"
    return ""


def read_env(path: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in path.read_text().splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        found[name] = value
    return found


@contextlib.contextmanager
def running_services() -> Iterator[Services]:
    given = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if given[0].startswith("postgres") and given[1]:
        yield Services(*given)
        return
    folder = Path(tempfile.mkdtemp(prefix="studysite-services."))
    try:
        subprocess.run([SERVICES, "start", folder], check=True)
        env = read_env(folder / "env")
        yield Services(env["DATABASE_URL"], env["REDIS_URL"])
    finally:
        subprocess.run([SERVICES, "stop", folder], check=False)


@contextlib.contextmanager
def fresh_database(services: Services) -> Iterator[str]:
    """A new, migrated database beside the services' own; its URL. Dropped afterwards."""
    name = f"multiproc_{secrets.token_hex(4)}"
    base, _, _ = services.database_url.rpartition("/")
    with psycopg.connect(services.database_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = f"{base}/{name}"
    try:
        env = server_env(Services(url, services.redis_url), {})
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=REPO_ROOT,
            env=env,
            check=True,
        )
        yield url
    finally:
        with psycopg.connect(services.database_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def server_env(services: Services, settings: dict[str, str]) -> dict[str, str]:
    env = {
        **os.environ,
        "DEBUG": "0",
        "PAGE_PROCESS": "1",
        "DATABASE_URL": services.database_url,
        "REDIS_URL": services.redis_url,
        **settings,
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


@contextlib.contextmanager
def granian_servers(
    services: Services, count: int, workers: int = 1, settings: dict[str, str] | None = None
) -> Iterator[list[int]]:
    """`count` independent granian servers (each with `workers` processes); their ports."""
    env = server_env(services, settings or {})
    processes: list[tuple[int, subprocess.Popen[bytes]]] = []
    try:
        for _ in range(count):
            port = free_port()
            command = [
                sys.executable,
                "-m",
                "granian",
                "--interface",
                # Channels' router has no lifespan support: asginl leaves it out.
                "asginl",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--log-level",
                "warning",
                "studysite.asgi:application",
            ]
            process = subprocess.Popen(command, cwd=REPO_ROOT, env=env)
            processes.append((port, process))
        for port, process in processes:
            wait_for_port(port, process)
        yield [port for port, _ in processes]
    finally:
        for _, process in processes:
            process.terminate()
        for _, process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
