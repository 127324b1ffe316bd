"""Site search over the guide's sections and headings: a real full-text index.

Every passage (the text under one heading) is a document. On SQLite (the default)
the documents go into an in-memory FTS5 table built from the content on first use
(porter stemming, BM25); when the site's database is PostgreSQL they go into one
table of that database (search_postgres.py), searched with PostgreSQL's own
English full-text search, and the SQLite index is never built. Either way the
index is derived data: no migration, rebuilt when the content changes.

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
import hashlib
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from django.db import connection

from studysite.guide.sections import load_guide

MAX_QUERY_LENGTH = 200
MAX_RESULTS = 30
MAX_TERMS = 12
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
CANDIDATES = 60
_MAX_REMEMBERED = 10_000
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
        corpus.cache_clear()
        _sqlite_index.cache_clear()


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


@dataclass(frozen=True)
class Corpus:
    """What every index searches: the documents (the guide's passages first), how many
    of them are the guide's, and the vocabulary a query is corrected against."""

    documents: tuple[Document, ...]
    guide_count: int
    vocabulary: Vocabulary

    @functools.cached_property
    def version(self) -> str:
        """A digest of the documents, so a stored index knows when the content changed."""
        digest = hashlib.sha256()
        for document in self.documents:
            for part in (document.url, document.title, document.context, document.text):
                digest.update(part.encode())
                digest.update(b"\0")
        return digest.hexdigest()[:16]


@functools.cache
def corpus() -> Corpus:
    docs = documents()
    return Corpus(docs, len(tuple(guide_documents())), Vocabulary(docs))


class SqliteIndex:
    """An in-memory FTS5 table over the documents (porter stemming, BM25 ranking)."""

    START, END = "\x02", "\x03"

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
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
            ((i, d.title, d.context, d.text) for i, d in enumerate(corpus.documents)),
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
            (self.expression(terms, every), CANDIDATES),
        )
        # bm25() is lower for better matches.
        return boosted([(rowid, -score) for rowid, score in rows], self.corpus.guide_count)

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


def boosted(rows: list[tuple[int, float]], guide_count: int) -> list[tuple[int, float]]:
    # A guide passage outranks a one-line reference entry of similar relevance,
    # since it is where the learner reads.
    scored = [
        (rowid, score * (_GUIDE_BOOST if rowid < guide_count else 1.0)) for rowid, score in rows
    ]
    return sorted(scored, key=lambda row: -row[1])


@functools.cache
def _sqlite_index() -> SqliteIndex:
    return SqliteIndex(corpus())


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
    """The best documents for a query: in the site database's own full-text search
    when that is PostgreSQL, else in the in-memory FTS5 index. One index per database:
    PostgreSQL never builds the SQLite one."""
    found = corpus()
    terms = query_terms(query, found.vocabulary)
    if not terms:
        return Results()
    if connection.vendor == "postgresql":
        from studysite.guide.search_postgres import PostgresIndex

        with connection.cursor() as cursor:
            hits = search_in(PostgresIndex(found, cursor), terms)
    else:
        hits = search_in(_sqlite_index(), terms)
    results = Results(hits)
    if results:
        results.corrections = corrections(query, found.vocabulary)
    return results


class Index(Protocol):
    """A full-text index over a corpus: rank documents by terms, then cut snippets
    whose matched words are between START and END."""

    START: str
    END: str
    corpus: Corpus

    def rank(self, terms: list[Term], every: bool) -> list[tuple[int, float]]: ...

    def snippets(self, terms: list[Term], every: bool, rowids: list[int]) -> dict[int, str]: ...


def search_in(index: Index, terms: list[Term]) -> list[Hit]:
    """The hits for the terms: documents with every term first, then (when too few
    have every one) those with any of them, with their snippets."""
    found = [(rowid, score, True) for rowid, score in index.rank(terms, True)]
    if len(found) < 3 and len(terms) > 1:
        # Too little has every word: follow with what has any of them.
        seen = {rowid for rowid, _, _ in found}
        found += [
            (rowid, score, False) for rowid, score in index.rank(terms, False) if rowid not in seen
        ]
    found = found[:MAX_RESULTS]
    texts: dict[int, str] = {}
    for every in (True, False):
        texts.update(index.snippets(terms, every, [rowid for rowid, _, e in found if e is every]))
    return [
        Hit(
            index.corpus.documents[rowid],
            score,
            _parts(texts.get(rowid, ""), index.START, index.END),
        )
        for rowid, score, _ in found
    ]
