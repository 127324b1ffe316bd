"""The admin host's tools as the real ones run: a folder standing for /home/admin, with the
lab's starting kubeconfig and dot files, and bash in it. For the oracles of the shell and its
tools."""

from __future__ import annotations

import secrets
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from simulators.lab import fs, kubeconfig
from simulators.lab.home_files import HOME_FILES


def write_home_files(folder: Path) -> None:
    """The admin's dot files (simulators.lab.home_files), 0644, as a new lab's home holds them."""
    for name, text in HOME_FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
        (folder / name).chmod(0o644)


@contextmanager
def home_folder() -> Iterator[Path]:
    """A folder whose path is as long as /home/admin (ls lays out columns by the names it
    prints, `~` expanded), in a parent of its own that holds only it as /home does, holding
    `.kube/config` (0600) as the lab's home folder starts."""
    while True:
        parent = Path(f"/tmp/{secrets.token_hex(1)}")
        try:
            parent.mkdir(mode=0o755)
        except FileExistsError:
            continue
        break
    try:
        folder = parent / "adm"
        assert len(str(folder)) == len(fs.HOME)
        folder.mkdir(mode=0o755)
        (folder / ".kube").mkdir()
        config = folder / kubeconfig.NAME
        config.write_text(kubeconfig.starting_text(), encoding="utf-8")
        config.chmod(kubeconfig.MODE)
        write_home_files(folder)
        yield folder
    finally:
        shutil.rmtree(parent)


def bash(folder: Path, script: str, **env: str) -> str:
    """`bash -c script` in `folder` (its HOME, LC_ALL=C unless `env` says otherwise): what it
    printed, stdout then stderr, the folder's path written as /home/admin."""
    done = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        cwd=folder,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(folder), **env},
        check=False,
        timeout=20,
    )
    return (done.stdout + done.stderr).replace(str(folder), fs.HOME)
