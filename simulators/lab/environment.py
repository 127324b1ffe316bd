"""The shell's own state on kadmin: variables, exported names, aliases, `$?`, unfinished input.

Kept with the session (saved and restored with it), not with the world: a reset lab starts
a fresh login shell. The defaults are a Debian login's for the user `admin`, plus the alias
every Kubernetes exam environment sets (`alias k=kubectl`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulators.lab import shell_random

HOME = "/home/admin"
MAX_VARIABLES = 256
MAX_VALUE_BYTES = 64 * 1024
# A here-document or a long command typed over several lines, kept until it is complete.
MAX_PENDING_LINES = 2000
MAX_PENDING_BYTES = 64 * 1024

DEFAULT_VARIABLES = {
    "HOME": HOME,
    "HOSTNAME": "kadmin",
    "LANG": "C.UTF-8",
    "LOGNAME": "admin",
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "PWD": HOME,
    "SHELL": "/bin/bash",
    "TERM": "xterm-256color",
    "USER": "admin",
}
DEFAULT_ALIASES = {"k": "kubectl"}
# An interactive login's `set -o` options that are on (bash 5.2 on Ubuntu 22.04).
DEFAULT_OPTIONS = (
    "braceexpand", "emacs", "hashall", "histexpand", "history", "interactive-comments",
    "monitor",
)  # fmt: skip


@dataclass
class ShellState:
    """What a bash login keeps between lines. `pending` holds the lines of a command still
    being typed (an open here-document, quote, `|`, `&&` or trailing backslash)."""

    variables: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_VARIABLES))
    exported: list[str] = field(default_factory=lambda: sorted(DEFAULT_VARIABLES))
    aliases: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ALIASES))
    status: int = 0
    pending: list[str] = field(default_factory=list)
    # `complete`'s specifications, by command name: the options as typed (`-o default -F f`).
    completions: dict[str, str] = field(default_factory=dict)
    # Functions by name: the text of each one's body (simulators.lab.shell_functions).
    functions: dict[str, str] = field(default_factory=dict)
    # `set -o`'s options that are on (simulators.lab.shell_options).
    options: list[str] = field(default_factory=lambda: list(DEFAULT_OPTIONS))
    # $RANDOM's generator (simulators.lab.shell_random): its state (None: not started yet)
    # and the number it gave last.
    random: int | None = None
    random_last: int = 0
    # The working folder (an absolute path; simulators.lab.fs resolves relative ones from it).
    cwd: str = HOME

    def next_random(self, lab_seed: int) -> int:
        """$RANDOM: the next number, from the lab's seed if nothing seeded it."""
        state = shell_random.start(lab_seed) if self.random is None else self.random
        self.random, self.random_last = shell_random.following(state, self.random_last)
        return self.random_last

    def environment(self) -> dict[str, str]:
        """The exported variables: what a command started now sees."""
        return {k: self.variables[k] for k in self.exported if k in self.variables}

    def set(self, name: str, value: str, export: bool = False) -> str | None:
        """Set a variable; bash's error text when the lab's limits refuse it."""
        if name not in self.variables and len(self.variables) >= MAX_VARIABLES:
            return f"bash: {name}: too many variables in this lab"
        if len(value.encode("utf-8", errors="replace")) > MAX_VALUE_BYTES:
            return f"bash: {name}: value too long for this lab"
        if name == "RANDOM":  # `RANDOM=N` seeds the generator
            self.random, self.random_last = shell_random.seed_of(value), 0
        self.variables[name] = value
        if export and name not in self.exported:
            self.exported.append(name)
        return None

    def unset(self, name: str) -> None:
        self.variables.pop(name, None)
        if name in self.exported:
            self.exported.remove(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "variables": dict(self.variables),
            "exported": list(self.exported),
            "aliases": dict(self.aliases),
            "status": self.status,
            "pending": list(self.pending),
            "completions": dict(self.completions),
            "functions": dict(self.functions),
            "options": list(self.options),
            "random": self.random,
            "random_last": self.random_last,
            "cwd": self.cwd,
        }

    @classmethod
    def from_json(cls, data: Any) -> ShellState:
        """A saved shell; a lab saved before the shell kept state gets a fresh login's."""
        if not isinstance(data, dict):
            return cls()
        return cls(
            variables={str(k): str(v) for k, v in (data.get("variables") or {}).items()},
            exported=[str(k) for k in data.get("exported") or []],
            aliases={str(k): str(v) for k, v in (data.get("aliases") or {}).items()},
            status=int(data.get("status", 0)),
            pending=[str(line) for line in data.get("pending") or []],
            completions={str(k): str(v) for k, v in (data.get("completions") or {}).items()},
            functions={str(k): str(v) for k, v in (data.get("functions") or {}).items()},
            options=[str(o) for o in data.get("options") or DEFAULT_OPTIONS],
            random=None if data.get("random") is None else int(data["random"]) & 0xFFFFFFFF,
            random_last=int(data.get("random_last", 0)),
            cwd=str(data.get("cwd") or HOME),
        )
