"""Text layout shared by the tools: kubectl tables, runai tables, key/value blocks."""

from __future__ import annotations

from collections.abc import Sequence

RUNAI_RULE = "─" * 84


def kube_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """kubectl's tabwriter layout: columns padded to the widest cell plus three spaces."""
    return _table(headers, rows, padding=3)


def runai_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """The runai CLI's layout: two-space columns and a box-drawing rule under the header."""
    table = _table(headers, rows, padding=2)
    lines = table.split("\n")
    return "\n".join([lines[0], RUNAI_RULE, *lines[1:]])


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], padding: int) -> str:
    all_rows = [list(headers), *[list(r) for r in rows]]
    widths = [0] * len(headers)
    for row in all_rows:
        for i, cell in enumerate(row[: len(widths)]):
            widths[i] = max(widths[i], len(cell))
    lines = []
    for row in all_rows:
        cells = []
        for i, cell in enumerate(row):
            last = i == len(row) - 1
            cells.append(cell if last else cell.ljust(widths[i] + padding))
        lines.append("".join(cells).rstrip())
    return "\n".join(lines)


def kv_block(pairs: Sequence[tuple[str, str]], indent: int = 0, gap: int = 2) -> list[str]:
    """Aligned "key:   value" lines as kubectl describe prints them."""
    if not pairs:
        return []
    width = max(len(k) + 1 for k, _ in pairs) + gap
    pad = " " * indent
    return [f"{pad}{(k + ':').ljust(width)}{v}".rstrip() for k, v in pairs]


def format_gpus(value: float) -> str:
    """GPU counts the way runai prints them: 16.00, 0.50."""
    return f"{value:.2f}"


def format_quota(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def plain_table(rows: Sequence[Sequence[str]], padding: int = 2) -> str:
    """Rows (the first one the header) padded into columns, no rule line."""
    if not rows:
        return ""
    return _table(rows[0], rows[1:], padding=padding)


def padded_table(headers: Sequence[str], rows: Sequence[Sequence[str]], padding: int) -> str:
    return _table(headers, rows, padding=padding)
