"""The home folder: ls, cat, sed and grep for pipes (the editors are simulators.lab.editor).

Files live in the world state as name -> text. sed's basic and extended regular
expressions are translated to Python's syntax and run by RE2, whose matching time
is linear, since a web worker must never hang on a regex. Every stage checks the
command's budget (simulators.lab.budget) as its output grows.
"""

from __future__ import annotations

import re
from typing import Protocol

import re2

from simulators.cluster.clock import datetime_at
from simulators.lab import budget
from simulators.lab.tool import Context, Output

HOME = "/home/admin"
MAX_FILE_BYTES = 64 * 1024
MAX_FILES = 64


def normalize(path: str) -> str:
    for prefix in (HOME + "/", "~/", "./"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    return path


def read(ctx: Context, path: str) -> str | None:
    return ctx.world.state.files.get(normalize(path))


def write(ctx: Context, path: str, text: str) -> str | None:
    """Store a file; returns bash's error text when it cannot."""
    name = normalize(path)
    if not name or "/" in name:
        return f"bash: {path}: No such file or directory"
    files = ctx.world.state.files
    if name not in files and len(files) >= MAX_FILES:
        return f"bash: {path}: No space left on device"
    if len(text.encode()) > MAX_FILE_BYTES:
        return f"bash: {path}: File too large"
    files[name] = text
    return None


# ---------------------------------------------------------------------------- ls, cat


def ls(ctx: Context, args: list[str]) -> Output:
    long = False
    names: list[str] = []
    for arg in args:
        if arg.startswith("-") and len(arg) > 1:
            bad = [c for c in arg[1:] if c not in "lah1t"]
            if bad:
                return Output.error(
                    f"ls: invalid option -- '{bad[0]}'\nTry 'ls --help' for more information.", 2
                )
            long = long or "l" in arg
        else:
            names.append(arg)
    files = ctx.world.state.files
    shown: list[str] = []
    errors: list[str] = []
    if not names or any(normalize(n) in ("", ".", "~", HOME) for n in names):
        shown = sorted(files)
    for n in names:
        if normalize(n) in ("", ".", "~", HOME):
            continue
        if normalize(n) in files:
            shown.append(normalize(n))
        else:
            errors.append(f"ls: cannot access '{n}': No such file or directory")
    if long:
        stamp = datetime_at(0).strftime("%b %d %H:%M")
        lines = [f"total {max(1, sum(len(files[n]) for n in shown) // 1024)}"] if not names else []
        for n in shown:
            lines.append(f"-rw-r--r-- 1 admin admin {len(files[n].encode()):>5} {stamp} {n}")
        text = "\n".join(errors + lines)
    else:
        text = "\n".join(errors + (["  ".join(shown)] if shown else []))
    return Output(text, 2 if errors else 0)


def cat(ctx: Context, args: list[str]) -> Output:
    number = "-n" in args
    names = [a for a in args if a not in ("-n", "-A", "-e", "-v")]
    if not names:
        names = ["-"]
    out: list[str] = []
    errors: list[str] = []
    for arg in names:
        if arg.startswith("-") and arg != "-":
            return Output.error(
                f"cat: invalid option -- '{arg[1:2]}'\nTry 'cat --help' for more information."
            )
        text = ctx.stdin if arg == "-" else read(ctx, arg)
        if text is None:
            errors.append(f"cat: {arg}: No such file or directory")
            continue
        out.append(text if text.endswith("\n") or arg == "-" else text + "\n")
    joined = "".join(out)
    if number:
        lines = _chomp(joined).split("\n") if joined else []
        joined = "".join(f"{n:>6}\t{line}\n" for n, line in enumerate(lines, start=1))
    return Output(
        _chomp(joined), 1 if errors else 0, stderr="\n".join(errors), newline=joined.endswith("\n")
    )


def _chomp(text: str) -> str:
    """The text as Output holds it: without its one final newline (blank lines kept)."""
    return text[:-1] if text.endswith("\n") else text


# ---------------------------------------------------------------------------- regex


class RegexError(Exception):
    pass


MAX_PATTERN = 512


class Match(Protocol):
    def start(self) -> int: ...
    def end(self) -> int: ...
    def expand(self, template: str) -> str: ...


class Regex(Protocol):
    def search(self, text: str) -> Match | None: ...
    def finditer(self, text: str) -> list[Match]: ...
    def subn(self, repl: str, text: str, count: int = 0) -> tuple[str, int]: ...


def compile_regex(pattern: str, ignore_case: bool = False) -> Regex:
    """RE2, whose matching time is linear in the text: no pattern can freeze the lab.

    RE2 lacks backreferences in the pattern (as GNU grep -E mostly does too) and
    reports them as an invalid expression.
    """
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignore_case
    options.max_mem = 8 << 20
    try:
        regex: Regex = re2.compile(pattern, options)
    except re2.error:
        raise RegexError("Invalid preceding regular expression") from None
    return regex


def translate(pattern: str, extended: bool) -> str:
    """A POSIX BRE (or ERE) as a Python regular expression."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            i += 2
            if not extended and nxt in "(){}+?|":
                out.append(nxt)
            elif extended and nxt in "(){}+?|":
                out.append("\\" + nxt)
            elif nxt == "n":
                out.append("\\n")
            elif nxt == "t":
                out.append("\\t")
            elif nxt.isdigit():
                out.append("\\" + nxt)
            elif nxt in "wWsSbB<>":
                out.append({"<": r"\b", ">": r"\b"}.get(nxt, "\\" + nxt))
            else:
                out.append(re.escape(nxt))
            continue
        if ch == "[":
            close = _bracket_end(pattern, i)
            if close < 0:
                raise RegexError("unterminated address regex")
            body = pattern[i + 1 : close]
            body = (
                body.replace("[:alpha:]", "a-zA-Z")
                .replace("[:digit:]", "0-9")
                .replace("[:alnum:]", "a-zA-Z0-9")
                .replace("[:space:]", r"\s")
                .replace("[:upper:]", "A-Z")
                .replace("[:lower:]", "a-z")
            )
            body = body.replace("\\", "\\\\")
            out.append("[" + body + "]")
            i = close + 1
            continue
        if not extended and ch in "(){}+?|":
            out.append("\\" + ch)
        else:
            out.append(ch)
        i += 1
    result = "".join(out)
    if len(result) > MAX_PATTERN:
        raise RegexError("regular expression too long for this lab")
    return result


def _bracket_end(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    while i < len(pattern):
        if pattern[i] == "[" and i + 1 < len(pattern) and pattern[i + 1] == ":":
            end = pattern.find(":]", i + 2)
            if end < 0:
                return -1
            i = end + 2
            continue
        if pattern[i] == "]":
            return i
        i += 1
    return -1


# ---------------------------------------------------------------------------- sed


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


# ---------------------------------------------------------------------------- grep, head, tail


def grep(ctx: Context, args: list[str]) -> Output:
    ignore = invert = extended = numbers = count_only = False
    after = before = 0
    pattern: str | None = None
    files: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if (arg.startswith("-") and len(arg) > 1 and pattern is None) or arg in ("-e",):
            if arg == "-e":
                if i + 1 < len(args):
                    pattern = args[i + 1]
                i += 2
                continue
            flag = arg[1]
            if flag in "ABC":
                value = arg[2:]
                if not value:
                    if i + 1 >= len(args):
                        return Output.error(f"grep: option requires an argument -- '{flag}'", 2)
                    i += 1
                    value = args[i]
                context = budget.bounded_int(value, 1 << 30)
                if context is None:
                    return Output.error(f"grep: {value}: invalid context length argument", 2)
                if flag in "AC":
                    after = context
                if flag in "BC":
                    before = context
            else:
                for ch in arg[1:]:
                    if ch == "i":
                        ignore = True
                    elif ch == "v":
                        invert = True
                    elif ch == "E":
                        extended = True
                    elif ch == "n":
                        numbers = True
                    elif ch == "c":
                        count_only = True
                    elif ch in "wFHh":
                        pass
                    else:
                        return Output.error(
                            f"grep: invalid option -- '{ch}'\n"
                            "Usage: grep [OPTION]... PATTERNS [FILE]...\n"
                            "Try 'grep --help' for more information.",
                            2,
                        )
        elif pattern is None:
            pattern = arg
        else:
            files.append(arg)
        i += 1
    if pattern is None:
        return Output.error(
            "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.",
            2,
        )
    try:
        regex = compile_regex(translate(pattern, extended), ignore_case=ignore)
    except RegexError as exc:
        return Output.error(f"grep: {exc}", 2)
    texts: list[tuple[str, str]] = []
    errors: list[str] = []
    for f in files or ["-"]:
        text = ctx.stdin if f == "-" else read(ctx, f)
        if text is None:
            errors.append(f"grep: {f}: No such file or directory")
            continue
        texts.append((f, text))
    out: list[str] = []
    matched_any = False
    for name, text in texts:
        lines = text.rstrip("\n").split("\n") if text else []
        hits = []
        for n, line in enumerate(lines):
            hits.append(bool(regex.search(line)) != invert)
            if n % 256 == 255:
                budget.check_time()
        if count_only:
            out.append(str(sum(hits)))
            matched_any = matched_any or any(hits)
            continue
        keep: list[int] = []
        for idx, hit in enumerate(hits):
            if hit:
                matched_any = True
                keep.extend(range(max(0, idx - before), min(len(lines), idx + after + 1)))
        last = -2
        for idx in sorted(set(keep)):
            if (after or before) and last >= 0 and idx > last + 1:
                out.append("--")
            prefix = f"{idx + 1}:" if numbers else ""
            if len(files) > 1:
                prefix = f"{name}:" + prefix
            out.append(prefix + lines[idx])
            last = idx
    code = 0 if matched_any else 1
    if errors:
        code = 2
    return Output("\n".join(errors + out), code)


def _head_tail(ctx: Context, args: list[str], tail: bool) -> Output:
    name = "tail" if tail else "head"
    count = 10
    sign = ""  # tail -n +N: from line N on; head -n -N: all but the last N
    files: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-n" and i + 1 < len(args):
            value = args[i + 1]
            i += 2
        elif arg.startswith("-n"):
            value = arg[2:]
            i += 1
        elif arg.startswith("-") and arg[1:].isdigit():
            value = arg[1:]
            i += 1
        elif arg.startswith("-") and len(arg) > 1:
            return Output.error(
                f"{name}: invalid option -- '{arg[1]}'\nTry '{name} --help' for more information."
            )
        else:
            files.append(arg)
            i += 1
            continue
        parsed = budget.bounded_int(value.lstrip("+-"), 1 << 30)
        if parsed is None:
            return Output.error(f"{name}: invalid number of lines: '{value}'")
        count = parsed
        sign = value[:1] if value[:1] in "+-" and arg != "-" + value[1:] else ""
    text = ctx.stdin
    if files:
        found = read(ctx, files[0])
        if found is None:
            return Output.error(
                f"{name}: cannot open '{files[0]}' for reading: No such file or directory"
            )
        text = found
    lines = text.rstrip("\n").split("\n") if text else []
    if tail:
        picked = lines[max(count, 1) - 1 :] if sign == "+" else (lines[-count:] if count else [])
    else:
        picked = lines[: len(lines) - count] if sign == "-" else lines[:count]
    return Output("\n".join(picked))


def head(ctx: Context, args: list[str]) -> Output:
    return _head_tail(ctx, args, tail=False)


def tail(ctx: Context, args: list[str]) -> Output:
    return _head_tail(ctx, args, tail=True)
