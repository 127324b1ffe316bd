"""coreutils on kadmin: wc, sort, uniq, cut, tr, base64, and less/more (which print: the
terminal scrolls), with GNU's wording for their errors.

They read the home folder's files or the pipe (ctx.stdin); `-` is the pipe. Error lines go to
stderr (Output.stderr), so `2>/dev/null` and pipes treat them as bash would.
"""

from __future__ import annotations

import base64 as b64
import itertools
import math
import re
from collections.abc import Callable

from simulators.lab import budget, files, fs
from simulators.lab.tool import Context, Output

# C's strtold, as printf's %f/%e/%g operands, seq's numbers and sort -g's keys are read: a
# hex float (digits with a point or not, then a binary exponent or not) before a decimal one,
# inf, infinity, nan. Each run of digits is read one way only, so a long operand is linear.
HEX_FLOAT = r"0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][-+]?\d+)?"
_STRTOLD = re.compile(
    rf"[-+]?(?:{HEX_FLOAT}|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|(?i:inf(?:inity)?|nan))"
)


def strtold(text: str, start: int = 0) -> tuple[float, int] | None:
    """The number C's strtold reads at `start` (after blanks), in double precision, and where
    it ends; None where it reads none. Too large is infinite, as strtold's HUGE_VAL."""
    at = start
    while at < len(text) and text[at] in " \t\n\v\f\r":
        at += 1
    match = _STRTOLD.match(text, at)
    if match is None:
        return None
    number = match.group()
    body = number.lstrip("+-")
    try:
        value = float.fromhex(body) if body[:2] in ("0x", "0X") else float(body)
    except OverflowError:
        value = math.inf
    return (-value if number.startswith("-") else value), match.end()


class Usage(Exception):
    pass


def try_help(tool: str) -> str:
    return f"Try '{tool} --help' for more information."


def printed(lines: list[str], code: int = 0, stderr: str = "") -> Output:
    """Lines printed each with its newline, an empty one too."""
    return Output.exactly("".join(line + "\n" for line in lines), code, stderr)


def lines_of(text: str) -> list[str]:
    return text[:-1].split("\n") if text.endswith("\n") else (text.split("\n") if text else [])


def read_inputs(
    ctx: Context,
    tool: str,
    names: list[str],
    message: str = "{tool}: {name}: No such file or directory",
    exact: bool = False,
    folder: str = "{tool}: {name}: Is a directory",
    folder_empty: bool = False,
) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, text) of each input that exists, and the error line for each that does not;
    a file's last line ended by a newline unless `exact` (wc counts the bytes as they are).
    A folder is the tool's `folder` error (its read fails), and with `folder_empty` also an
    empty input (wc still counts it)."""
    found: list[tuple[str, str]] = []
    errors: list[str] = []
    for name in names or ["-"]:
        text, why = (ctx.stdin, "") if name == "-" else files.opened(ctx, name)
        if text is None and why == fs.IS_FOLDER:
            errors.append(folder.format(tool=tool, name=name))
            if folder_empty:
                found.append((name, ""))
        elif text is None:
            errors.append(message.format(tool=tool, name=name))
        else:
            if not exact and name != "-" and text and not text.endswith("\n"):
                text += "\n"
            found.append((name, text))
    return found, errors


def options_of(
    args: list[str],
    tool: str,
    flags: str,
    valued: str = "",
    long: dict[str, str] | None = None,
    *,
    in_order: bool = False,
    synopsis: str = "",
) -> tuple[dict[str, str], list[str]]:
    """getopt for short flags (`-rn`, `-k2`, `-k 2`) and a few long ones; the rest are operands.

    With `in_order`, options end at the first operand, as with a `+` in getopt's optstring: the
    operands are the rest as given (xargs's command, whose own options follow it). A refusal
    says what was wrong, then `synopsis` (a tool's usage line, if it prints one) and try_help.
    """
    after = f"{synopsis}\n{try_help(tool)}" if synopsis else try_help(tool)
    opts: dict[str, str] = {}
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--"):
            key, equals, value = arg.partition("=")
            if long is None or key not in long:
                raise Usage(f"{tool}: unrecognized option '{arg}'\n{after}")
            short = long[key]
            if short in valued and not equals:  # `--opt=` gives the empty value, as getopt does
                if i >= len(args):
                    raise Usage(f"{tool}: option '{key}' requires an argument\n{after}")
                value = args[i]
                i += 1
            opts[short] = value if short in valued else value or "1"
            continue
        if not arg.startswith("-") or arg == "-":
            if in_order:
                operands.extend(args[i - 1 :])
                break
            operands.append(arg)
            continue
        j = 1
        while j < len(arg):
            flag = arg[j]
            if flag in valued:
                value = arg[j + 1 :]
                if not value:
                    if i >= len(args):
                        raise Usage(f"{tool}: option requires an argument -- '{flag}'\n{after}")
                    value = args[i]
                    i += 1
                opts[flag] = opts[flag] + "\x00" + value if flag in opts and flag == "k" else value
                break
            if flag not in flags:
                raise Usage(f"{tool}: invalid option -- '{flag}'\n{after}")
            opts[flag] = "1"
            j += 1
    return opts, operands


def tool(
    name: str, body: Callable[[Context, list[str]], Output]
) -> Callable[[Context, list[str]], Output]:
    def run(ctx: Context, args: list[str]) -> Output:
        try:
            return body(ctx, args)
        except Usage as exc:
            return Output("", 1, stderr=str(exc))

    run.__name__ = name
    return run


# ---------------------------------------------------------------------------- wc


def _wc(ctx: Context, args: list[str]) -> Output:
    long = {
        "--lines": "l",
        "--words": "w",
        "--bytes": "c",
        "--chars": "m",
        "--max-line-length": "L",
    }
    opts, names = options_of(args, "wc", "lwcmL", long=long)
    chosen = [c for c in "lwmcL" if c in opts] or ["l", "w", "c"]
    inputs, errors = read_inputs(ctx, "wc", names, exact=True, folder_empty=True)
    rows: list[tuple[list[int], str]] = []
    for name, text in inputs:
        counts = {
            "l": text.count("\n"),
            "w": len(text.split()),
            "m": len(text),
            "c": _bytes(ctx, name, text),
            "L": max((_width(line) for line in text.split("\n")), default=0),
        }
        rows.append(([counts[c] for c in chosen], "" if name == "-" and not names else name))
    if len(rows) > 1:
        totals = [sum(r[0][k] for r in rows) for k in range(len(chosen))]
        if "L" in chosen:
            totals[chosen.index("L")] = max(r[0][chosen.index("L")] for r in rows)
        rows.append((totals, "total"))
    if len(rows) == 1 and len(chosen) == 1:
        width = 1
    elif any(name == "-" or fs.locate(ctx, name).folder for name, _ in inputs):
        width = 7  # coreutils' compute_number_width: an input that is no regular file
    else:
        width = len(str(sum(_bytes(ctx, name, t) for name, t in inputs)))
    out = [
        " ".join(f"{n:>{width}}" for n in counts) + (f" {name}" if name else "")
        for counts, name in rows
    ]
    return Output("\n".join(out), 1 if errors else 0, stderr="\n".join(errors))


def _bytes(ctx: Context, name: str, text: str) -> int:
    """wc -c's count: a file's stat size where its text is a bounded prefix of it (a
    program's: simulators.lab.system_files), else its text's bytes (/proc's files are read)."""
    read = fs.byte_length(text)
    if name == "-":
        return fs.whole_size(text)  # `wc -c < PROGRAM`: its size, carried by fs.Prefix
    where = fs.locate(ctx, name)
    return max(read, fs.size(ctx.world.state, where.path)) if where.file else read


def _width(line: str) -> int:
    """A line's width on a terminal, as wc -L measures it: tabs to the next multiple of 8,
    control characters nothing."""
    column = 0
    for char in line:
        if char == "\t":
            column += 8 - column % 8
        elif char.isprintable():
            column += 1
    return column


# ---------------------------------------------------------------------------- uniq


def _uniq(ctx: Context, args: list[str]) -> Output:
    """GNU uniq: adjacent equal lines once, compared after -f N fields and -s N characters, on
    at most -w N characters, -i ignoring case; -c counts, -d the repeated, -u the unique,
    -D every line of each repeated group."""
    long = {
        "--count": "c", "--repeated": "d", "--unique": "u", "--ignore-case": "i",
        "--all-repeated": "D", "--skip-fields": "f", "--skip-chars": "s", "--check-chars": "w",
    }  # fmt: skip
    opts, names = options_of(args, "uniq", "cduiD", valued="fsw", long=long)
    if len(names) > 1:
        raise Usage(f"uniq: writing to a file is not available in this lab: '{names[1]}'")
    if "D" in opts and "c" in opts:
        raise Usage(
            "uniq: printing all duplicated lines and repeat counts is meaningless\n"
            + try_help("uniq")
        )
    numbers = {}
    for flag, what in (("f", "number of fields to skip"), ("s", "number of bytes to skip")):
        numbers[flag] = _count(opts.get(flag, "0"), what)
    width = _count(opts["w"], "number of bytes to compare") if "w" in opts else None
    inputs, errors = read_inputs(ctx, "uniq", names, folder="uniq: error reading '{name}'")
    if errors:
        return Output("", 1, stderr=errors[0])

    def key(line: str) -> str:
        rest = line
        for _ in range(numbers["f"]):
            rest = re.sub(r"^[ \t]*[^ \t]*", "", rest, count=1)
        rest = rest[numbers["s"] :]
        if width is not None:
            rest = rest[:width]
        return rest.lower() if "i" in opts else rest

    groups: list[list[str]] = []
    last: str | None = None
    for line in lines_of(inputs[0][1]):
        current = key(line)
        if groups and current == last:
            groups[-1].append(line)
        else:
            groups.append([line])
        last = current
    # coreutils' uniq.c: -d and -D drop the unique lines, -u a repeated group's first line,
    # -D prints its later lines too.
    unique = not ("d" in opts or "D" in opts)
    first = "u" not in opts
    later = "D" in opts
    shown: list[str] = []
    for group in groups:
        if len(group) == 1:
            if unique:
                shown.append(f"{1:>7} {group[0]}" if "c" in opts else group[0])
            continue
        if first:
            shown.append(f"{len(group):>7} {group[0]}" if "c" in opts else group[0])
        if later:
            shown.extend(group[1:])
    return printed(shown)


def _count(value: str, what: str) -> int:
    number = budget.bounded_int(value, 1 << 30)
    if number is None:
        raise Usage(f"uniq: {value}: invalid {what}")
    return number


# ---------------------------------------------------------------------------- cut


def _ranges(spec: str, what: str) -> list[tuple[int, int]]:
    ranges = []
    for piece in spec.split(","):
        match = re.fullmatch(r"(\d*)(-?)(\d*)", piece)
        if not match or piece in ("", "-"):
            raise Usage(f"cut: invalid {what} value '{piece}'\n{try_help('cut')}")
        low = budget.bounded_int(match.group(1), 1 << 30) if match.group(1) else 1
        high = budget.bounded_int(match.group(3), 1 << 30) if match.group(3) else None
        if low == 0 or high == 0:
            raise Usage(f"cut: {what}s are numbered from 1\n{try_help('cut')}")
        if not match.group(2):
            high = low
        if low is not None and high is not None and high < low:
            raise Usage(f"cut: invalid decreasing range\n{try_help('cut')}")
        ranges.append((low or 1, high if high is not None else 1 << 30))
    return _merged(ranges)


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """GNU's set_fields: sorted, and overlapping ranges merged (adjacent ones stay apart:
    `1-3,4` is two ranges, and -c prints an output delimiter between them)."""
    out: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if out and low <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], high))
        else:
            out.append((low, high))
    return out


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """GNU's complement_rp: the ranges between (merged, sorted) `ranges`."""
    out = [(1, ranges[0][0] - 1)] if ranges[0][0] > 1 else []
    out += [(a + 1, b - 1) for (_, a), (b, _) in itertools.pairwise(ranges) if a + 1 != b]
    return out + ([(ranges[-1][1] + 1, 1 << 30)] if ranges[-1][1] < 1 << 30 else [])


def _cut(ctx: Context, args: list[str]) -> Output:
    long = {
        "--fields": "f",
        "--delimiter": "d",
        "--characters": "c",
        "--bytes": "b",
        "--only-delimited": "s",
        "--complement": "C",
        "--output-delimiter": "O",
    }
    opts, names = options_of(args, "cut", "s", valued="fdcbO", long=long)
    modes = [m for m in "fcb" if m in opts]
    if not modes:
        raise Usage(
            f"cut: you must specify a list of bytes, characters, or fields\n{try_help('cut')}"
        )
    if len(modes) > 1:
        raise Usage(f"cut: only one list may be specified\n{try_help('cut')}")
    delim = opts.get("d", "\t")
    if "d" in opts and modes[0] != "f":
        raise Usage(
            "cut: an input delimiter may be specified only when operating on fields\n"
            + try_help("cut")
        )
    if len(delim) != 1:
        raise Usage(f"cut: the delimiter must be a single character\n{try_help('cut')}")
    what = {"f": "field", "c": "character", "b": "byte"}[modes[0]]
    ranges = _ranges(opts[modes[0]], what)
    inputs, errors = read_inputs(ctx, "cut", names)

    if "C" in opts:  # --complement: what the list does not name
        ranges = _complement(ranges)
    # GNU: an empty --output-delimiter is a NUL; -b and -c print it where a range starts.
    joiner = opts.get("O", delim if modes[0] == "f" else "") or ("\0" if "O" in opts else "")
    starts = {low for low, _ in ranges}

    def picked(i: int) -> bool:
        return any(lo <= i <= hi for lo, hi in ranges)

    def pick(items: list[str]) -> str:
        if modes[0] == "f":
            return joiner.join(x for i, x in enumerate(items, start=1) if picked(i))
        out, begun = [], False
        for i, x in enumerate(items, start=1):
            if picked(i):
                out.append(joiner + x if begun and i in starts else x)
                begun = True
        return "".join(out)

    out = []
    for _, text in inputs:
        for n, line in enumerate(lines_of(text)):
            if n % 512 == 511:
                budget.check_time()
            if modes[0] != "f":
                out.append(pick(list(line)))
            elif delim not in line:
                if "s" not in opts:
                    out.append(line)
            else:
                out.append(pick(line.split(delim)))
    return printed(out, 1 if errors else 0, stderr="\n".join(errors))


# ---------------------------------------------------------------------------- base64, less, more


_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VALUE = {c: n for n, c in enumerate(_ALPHABET)}


def _b64decode(data: bytes, ignore_garbage: bool) -> tuple[bytes, bool]:
    """gnulib's base64_decode_ctx, as coreutils' base64 -d uses it: newlines skipped (with -i,
    every byte outside the alphabet and `=`), four characters at a time, each byte written as
    soon as its characters are read; padding may end any quantum. On a bad or short quantum
    it stops: what was written so far, and False."""
    keep = _VALUE.keys() | {ord("=")} if ignore_garbage else None
    chars = bytes(c for c in data if c != 10 and (keep is None or c in keep))
    out = bytearray()
    for i in range(0, len(chars), 4):
        quad = chars[i : i + 4]
        if len(quad) < 2 or quad[0] not in _VALUE or quad[1] not in _VALUE:
            return bytes(out), False
        a, b = _VALUE[quad[0]], _VALUE[quad[1]]
        out.append((a << 2 | b >> 4) & 0xFF)
        if len(quad) < 3:
            return bytes(out), False
        if quad[2] == ord("="):
            if quad[3:] != b"=":
                return bytes(out), False
            continue
        if quad[2] not in _VALUE:
            return bytes(out), False
        c = _VALUE[quad[2]]
        out.append((b << 4 | c >> 2) & 0xFF)
        if len(quad) < 4:
            return bytes(out), False
        if quad[3] == ord("="):
            continue
        if quad[3] not in _VALUE:
            return bytes(out), False
        out.append((c << 6 | _VALUE[quad[3]]) & 0xFF)
    return bytes(out), True


def _base64(ctx: Context, args: list[str]) -> Output:
    long = {"--decode": "d", "--wrap": "w", "--ignore-garbage": "i"}
    opts, names = options_of(args, "base64", "di", valued="w", long=long)
    if len(names) > 1:
        raise Usage(f"base64: extra operand '{names[1]}'\n{try_help('base64')}")
    folder = "base64: read error: Is a directory"
    inputs, errors = read_inputs(ctx, "base64", names, exact=True, folder=folder)
    if errors:
        return Output("", 1, stderr=errors[0])
    data = inputs[0][1].encode()
    if "d" in opts:
        decoded, ok = _b64decode(data, "i" in opts)
        text = decoded.decode(errors="replace")
        return Output.exactly(text, 0 if ok else 1, "" if ok else "base64: invalid input")
    wrap = budget.bounded_int(opts.get("w", "76"), 1 << 20)
    if wrap is None:
        raise Usage(f"base64: invalid wrap size: '{opts['w']}'")
    encoded = b64.b64encode(data).decode()
    if wrap and encoded:
        encoded = "".join(encoded[i : i + wrap] + "\n" for i in range(0, len(encoded), wrap))
    return Output.exactly(encoded)


def _pager(name: str) -> Callable[[Context, list[str]], Output]:
    def page(ctx: Context, args: list[str]) -> Output:
        names = [a for a in args if not a.startswith("-") or a == "-"]
        if not names and not ctx.stdin:
            if name == "less":
                return Output("", 1, stderr='Missing filename ("less --help" for help)')
            return Output("", 1, stderr=f"more: bad usage\n{try_help('more')}")
        if name == "more":
            return _more(ctx, names)
        message = "{name}: No such file or directory"
        inputs, errors = read_inputs(ctx, name, names, message, folder="{name} is a directory")
        text = "".join(t for _, t in inputs)
        return Output(
            text[:-1] if text.endswith("\n") else text, 1 if errors else 0, stderr="\n".join(errors)
        )

    page.__name__ = name
    return page


def _more(ctx: Context, names: list[str]) -> Output:
    """util-linux 2.38's more where the lab's terminal cannot page: each file as it is, under
    a `::::` header when there are several (in a pipe or a file, always: more does not page
    there); a folder's line where the folder comes, on stdout; what cannot be opened (`-`
    too) said on stderr; the status 0. A stdin that is not the terminal comes first, as
    util-linux's more copies it before its files."""
    if not names:
        return Output.exactly(ctx.stdin)
    shown: list[str] = [ctx.stdin]
    piped: list[str] = [ctx.stdin]
    errors: list[str] = []
    for name in names:
        text, why = files.opened(ctx, name)
        if why == fs.IS_FOLDER:
            shown.append(f"\n*** {name}: directory ***\n\n")
            piped.append(shown[-1])
        elif text is None:
            errors.append(f"more: cannot open {name}: {why}")
        else:
            header = f"::::::::::::::\n{name}\n::::::::::::::\n"
            shown.append(header + text if len(names) > 1 else text)
            piped.append(header + text)
    result = Output.exactly("".join(shown), 0, stderr="\n".join(errors))
    whole = "".join(piped)
    result.piped = whole[:-1] if result.newline and whole.endswith("\n") else whole
    return result


def _tee(ctx: Context, args: list[str]) -> Output:
    opts, names = options_of(args, "tee", "ai", long={"--append": "a"})
    errors = []
    for name in names:
        existing = (files.read(ctx, name) or "") if "a" in opts else ""
        problem = files.write(ctx, name, existing + ctx.stdin)
        if problem:
            errors.append(problem.replace("bash:", "tee:"))
    text = ctx.stdin
    newline = text.endswith("\n")
    return Output(
        text[:-1] if newline else text, 1 if errors else 0, "\n".join(errors), newline=newline
    )


tee = tool("tee", _tee)
wc = tool("wc", _wc)
uniq = tool("uniq", _uniq)
cut = tool("cut", _cut)
base64 = tool("base64", _base64)
less = _pager("less")
more = _pager("more")
