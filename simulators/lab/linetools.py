"""Tools that reorder, number, join, count out or lay out lines, as a DGX admin host has them:
`tac`, `nl` and `paste` and `seq` (GNU coreutils 9.1), `rev` and `column` (util-linux 2.38).
Each reads the home folder's files or the pipe, keeps a last line without its newline as the
real tool does, and is compared with the real one on generated input
(tests/unit/lab/test_linetools_oracle.py). Output is capped by the command's budget.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from simulators.lab import budget
from simulators.lab.files import lines_ended
from simulators.lab.regex import Regex, RegexError, compile_regex, translate
from simulators.lab.textutils import (
    HEX_FLOAT,
    Usage,
    lines_of,
    options_of,
    read_inputs,
    tool,
    try_help,
)
from simulators.lab.tool import Context, Output

MAX_SEQ_LINES = 200_000


def _checked(parts: list[str], tool_name: str) -> str:
    out = "".join(parts)
    budget.check_output(len(out), tool_name)
    return out


# ---------------------------------------------------------------------------- tac, rev


def _each_file(
    ctx: Context,
    args: list[str],
    name: str,
    missing: tuple[str, str],
    change: Callable[[list[str]], list[str]],
) -> Output:
    """A tool without options that rewrites each input's lines (newlines kept) by `change`;
    `missing` its words for a file that is not there and for a folder."""
    _, names = options_of(args, name, "")
    absent, folder = missing
    inputs, errors = read_inputs(ctx, name, names, absent, exact=True, folder=folder)
    parts = [piece for _, text in inputs for piece in change(lines_ended(text))]
    return Output.exactly(_checked(parts, name), 1 if errors else 0, "\n".join(errors))


def _tac(ctx: Context, args: list[str]) -> Output:
    missing = "tac: failed to open '{name}' for reading: No such file or directory"
    folder = "tac: {name}: read error: Invalid argument"
    return _each_file(ctx, args, "tac", (missing, folder), lambda lines: lines[::-1])


def _reversed(line: str) -> str:
    body = line.rstrip("\n")
    return body[::-1] + line[len(body) :]


def _rev(ctx: Context, args: list[str]) -> Output:
    missing = "rev: cannot open {name}: No such file or directory"
    folder = "rev: {name}: 0: Is a directory"
    return _each_file(
        ctx, args, "rev", (missing, folder), lambda lines: [_reversed(x) for x in lines]
    )


# ---------------------------------------------------------------------------- nl


# Each section's option, its name in GNU's messages, and its default style.
_NL_SECTIONS = {"h": ("header", "n"), "b": ("body", "t"), "f": ("footer", "n")}
NlStyle = str | Regex


def _nl_style(opts: dict[str, str], letter: str) -> NlStyle:
    """A section's numbering style: a (all lines), t (non-empty), n (none), or pBRE (the lines
    the basic regular expression matches)."""
    name, default = _NL_SECTIONS[letter]
    style = opts.get(letter, default)
    if style in ("a", "t", "n"):
        return style
    if style.startswith("p"):
        try:
            return compile_regex(translate(style[1:], extended=False))
        except RegexError:
            raise Usage("nl: Invalid regular expression") from None
    raise Usage(f"nl: invalid {name} numbering style: '{style}'\n{try_help('nl')}")


def _nl_delimiters(opts: dict[str, str]) -> dict[str, str]:
    """The lines that start a logical page's header, body and footer (-d CC, default `\\:`;
    a lone character is followed by `:`), each mapped to its section's option letter. Two
    characters at least, or no line starts a section."""
    chars = opts.get("d", "\\:")
    if len(chars) == 1:
        chars += ":"
    if len(chars) < 2:
        return {}
    return {chars * 3: "h", chars * 2: "b", chars: "f"}


def _nl(ctx: Context, args: list[str]) -> Output:
    """GNU nl: lines numbered by their logical page's section (a line of the delimiter three,
    two or one times starts a header, body or footer, printed as an empty line, and the
    numbers start over unless -p), the body first."""
    long = {"--body-numbering": "b", "--number-format": "n", "--number-width": "w"}
    long |= {"--number-separator": "s", "--starting-line-number": "v", "--line-increment": "i"}
    long |= {"--header-numbering": "h", "--footer-numbering": "f", "--section-delimiter": "d"}
    long |= {"--join-blank-lines": "l", "--no-renumber": "p"}
    opts, names = options_of(args, "nl", "p", valued="bnwsvihfdl", long=long)
    styles = {letter: _nl_style(opts, letter) for letter in ("b", "h", "f")}
    form = opts.get("n", "rn")
    if form not in ("ln", "rn", "rz"):
        raise Usage(f"nl: invalid line numbering format: '{form}'\n{try_help('nl')}")
    numbers = {}
    for letter, name, default in (("w", "line number field width", 6), ("v", "starting line"
                                  " number", 1), ("i", "line number increment", 1), ("l", "line"
                                  " number of blank lines", 1)):  # fmt: skip
        value = budget.bounded_int(opts.get(letter, str(default)), 1 << 20)
        if value is None or (letter in "wl" and value < 1):
            raise Usage(f"nl: invalid {name}: '{opts[letter]}'")
        numbers[letter] = value
    width, number, step, join = numbers["w"], numbers["v"], numbers["i"], numbers["l"]
    separator = opts.get("s", "\t")
    sections = _nl_delimiters(opts)
    inputs, errors = read_inputs(ctx, "nl", names, exact=True)
    parts: list[str] = []
    style, blanks = styles["b"], 0
    for _, text in inputs:
        for line in lines_ended(text):
            body = line.rstrip("\n")
            section = sections.get(body)
            if section is not None:
                style = styles[section]
                if "p" not in opts:
                    number = numbers["v"]
                parts.append("\n")
                continue
            if style == "a" and join > 1:  # -l: only every join-th of consecutive blank lines
                blanks = 0 if body else blanks + 1
                numbered = not blanks or blanks == join
                if numbered:
                    blanks = 0
            elif isinstance(style, str):
                numbered = style == "a" or (style == "t" and bool(body))
            else:
                numbered = style.search(body) is not None
            if numbered:
                digits = str(number)
                field = {"ln": digits.ljust(width), "rn": digits.rjust(width)}.get(
                    form,
                    digits.rjust(width, "0")
                    if number >= 0
                    else "-" + digits[1:].rjust(width - 1, "0"),
                )
                parts.append(field + separator + body + "\n")
                number += step
            else:
                parts.append(" " * (width + len(separator)) + body + "\n")
    return Output.exactly(_checked(parts, "nl"), 1 if errors else 0, "\n".join(errors))


# ---------------------------------------------------------------------------- paste


def _delimiters(spec: str) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(spec):
        if spec[i] == "\\" and i + 1 < len(spec):
            out.append({"n": "\n", "t": "\t", "\\": "\\", "0": ""}.get(spec[i + 1], spec[i + 1]))
            i += 2
        else:
            out.append(spec[i])
            i += 1
    return out


def _paste(ctx: Context, args: list[str]) -> Output:
    long = {"--serial": "s", "--delimiters": "d"}
    opts, names = options_of(args, "paste", "s", valued="d", long=long)
    delimiters = _delimiters(opts.get("d", "\t"))
    if not delimiters:
        delimiters = [""]
    inputs, errors = read_inputs(ctx, "paste", names, exact=True)
    if errors:
        return Output("", 1, stderr=errors[0])
    columns = [lines_of(text) for _, text in inputs]
    parts: list[str] = []
    if "s" in opts:
        for lines in columns:
            pieces = [lines[0]] if lines else []
            for n, line in enumerate(lines[1:]):
                pieces.append(delimiters[n % len(delimiters)] + line)
            parts.append("".join(pieces) + "\n")
    else:
        for row in range(max((len(lines) for lines in columns), default=0)):
            cells = [lines[row] if row < len(lines) else "" for lines in columns]
            joined = cells[0]
            for n, cell in enumerate(cells[1:]):
                joined += delimiters[n % len(delimiters)] + cell
            parts.append(joined + "\n")
    return Output.exactly(_checked(parts, "paste"))


# ---------------------------------------------------------------------------- seq

# Each without two ways to read one digit string: an operand is a learner's, up to a line long,
# and `\d+\.?\d*` took 0.7 s to refuse 4,000 digits and an x (backtracking, quadratic).
_NUMBER = re.compile(r"\s*[-+]?(\d+(?:\.\d*)?|\.\d+)([eE][-+]?\d+)?")
_SEQ_FORMAT = re.compile(
    r"((?:[^%]|%%)*)%([-+#0 ']*(?:[1-9]\d*)?(?:\.\d*)?)L?([efgaEFGA])((?:[^%]|%%)*)", re.S
)


# A C hexadecimal number (strtold's), a whole operand.
_HEX_NUMBER = re.compile(rf"\s*[-+]?{HEX_FLOAT}")


@dataclass(frozen=True)
class _Operand:
    """A seq operand as GNU's scan_arg reads it: its value, the width it would print with,
    and the digits after its point (an exponent moves them: `1.5e1` has none). A hex float's
    places are unknown (None, GNU's INT_MAX): seq then prints every number with `%g`."""

    value: Decimal
    width: int
    precision: int | None


def _seq_operand(arg: str) -> _Operand:
    if _HEX_NUMBER.fullmatch(arg):
        # No width of its own (GNU: an operand with an x has none); places only if it is an
        # integer, which GNU tells by the absence of a point and of a (lower-case) p.
        text = arg.strip()
        try:
            value = Decimal(float.fromhex(text))
        except OverflowError:
            raise Usage(
                f"seq: invalid floating point argument: '{arg}'\n{try_help('seq')}"
            ) from None
        return _Operand(value, 0, None if "." in text or "p" in text else 0)
    if _NUMBER.fullmatch(arg) is None:
        raise Usage(f"seq: invalid floating point argument: '{arg}'\n{try_help('seq')}")
    value = Decimal(arg.strip())
    text = arg.lstrip().lstrip("+")
    width, precision = len(text), 0
    point = text.find(".")
    exponent_at = max(text.find("e"), text.find("E"))
    fraction = 0
    if point >= 0:
        fraction = (exponent_at if exponent_at >= 0 else len(text)) - point - 1
        precision = fraction
        width += -1 if fraction == 0 else (1 if point == 0 or not text[point - 1].isdigit() else 0)
    if exponent_at >= 0:
        exponent = int(text[exponent_at + 1 :])
        precision += -exponent if exponent < 0 else -min(precision, exponent)
        width -= len(text) - exponent_at
        if exponent < 0:
            if point < 0 or exponent_at == point + 1:
                width += 1
            exponent = -exponent
        else:
            if point >= 0 and precision == 0 and fraction:
                width -= 1
            exponent -= min(fraction, exponent)
        width += exponent
    return _Operand(value, width, precision)


def _seq(ctx: Context, args: list[str]) -> Output:
    # A negative number is an operand, not an option (GNU's seq reads `seq -3 3` so): the
    # options end at the first argument that looks like one.
    split = next((n for n, a in enumerate(args) if re.match(r"-?\.?\d", a)), len(args))
    if split and args[split - 1] in ("-s", "-f", "--separator", "--format"):
        split = next((n for n, a in enumerate(args) if n > split and re.match(r"-?\.?\d", a)),
                     len(args))  # fmt: skip
    long = {"--separator": "s", "--format": "f", "--equal-width": "w"}
    opts, operands = options_of(args[:split], "seq", "w", valued="sf", long=long)
    operands += args[split:]
    if not 1 <= len(operands) <= 3:
        problem = "missing operand" if not operands else f"extra operand '{operands[3]}'"
        raise Usage(f"seq: {problem}\n{try_help('seq')}")
    fmt = opts.get("f")
    if fmt is not None:
        _seq_format(fmt)
        if "w" in opts:
            raise Usage(
                "seq: format string may not be specified when printing equal width strings\n"
                + try_help("seq")
            )
    parsed = [_seq_operand(a) for a in operands]
    first = step = _Operand(Decimal(1), 1, 0)
    if len(parsed) == 3:
        first, step, last = parsed
    elif len(parsed) == 2:
        first, last = parsed
    else:
        (last,) = parsed
    if step.value == 0:
        raise Usage(f"seq: invalid Zero increment value: '{operands[1]}'\n{try_help('seq')}")
    if fmt is None and None in (first.precision, step.precision, last.precision):
        fmt = "%g"  # GNU's get_default_format, for a hex float's unknown places (-w too)
    first_places, last_places = first.precision or 0, last.precision or 0
    places = max(first_places, step.precision or 0)
    size = 0
    if "w" in opts and fmt is None:  # GNU's get_default_format
        first_width = (
            first.width + places - first_places + (1 if places and not first_places else 0)
        )
        last_width = last.width + places - last_places
        last_width += (-1 if last_places and not places else 0) + (
            1 if not last_places and places else 0
        )
        size = max(first_width, last_width)
    values: list[str] = []
    n = 0
    while True:
        value = first.value if n == 0 else first.value + n * step.value
        if (step.value > 0 and value > last.value) or (step.value < 0 and value < last.value):
            break
        if n >= MAX_SEQ_LINES:
            raise Usage(f"seq: more than {MAX_SEQ_LINES:,} numbers for this lab")
        values.append(
            _c_float(fmt, value)
            if fmt is not None
            else format(value, f"0{size}.{places}f" if size else f".{places}f")
        )
        n += 1
        if n % 4096 == 0:
            budget.check_time()
    if not values:
        return Output("")
    return Output.exactly(_checked([opts.get("s", "\n").join(values), "\n"], "seq"))


def _seq_format(fmt: str) -> re.Match[str]:
    """-f's format: one floating conversion, as GNU's long_double_format checks it."""
    match = _SEQ_FORMAT.fullmatch(fmt)
    if match is None:
        if "%" not in fmt.replace("%%", ""):
            problem = f"format '{fmt}' has no % directive"
        elif fmt.endswith("%") and not fmt.endswith("%%"):
            problem = f"format '{fmt}' ends in %"
        else:
            problem = f"format '{fmt}' has too many % directives"
            directive = re.search(r"%[-+#0 ']*(?:[1-9]\d*)?(?:\.\d*)?L?(.)", fmt.replace("%%", ""))
            if directive and directive.group(1) not in "efgaEFGA":
                problem = f"format '{fmt}' has unknown %{directive.group(1)} directive"
        raise Usage(f"seq: {problem}")
    return match


def _c_float(fmt: str, value: Decimal) -> str:
    head, spec, conv, tail = _seq_format(fmt).groups()
    number = float(value)
    body = ("%" + spec.replace("'", "") + conv) % number
    return head.replace("%%", "%") + body + tail.replace("%%", "%")


# ---------------------------------------------------------------------------- column


def _width(text: str) -> int:
    """Columns a cell takes, as util-linux counts them: a control character (a tab) none."""
    return sum(1 for c in text if c.isprintable())


def _column(ctx: Context, args: list[str]) -> Output:
    long = {"--table": "t", "--separator": "s", "--output-separator": "o", "--columns": "c"}
    opts, names = options_of(args, "column", "tx", valued="soc", long=long)
    inputs, errors = read_inputs(
        ctx,
        "column",
        names,
        "column: cannot open {name}: No such file or directory",
        exact=True,
        folder="column: read failed: Is a directory",
    )
    lines = [line for _, text in inputs for line in lines_of(text)]
    parts = _table(lines, opts) if "t" in opts else _filled(lines, opts)
    return Output.exactly(_checked(parts, "column"), 1 if errors else 0, "\n".join(errors))


def _table(lines: list[str], opts: dict[str, str]) -> list[str]:
    """column -t: cells split on blanks (runs of them one separator) or, with -s, on each
    separator character (`a,,b` is three); a blank line is no row. Every column but the last
    is padded to its widest cell and followed by -o (two spaces), even in a shorter row."""
    if "s" in opts:
        split = re.compile("[" + re.escape(opts["s"]) + "]")
        rows = [split.split(line) for line in lines if line.strip()]
    else:
        rows = [line.split() for line in lines if line.strip()]
    count = max((len(row) for row in rows), default=0)
    widths = [max((_width(r[i]) for r in rows if i < len(r)), default=0) for i in range(count)]
    gap = opts.get("o", "  ")
    parts = []
    for row in rows:
        padded = [cell + " " * (widths[i] - _width(cell)) + gap for i, cell in enumerate(row)]
        if len(row) == count:
            padded[-1] = row[-1]
        padded += [" " * widths[i] + gap for i in range(len(row), count - 1)]
        parts.append("".join(padded) + "\n")
    return parts


def _filled(lines: list[str], opts: dict[str, str]) -> list[str]:
    """column without -t: the entries in columns down (across with -x) to fit -c (80)
    characters, each column a tab stop wider than the widest entry, filled with tabs."""
    entries = [line for line in lines if line.strip()]
    if not entries:
        return []
    screen = budget.bounded_int(opts.get("c", "80"), 1 << 16) or 80
    slot = (max(_width(e) for e in entries) + 8) & ~7
    across = max(1, screen // slot)
    down = math.ceil(len(entries) / across)
    parts = []
    for row in range(down):
        if "x" in opts:
            cells = entries[row * across : (row + 1) * across]
        else:
            cells = [
                entries[c * down + row] for c in range(across) if c * down + row < len(entries)
            ]
        shown: list[str] = []
        end, reached = slot, 0
        for n, cell in enumerate(cells):
            shown.append(cell)
            reached += _width(cell)
            if n < len(cells) - 1:
                while (stop := (reached + 8) & ~7) <= end:
                    shown.append("\t")
                    reached = stop
                end += slot
        parts.append("".join(shown) + "\n")
    return parts


tac = tool("tac", _tac)
rev = tool("rev", _rev)
nl = tool("nl", _nl)
paste = tool("paste", _paste)
seq = tool("seq", _seq)
column = tool("column", _column)
