"""The lab's own exception type for bad input from its callers."""

from __future__ import annotations

from simulators.errors import SimulatorError


class LabError(SimulatorError):
    """Bad input to the lab API (not to the terminal): an unknown ticket, broken saved state."""


class UnknownTicketError(LabError):
    """No ticket with that id in content/tickets/."""
