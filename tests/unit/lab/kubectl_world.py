"""A ticket's world for kubectl's unit tests: the lab's kubectl in process, no controllers."""

from __future__ import annotations

import json
import shlex
from types import SimpleNamespace

from simulators.lab import kubeconfig, kubectl
from simulators.lab.tool import Context, Output
from simulators.lab.world import HostState, build_world


class World:
    def __init__(self, ticket: str = "validate-runai") -> None:
        self.api = build_world(ticket, 0).api
        host = HostState.holding({kubeconfig.NAME: kubeconfig.starting_text()})
        self.ctx = Context(world=SimpleNamespace(api=self.api, state=host))  # type: ignore[arg-type]

    def run(self, line: str) -> Output:
        return kubectl.run(self.ctx, shlex.split(line)[1:])

    def state(self) -> str:
        """The whole store as JSON: equal before and after means nothing changed."""
        return json.dumps(self.api.to_json(), sort_keys=True)
