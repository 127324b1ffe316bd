"""The base exception every simulator raises for bad input.

Callers (the web views, the lab terminal, the CLI) catch this one type to turn a
mistake into a message instead of a traceback.
"""

from __future__ import annotations


class SimulatorError(ValueError):
    """Bad input to a simulator: the message names the field and what is wrong."""
