"""Go's text/tabwriter, as kubectl uses it: tables (minwidth 6, padding 3) and describe (padding 2).

Cells are tab-terminated; the last cell of a line is never padded. A column's width is
decided per block of consecutive lines that have a cell in that column, exactly as Go's
`format` recursion does, so describe's sections align the way kubectl's do.
"""

from __future__ import annotations


def format_text(text: str, *, minwidth: int = 0, padding: int = 2) -> str:
    """Lay out tab-separated text: each line's tab-terminated cells padded to their column."""
    lines = [line.split("\t") for line in text.split("\n")]
    out: list[str] = []
    _format(lines, 0, len(lines), [], minwidth, padding, out)
    return "\n".join(out)


def _format(
    lines: list[list[str]],
    line0: int,
    line1: int,
    widths: list[int],
    minwidth: int,
    padding: int,
    out: list[str],
) -> None:
    column = len(widths)
    this = line0
    while this < line1:
        if column >= len(lines[this]) - 1:
            this += 1
            continue
        _write(lines, line0, this, widths, out)
        line0 = this
        width = minwidth
        while this < line1 and column < len(lines[this]) - 1:
            width = max(width, len(lines[this][column]) + padding)
            this += 1
        _format(lines, line0, this, [*widths, width], minwidth, padding, out)
        line0 = this
    _write(lines, line0, line1, widths, out)


def _write(lines: list[list[str]], start: int, end: int, widths: list[int], out: list[str]) -> None:
    for index in range(start, end):
        cells = lines[index]
        parts = []
        for j, cell in enumerate(cells):
            parts.append(cell.ljust(widths[j]) if j < len(widths) else cell)
        out.append("".join(parts))


def table(rows: list[list[str]]) -> str:
    """kubectl get's layout (cli-runtime's GetNewTabWriter: minwidth 6, padding 3)."""
    return format_text("\n".join("\t".join(row) for row in rows), minwidth=6, padding=3)
