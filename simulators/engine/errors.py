"""The engine's own exception type."""

from __future__ import annotations

from simulators.errors import SimulatorError


class EngineError(SimulatorError):
    """Bad input to the scheduler engine; the message names the offending field."""


class MigStrategyError(EngineError):
    """A node's MIG layout cannot be advertised under the cluster's MIG strategy.

    Raised for several MIG profiles on one node under the `single` strategy, which
    makes the real device plugin crash-loop.
    """
