"""Filtering the reference list: every word typed must appear in the term or meaning."""

from __future__ import annotations

from collections.abc import Sequence

from studysite.study.content import ReferenceItem

MAX_QUERY_LENGTH = 100


def clean_query(raw: str) -> str:
    return " ".join(raw.split())[:MAX_QUERY_LENGTH]


def filter_items(items: Sequence[ReferenceItem], query: str) -> list[ReferenceItem]:
    phrase = clean_query(query).lower().replace("`", "")
    words = phrase.split()
    if not words:
        return list(items)
    matches = []
    for item in items:
        term, text = item.term.lower(), f"{item.term} {item.meaning}".lower()
        if all(word in text for word in words):
            matches.append((_rank(term, phrase, words), item))
    return [item for _rank_value, item in sorted(matches, key=lambda pair: pair[0])]


def _rank(term: str, phrase: str, words: list[str]) -> int:
    """Exact term, then the phrase in the term, then every word in the term, then the rest."""
    if term == phrase:
        return 0
    if phrase in term:
        return 1
    return 2 if all(word in term for word in words) else 3
