"""Brace expansion, bash 5.2's, the first of a word's expansions: `a{b,c}d`, `{1..10..3}`,
`{01..10}`, `{a..e}`, nested and side by side (`{a,b}{1,2}`).

It works on a word's parts (simulators.lab.shell_tokens.Part): a brace, a comma or `..` counts
only in unquoted literal text; a quoted part or an expansion (`$x`, `$(...)`) is carried whole
into each word it falls in, and expanded afterwards, as in bash (`{1..$n}` is not a sequence).
A brace with no top-level comma and no valid sequence is itself literal, and braces inside it
still expand (`{a{1,2}}` is `{a1} {a2}`). The words made are bounded (MAX_WORDS, MAX_TOKENS):
bash has no bound, the lab refuses in one line.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

from simulators.lab import budget
from simulators.lab.shell_tokens import Part, Refused

# A word's unquoted characters one by one (str), the rest of its parts whole (Part).
Token = str | Part

MAX_WORDS = 20_000
# Characters and parts in all the words made.
MAX_TOKENS = 1_000_000
TOO_MANY = "bash: brace expansion: too many words for this lab (at most 20,000)"

_NUMBER = r"[-+]?\d{1,18}"
_SEQUENCE = re.compile(rf"({_NUMBER})\.\.({_NUMBER})(?:\.\.({_NUMBER}))?")
_NAME_CHARS = re.compile(r"[A-Za-z0-9_]*")
_LETTERS = re.compile(rf"([A-Za-z])\.\.([A-Za-z])(?:\.\.({_NUMBER}))?")


def expand(parts: list[Part]) -> list[list[Part]]:
    """The words (as parts) that brace expansion makes of one word: itself alone when it has
    no brace expression. Refused past MAX_WORDS or MAX_TOKENS."""
    if not any(p.kind == "lit" and "{" in p.value for p in parts):
        return [parts]
    tokens: list[Token] = []
    for part in parts:
        tokens.extend(part.value if part.kind == "lit" else [part])
    words = _expand(tokens)
    return [_parts(word) for word in words]


def _expand(tokens: list[Token]) -> list[list[Token]]:
    start = 0
    while True:
        opening = _find(tokens, "{", start)
        if opening < 0:
            return [tokens]
        if opening == 0 and tokens[1:2] == ["}"]:
            start = 1  # a word starting `{}` (find's -exec {}): bash leaves that brace be
            continue
        closing, commas = _match(tokens, opening)
        if closing < 0:
            start = opening + 1  # `{{a,b}`: the first brace is text, the second may expand
            continue
        inside = tokens[opening + 1 : closing]
        if commas:
            edges = [opening, *commas, closing]
            choices = [tokens[a + 1 : b] for a, b in itertools.pairwise(edges)]
            alternatives = [word for choice in choices for word in _expand(choice)]
        else:
            # `{a..3}`, no sequence: text up to its brace; what follows expands on its own.
            alternatives = _sequence(inside) or [tokens[opening : closing + 1]]
        return _product(tokens[:opening], alternatives, _expand(tokens[closing + 1 :]))


def _product(
    before: list[Token], alternatives: list[list[Token]], after: list[list[Token]]
) -> list[list[Token]]:
    count = len(alternatives) * len(after)
    size = count * len(before) + len(after) * sum(map(len, alternatives))
    size += len(alternatives) * sum(map(len, after))
    if count > MAX_WORDS or size > MAX_TOKENS:
        raise Refused(TOO_MANY)
    budget.check_time()
    return [before + middle + end for middle in alternatives for end in after]


def _find(tokens: list[Token], char: str, start: int) -> int:
    for index in range(start, len(tokens)):
        if tokens[index] == char:
            return index
    return -1


def _match(tokens: list[Token], opening: int) -> tuple[int, list[int]]:
    """The brace closing the one at `opening` (-1: none), and its top-level commas. As in
    bash, a top-level `}` closes only after a top-level comma or `..` (not right before that
    `}`): before one it is text (`{a},b}` is `a} b`)."""
    depth, commas, separated = 0, list[int](), False
    for index in range(opening, len(tokens)):
        token = tokens[index]
        if token == "{":
            depth += 1
        elif token == "}":
            if depth == 1 and not separated:
                continue
            depth -= 1
            if depth == 0:
                return index, commas
        elif depth == 1 and token == ",":
            commas.append(index)
            separated = True
        elif depth == 1 and token == "." and tokens[index + 1 : index + 2] == ["."]:
            separated = separated or tokens[index + 2 : index + 3] != ["}"]
    return -1, []


def _sequence(inside: list[Token]) -> list[list[Token]] | None:
    """`x..y[..step]` of integers or of letters, as bash counts them; None: not a sequence."""
    if not all(isinstance(token, str) for token in inside):
        return None
    text = "".join(str(token) for token in inside)
    numbers = _SEQUENCE.fullmatch(text)
    letters = None if numbers else _LETTERS.fullmatch(text)
    match = numbers or letters
    if match is None:
        return None
    first, last, step = match.group(1), match.group(2), match.group(3)
    if numbers:
        low, high = int(first), int(last)
    else:
        low, high = ord(first), ord(last)
    stride = abs(int(step)) if step else 1
    stride = stride or 1
    if abs(high - low) // stride + 1 > MAX_WORDS:
        raise Refused(TOO_MANY)
    values = range(low, high + 1, stride) if low <= high else range(low, high - 1, -stride)
    if letters:
        # bash's backslash in a range of letters (`{Z..a}`) quotes nothing: an empty word.
        return [[Part("quoted", "")] if v == ord("\\") else [chr(v)] for v in values]
    width = max(map(len, (first, last))) if _padded(first) or _padded(last) else 0
    return [list(f"{v:0{width}d}") for v in values]


def _padded(number: str) -> bool:
    digits = number.lstrip("-+")
    return len(digits) > 1 and digits.startswith("0")


def _parts(tokens: list[Token]) -> list[Part]:
    parts: list[Part] = []
    text: list[str] = []

    def flush() -> None:
        plain = "".join(text)
        text.clear()
        last = parts[-1] if parts else None
        if last is not None and last.kind == "var" and last.bare and not last.in_quotes:
            # `$x` then `1` from a brace is `$x1`, as bash reads the word once braces expanded.
            more = _NAME_CHARS.match(plain)
            if more is not None and more.group():
                last = parts[-1] = dataclasses.replace(last, value=last.value + more.group())
                plain = plain[more.end() :]
        if plain:
            parts.append(Part("lit", plain))

    for token in tokens:
        if isinstance(token, str):
            text.append(token)
            continue
        flush()
        parts.append(token)
    flush()
    return parts
