"""Site search over the guide's sections and headings: a real full-text index.

Every passage (the text under one heading) is a document. On SQLite (the default)
the documents go into an in-memory FTS5 table built from the content on first use
(porter stemming, BM25); when the site's database is PostgreSQL they go into a
temporary table of the connection, filled on its first search (about 70 ms, then
a few ms a query; connections live for DATABASE_CONN_MAX_AGE), searched with
PostgreSQL's own English full-text search. Either way the index is derived data:
no migration, nothing to keep in step with the content.

A query goes through three steps before the index sees it:

* question words ("why is my ... ") are dropped, and a few synonyms widen a
  term (a "job" is also a "workload");
* a word the guide never uses is corrected against the guide's own vocabulary
  ("preemtible" -> "preemptible", "fairshare" -> "fair share");
* the index stems both sides, so "reclaiming" finds "reclaim".

Every remaining term must match; when that finds too little, documents matching
any term follow. Titles weigh most, and a guide passage outranks a reference
entry of similar relevance. tests/web/test_search_quality.py measures it.
"""

from __future__ import annotations

import difflib
import functools
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection

from studysite.guide.sections import load_guide

MAX_QUERY_LENGTH = 200
MAX_RESULTS = 30
MAX_TERMS = 12
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CANDIDATES = 60
_MAX_REMEMBERED = 10_000
# ts_rank stays well below this, so a document with more of the terms always comes first.
_PER_TERM = 100.0
_GUIDE_BOOST = 1.6
# Column weights for bm25(): title, context (section title or summary), body.
_WEIGHTS = (10.0, 3.0, 1.0)

STOP_WORDS = frozenset(
    """a about an and are as at be but can could do does did for from get got how i if in into is it
    its me my of on or our should so than that the their then there these this to was we what
    when where which while who why will with would you your keeps keep still stay stays happen
    happens want wants""".split()  # noqa: SIM905 - a word list reads better as text
)

# A query term and the words the guide uses for the same thing.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "job": ("workload", "training"),
    "jobs": ("workload", "training"),
    "stuck": ("pending",),
    "waiting": ("pending",),
    "queued": ("pending",),
    "kicked": ("preempted", "evicted"),
    "killed": ("preempted", "evicted"),
    "evicted": ("preempted", "reclaim"),
    "borrow": ("over", "quota"),
    "borrowing": ("over-quota",),
    "share": ("fraction",),
    "sharing": ("fraction",),
    "slice": ("mig",),
    "slices": ("mig",),
    "install": ("installation", "helm"),
    "permissions": ("rbac", "role"),
    "permission": ("rbac", "role"),
    "login": ("cli",),
    "notebook": ("workspace", "jupyter"),
    "gpus": ("gpu",),
    "preemptible": ("preemption", "preempted"),
    "crashloop": ("crashloopbackoff", "crash", "broken"),
    "crashloopbackoff": ("crash", "broken"),
    "crashing": ("crashloopbackoff", "crash", "broken"),
}


@dataclass(frozen=True)
class Document:
    url: str
    title: str
    context: str
    text: str


@dataclass(frozen=True)
class Hit:
    document: Document
    score: float
    parts: tuple[tuple[str, bool], ...]

    @property
    def snippet(self) -> str:
        """The snippet as plain text (the template marks the matched parts)."""
        return "".join(text for text, _ in self.parts)


class Results(list[Hit]):
    """The hits, best first, and the words the search took to mean something else
    (`corrections`: typed, meant), so the page can say what it searched for."""

    corrections: tuple[tuple[str, str], ...] = ()


# Other features (the reference, for one) register the documents they add.
_providers: list[Callable[[], Iterable[Document]]] = []


def register_provider(provider: Callable[[], Iterable[Document]]) -> None:
    if provider not in _providers:
        _providers.append(provider)
        documents.cache_clear()
        _index.cache_clear()


def guide_documents() -> Iterable[Document]:
    for section in load_guide().sections:
        for passage in section.passages:
            if passage.anchor:
                yield Document(
                    f"{section.url}#{passage.anchor}", passage.heading, section.title, passage.text
                )
            else:
                yield Document(section.url, section.title, section.summary, passage.text)


@functools.cache
def documents() -> tuple[Document, ...]:
    # The guide's passages come first: the index tells them apart by position.
    found = list(guide_documents())
    for provider in _providers:
        found.extend(provider())
    return tuple(found)


class Vocabulary:
    """The plain words the documents use, to correct a query's words against."""

    def __init__(self, docs: tuple[Document, ...]) -> None:
        words: set[str] = set()
        for document in docs:
            words.update(words_of(f"{document.title} {document.context} {document.text}"))
        self.words = frozenset(words)
        self._sorted = sorted(w for w in words if len(w) > 2 and not w.isdigit())
        # difflib is the slow part of a query; learners repeat their typos as they type.
        self._corrections: dict[str, tuple[tuple[str, ...], ...]] = {}

    def correct(self, word: str) -> tuple[tuple[str, ...], ...]:
        """What the guide may mean by a word: itself if the guide uses it, two words
        it runs together ("nodepool"), or the closest word the guide uses."""
        if len(word) < 4 or word.isdigit():
            return ((word,),)
        known = self._corrections.get(word)
        if known is not None:
            return known
        meanings: list[tuple[str, ...]] = []
        if word in self.words:
            meanings.append((word,))
        for cut in range(3, len(word) - 2):
            head, tail = word[:cut], word[cut:]
            if head in self.words and tail in self.words:
                meanings.append((head, tail))
                break
        if not meanings:
            close = difflib.get_close_matches(word, self._sorted, n=1, cutoff=0.8)
            meanings.append((close[0],) if close else (word,))
        if len(self._corrections) < _MAX_REMEMBERED:
            self._corrections[word] = tuple(meanings)
        return tuple(meanings)


@dataclass(frozen=True)
class Alternative:
    """One way a query word may appear: a word or a phrase, perhaps still being typed."""

    words: tuple[str, ...]
    prefix: bool = False


# A query term: it matches when any of its alternatives does.
Term = tuple[Alternative, ...]


def query_terms(query: str, vocabulary: Vocabulary) -> list[Term]:
    """The query's meaningful words, each with its corrections and synonyms."""
    words = query_words(query)
    meaningful = list(dict.fromkeys([w for w in words if w not in STOP_WORDS] or words))
    terms = []
    for position, word in enumerate(meaningful):
        meanings = vocabulary.correct(word)
        options = [Alternative(meaning) for meaning in meanings]
        options.append(Alternative((word,)))
        options.extend(Alternative((synonym,)) for synonym in SYNONYMS.get(word, ()))
        if position == len(meaningful) - 1 and len(word) >= 3 and meanings[0] == (word,):
            # As the learner types, the last word may be unfinished.
            options.append(Alternative((word,), prefix=True))
        terms.append(tuple(dict.fromkeys(options)))
    return terms


class SqliteIndex:
    """An in-memory FTS5 table over the documents (porter stemming, BM25 ranking)."""

    START, END = "\x02", "\x03"

    def __init__(self, docs: tuple[Document, ...], guide_count: int) -> None:
        self.documents = docs
        self.guide_count = guide_count
        self.vocabulary = Vocabulary(docs)
        # One connection shared by every thread; the lock keeps its use serial.
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        try:
            self._db.execute(
                "CREATE VIRTUAL TABLE docs USING fts5("
                "title, context, body, tokenize = 'porter unicode61 remove_diacritics 2')"
            )
        except sqlite3.OperationalError as error:
            raise RuntimeError(
                f"The site search needs SQLite with FTS5 (Python's sqlite3 has {error})"
            ) from error
        self._db.executemany(
            "INSERT INTO docs (rowid, title, context, body) VALUES (?, ?, ?, ?)",
            ((i, d.title, d.context, d.text) for i, d in enumerate(docs)),
        )

    @staticmethod
    def expression(terms: list[Term], every: bool) -> str:
        """FTS5's query syntax; every word is quoted, so nothing typed is an operator."""
        groups = [
            "("
            + " OR ".join('"' + " ".join(a.words) + '"' + ("*" if a.prefix else "") for a in term)
            + ")"
            for term in terms
        ]
        return (" AND " if every else " OR ").join(groups)

    def rank(self, terms: list[Term], every: bool) -> list[tuple[int, float]]:
        """Matching documents, best first: bm25 with titles weighing most, guide first."""
        weights = ", ".join(str(w) for w in _WEIGHTS)
        rows = self._run(
            f"SELECT rowid, bm25(docs, {weights}) FROM docs WHERE docs MATCH ? ORDER BY 2 LIMIT ?",
            (self.expression(terms, every), _CANDIDATES),
        )
        # bm25() is lower for better matches.
        return _boosted([(rowid, -score) for rowid, score in rows], self.guide_count)

    def snippets(self, terms: list[Term], every: bool, rowids: list[int]) -> dict[int, str]:
        """The body text around the matched words, for the given documents only."""
        if not rowids:
            return {}
        marks = ", ".join("?" * len(rowids))
        rows = self._run(
            f"SELECT rowid, snippet(docs, 2, '{self.START}', '{self.END}', '…', 28) "
            f"FROM docs WHERE docs MATCH ? AND rowid IN ({marks})",
            (self.expression(terms, every), *rowids),
        )
        return dict(rows)

    def _run(self, sql: str, parameters: tuple[object, ...]) -> list[tuple[int, Any]]:
        with self._lock:
            try:
                return list(self._db.execute(sql, parameters))
            except sqlite3.OperationalError:
                # Whatever the learner typed is quoted, so this is a malformed
                # expression from an odd character: no results rather than a 500.
                return []


class PostgresIndex:
    """PostgreSQL's full-text search, used when the site's database is PostgreSQL.

    The documents go into a temporary table of the current connection, filled on its
    first search (derived data: no migration, nothing to keep in step), with the
    title, context and body weighted A, B and D, ranked by ts_rank_cd.
    """

    START, END = "\ue000", "\ue001"
    TABLE = "studysite_search_docs"

    def __init__(
        self, docs: tuple[Document, ...], guide_count: int, vocabulary: Vocabulary
    ) -> None:
        self.documents = docs
        self.guide_count = guide_count
        self.vocabulary = vocabulary

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

    def _ensure(self, cursor: Any) -> None:
        cursor.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {self.TABLE} "
            "(id integer PRIMARY KEY, body text NOT NULL, doc tsvector NOT NULL)"
        )
        cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {self.TABLE})")
        if cursor.fetchone()[0]:
            return
        cursor.execute(
            f"INSERT INTO {self.TABLE} (id, body, doc) "
            "SELECT id, b, setweight(to_tsvector('english', t), 'A') "
            "|| setweight(to_tsvector('english', c), 'B') "
            "|| setweight(to_tsvector('english', b), 'D') "
            "FROM unnest(%s::int[], %s::text[], %s::text[], %s::text[]) AS d(id, t, c, b)",
            [
                list(range(len(self.documents))),
                [d.title for d in self.documents],
                [d.context for d in self.documents],
                [d.text for d in self.documents],
            ],
        )

    def rank(self, terms: list[Term], every: bool, cursor: Any) -> list[tuple[int, float]]:
        """Best first: documents with more of the query's terms, then ts_rank, guide first."""
        self._ensure(cursor)
        cursor.execute(
            f"SELECT id, ts_rank(doc, q, 0), (SELECT count(*) FROM unnest(%s::text[]) AS t "
            "WHERE doc @@ to_tsquery('english', t)) "
            f"FROM {self.TABLE}, to_tsquery('english', %s) AS q WHERE doc @@ q "
            "ORDER BY 3 DESC, 2 DESC LIMIT %s",
            [
                [self.expression([term], True) for term in terms],
                self.expression(terms, every),
                _CANDIDATES,
            ],
        )
        rows = cursor.fetchall()
        boosted = {
            rowid: score
            for rowid, score in _boosted(
                [(rowid, float(score)) for rowid, score, _ in rows], self.guide_count
            )
        }
        # Terms matched count first; the (boosted) rank orders documents within a count.
        scored = [(rowid, hits * _PER_TERM + boosted[rowid]) for rowid, _, hits in rows]
        return sorted(scored, key=lambda row: -row[1])

    def snippets(
        self, terms: list[Term], every: bool, rowids: list[int], cursor: Any
    ) -> dict[int, str]:
        if not rowids:
            return {}
        cursor.execute(
            f"SELECT id, ts_headline('english', body, q, %s) FROM {self.TABLE}, "
            "to_tsquery('english', %s) AS q WHERE id = ANY(%s)",
            [
                f"StartSel={self.START}, StopSel={self.END}, MaxWords=30, MinWords=12, "
                "MaxFragments=1, FragmentDelimiter=…",
                self.expression(terms, every),
                rowids,
            ],
        )
        return {rowid: f"…{text}…" for rowid, text in cursor.fetchall()}


def _boosted(rows: list[tuple[int, float]], guide_count: int) -> list[tuple[int, float]]:
    # A guide passage outranks a one-line reference entry of similar relevance,
    # since it is where the learner reads.
    scored = [
        (rowid, score * (_GUIDE_BOOST if rowid < guide_count else 1.0)) for rowid, score in rows
    ]
    return sorted(scored, key=lambda row: -row[1])


@functools.cache
def _index() -> SqliteIndex:
    return SqliteIndex(documents(), len(tuple(guide_documents())))


def words_of(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def query_words(query: str) -> list[str]:
    return words_of(query[:MAX_QUERY_LENGTH])[:MAX_TERMS]


def _parts(snippet: str, start: str, end: str) -> tuple[tuple[str, bool], ...]:
    parts: list[tuple[str, bool]] = []
    for piece in re.split(f"({start}[^{end}]*{end})", snippet):
        if piece.startswith(start):
            parts.append((piece[1:-1], True))
        elif piece:
            parts.append((piece, False))
    return tuple(parts)


def corrections(query: str, vocabulary: Vocabulary) -> tuple[tuple[str, str], ...]:
    """(typed, meant) for each query word the search read as another word or two."""
    found = []
    for word in dict.fromkeys(query_words(query)):
        if word in STOP_WORDS or word in vocabulary.words:
            continue
        meant = " ".join(vocabulary.correct(word)[0])
        if meant != word:
            found.append((word, meant))
    return tuple(found)


def search(query: str) -> Results:
    """The best documents for a query, in the site database's own full-text search
    when that is PostgreSQL, else in the in-memory FTS5 index."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            hits = search_postgres(query, cursor)
    else:
        hits = _search_sqlite(query)
    results = Results(hits)
    if results:
        results.corrections = corrections(query, _index().vocabulary)
    return results


def _search_sqlite(query: str) -> list[Hit]:
    sqlite = _index()
    terms = query_terms(query, sqlite.vocabulary)
    if not terms:
        return []
    return _search(
        terms,
        lambda every: sqlite.rank(terms, every),
        lambda every, rowids: sqlite.snippets(terms, every, rowids),
        sqlite,
    )


def search_postgres(query: str, cursor: Any) -> list[Hit]:
    """`search` on PostgreSQL, given a DB-API cursor of the site's database."""
    sqlite = _index()  # the documents and vocabulary, built once per process
    terms = query_terms(query, sqlite.vocabulary)
    if not terms:
        return []
    postgres = PostgresIndex(sqlite.documents, sqlite.guide_count, sqlite.vocabulary)
    return _search(
        terms,
        lambda every: postgres.rank(terms, every, cursor),
        lambda every, rowids: postgres.snippets(terms, every, rowids, cursor),
        postgres,
    )


def _search(
    terms: list[Term],
    rank: Callable[[bool], list[tuple[int, float]]],
    snippets: Callable[[bool, list[int]], dict[int, str]],
    index: SqliteIndex | PostgresIndex,
) -> list[Hit]:
    found = [(rowid, score, True) for rowid, score in rank(True)]
    if len(found) < 3 and len(terms) > 1:
        # Too little has every word: follow with what has any of them.
        seen = {rowid for rowid, _, _ in found}
        found += [(rowid, score, False) for rowid, score in rank(False) if rowid not in seen]
    found = found[:MAX_RESULTS]
    texts: dict[int, str] = {}
    for every in (True, False):
        texts.update(snippets(every, [rowid for rowid, _, e in found if e is every]))
    return [
        Hit(index.documents[rowid], score, _parts(texts.get(rowid, ""), index.START, index.END))
        for rowid, score, _ in found
    ]
