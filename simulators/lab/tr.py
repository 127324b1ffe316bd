"""tr on kadmin, as GNU coreutils 9.1's (tr.c): it works on bytes, not characters, in any
locale (so `tr -d é` removes two bytes), and its sets are parsed as tr.c's are: escapes (`\\n`,
`\\t`, `\\ooo` ...), ranges, `[:class:]` (the C locale's), `[=c=]`, and in string2 `[c*n]`
and `[c*]`. `-c` complements string1 into every other byte in ascending order (so `tr -c a-z
A-Z` maps newline, byte 10, to `K`), `-d` deletes, `-s` squeezes, `-t` truncates string1 to
string2's length; string2 shorter than string1 is padded with its last byte. Each misuse gets
GNU's own message and status 1. Compared with the real tr on generated sets and text
(tests/unit/lab/test_shell_oracle.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simulators.lab.textutils import Usage, options_of, tool, try_help
from simulators.lab.tool import Context, Output

_RANGES = {
    "upper": [(65, 90)],
    "lower": [(97, 122)],
    "digit": [(48, 57)],
    "alpha": [(65, 90), (97, 122)],
    "alnum": [(48, 57), (65, 90), (97, 122)],
    "xdigit": [(48, 57), (65, 70), (97, 102)],
    "space": [(9, 13), (32, 32)],
    "blank": [(9, 9), (32, 32)],
    "punct": [(33, 47), (58, 64), (91, 96), (123, 126)],
    "cntrl": [(0, 31), (127, 127)],
    "print": [(32, 126)],
    "graph": [(33, 126)],
}
CLASSES = {
    name: bytes(b for lo, hi in spans for b in range(lo, hi + 1)) for name, spans in _RANGES.items()
}
_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_REPEAT = re.compile(rb"\[(\\[0-7]{1,3}|\\.|[^\\])\*([0-9]*)\]", re.S)


@dataclass
class _Item:
    """One element of a set: bytes as written, a class, an equivalence class, or a repeat."""

    kind: str  # "bytes", "class", "equiv", "repeat"
    data: bytes = b""
    name: str = ""
    count: int | None = None  # a repeat's count; None: [c*], as many as string1 needs


def _unescape(raw: bytes, warnings: list[str]) -> tuple[int, int]:
    """The byte at the start of `raw` (after an escape, if any) and how many bytes it took."""
    if raw[:1] != b"\\":
        return raw[0], 1
    if len(raw) == 1:
        warnings.append("tr: warning: an unescaped backslash at end of string is not portable")
        return 92, 1
    octal = re.match(rb"[0-7]{1,3}", raw[1:])
    if octal:
        digits = octal.group()
        if int(digits, 8) > 255:  # \400 is \40 then 0, as GNU reads it
            digits = digits[:2]
        return int(digits, 8), 1 + len(digits)
    letter = chr(raw[1])
    return _ESCAPES.get(letter, raw[1]), 2


def _parse(spec: str, warnings: list[str]) -> list[_Item]:
    raw = spec.encode()
    items: list[_Item] = []
    literal: list[int] = []
    i = 0

    def flush() -> None:
        if literal:
            items.append(_Item("bytes", bytes(literal)))
            literal.clear()

    while i < len(raw):
        if raw.startswith(b"[:", i) and (end := raw.find(b":]", i + 2)) > i + 2:
            name = raw[i + 2 : end].decode(errors="replace")
            if name not in CLASSES:
                raise Usage(f"tr: invalid character class '{name}'")
            flush()
            items.append(_Item("class", CLASSES[name], name))
            i = end + 2
            continue
        if raw.startswith(b"[=", i) and (end := raw.find(b"=]", i + 2)) > i + 2:
            byte, used = _unescape(raw[i + 2 : end], warnings)
            if used != end - i - 2:
                raise Usage(f"tr: {raw[i + 2 : end].decode(errors='replace')}: equivalence "
                            "class operand must be a single character")  # fmt: skip
            flush()
            items.append(_Item("equiv", bytes([byte])))
            i = end + 2
            continue
        repeat = _REPEAT.match(raw, i)
        if repeat:
            byte, _ = _unescape(repeat.group(1), warnings)
            digits = repeat.group(2).decode()
            octal = digits.startswith("0")
            if octal and not set(digits) <= set("01234567"):
                raise Usage(f"tr: invalid repeat count '{digits}' in [c*n] construct")
            # No count, or a zero one: as many as string1 needs. A leading 0 reads octal.
            # Past 256 no count changes what tr does (a set maps at most 256 bytes): bounded.
            count = min(int(digits, 8 if octal else 10), 1 << 16) if digits else 0
            flush()
            items.append(_Item("repeat", bytes([byte]), count=count or None))
            i = repeat.end()
            continue
        low, used = _unescape(raw[i:], warnings)
        if raw[i + used : i + used + 1] == b"-" and i + used + 1 < len(raw):
            high, more = _unescape(raw[i + used + 1 :], warnings)
            if high < low:
                first = raw[i : i + used].decode(errors="replace")
                last = raw[i + used + 1 : i + used + 1 + more].decode(errors="replace")
                raise Usage(
                    f"tr: range-endpoints of '{first}-{last}' are in reverse collating sequence"
                    " order"
                )
            literal.extend(range(low, high + 1))
            i += used + 1 + more
            continue
        literal.append(low)
        i += used
    flush()
    return items


def _expand(items: list[_Item], fill: int = 0) -> bytes:
    """The set's bytes in order; `[c*]` stands for `fill` copies of c."""
    out = bytearray()
    for item in items:
        if item.kind == "repeat":
            out += item.data * (fill if item.count is None or item.count == 0 else item.count)
        else:
            out += item.data
    return bytes(out)


def _aligned(first: list[_Item], second: list[_Item], fill: int) -> bool:
    """GNU's rule for [:upper:] and [:lower:] in string2: each starts where string1 has one of
    them too (at the same place of the expanded sets)."""
    starts: dict[int, str] = {}
    place = 0
    for item in first:
        if item.kind == "class":
            starts[place] = item.name
        place += len(_expand([item]))
    place = 0
    for item in second:
        if item.kind == "class" and starts.get(place) not in ("upper", "lower"):
            return False
        place += len(_expand([item], fill))
    return True


def _squeezed(data: bytes, squeeze: set[int]) -> bytes:
    out = bytearray()
    for byte in data:
        if not (out and out[-1] == byte and byte in squeeze):
            out.append(byte)
    return bytes(out)


def _tr(ctx: Context, args: list[str]) -> Output:
    long = {"--delete": "d", "--squeeze-repeats": "s", "--complement": "c"}
    long["--truncate-set1"] = "t"
    opts, sets = options_of(args, "tr", "dscCt", long=long)
    delete, squeeze, truncate = "d" in opts, "s" in opts, "t" in opts
    complement = "c" in opts or "C" in opts
    least, most = 1 + (delete == squeeze), 1 + (delete <= squeeze)
    if not sets:
        raise Usage(f"tr: missing operand\n{try_help('tr')}")
    if len(sets) < least:
        why = "both deleting and squeezing repeats" if squeeze else "translating"
        raise Usage(
            f"tr: missing operand after '{sets[-1]}'\n"
            f"Two strings must be given when {why}.\n{try_help('tr')}"
        )
    if len(sets) > most:
        only = (
            "Only one string may be given when deleting without squeezing repeats.\n"
            if len(sets) == 2 and delete
            else ""
        )
        raise Usage(f"tr: extra operand '{sets[most]}'\n{only}{try_help('tr')}")
    translating = len(sets) == 2 and not delete
    warnings: list[str] = []
    first = _parse(sets[0], warnings)
    second = _parse(sets[1], warnings) if len(sets) > 1 else []
    if any(item.kind == "repeat" and item.count is None for item in first):
        raise Usage("tr: the [c*] repeat construct may not appear in string1")
    if not translating and any(item.kind == "repeat" and item.count is None for item in second):
        raise Usage("tr: the [c*] construct may appear in string2 only when translating")
    chosen = _expand(first)
    if complement:
        chosen = bytes(b for b in range(256) if b not in set(chosen))
    data = ctx.stdin.encode()
    if translating:
        if any(item.kind == "equiv" for item in second):
            raise Usage("tr: [=c=] expressions may not appear in string2 when translating")
        if any(item.kind == "class" and item.name not in ("upper", "lower") for item in second):
            raise Usage(
                "tr: when translating, the only character classes that may appear in\n"
                "string2 are 'upper' and 'lower'"
            )
        if sum(item.kind == "repeat" and item.count in (None, 0) for item in second) > 1:
            raise Usage("tr: only one [c*] repeat construct may appear in string2")
        fixed = len(_expand(second, 0))
        target = _expand(second, max(0, len(chosen) - fixed))
        if not complement and not _aligned(first, second, max(0, len(chosen) - fixed)):
            raise Usage("tr: misaligned [:upper:] and/or [:lower:] construct")
        if not truncate and len(chosen) > len(target) and second and second[-1].kind == "class":
            raise Usage(
                "tr: when translating with string1 longer than string2,\n"
                "the latter string must not end with a character class"
            )
        if not truncate and not target:
            raise Usage("tr: when not truncating set1, string2 must be non-empty")
        if not truncate:
            target += target[-1:] * (len(chosen) - len(target))
        one = len(target) == len(chosen) and len(set(target)) == 1
        if complement and any(item.kind == "class" for item in first) and not one:
            raise Usage(
                "tr: when translating with complemented character classes,\n"
                "string2 must map all characters in the domain to one"
            )
        chosen = chosen[: len(target)]
        table = bytes(range(256))
        mapping = dict(zip(chosen, target, strict=False))
        table = bytes(mapping.get(b, b) for b in table)
        data = data.translate(table)
        if squeeze:
            data = _squeezed(data, set(target))
    else:
        if delete:
            data = data.translate(None, chosen)
        if squeeze:
            data = _squeezed(data, set(_expand(second)) if delete else set(chosen))
    return Output.exactly(data.decode(errors="replace"), 0, "\n".join(warnings))


tr = tool("tr", _tr)
