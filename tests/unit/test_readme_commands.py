"""Every command of the README's engine section runs as written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def engine_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The scheduler engine on the command line", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "the engine section has a sh block"
    commands: list[str] = []
    pending = ""
    for line in block.group(1).splitlines():
        pending += line + "\n"
        if line.endswith("\\") or pending.count("'") % 2:
            continue  # a continued line, or inside a quoted JSON document
        commands.append(pending.strip())
        pending = ""
    return commands


def test_the_readme_shows_every_engine_command() -> None:
    commands = "\n".join(engine_commands())
    for name in ("--help", "fairshare", "reclaim", "cycle", "lab --ticket"):
        assert f"-m simulators {name}" in commands


@pytest.mark.parametrize("command", engine_commands())
def test_a_readme_command_runs_as_written(command: str) -> None:
    runnable = command.replace(".venv/bin/python", sys.executable)
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", runnable],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    if "fairshare" in command or "reclaim" in command or "cycle" in command:
        output = json.loads(result.stdout)
        assert output.get("fair_share") or output.get("jobs")
