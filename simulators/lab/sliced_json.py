"""JSON text for a big document in many small calls of the encoder, never one long one.

`json.dumps` is one C call that holds the interpreter's lock for its whole length: a lab's
world after `kubectl scale ... --replicas=600` is megabytes of JSON, tens of ms of a call no
other thread of the process can interrupt, so every other learner's command in the process
waits for it (issue 33). `dumps` writes the same text, byte for byte, as `json.dumps` with the
same `separators`, but encodes each part of at most about SLICE items by itself, so the lock
can change hands between two parts (sys.getswitchinterval) as it does between bytecodes.
"""

from __future__ import annotations

import functools
import json
from typing import Any

# A container with more entries than this is encoded entry by entry, not in one call (a lab's
# objects of a kind, its events), as is every container in the top TOP levels (the lab's
# document, its world, the world's changes, their kinds); below DEPTH, whatever is left is one
# call (one Kubernetes object, a few KB, about 20 us).
SLICE = 32
TOP = 5
DEPTH = 8
# A string longer than this many characters is encoded this many at a time: a command's 512 KiB
# of output in a terminal's frame was one call of about 1.7 ms (escaping is per character, so
# the pieces join into json.dumps's text exactly).
STRING_SLICE = 16 * 1024


def dumps(value: Any, *, separators: tuple[str, str] = (", ", ": ")) -> str:
    """`json.dumps(value, separators=separators)`, byte for byte, in bounded calls."""
    return "".join(pieces(value, separators=separators))


def pieces(value: Any, *, separators: tuple[str, str] = (", ", ": ")) -> list[str]:
    """The text of `dumps` as the pieces each call of the encoder wrote, in order."""
    parts: list[str] = []
    _encode(value, _encoder(separators), 0, parts)
    return parts


@functools.cache
def _encoder(separators: tuple[str, str]) -> json.JSONEncoder:
    return json.JSONEncoder(separators=separators)


def _encode(value: Any, encoder: json.JSONEncoder, depth: int, parts: list[str]) -> None:
    item, key = encoder.item_separator, encoder.key_separator
    if depth < DEPTH and isinstance(value, dict) and _split(value, depth):
        parts.append("{")
        for index, (name, entry) in enumerate(value.items()):
            if index:
                parts.append(item)
            parts.append(_key(name) + key)
            _encode(entry, encoder, depth + 1, parts)
        parts.append("}")
    elif depth < DEPTH and isinstance(value, list) and _split(value, depth):
        parts.append("[")
        for index, entry in enumerate(value):
            if index:
                parts.append(item)
            _encode(entry, encoder, depth + 1, parts)
        parts.append("]")
    elif isinstance(value, str) and len(value) > STRING_SLICE:
        parts.append('"')
        for start in range(0, len(value), STRING_SLICE):
            parts.append(encoder.encode(value[start : start + STRING_SLICE])[1:-1])
        parts.append('"')
    else:
        parts.append(encoder.encode(value))


def _split(value: dict[Any, Any] | list[Any], depth: int) -> bool:
    return len(value) > 1 and (depth < TOP or len(value) > SLICE)


def _key(name: Any) -> str:
    """A key as json.dumps writes it: a string; true, false, null and numbers quoted."""
    if isinstance(name, str):
        return json.dumps(name)
    return f'"{json.dumps(name)}"'
