"""GNU sort (coreutils 9.1) on kadmin, in the C locale: keys (`-k F[.C][OPTS][,F[.C][OPTS]]`)
whose fields start at the blanks before them unless `b`, `-t` fields, the orderings -n -g -h
-M -V -f -d -i -b and -r per key or for all, ties broken by the whole line (bytewise) unless
-s or -u, -u keeping the first of each run of equal keys; -c/-C (a check: status 1 and, for -c,
the first disorder on stderr), -m (the inputs merged as they come), -o FILE (written once
every input is read), -z (NUL-ended records); -S, -T and --parallel taken and checked, as they
change nothing here. Compared with the machine's real sort on generated inputs
(tests/unit/lab/test_shell_oracle.py, tests/unit/lab/test_sort_oracle.py).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from simulators.lab import budget, files
from simulators.lab.textutils import Usage, lines_of, options_of, read_inputs, strtold
from simulators.lab.tool import Context, Output

_ORDERINGS = "bdfgMhnRrV"
_NUMBER = re.compile(r"[ \t]*(-?)(\d*)(?:\.(\d*))?")
_HUMAN = re.compile(r"[ \t]*(-?)(\d*)(?:\.(\d*))?([KMGTPEZYRQk]?)")
_SUFFIXES = "KMGTPEZYRQ"
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
# What -d keeps (blanks and alphanumerics) and what -i keeps (the C locale's printable).
_DICTIONARY = re.compile(r"[^ \t0-9A-Za-z]")
_PRINTABLE = re.compile(r"[^\x20-\x7e]")


@dataclass(frozen=True)
class Key:
    """One -k: fields and characters from 1, 0 for "to the end of the field"; its own letters,
    or the global options' where it has none."""

    field: int
    char: int
    end_field: int | None
    end_char: int
    letters: str


def _parse_key(spec: str) -> Key:
    match = re.fullmatch(r"(\d+)(?:\.(\d+))?([a-zA-Z]*)(?:,(\d+)(?:\.(\d+))?([a-zA-Z]*))?", spec)
    if not match:
        raise Usage(f"sort: invalid number at field start: invalid count at start of '{spec}'")
    letters = (match.group(3) or "") + (match.group(6) or "")
    if bad := next((c for c in letters if c not in _ORDERINGS), None):
        raise Usage(f"sort: stray character in field spec: invalid field specification '{spec}'")
    field = budget.bounded_int(match.group(1), 1 << 20) or 0
    char = budget.bounded_int(match.group(2), 1 << 20) if match.group(2) else 1
    if field == 0:
        raise Usage(f"sort: field number is zero: invalid field specification '{spec}'")
    if char == 0:
        raise Usage(f"sort: character offset is zero: invalid field specification '{spec}'")
    end = budget.bounded_int(match.group(4), 1 << 20) if match.group(4) else None
    if end == 0:
        raise Usage(f"sort: field number is zero: invalid field specification '{spec}'")
    end_char = budget.bounded_int(match.group(5), 1 << 20) if match.group(5) else 0
    del bad
    return Key(field, char or 1, end, end_char or 0, letters)


_LONG = {
    "--numeric-sort": "n", "--reverse": "r", "--unique": "u", "--key": "k",
    "--field-separator": "t", "--human-numeric-sort": "h", "--ignore-case": "f",
    "--version-sort": "V", "--ignore-leading-blanks": "b", "--stable": "s",
    "--general-numeric-sort": "g", "--dictionary-order": "d", "--month-sort": "M",
    "--ignore-nonprinting": "i", "--check": "c", "--merge": "m", "--output": "o",
    "--zero-terminated": "z", "--buffer-size": "S", "--temporary-directory": "T",
    "--parallel": "P",
}  # fmt: skip
# -S's size: a number, then a unit (b, %, or K M G T P E Z Y R Q, k too).
_SIZE = re.compile(r"\d+[bkKMGTPEZYRQ%]?")
_CHECK = {"1": "diagnose-first", "diagnose-first": "diagnose-first", "quiet": "quiet"}
_CHECK["silent"] = "quiet"


def _sort(ctx: Context, args: list[str]) -> Output:
    opts, names = options_of(args, "sort", "nruhfVbsgdcCmMiz", valued="ktoSTP", long=_LONG)
    sep = opts.get("t")
    if sep is not None and len(sep) != 1:
        raise Usage("sort: multi-character tab '" + sep + "'")
    if "S" in opts and not _SIZE.fullmatch(opts["S"]):
        raise Usage(f"sort: invalid -S argument '{opts['S']}'")
    if "P" in opts and not opts["P"].isdigit():
        raise Usage(f"sort: invalid number after '--parallel': '{opts['P']}'")
    if opts.get("P", "1").strip("0") == "":
        raise Usage("sort: number in parallel must be nonzero")
    check = _check_mode(opts)
    glob = _one_ignore("".join(c for c in "bdfghiMnrV" if c in opts))
    keys = [_parse_key(k) for k in opts["k"].split("\x00")] if "k" in opts else []
    # The keys' letters (a key with none inherits the global ones), or without a key the
    # global ones: sort.c checks its key list only.
    for letters in [key.letters or glob for key in keys] or [glob]:
        # coreutils' check_ordering_compatibility: one of n, g, h, M and (V, R, d, i).
        kinds = {c for c in letters if c in "nghM"} | (
            {"V"} if set(letters) & set("VRdi") else set()
        )
        if len(kinds) > 1:
            # sort.c's key_to_opts, with b and r cleared first (check_ordering_compatibility).
            shown = "".join(c for c in "dfghiMnRV" if c in _one_ignore(letters))
            raise Usage(f"sort: options '-{shown}' are incompatible")
    if check and len(names) > 1:
        raise Usage(f"sort: extra operand '{names[1]}' not allowed with -c")
    inputs, errors = read_inputs(
        ctx,
        "sort",
        names,
        "sort: cannot read: {name}: No such file or directory",
        folder="sort: read failed: {name}: Is a directory",
    )
    if errors:
        return Output("", 2, stderr=errors[0])
    end = "\x00" if "z" in opts else "\n"
    texts = [(name, _records(text, end)) for name, text in inputs]
    budget.check_time()
    compare = _comparison(keys, glob, sep, stable="s" in opts or "u" in opts, last="r" in opts)
    if check:
        shown = names[0] if names else "-"
        return _checked(texts[0][1], compare, "u" in opts, check == "quiet", shown)
    if "m" in opts:
        ordered = _merged([lines for _, lines in texts], compare)
    else:
        ordered = sorted(
            (line for _, lines in texts for line in lines), key=functools.cmp_to_key(compare)
        )
    if "u" in opts:
        unique: list[str] = []
        for line in ordered:
            if not unique or compare(unique[-1], line) != 0:
                unique.append(line)
        ordered = unique
    text = "".join(line + end for line in ordered)
    if "o" in opts:
        # Written once every input is read: `sort -o f f` sorts f in place.
        if problem := files.write(ctx, opts["o"], text):
            name = problem.removeprefix("bash: ").rsplit(": ", 1)
            return Output("", 2, stderr=f"sort: open failed: {name[0]}: {name[-1]}")
        return Output("", 0)
    return Output.exactly(text, 0)


def _one_ignore(letters: str) -> str:
    """The letters without -i where -d is there too: -d sets the key's one ignore table, and
    -i only where it is not set (sort.c's set_ordering), whatever their order."""
    return letters.replace("i", "") if "d" in letters else letters


def _check_mode(opts: dict[str, str]) -> str:
    """-c (diagnose-first), -C or --check=quiet|silent (quiet), or "" (no check)."""
    if "c" in opts and "C" in opts:
        raise Usage("sort: options '-cC' are incompatible")
    if "C" in opts:
        return "quiet"
    if "c" not in opts:
        return ""
    if opts["c"] not in _CHECK:
        raise Usage(
            f"sort: invalid argument '{opts['c']}' for '--check'\nValid arguments are:\n"
            "  - 'quiet', 'silent'\n  - 'diagnose-first'\nTry 'sort --help' for more information."
        )
    if "o" in opts:
        raise Usage("sort: options '-co' are incompatible")
    return _CHECK[opts["c"]]


def _records(text: str, end: str) -> list[str]:
    """The lines (or with -z, NUL-ended records) of one input; the last may lack its end."""
    if end == "\n":
        return lines_of(text)
    return text[:-1].split(end) if text.endswith(end) else (text.split(end) if text else [])


def _comparison(
    keys: list[Key], glob: str, sep: str | None, stable: bool, last: bool
) -> Callable[[str, str], int]:
    """sort.c's compare: the keys in turn (the global letters for a key without its own), then,
    unless `stable`, the whole line bytewise (reversed with a global -r)."""
    whole = not keys
    keys = [
        k if k.letters else Key(k.field, k.char, k.end_field, k.end_char, glob) for k in keys
    ] or [Key(1, 1, None, 0, glob)]

    def compare(a: str, b: str) -> int:
        for key in keys:
            ka = a if whole and "b" not in key.letters else _extract(a, key, sep)
            kb = b if whole and "b" not in key.letters else _extract(b, key, sep)
            result = _compare(ka, kb, key.letters)
            if result:
                return -result if "r" in key.letters else result
        if stable:
            return 0
        result = (a > b) - (a < b)
        return -result if last else result

    return compare


def _checked(
    lines: list[str], compare: Callable[[str, str], int], unique: bool, quiet: bool, shown: str
) -> Output:
    """-c/-C: status 1 at the first line out of order (or, with -u, equal to the one before),
    which -c names on stderr as `FILE:N: disorder: LINE`; nothing on stdout."""
    for number in range(1, len(lines)):
        if compare(lines[number - 1], lines[number]) >= (0 if unique else 1):
            message = "" if quiet else f"sort: {shown}:{number + 1}: disorder: {lines[number]}"
            return Output("", 1, stderr=message)
    return Output("", 0)


def _merged(inputs: list[list[str]], compare: Callable[[str, str], int]) -> list[str]:
    """-m: the inputs merged as sort.c's mergefps, each taken as sorted already: the smallest
    of the inputs' next lines each time, the first input's on a tie."""
    at = [0] * len(inputs)
    merged: list[str] = []
    while True:
        best = -1
        for index, lines in enumerate(inputs):
            if at[index] < len(lines) and (
                best < 0 or compare(lines[at[index]], inputs[best][at[best]]) < 0
            ):
                best = index
        if best < 0:
            return merged
        merged.append(inputs[best][at[best]])
        at[best] += 1
        if len(merged) % 1024 == 0:
            budget.check_time()


def _fields(line: str, sep: str | None) -> list[tuple[int, int]]:
    """Each field's (start, end) in the line: at each `sep`, or (without -t) where blanks
    follow a non-blank, each field keeping the blanks before it."""
    if sep is not None:
        spans, start = [], 0
        for index, char in enumerate(line):
            if char == sep:
                spans.append((start, index))
                start = index + 1
        return [*spans, (start, len(line))]
    spans, start = [], 0
    for index in range(1, len(line)):
        if line[index] in " \t" and line[index - 1] not in " \t":
            spans.append((start, index))
            start = index
    return [*spans, (start, len(line))]


def _skip_blanks(line: str, position: int) -> int:
    while position < len(line) and line[position] in " \t":
        position += 1
    return position


def _extract(line: str, key: Key, sep: str | None) -> str:
    spans = _fields(line, sep)
    blanks = "b" in key.letters
    if key.field > len(spans):
        return ""
    begin = spans[key.field - 1][0]
    if blanks:
        begin = _skip_blanks(line, begin)
    # coreutils' begfield: the start moves on by the character count, no further than the
    # line's end (past its field's end too: `-t, -k1.2` of ",v1" starts at "v1").
    begin = min(begin + key.char - 1, len(line))
    if key.end_field is None or key.end_field > len(spans):
        end = len(line)
    elif key.end_char == 0:
        end = spans[key.end_field - 1][1]
    else:
        start = spans[key.end_field - 1][0]
        if blanks:
            start = _skip_blanks(line, start)
        end = min(start + key.end_char, spans[key.end_field - 1][1])
    return line[begin:end] if end > begin else ""


def _compare(a: str, b: str, letters: str) -> int:
    """Two keys (their blanks skipped already where `b` says: _extract), as sort.c's
    keycompare: -d's and -f's copies, then the ordering."""
    if "d" in letters or "i" in letters:  # one of them (_one_ignore)
        kept = _DICTIONARY if "d" in _one_ignore(letters) else _PRINTABLE
        a, b = kept.sub("", a), kept.sub("", b)
    if "f" in letters:
        a, b = a.upper(), b.upper()
    if "n" in letters:
        return _cmp(_numeric(a), _numeric(b))
    if "g" in letters:
        return _cmp(_general(a), _general(b))
    if "h" in letters:
        return _cmp(_human(a), _human(b))
    if "V" in letters:
        return _version(a, b)
    if "M" in letters:
        return _month(a) - _month(b)
    return _cmp(a.encode(), b.encode())


def _cmp[T: (bytes, Decimal, tuple[int, float], tuple[int, Decimal])](a: T, b: T) -> int:
    return int(a > b) - int(a < b)


def _month(text: str) -> int:
    """-M's value: JAN 1 to DEC 12 from the first three characters after blanks, any case;
    anything else 0, before every month."""
    name = text.lstrip(" \t")[:3].upper()
    return _MONTHS.index(name) + 1 if name in _MONTHS else 0


def _numeric(text: str) -> Decimal:
    """-n's value, exact (no float rounding): leading blanks, a minus, digits, a fraction;
    anything else is 0."""
    match = _NUMBER.match(text)
    assert match is not None
    whole, fraction = match.group(2) or "0", match.group(3) or "0"
    return Decimal(f"{match.group(1)}{whole}.{fraction}")


def _general(text: str) -> tuple[int, float]:
    read = strtold(text)
    if read is None:
        return (0, 0.0)  # not a number: before every number
    value = read[0]
    if math.isnan(value):
        return (1, 0.0)
    return (2, value)


def _human(text: str) -> tuple[int, Decimal]:
    """GNU sort's human_numcompare: the unit's order (K 1, M 2, ...; negative for a negative
    number, none unless a digit is above 0), then the number (-0 equals 0)."""
    match = _HUMAN.match(text)
    assert match is not None
    nonzero = any(c in "123456789" for c in (match.group(2) or "") + (match.group(3) or ""))
    suffix = match.group(4).upper() if nonzero else ""  # a suffix counts after a number only
    order = _SUFFIXES.index(suffix) + 1 if suffix else 0
    number = _numeric(text[: match.start(4)] if match.group(4) else text)
    return (-order if match.group(1) else order, number)


def _order(text: str, position: int) -> int:
    if position == len(text):
        return -1
    char = text[position]
    if char.isdigit() and char.isascii():
        return 0
    if char.isascii() and char.isalpha():
        return ord(char)
    if char == "~":
        return -2
    return ord(char) + 256


def _verrevcmp(a: str, b: str) -> int:
    i = j = 0
    while i < len(a) or j < len(b):
        first = 0
        while (i < len(a) and not _digit(a[i])) or (j < len(b) and not _digit(b[j])):
            ca, cb = _order(a, i), _order(b, j)
            if ca != cb:
                return ca - cb
            i, j = i + 1, j + 1
        while i < len(a) and a[i] == "0":
            i += 1
        while j < len(b) and b[j] == "0":
            j += 1
        while i < len(a) and j < len(b) and _digit(a[i]) and _digit(b[j]):
            if not first:
                first = ord(a[i]) - ord(b[j])
            i, j = i + 1, j + 1
        if i < len(a) and _digit(a[i]):
            return 1
        if j < len(b) and _digit(b[j]):
            return -1
        if first:
            return first
    return 0


def _digit(char: str) -> bool:
    return "0" <= char <= "9"


def _prefix_length(text: str) -> int:
    """gnulib's file_prefixlen: the name without its suffixes (`(\\.[A-Za-z~][A-Za-z0-9~]*)*$`)."""
    i = prefix = 0
    n = len(text)
    while i < n:
        i += 1
        prefix = i
        while i + 1 < n and text[i] == "." and (_alpha(text[i + 1]) or text[i + 1] == "~"):
            i += 2
            while i < n and (_alpha(text[i]) or _digit(text[i]) or text[i] == "~"):
                i += 1
    return prefix


def _alpha(char: str) -> bool:
    return char.isascii() and char.isalpha()


def _version(a: str, b: str) -> int:
    """gnulib's filevercmp, as sort -V compares."""
    if not a or not b:
        return (not b) - (not a)
    if a[0] == "." or b[0] == ".":
        if b[0] != "." or a[0] != ".":
            return -1 if a[0] == "." else 1
        for special in (".", ".."):
            if a == special or b == special:
                return 0 if a == b else (-1 if a == special else 1)
    pa, pb = _prefix_length(a), _prefix_length(b)
    result = _verrevcmp(a[:pa], b[:pb])
    if result or (pa == len(a) and pb == len(b)):
        return result
    return _verrevcmp(a, b)


def sort(ctx: Context, args: list[str]) -> Output:
    try:
        return _sort(ctx, args)
    except Usage as exc:
        return Output("", 2, stderr=str(exc))  # sort's status for a command line it refuses
