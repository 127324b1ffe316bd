"""Site search over the guide's sections and headings, on SQLite's FTS5.

Every passage (the text under one heading) is a document in an in-memory FTS5
table built from the content on first use: the index is derived data, so it
lives beside the process rather than in the site's database, and works the
same whether the site runs on SQLite or PostgreSQL.

A query goes through three steps before FTS5 sees it:

* question words ("why is my ... ") are dropped, and a few synonyms widen a
  term (a "job" is also a "workload");
* a word the guide never uses is corrected against the guide's own vocabulary
  ("preemtible" -> "preemptible", "fairshare" -> "fair share");
* the porter tokenizer stems both sides, so "reclaiming" finds "reclaim".

Every remaining term must match; when that finds too little, documents
matching any term follow, ranked by BM25 with titles weighing most.
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

from studysite.guide.sections import load_guide

MAX_QUERY_LENGTH = 200
MAX_RESULTS = 30
MAX_TERMS = 12
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CANDIDATES = 60
_MAX_REMEMBERED = 10_000
_GUIDE_BOOST = 1.6
_START, _END = "\x02", "\x03"
# Column weights for bm25(): title, context (section title or summary), body.
_WEIGHTS = (10.0, 3.0, 1.0)

STOP_WORDS = frozenset(
    """a about an and are as at be but can could do does did for from get got how i if in into is it
    its me my of on or our should so than that the their then there these this to was we what
    when where which while who why will with would you your keeps keep still stay stays""".split()  # noqa: SIM905 - a word list reads better as text
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


class Index:
    """An FTS5 table over the documents and the plain words they use."""

    def __init__(self, docs: tuple[Document, ...], guide_count: int) -> None:
        self.documents = docs
        self.guide_count = guide_count
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
        words: set[str] = set()
        for document in docs:
            words.update(words_of(f"{document.title} {document.context} {document.text}"))
        self.vocabulary = frozenset(words)
        self._sorted_vocabulary = sorted(w for w in words if len(w) > 2 and not w.isdigit())
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
        if word in self.vocabulary:
            meanings.append((word,))
        for cut in range(3, len(word) - 2):
            head, tail = word[:cut], word[cut:]
            if head in self.vocabulary and tail in self.vocabulary:
                meanings.append((head, tail))
                break
        if not meanings:
            close = difflib.get_close_matches(word, self._sorted_vocabulary, n=1, cutoff=0.8)
            meanings.append((close[0],) if close else (word,))
        if len(self._corrections) < _MAX_REMEMBERED:
            self._corrections[word] = tuple(meanings)
        return tuple(meanings)

    def rank(self, match: str) -> list[tuple[int, float]]:
        """Matching documents, best first: bm25 with titles weighing most, guide first."""
        weights = ", ".join(str(w) for w in _WEIGHTS)
        rows = self._run(
            f"SELECT rowid, bm25(docs, {weights}) FROM docs WHERE docs MATCH ? ORDER BY 2 LIMIT ?",
            (match, _CANDIDATES),
        )
        # bm25() is lower for better matches; a guide passage outranks a one-line
        # reference entry of similar relevance, since it is where the learner reads.
        scored = [
            (rowid, -score * (_GUIDE_BOOST if rowid < self.guide_count else 1.0))
            for rowid, score in rows
        ]
        return sorted(scored, key=lambda row: -row[1])

    def snippets(self, match: str, rowids: list[int]) -> dict[int, str]:
        """The body text around the matched words, for the given documents only."""
        if not rowids:
            return {}
        marks = ", ".join("?" * len(rowids))
        rows = self._run(
            f"SELECT rowid, snippet(docs, 2, '{_START}', '{_END}', '…', 28) FROM docs "
            f"WHERE docs MATCH ? AND rowid IN ({marks})",
            (match, *rowids),
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


@functools.cache
def _index() -> Index:
    return Index(documents(), len(tuple(guide_documents())))


def words_of(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def query_words(query: str) -> list[str]:
    return words_of(query[:MAX_QUERY_LENGTH])[:MAX_TERMS]


def _quoted(words: Iterable[str]) -> str:
    return '"' + " ".join(words) + '"'


def _term(index: Index, word: str, last: bool) -> str:
    """One FTS5 alternative group for a query word: itself (corrected), synonyms, prefix."""
    meanings = index.correct(word)
    options = [_quoted(meaning) for meaning in meanings]
    options.append(_quoted([word]))
    options.extend(_quoted([synonym]) for synonym in SYNONYMS.get(word, ()))
    if last and len(word) >= 3 and meanings[0] == (word,):
        # As the learner types, the last word may be unfinished.
        options.append(_quoted([word]) + "*")
    return "(" + " OR ".join(dict.fromkeys(options)) + ")"


def match_expressions(query: str, index: Index) -> tuple[str, str]:
    """The FTS5 expressions for every term (AND) and for any term (OR)."""
    words = query_words(query)
    meaningful = [word for word in words if word not in STOP_WORDS] or words
    meaningful = list(dict.fromkeys(meaningful))
    if not meaningful:
        return "", ""
    terms = [
        _term(index, word, last=position == len(meaningful) - 1)
        for position, word in enumerate(meaningful)
    ]
    return " AND ".join(terms), " OR ".join(terms)


def _parts(snippet: str) -> tuple[tuple[str, bool], ...]:
    parts: list[tuple[str, bool]] = []
    for piece in re.split(f"({_START}[^{_END}]*{_END})", snippet):
        if piece.startswith(_START):
            parts.append((piece[1:-1], True))
        elif piece:
            parts.append((piece, False))
    return tuple(parts)


def search(query: str) -> list[Hit]:
    index = _index()
    every, any_ = match_expressions(query, index)
    if not every:
        return []
    found = [(rowid, score, every) for rowid, score in index.rank(every)]
    if len(found) < 3 and any_ != every:
        # Too little has every word: follow with what has any of them.
        seen = {rowid for rowid, _, _ in found}
        found += [(rowid, score, any_) for rowid, score in index.rank(any_) if rowid not in seen]
    found = found[:MAX_RESULTS]
    texts: dict[int, str] = {}
    for match in {match for _, _, match in found}:
        texts.update(index.snippets(match, [rowid for rowid, _, m in found if m == match]))
    return [
        Hit(index.documents[rowid], score, _parts(texts.get(rowid, "")))
        for rowid, score, _ in found
    ]
