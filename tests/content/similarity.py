"""Near-duplicate detection for study texts: TF-IDF cosine over stemmed words.

Plain word overlap can't tell two cards that state the same fact from two that
merely share the domain's vocabulary (quota, GPU, pod …). Weighting each word
by how rare it is across the deck makes shared rare words (`--overwrite`,
consolidation, fragmentation) count and shared common ones fade.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping

_STOP = frozenset(
    {
        "a", "an", "the", "of", "to", "and", "or", "is", "in", "on", "for", "it", "its", "be",
        "by", "with", "that", "this", "what", "which", "when", "how", "do", "does", "you",
        "your", "not", "no", "are", "as", "at", "from", "can", "if", "so", "but", "then",
        "than", "their", "there", "one", "each", "e.g",
    }
)  # fmt: skip
_WORD = re.compile(r"[a-z0-9][a-z0-9.\-/]*[a-z0-9]|[a-z0-9]")

Vector = dict[str, float]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > 4 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def words(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text.lower().replace("`", "")) if w not in _STOP]


def pairs_of_words(text: str) -> list[str]:
    """Consecutive word pairs, stop words kept: "A 21, B 8" and "A 2, B 7" share none."""
    items = [_stem(w) for w in _WORD.findall(text.lower().replace("`", ""))]
    return [f"{a} {b}" for a, b in itertools.pairwise(items)] or items


def vectors(texts: Mapping[str, str], pairs: bool = False) -> dict[str, Vector]:
    """One unit-length TF-IDF vector per text, weighted across all the given texts."""
    split = pairs_of_words if pairs else words
    tokens = {key: split(text) for key, text in texts.items()}
    seen_in = Counter(word for items in tokens.values() for word in set(items))
    result: dict[str, Vector] = {}
    for key, items in tokens.items():
        weights = {w: n * math.log(len(tokens) / seen_in[w]) for w, n in Counter(items).items()}
        norm = math.sqrt(sum(x * x for x in weights.values())) or 1.0
        result[key] = {w: x / norm for w, x in weights.items()}
    return result


def cosine(a: Vector, b: Vector) -> float:
    return sum(x * b.get(w, 0.0) for w, x in a.items())


def similar_pairs(
    vectors_by_key: Mapping[str, Vector], threshold: float
) -> list[tuple[float, str, str]]:
    """Every pair at or above the threshold, most similar first."""
    pairs = [
        (round(cosine(vectors_by_key[a], vectors_by_key[b]), 2), a, b)
        for a, b in itertools.combinations(sorted(vectors_by_key), 2)
    ]
    return sorted((pair for pair in pairs if pair[0] >= threshold), reverse=True)
