"""sed for pipes and files: `s` commands (with `g`, `i`, `p`, a count), `-n`, `-e`, `-E` and
`-i` on the home folder's files, as GNU sed words its errors. Patterns go through
simulators.lab.regex (RE2)."""

from __future__ import annotations

import re

import re2

from simulators.lab import budget
from simulators.lab.files import read, write
from simulators.lab.regex import Regex, RegexError, compile_regex, translate
from simulators.lab.tool import Context, Output


class SedError(Exception):
    pass


def _parse_s(expr: str, index: int) -> tuple[str, str, str]:
    where = f"sed: -e expression #{index}, char"
    if not expr:
        raise SedError(f"{where} 0: no previous regular expression")
    if expr[0] != "s":
        raise SedError(f"{where} 1: unknown command: `{expr[0]}'")
    if len(expr) < 2:
        raise SedError(f"{where} 1: unterminated `s' command")
    delim = expr[1]
    if delim in "\\\n":
        raise SedError(f"{where} 2: unterminated `s' command")
    parts: list[str] = []
    buf = ""
    i = 2
    while i < len(expr) and len(parts) < 2:
        ch = expr[i]
        if ch == "\\" and i + 1 < len(expr):
            nxt = expr[i + 1]
            # An escaped delimiter stands for the character itself.
            buf += nxt if nxt == delim else ch + nxt
            i += 2
            continue
        if ch == delim:
            parts.append(buf)
            buf = ""
            i += 1
            continue
        buf += ch
        i += 1
    if len(parts) < 2:
        raise SedError(f"{where} {len(expr)}: unterminated `s' command")
    flags = expr[i:].strip()
    for pos, flag in enumerate(flags):
        if flag not in "gIi0123456789p":
            raise SedError(f"{where} {i + pos + 1}: unknown option to `s'")
    return parts[0], parts[1], flags


def _replacement(template: str) -> str:
    """sed's replacement (& and \\1) in Python's re.sub syntax."""
    out = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch == "\\" and i + 1 < len(template):
            nxt = template[i + 1]
            if nxt.isdigit():
                out.append(f"\\g<{nxt}>")
            elif nxt == "n":
                out.append("\n")
            elif nxt == "t":
                out.append("\t")
            elif nxt == "&":
                out.append("&")
            else:
                out.append(nxt.replace("\\", "\\\\"))
            i += 2
            continue
        if ch == "&":
            out.append("\\g<0>")
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def sed_substitute(text: str, exprs: list[str], extended: bool) -> str:
    commands = []
    for n, expr in enumerate(exprs, start=1):
        for part in _split_commands(expr):
            pattern, repl, flags = _parse_s(part.strip(), n)
            try:
                ignore_case = "I" in flags or "i" in flags
                compiled = compile_regex(translate(pattern, extended), ignore_case)
            except RegexError as exc:
                raise SedError(f"sed: -e expression #{n}, char {len(part)}: {exc}") from None
            count = 0 if "g" in flags else 1
            digits = "".join(c for c in flags if c.isdigit())
            nth = budget.bounded_int(digits, 1 << 20) if digits else 0
            commands.append((compiled, _replacement(repl), count, nth or 0))
    lines = text.split("\n")
    out_lines = []
    size = 0
    for line in lines:
        for compiled, repl, count, nth in commands:
            try:
                if nth:
                    line = _replace_nth(line, compiled, repl, nth)
                else:
                    line = _substitute(line, compiled, repl, count, size)
            except (re2.error, re.error, IndexError):
                raise SedError(
                    "sed: -e expression #1: invalid reference on `s' command's RHS"
                ) from None
        size += len(line) + 1
        budget.check_output(size, "sed")
        out_lines.append(line)
    return "\n".join(out_lines)


def _substitute(line: str, regex: Regex, repl: str, count: int, size: int) -> str:
    """regex.sub, but one match at a time when the result could outgrow the budget."""
    room = budget.limits().output_bytes - size
    if (len(line) + 1) * (len(repl) + 1) <= room:
        return regex.subn(repl, line, count)[0]
    out: list[str] = []
    last = 0
    for n, match in enumerate(regex.finditer(line), start=1):
        out.append(line[last : match.start()])
        out.append(match.expand(repl))
        last = match.end()
        size += len(out[-1]) + len(out[-2])
        if n % 64 == 0:
            budget.check_output(size, "sed")
        if n == count:
            break
    out.append(line[last:])
    return "".join(out)


def _replace_nth(line: str, regex: Regex, repl: str, nth: int) -> str:
    for n, match in enumerate(regex.finditer(line), start=1):
        if n == nth:
            return line[: match.start()] + match.expand(repl) + line[match.end() :]
    return line


def _split_commands(expr: str) -> list[str]:
    """`s/a/b/;s/c/d/` holds two commands; a ; inside an s command's parts does not split."""
    if not expr.startswith("s") or len(expr) < 2:
        return [expr]
    delim = expr[1]
    parts = []
    seen = 0
    i = 2
    start = 0
    while i < len(expr):
        ch = expr[i]
        if ch == "\\":
            i += 2
            continue
        if ch == delim and seen < 3:
            seen += 1
        elif ch in ";\n" and seen >= 2:
            parts.append(expr[start:i])
            start = i + 1
            if start + 1 < len(expr) and expr[start] == "s":
                delim = expr[start + 1]
                seen = 0
                i = start + 2
                continue
        i += 1
    parts.append(expr[start:])
    return [p for p in parts if p.strip()]


def sed(ctx: Context, args: list[str]) -> Output:
    in_place = False
    extended = False
    exprs: list[str] = []
    files: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-e" or arg == "--expression":
            if i + 1 >= len(args):
                return Output.error(
                    "sed: option requires an argument -- 'e'\n"
                    "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]..."
                )
            exprs.append(args[i + 1])
            i += 2
            continue
        if arg.startswith("--expression="):
            exprs.append(arg.partition("=")[2])
        elif arg in ("-i", "--in-place") or (arg.startswith("-i") and not arg.startswith("-i-")):
            in_place = True
            rest = arg[2:] if arg.startswith("-i") else ""
            if rest.startswith("e"):
                # -ie means -i with the backup suffix "e" in GNU sed, which is allowed.
                pass
        elif arg in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif arg.startswith("-") and len(arg) > 1 and not exprs and arg[1] in "nE":
            if "E" in arg:
                extended = True
        elif arg.startswith("-") and len(arg) > 1:
            return Output.error(
                f"sed: invalid option -- '{arg.lstrip('-')[:1]}'\n"
                "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]..."
            )
        elif not exprs:
            exprs.append(arg)
        else:
            files.append(arg)
        i += 1
    if not exprs:
        return Output.error(
            "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...", 1
        )
    if in_place and not files:
        return Output.error("sed: no input files", 4)
    out: list[str] = []
    code = 0
    sources = files or ["-"]
    for f in sources:
        text = ctx.stdin if f == "-" else read(ctx, f)
        if text is None:
            out.append(f"sed: can't read {f}: No such file or directory")
            code = 2
            continue
        try:
            result = sed_substitute(text, exprs, extended)
        except SedError as exc:
            return Output.error(str(exc))
        if in_place and f != "-":
            error = write(ctx, f, result)
            if error:
                out.append(error.replace("bash:", "sed:"))
                code = 4
        else:
            out.append(result.rstrip("\n"))
    return Output("\n".join(out), code)
