"""Numbers in words, the same way everywhere on the simulator and in worked examples."""

from __future__ import annotations


def num(value: float) -> str:
    """4.0 → "4", 2.5 → "2.5", 2.6667 → "2.67"."""
    value = round(float(value), 6)
    return str(int(value)) if value.is_integer() else f"{value:.2f}".rstrip("0")


def gpus(value: float) -> str:
    return f"{num(value)} GPU" if num(value) == "1" else f"{num(value)} GPUs"
