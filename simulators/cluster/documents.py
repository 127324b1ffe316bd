"""Parsing documents from learners and clients, bounded in the size of what it builds.

A YAML document is small as text and huge as data when it repeats anchors through aliases (the
"billion laughs": ``{a: &a [x,x,x], b: &b [*a,*a,*a], ...}``). PyYAML shares the anchored value
instead of copying it, so loading costs nothing, but every later copy, merge, encoding or
answer expands it. kube-apiserver and kubectl decode YAML with go-yaml, which refuses a
document whose nodes come mostly from alias expansion (``yaml: document contains excessive
aliasing``); this module applies go-yaml's rule to the composed document before it is built,
counting each node as often as its aliases would expand it (memoized, so the count itself costs
one pass over the distinct nodes), and refuses documents nested deeper than go-yaml allows.

Every YAML parse of untrusted text in the lab and the API server goes through `load_yaml` or
`load_yaml_all`; JSON cannot alias, so it is bounded by its length alone (the request body
limit, the lab's line limit) and only its depth is checked here (`load_json`).
"""

from __future__ import annotations

import json
import math
from typing import Any

import yaml

# go-yaml's decoder (yaml.v2 decode.go): below this many decoded nodes, up to 99% of them may
# come from aliases; above alias_ratio_range_high, 10%; in between, scaled linearly.
ALIAS_RATIO_RANGE_LOW = 400_000
ALIAS_RATIO_RANGE_HIGH = 4_000_000
# go-yaml v3 and encoding/json stop at 10,000 levels of nesting. The lab's and the apiserver's
# copies, printers and patches recurse, and hold a few hundred levels; a document deeper than
# this is refused here, with the decoders' own wording and this number, never half-stored.
MAX_DEPTH = 200

EXCESSIVE_ALIASING = "yaml: document contains excessive aliasing"
TOO_DEEP = f"yaml: exceeded max depth of {MAX_DEPTH}"
JSON_TOO_DEEP = "exceeded max depth"  # encoding/json's scanner

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DocumentError(ValueError):
    """A document refused for its size; str() is go-yaml's (or encoding/json's) message."""


class _Loader(_Base):  # type: ignore[valid-type,misc]
    """The safe loader, refusing the floats JSON has no words for (.nan, .inf)."""


def _finite_float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    value = loader.construct_yaml_float(node)  # type: ignore[arg-type]
    if math.isnan(value) or math.isinf(value):
        # sigs.k8s.io/yaml turns YAML into JSON, which encoding/json cannot write.
        word = "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
        raise DocumentError(f"json: unsupported value: {word}")
    return float(value)


_Loader.add_constructor("tag:yaml.org,2002:float", _finite_float)


def allowed_alias_ratio(decoded: int) -> float:
    """go-yaml's allowedAliasRatio."""
    if decoded <= ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decoded >= ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    span = ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW
    return 0.99 - 0.89 * ((decoded - ALIAS_RATIO_RANGE_LOW) / span)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def check_node(root: yaml.Node) -> None:
    """Refuse a composed document as go-yaml would: too many of its expanded nodes come from
    aliases, or it is nested too deep. Iterative (a deep document must not exhaust Python's
    stack) and linear in the distinct nodes."""
    expanded: dict[int, int] = {}
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if depth > MAX_DEPTH:
            raise DocumentError(TOO_DEEP)
        key = id(node)
        if done:
            expanded[key] = 1 + sum(expanded[id(child)] for child in _children(node))
            continue
        if key in expanded:
            continue
        expanded[key] = 0  # on the stack: an alias back into its own anchor counts nothing
        stack.append((node, depth, True))
        stack.extend(
            (child, depth + 1, False) for child in _children(node) if id(child) not in expanded
        )
    decoded = expanded[id(root)]
    aliased = decoded - len(expanded)
    if aliased > 100 and decoded > 1000 and aliased / decoded > allowed_alias_ratio(decoded):
        raise DocumentError(EXCESSIVE_ALIASING)


def _check_depth(text: str | bytes) -> None:
    raw = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    if _too_deep(raw, json_strings=False):
        raise DocumentError(TOO_DEEP)


def load_yaml_all(text: str | bytes) -> list[Any]:
    """Every document of a YAML stream, as yaml.safe_load_all builds them, each checked
    (check_node) before it is built. Raises yaml.YAMLError for bad YAML, DocumentError for a
    document too large or too deep."""
    _check_depth(text)
    loader = _Loader(text)
    try:
        docs: list[Any] = []
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            check_node(node)
            docs.append(loader.construct_document(node))
        return docs
    except RecursionError:
        raise DocumentError(TOO_DEEP) from None
    finally:
        loader.dispose()


def load_yaml(text: str | bytes) -> Any:
    """The first document of `text` (None if none), as yaml.safe_load, bounded (load_yaml_all)."""
    _check_depth(text)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_node(node)
        return loader.construct_document(node)
    except RecursionError:
        raise DocumentError(TOO_DEEP) from None
    finally:
        loader.dispose()


def load_json(text: str | bytes) -> Any:
    """json.loads, refusing nesting deeper than encoding/json's limit with its message
    (DocumentError) instead of exhausting Python's stack. Raises ValueError for bad JSON."""
    raw = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    if _too_deep(raw, json_strings=True):
        raise DocumentError(JSON_TOO_DEEP)
    try:
        return json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        raise DocumentError(JSON_TOO_DEEP) from None


def _not_json(name: str) -> Any:
    """Python's json reads NaN and Infinity; encoding/json (and so every client) cannot write
    them back: a value holding one would break every later answer."""
    raise ValueError(f"invalid character '{name[0]}' looking for beginning of value")


def _too_deep(raw: str, *, json_strings: bool) -> bool:
    """Whether brackets nest deeper than MAX_DEPTH (JSON strings skipped with `json_strings`;
    for YAML every bracket counts, which errs on the side of refusing). Checked before a parser
    runs: libyaml's composer recurses in C, where a deep document overflows the stack."""
    if raw.count("[") + raw.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"' and json_strings:
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in "]}":
            depth -= 1
    return False
