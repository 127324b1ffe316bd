"""Reading the simulator's page back: its result tables and its form's values, parsed from
the HTML as a screen reader would meet them (tests compare them with the engine's numbers)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Row:
    project: str
    quota_backed: float
    over_quota: float
    unmet: float
    fair_share: float


@dataclass
class PoolTable:
    pool: str
    header: list[str] = field(default_factory=list)
    rows: dict[str, Row] = field(default_factory=dict)
    idle: float = -1
    gpus: float = -1


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]], list[str]]] = []
        self._caption: list[str] | None = None
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._in_table = False
        self._section = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._in_table = True
            self.tables.append(("", [], []))
        elif tag == "caption":
            self._caption = []
        elif tag in {"thead", "tbody", "tfoot"}:
            self._section = tag
        elif tag == "tr":
            self._row = []
        elif tag in {"td", "th"} and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption" and self._caption is not None:
            _, rows, header = self.tables[-1]
            self.tables[-1] = ("".join(self._caption).strip(), rows, header)
            self._caption = None
        elif tag in {"td", "th"} and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            _, rows, header = self.tables[-1]
            if self._section == "thead":
                header.extend(self._row)
            else:
                rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._caption is not None:
            self._caption.append(data)
        if self._cell is not None:
            self._cell.append(data)


def _number(text: str) -> float:
    match = re.match(r"-?\d+(?:\.\d+)?", text)
    assert match, text
    return float(match.group())


def pool_tables(html: str) -> dict[str, PoolTable]:
    """Each pool's "GPUs per project" table: the page's accessible statement of the result."""
    reader = _Tables()
    reader.feed(html)
    pools: dict[str, PoolTable] = {}
    for caption, rows, header in reader.tables:
        match = re.fullmatch(r"GPUs per project in node pool (\S+)", caption)
        if not match:
            continue
        table = PoolTable(match.group(1), header)
        col = {name: i for i, name in enumerate(header)}
        for cells in rows:
            if cells[0] == "Pool total":
                idle = re.search(r"(\d+(?:\.\d+)?) of (\d+) GPUs idle", " ".join(cells))
                assert idle, cells
                table.idle, table.gpus = float(idle.group(1)), float(idle.group(2))
                continue
            table.rows[cells[0]] = Row(
                project=cells[0],
                quota_backed=_number(cells[col["Within quota"]]),
                over_quota=_number(cells[col["Borrowed"]]),
                unmet=_number(cells[col["Waiting"]]),
                fair_share=_number(cells[col["Fair share"]]),
            )
        pools[table.pool] = table
    return pools


class _Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, dict[str, str]] = {}
        self.messages: dict[str, str] = {}
        self._message: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in {"input", "select"} and "id" in a:
            self.inputs[a["id"]] = a
            if tag == "select":
                self._select = a["id"]
        elif tag == "option" and self._select and "selected" in a:
            self.inputs[self._select]["value"] = a.get("value", "")
        elif tag == "span" and "sim-msg" in a.get("class", ""):
            self._message = a["id"].removesuffix("-msg")
            self.messages[self._message] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "span":
            self._message = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._message is not None:
            self.messages[self._message] += data


def form_inputs(html: str) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """The form's inputs by id (attributes, value) and each field's message."""
    reader = _Inputs()
    reader.feed(html)
    return reader.inputs, {k: v.strip() for k, v in reader.messages.items()}
