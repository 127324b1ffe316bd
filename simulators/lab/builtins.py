"""bash's builtins on kadmin: echo, printf, pwd, cd, export, unset, alias, unalias, true, false,
plus sleep, clear and env, each with bash's (or coreutils') wording for its errors.

They act on the session's ShellState (ctx.shell); nothing here touches the host.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import partial

from simulators.cluster.clock import datetime_at
from simulators.lab import budget, workdir
from simulators.lab.environment import ShellState
from simulators.lab.shell_listing import declared
from simulators.lab.textutils import strtold
from simulators.lab.tool import Context, Output, Tool

CLEAR_SCREEN = "\x1b[H\x1b[2J\x1b[3J"  # what `clear` sends: home, erase screen, erase scrollback
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
}
MAX_PRINTF_OUTPUT = 256 * 1024


_HEX = {"x": 2, "u": 4, "U": 8}  # the most hex digits each takes


def _escape(text: str, i: int, mode: str) -> tuple[str, int, bool]:
    """The backslash escape at text[i], as bash reads it in `mode`: "echo" (echo -e: octal
    only as \\0NNN), "b" (printf's %b: \\0NNN or \\NNN) or "format" (printf's format:
    \\NNN, \\" for a quote, \\c not special) or "ansi" (`$'...'`: \\NNN, \\cX a control
    character, \\' \\" \\? themselves). What it stands for, the characters it took,
    and whether it stops the output (\\c, outside the format)."""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if nxt in _ESCAPES or nxt == "E":
        return _ESCAPES.get(nxt, "\x1b"), 2, False
    if mode == "ansi" and nxt == "c" and i + 2 < len(text):
        return chr(ord(text[i + 2]) & 0x1F), 3, False
    if mode == "ansi" and nxt in "'\"?":
        return nxt, 2, False
    if nxt == "c" and mode not in ("format", "ansi"):
        return "", 2, True
    if nxt == '"' and mode == "format":
        return '"', 2, False
    if nxt in _HEX:
        digits = re.match(f"[0-9A-Fa-f]{{1,{_HEX[nxt]}}}", text[i + 2 :])
        if digits:
            code = int(digits.group(), 16)
            value = _byte(code) if nxt == "x" else chr(code) if code < 0x110000 else "\ufffd"
            return value, 2 + len(digits.group()), False
    if nxt and nxt in "01234567" and (nxt == "0" or mode != "echo"):
        start = i + 2 if nxt == "0" and mode not in ("format", "ansi") else i + 1
        digits = re.match(r"[0-7]{1,3}", text[start:])
        taken = digits.group() if digits else ""
        return _byte(int(taken or "0", 8) & 0xFF), start - i + len(taken), False
    return "\\" + nxt, 1 + len(nxt), False


def _byte(value: int) -> str:
    """A byte an escape writes: ASCII as itself, a higher one held as a lone surrogate until
    _as_printed decodes the output's bytes (so `\\xe2\\x82\\xac` is one euro sign)."""
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


# Lone surrogates that are not held bytes (a line can carry any in its JSON): no character.
_ALIEN = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def _bytes_of(text: str) -> bytes:
    """The bytes a text written by printf or echo stands for (see _byte)."""
    return _ALIEN.sub("\ufffd", text).encode("utf-8", "surrogateescape")


def _as_printed(text: str) -> str:
    """The text as a UTF-8 terminal shows the bytes written: escaped bytes joined into the
    characters they encode, a byte that encodes none shown as U+FFFD."""
    return _bytes_of(text).decode("utf-8", "replace")


def ansi_c(text: str) -> str:
    r"""What bash's `$'...'` quotes stand for: C's escapes (`\n`, `\t`, `\xHH`, `\NNN`,
    `\uHHHH`, `\cX`, `\'`...), bytes joined into the characters they encode; a NUL ends
    the string, as bash's strings end there."""
    return _as_printed(_escapes(text, "ansi")[0].split("\0", 1)[0])


def _escapes(text: str, mode: str) -> tuple[str, bool]:
    """Every backslash escape of `text` read as bash reads it in `mode` (see _escape); the bool
    says \\c stopped the output."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != "\\":
            out.append(text[i])
            i += 1
            continue
        value, taken, stopped = _escape(text, i, mode)
        if stopped:
            return "".join(out), True
        out.append(value)
        i += taken
    return "".join(out), False


def echo(ctx: Context, args: list[str]) -> Output:
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for flag in args[0][1:]:
            newline = newline and flag != "n"
            escapes = flag == "e" if flag in "eE" else escapes
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stopped = _escapes(text, "echo")
        newline = newline and not stopped
    return Output.exactly(_as_printed(text + "\n" if newline else text))


# ---------------------------------------------------------------------------- printf

_CONVERSION = re.compile(r"%([-+ #0']*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfgGcsbq%])?")


# How one pass of printf's format ends it (see _printf_once).
STOPPED, REFUSED = "stopped", "refused"


def printf(ctx: Context, args: list[str]) -> Output:
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        return Output.error("bash: printf: usage: printf [-v var] format [arguments]", 2)
    if args[0].startswith("-") and len(args[0]) > 1:
        return Output.error(
            f"bash: printf: {args[0][:2]}: invalid option\n"
            "printf: usage: printf [-v var] format [arguments]",
            2,
        )
    fmt, values = args[0], args[1:]
    out: list[str] = []
    errors: list[str] = []
    size = 0
    index = 0
    while True:
        used, end = _printf_once(fmt, values, index, out, errors)
        index += used
        size = sum(len(p) for p in out)
        budget.check_output(size, "printf")
        if end or used == 0 or index >= len(values):
            break
    # %b's \c ends printf with success, as bash's does, whatever was refused before it.
    failed = end != STOPPED and any(": warning: " not in error for error in errors)
    return Output.exactly(_as_printed("".join(out)), 1 if failed else 0, "\n".join(errors))


def _printf_once(
    fmt: str, values: list[str], index: int, out: list[str], errors: list[str]
) -> tuple[int, str]:
    """One pass over the format; returns the arguments used and how printf ends here: "" (it
    goes on), STOPPED (%b's \\c) or REFUSED (a conversion it cannot read)."""
    used = 0
    pos = 0

    def take() -> str:
        nonlocal used
        value = values[index + used] if index + used < len(values) else ""
        if index + used < len(values):
            used += 1
        return value

    while pos < len(fmt):
        ch = fmt[pos]
        if ch == "\\":
            value, taken, _ = _escape(fmt, pos, "format")
            out.append(value)
            pos += taken
            continue
        if ch != "%":
            out.append(ch)
            pos += 1
            continue
        match = _CONVERSION.match(fmt, pos)
        assert match is not None
        flags, width, precision, conv = match.groups()
        if conv is None:
            bad = fmt[match.end() : match.end() + 1]
            errors.append(
                f"bash: printf: `{bad}': invalid format character"
                if bad
                else "bash: printf: missing format character"
            )
            return used, REFUSED
        pos = match.end()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            size = _integer(take(), errors)
            flags, width = (flags + "-" if size < 0 else flags), str(abs(size))
        if precision == "*":
            precision = str(_integer(take(), errors))
        flags = flags.replace("'", "")  # grouping: none in the C.UTF-8 locale
        spec = "%" + flags + (str(min(int(width), 4096)) if width else "")
        if precision is not None:
            spec += "." + str(min(int(precision), 4096))
        value = take()
        if conv in "diouxX":
            size = min(int(width), 4096) if width else 0
            places = None if precision is None else min(int(precision), 4096)
            number = _integer(value, errors, unsigned=conv in "ouxX")
            out.append(_c_integer(flags, size, places, conv, number))
        elif conv in "eEfgG":
            out.append(_c_float(flags, spec[1 + len(flags) :], conv, _number(value, errors)))
        elif conv == "c":
            # The first byte (an empty string's NUL, as C's).
            first = _bytes_of(value)[:1] or b"\0"
            out.append(_text(flags, width, None, first.decode("utf-8", "surrogateescape")))
        elif conv == "b":
            text, stopped = _escapes(value, "b")
            out.append(_text(flags, width, precision, text))
            if stopped:
                return used, STOPPED
        elif conv == "q":
            out.append(_text(flags, width, precision, _shell_quote(value)))
        else:
            out.append(_text(flags, width, precision, value))
    return used, ""


def _c_integer(flags: str, width: int, precision: int | None, conv: str, number: int) -> str:
    """An integer conversion as C's printf writes it. Python's % agrees except for `#`: C adds
    0x (0X) only to a non-zero hex number, and makes an octal one start with 0 (Python: 0o);
    o, u, x and X are unsigned (a negative number is its 64-bit two's complement, no sign)."""
    if conv in "ouxX":
        number &= (1 << 64) - 1
        flags = flags.replace("+", "").replace(" ", "")
    if "#" not in flags or conv not in "oxX" or (number == 0 and conv in "xX"):
        spec = "%" + flags.replace("#", "") + (str(width) if width else "")
        spec += "" if precision is None else f".{precision}"
        return (spec + {"i": "d", "u": "d"}.get(conv, conv)) % number
    if conv in "xX":
        spec = "%" + flags + (str(width) if width else "")
        return (spec + ("" if precision is None else f".{precision}") + conv) % number
    digits = format(abs(number), "o").zfill(precision or 1)
    digits = digits if digits.startswith("0") else "0" + digits
    sign = "-" if number < 0 else ("+" if "+" in flags else (" " if " " in flags else ""))
    if "-" in flags:
        return (sign + digits).ljust(width)
    if "0" in flags and precision is None:
        return sign + digits.rjust(width - len(sign), "0")
    return (sign + digits).rjust(width)


_INTEGER = re.compile(r"\s*([-+]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
INTMAX = (1 << 63) - 1


def _integer(value: str, errors: list[str], unsigned: bool = False) -> int:
    """An argument as bash's printf reads a number for %d: C's strtoimax in base 0 (0x hex, a
    leading 0 octal; strtoumax for o, u, x, X), 'c or "c for c's code point; a bad tail is
    reported and the number read so far used; beyond 64 bits a warning (on stderr, the status
    unchanged) and the nearest end."""
    if value[:1] in ("'", '"'):
        return ord(value[1]) if len(value) > 1 else 0
    if not value:
        return 0
    match = _INTEGER.match(value)
    if match is None or match.end() < len(value):
        octal = re.fullmatch(r"\s*[-+]?0[0-9]+", value)
        errors.append(f"bash: printf: {value}: invalid {'octal ' if octal else ''}number")
        if match is None or octal:
            return 0
    sign, digits = match.groups()
    number = int(digits, 16 if digits[1:2] in ("x", "X") else 8 if digits[:1] == "0" else 10)
    number = -number if sign == "-" else number
    low, high = (-(1 << 64) + 1, (1 << 64) - 1) if unsigned else (-INTMAX - 1, INTMAX)
    if not low <= number <= high:
        errors.append(f"bash: printf: warning: {value}: Numerical result out of range")
        return high if number > 0 else low
    return number


def _c_float(flags: str, size: str, conv: str, number: float) -> str:
    """%e, %f or %g of `number` with its flags and "width.precision" as C prints it: infinity
    and NaN padded with spaces, never zeros, and a NaN's sign printed (`-nan`), where Python's
    own % would write `00inf` and `nan`."""
    if math.isfinite(number):
        return f"%{flags}{size}{conv}" % number
    text = f"%{flags.replace('0', '')}{size}{conv}" % math.copysign(math.inf, number)
    return text.replace("inf", "nan").replace("INF", "NAN") if math.isnan(number) else text


def _number(value: str, errors: list[str]) -> float:
    """An argument for %f, %e and %g: C's strtold (decimal, hex, inf, nan; in double
    precision here), 'c or "c for c's code point; a bad tail reported, the number read used."""
    if value[:1] in ("'", '"'):
        return float(ord(value[1])) if len(value) > 1 else 0.0
    if not value:
        return 0.0
    read = strtold(value)
    if read is None or read[1] < len(value):
        errors.append(f"bash: printf: {value}: invalid number")
    return read[0] if read is not None else 0.0


def _text(spec_flags: str, width: str | None, precision: str | None, text: str) -> str:
    """%s (and %b, %q, %c) as bash writes it in a UTF-8 locale: width and precision count
    bytes, not characters."""
    data = _bytes_of(text)
    if precision is not None:
        data = data[: min(int(precision), 4096)]
    size = min(int(width), 4096) if width else 0
    pad = b" " * max(0, size - len(data))
    data = data + pad if "-" in spec_flags else pad + data
    return data.decode("utf-8", "surrogateescape")  # bytes a cut split stay bytes


_ANSI_NAMES = {"\a": "a", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t", "\v": "v"}
_ANSI_NAMES |= {"\x1b": "E", "'": "'", "\\": "\\"}
# What bash's %q puts a backslash before (sh_backslash_quote); `#` and `~` only first.
_SPECIAL = frozenset(" !\"$&'()*,;<>?[\\]^`{|}")


def _shell_quote(value: str) -> str:
    """bash's `%q`: '' for nothing; `$'...'` with C's escapes for a string holding a control
    character (ansic_quote); else a backslash before each character the shell reads."""
    if not value:
        return "''"
    if any(not c.isprintable() for c in value):
        return "$'" + "".join(_ansi_escaped(c) for c in value) + "'"
    first = "\\" + value[0] if value[0] in "#~" else ""
    return first + "".join("\\" + c if c in _SPECIAL else c for c in value[len(first) // 2 :])


def _ansi_escaped(char: str) -> str:
    if char in _ANSI_NAMES:
        return "\\" + _ANSI_NAMES[char]
    if char.isprintable():
        return char
    code = ord(char) - 0xDC00 if 0xDC80 <= ord(char) <= 0xDCFF else ord(char)
    return "".join(f"\\{b:03o}" for b in chr(code).encode("utf-8", "surrogateescape"))


# ---------------------------------------------------------------------------- directories


def pwd(ctx: Context, args: list[str]) -> Output:
    """bash's pwd: $PWD as bash keeps it, -P with its links resolved (simulators.lab.workdir)."""
    return workdir.pwd(ctx, args)


def cd(ctx: Context, args: list[str]) -> Output:
    """bash's cd over the host's tree and its links (simulators.lab.workdir): `cd` alone and
    `cd ~` go home, `cd -` back to $OLDPWD (printing it); PWD and OLDPWD follow; CDPATH is not
    read."""
    return workdir.cd(ctx, args)


# ---------------------------------------------------------------------------- variables


def _joined(name: str, value: str, append: bool, state: ShellState) -> str:
    return (state.value(name) or "") + value if append else value


def export(
    ctx: Context, args: list[str], assigned: Callable[[str, str, bool], str] | None = None
) -> Output:
    """`export [-n] [-p] [NAME[=VALUE] ...]` (`NAME+=VALUE` appends); `assigned` gives what a
    name takes with its attributes (the shell's shell_attributes.assigned: an integer's
    arithmetic), else the value as typed (or appended)."""
    state = ctx.shell
    unexport = False
    while args and args[0].startswith("-") and args[0] != "-":
        if args[0] == "--":
            args = args[1:]
            break
        for flag in args[0][1:]:
            if flag == "n":
                unexport = True
            elif flag not in "pf":
                return Output.error(
                    f"bash: export: -{flag}: invalid option\n"
                    "export: usage: export [-fn] [name[=value] ...] or export -p",
                    2,
                )
        args = args[1:]
    if not args:  # as `declare -p` prints them (an array's elements too)
        return Output(
            "\n".join(filter(None, map(partial(declared, state), sorted(state.exported))))
        )
    errors = []
    for arg in args:
        name, sep, value = arg.partition("=")
        append = bool(sep) and name.endswith("+")
        name = name.removesuffix("+") if append else name
        if not _NAME.fullmatch(name):
            errors.append(f"bash: export: `{arg}': not a valid identifier")
            continue
        if unexport:
            if name in state.exported:
                state.exported.remove(name)
            continue
        if sep:
            if state.readonly(state.resolved(name)):
                errors.append(f"bash: {state.resolved(name)}: readonly variable")
                continue
            value = (
                assigned(name, value, append)
                if assigned is not None
                else _joined(name, value, append, state)
            )
            problem = state.set(name, value, export=True)
            if problem:
                errors.append(problem)
        elif name not in state.exported:
            state.exported.append(name)
    return Output("", 1 if errors else 0, stderr="\n".join(errors))


def unset(ctx: Context, args: list[str]) -> Output:
    """`unset NAME`: the variable, or else the function; `-v` variables only, `-f` functions."""
    errors = []
    mode = ""
    for arg in args:
        if arg in ("-v", "-f", "--"):
            mode = arg if arg != "--" else mode
            continue
        if mode == "-f":
            ctx.shell.functions.pop(arg, None)
            continue
        if not _NAME.fullmatch(arg):
            errors.append(f"bash: unset: `{arg}': not a valid identifier")
            continue
        if mode != "-v" and arg not in ctx.shell.variables and arg not in ctx.shell.arrays:
            ctx.shell.functions.pop(arg, None)
        ctx.shell.unset(arg)
    return Output("", 1 if errors else 0, stderr="\n".join(errors))


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def alias(ctx: Context, args: list[str]) -> Output:
    aliases = ctx.shell.aliases
    if args[:1] == ["-p"]:
        args = args[1:]
    if not args:
        return Output("\n".join(f"alias {k}={_quoted(v)}" for k, v in sorted(aliases.items())))
    out, errors = [], []
    for arg in args:
        name, sep, value = arg.partition("=")
        if not sep:
            if name in aliases:
                out.append(f"alias {name}={_quoted(aliases[name])}")
            else:
                errors.append(f"bash: alias: {name}: not found")
            continue
        if not name or any(c in name for c in " \t\n/$`=|&;()<>'\""):
            errors.append(f"bash: alias: `{name}': invalid alias name")
            continue
        if name not in aliases and len(aliases) >= 128:
            errors.append(f"bash: alias: {name}: too many aliases for this lab")
            continue
        aliases[name] = value[:4096]
    return Output("\n".join(out), 1 if errors else 0, stderr="\n".join(errors))


def unalias(ctx: Context, args: list[str]) -> Output:
    if not args:
        return Output.error("unalias: usage: unalias [-a] name [name ...]", 2)
    if args[0] == "-a":
        ctx.shell.aliases.clear()
        return Output()
    if args[0].startswith("-") and args[0] != "--":
        return Output.error(
            f"bash: unalias: {args[0][:2]}: invalid option\n"
            "unalias: usage: unalias [-a] name [name ...]",
            2,
        )
    errors = []
    for name in args:
        if name == "--":
            continue
        if ctx.shell.aliases.pop(name, None) is None:
            errors.append(f"bash: unalias: {name}: not found")
    return Output("", 1 if errors else 0, stderr="\n".join(errors))


def env(ctx: Context, args: list[str]) -> Output:
    if args:
        return Output.error(
            "env: running a command under env is not available in this lab;"
            " type NAME=value command instead",
            125,
        )
    return Output("\n".join(f"{k}={v}" for k, v in ctx.env.items()))


# ---------------------------------------------------------------------------- the rest


def true(ctx: Context, args: list[str]) -> Output:
    return Output()


def false(ctx: Context, args: list[str]) -> Output:
    return Output("", 1)


_INTERVAL = re.compile(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)")


def sleep(ctx: Context, args: list[str]) -> Output:
    """Checks its operands as coreutils does and returns at once: the lab's clock moves one
    step (10 s) per command, whatever the command, so waiting would change nothing."""
    if not args:
        return Output.error("sleep: missing operand\nTry 'sleep --help' for more information.")
    for arg in args:
        if arg.startswith("-") and len(arg) > 1 and not arg[1].isdigit():
            return Output.error(
                f"sleep: invalid option -- '{arg[1]}'\nTry 'sleep --help' for more information."
            )
        if not _INTERVAL.fullmatch(arg) and arg not in ("inf", "infinity"):
            return Output.error(
                f"sleep: invalid time interval '{arg}'\nTry 'sleep --help' for more information."
            )
    return Output()


def date(ctx: Context, args: list[str]) -> Output:
    """The lab's clock (the cluster's time, not the host's), in UTC, as coreutils prints it."""
    fmt = "%a %b %e %H:%M:%S UTC %Y"
    for arg in args:
        if arg in ("-u", "--utc", "-R"):
            fmt = "%a, %d %b %Y %H:%M:%S +0000" if arg == "-R" else fmt
        elif arg.startswith("+"):
            if len(arg) > 256:
                return Output.error("date: format too long for this lab")
            fmt = arg[1:].replace("%N", "000000000")
        elif arg.startswith("-") and len(arg) > 1:
            return Output.error(
                f"date: invalid option -- '{arg[1]}'\nTry 'date --help' for more information."
            )
        else:
            return Output.error(f"date: invalid date '{arg}'")
    moment = datetime_at(ctx.world.now)
    return Output(moment.strftime(fmt.replace("%s", str(int(moment.timestamp())))))


def clear(ctx: Context, args: list[str]) -> Output:
    return Output(CLEAR_SCREEN)


def _absent(name: str) -> Tool:
    def tool(ctx: Context, args: list[str]) -> Output:
        return Output.error(
            f"bash: {name}: not installed on this admin host; jq, awk, sed and grep are"
            " (type help)",
            127,
        )

    return tool


python3 = _absent("python3")
python = _absent("python")
