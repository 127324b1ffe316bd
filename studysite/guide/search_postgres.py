"""Site search on PostgreSQL: the database's own English full-text search.

The documents live in one table of the site's database (derived data, like
Django's cache table: created and filled by the first search that finds it
missing or holding another version of the content, never by a migration), with
the title, context and body weighted A, B and D, ranked by the number of the
query's terms matched, then ts_rank. Every process and connection shares it: a
search costs two small queries besides its own, and the in-memory SQLite index
is never built on this database.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from studysite.guide.search import (
    CANDIDATES,
    Corpus,
    Term,
    boosted,
)

# ts_rank stays well below this, so a document with more of the terms always comes first.
PER_TERM = 100.0

# Held while the table is (re)filled, so two processes never fill it at once.
_FILL_LOCK = 0x5EA7C4


class PostgresIndex:
    """The corpus in the table `studysite_search_docs`, searched through `cursor`."""

    START, END = "\ue000", "\ue001"
    TABLE = "studysite_search_docs"

    def __init__(self, corpus: Corpus, cursor: Any) -> None:
        self.corpus = corpus
        self.cursor = cursor
        self._ensure()

    @staticmethod
    def expression(terms: list[Term], every: bool) -> str:
        """to_tsquery's syntax; the words are letters and digits only, each quoted."""

        def word(text: str, prefix: bool) -> str:
            return "'" + text.replace("'", "") + "'" + (":*" if prefix else "")

        groups = [
            "("
            + " | ".join(
                " <-> ".join(
                    word(w, a.prefix and i == len(a.words) - 1) for i, w in enumerate(a.words)
                )
                for a in term
            )
            + ")"
            for term in terms
        ]
        return (" & " if every else " | ").join(groups)

    def _current(self) -> bool:
        self.cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [self.TABLE])
        if not self.cursor.fetchone()[0]:
            return False
        self.cursor.execute(
            f"SELECT EXISTS (SELECT 1 FROM {self.TABLE} WHERE version = %s)",
            [self.corpus.version],
        )
        return bool(self.cursor.fetchone()[0])

    def _ensure(self) -> None:
        if self._current():
            return
        with transaction.atomic():
            self.cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_FILL_LOCK])
            if self._current():  # another process filled it while this one waited
                return
            self.cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {self.TABLE} (id integer PRIMARY KEY, "
                "version text NOT NULL, body text NOT NULL, doc tsvector NOT NULL)"
            )
            self.cursor.execute(f"DELETE FROM {self.TABLE}")
            documents = self.corpus.documents
            self.cursor.execute(
                f"INSERT INTO {self.TABLE} (id, version, body, doc) "
                "SELECT id, %s, b, setweight(to_tsvector('english', t), 'A') "
                "|| setweight(to_tsvector('english', c), 'B') "
                "|| setweight(to_tsvector('english', b), 'D') "
                "FROM unnest(%s::int[], %s::text[], %s::text[], %s::text[]) AS d(id, t, c, b)",
                [
                    self.corpus.version,
                    list(range(len(documents))),
                    [d.title for d in documents],
                    [d.context for d in documents],
                    [d.text for d in documents],
                ],
            )

    def rank(self, terms: list[Term], every: bool) -> list[tuple[int, float]]:
        """Best first: documents with more of the query's terms, then ts_rank, guide first."""
        self.cursor.execute(
            f"SELECT id, ts_rank(doc, q, 0), (SELECT count(*) FROM unnest(%s::text[]) AS t "
            "WHERE doc @@ to_tsquery('english', t)) "
            f"FROM {self.TABLE}, to_tsquery('english', %s) AS q WHERE doc @@ q "
            "ORDER BY 3 DESC, 2 DESC LIMIT %s",
            [
                [self.expression([term], True) for term in terms],
                self.expression(terms, every),
                CANDIDATES,
            ],
        )
        rows = self.cursor.fetchall()
        ranked = {
            rowid: score
            for rowid, score in boosted(
                [(rowid, float(score)) for rowid, score, _ in rows], self.corpus.guide_count
            )
        }
        # Terms matched count first; the (boosted) rank orders documents within a count.
        scored = [(rowid, hits * PER_TERM + ranked[rowid]) for rowid, _, hits in rows]
        return sorted(scored, key=lambda row: -row[1])

    def snippets(self, terms: list[Term], every: bool, rowids: list[int]) -> dict[int, str]:
        if not rowids:
            return {}
        self.cursor.execute(
            f"SELECT id, ts_headline('english', body, q, %s) FROM {self.TABLE}, "
            "to_tsquery('english', %s) AS q WHERE id = ANY(%s)",
            [
                f"StartSel={self.START}, StopSel={self.END}, MaxWords=30, MinWords=12, "
                "MaxFragments=1, FragmentDelimiter=…",
                self.expression(terms, every),
                rowids,
            ],
        )
        return {rowid: f"…{text}…" for rowid, text in self.cursor.fetchall()}
