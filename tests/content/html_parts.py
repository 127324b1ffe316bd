"""Small readers for rendered HTML, so tests check what a reader's browser gets."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Table:
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    header_in_thead: bool = False


class TableReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._in_thead = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(Table())
        elif tag == "thead":
            self._in_thead = True
        elif tag == "tr":
            self._row = []
        elif tag in {"td", "th"}:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self._in_thead = False
        elif tag in {"td", "th"} and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            table = self.tables[-1]
            if self._in_thead:
                table.header, table.header_in_thead = self._row, True
            else:
                table.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def read_tables(html: str) -> list[Table]:
    reader = TableReader()
    reader.feed(html)
    return reader.tables


class LinkReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "a" and values.get("href"):
            self.hrefs.append(str(values["href"]))


def read_links(html: str) -> LinkReader:
    reader = LinkReader()
    reader.feed(html)
    return reader


class TextReader(HTMLParser):
    """Visible prose, leaving out code (where a `|` is legitimate)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._code_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"code", "pre"}:
            self._code_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in {"code", "pre"}:
            self._code_depth -= 1

    def handle_data(self, data: str) -> None:
        if not self._code_depth:
            self.parts.append(data)


def prose_text(html: str) -> str:
    reader = TextReader()
    reader.feed(html)
    return " ".join(reader.parts)
