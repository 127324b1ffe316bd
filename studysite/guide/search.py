"""Site search over the guide's sections and headings.

A small in-memory index: every passage (the text under one heading) is a
document; a hit needs every query word, and titles and headings weigh more
than body text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from studysite.guide.sections import load_guide

MAX_QUERY_LENGTH = 200
MAX_RESULTS = 30
_WORD = re.compile(r"[\w./-]+", re.UNICODE)


@dataclass(frozen=True)
class Document:
    url: str
    title: str
    context: str
    text: str

    @functools.cached_property
    def haystack_title(self) -> str:
        return self.title.lower()

    @functools.cached_property
    def haystack_text(self) -> str:
        return f"{self.context} {self.text}".lower()


@dataclass(frozen=True)
class Hit:
    document: Document
    score: int
    snippet: str


# Other features (the reference, for one) register the documents they add.
_providers: list[Callable[[], Iterable[Document]]] = []


def register_provider(provider: Callable[[], Iterable[Document]]) -> None:
    if provider not in _providers:
        _providers.append(provider)
        documents.cache_clear()


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
    found = list(guide_documents())
    for provider in _providers:
        found.extend(provider())
    return tuple(found)


def query_words(query: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(query[:MAX_QUERY_LENGTH])]


def snippet(text: str, word: str, width: int = 160) -> str:
    position = text.lower().find(word)
    if position < 0:
        return text[:width] + ("…" if len(text) > width else "")
    start = max(0, position - width // 3)
    piece = text[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def search(query: str) -> list[Hit]:
    words = query_words(query)
    if not words:
        return []
    hits: list[Hit] = []
    for document in documents():
        score = 0
        for word in words:
            in_title = word in document.haystack_title
            in_text = word in document.haystack_text
            if not (in_title or in_text):
                break
            score += 10 if in_title else 1
        else:
            hits.append(Hit(document, score, snippet(document.text, words[0])))
    hits.sort(key=lambda hit: (-hit.score, hit.document.url))
    return hits[:MAX_RESULTS]
