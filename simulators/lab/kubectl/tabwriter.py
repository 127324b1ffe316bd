"""Go's text/tabwriter, as kubectl uses it: tables (minwidth 6, padding 3) and describe (padding 2).

Cells are tab-terminated; the last cell of a line is never padded. A column's width is
decided per block of consecutive lines that have a cell in that column, exactly as Go's
`format` recursion does, so describe's sections align the way kubectl's do. kubectl's writer is
liggitt/tabwriter's, with RememberWidths: a writer flushed several times (`get -w`, a flush
per event) keeps each column at least as wide as any earlier flush made it (`remembered`).
"""

from __future__ import annotations


def format_text(
    text: str, *, minwidth: int = 0, padding: int = 2, remembered: list[int] | None = None
) -> str:
    """Lay out tab-separated text: each line's tab-terminated cells padded to their column.
    `remembered`: the widths earlier flushes of the same writer remembered per column, widened
    in place by this one (None: a writer flushed once)."""
    lines = [line.split("\t") for line in text.split("\n")]
    out: list[str] = []
    _format(lines, 0, len(lines), [], minwidth, padding, out, remembered)
    return "\n".join(out)


def _format(
    lines: list[list[str]],
    line0: int,
    line1: int,
    widths: list[int],
    minwidth: int,
    padding: int,
    out: list[str],
    remembered: list[int] | None = None,
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
        if remembered is not None:
            if len(remembered) < column:
                remembered.extend(widths[len(remembered) :])
            if len(remembered) == column:
                remembered.append(width)
            width = remembered[column] = max(remembered[column], width)
        _format(lines, line0, this, [*widths, width], minwidth, padding, out, remembered)
        line0 = this
    _write(lines, line0, line1, widths, out)


def _write(lines: list[list[str]], start: int, end: int, widths: list[int], out: list[str]) -> None:
    for index in range(start, end):
        cells = lines[index]
        parts = []
        for j, cell in enumerate(cells):
            parts.append(cell.ljust(widths[j]) if j < len(widths) else cell)
        out.append("".join(parts))


def table(rows: list[list[str]], remembered: list[int] | None = None) -> str:
    """kubectl get's layout (cli-runtime's GetNewTabWriter: minwidth 6, padding 3)."""
    text = "\n".join("\t".join(row) for row in rows)
    return format_text(text, minwidth=6, padding=3, remembered=remembered)
