"""The home folder: ls, cat, grep, head and tail (sed is simulators.lab.sed, the editors
simulators.lab.editor).

Files live in the world state as name -> text. grep's patterns go through
simulators.lab.regex (RE2, linear time). Every stage checks the
command's budget (simulators.lab.budget) as its output grows.
"""

from __future__ import annotations

from simulators.cluster.clock import datetime_at
from simulators.lab import budget
from simulators.lab.regex import RegexError, compile_regex, translate
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


# GNU cat's options, each as the single-letter ones it stands for.
_CAT_SHORT = {
    "A": "vET", "b": "b", "e": "vE", "E": "E", "n": "n", "s": "s", "t": "vT", "T": "T", "u": "",
    "v": "v",
}  # fmt: skip
_CAT_LONG = {
    "--show-all": "vET",
    "--number-nonblank": "b",
    "--show-ends": "E",
    "--number": "n",
    "--squeeze-blank": "s",
    "--show-tabs": "T",
    "--show-nonprinting": "v",
}
_CAT_USAGE = "\nTry 'cat --help' for more information."


def cat(ctx: Context, args: list[str]) -> Output:
    """GNU cat: the files (or stdin, `-`) in order, byte for byte, with -A -b -e -E -n -s -t
    -T -v and their long names as coreutils 9 prints them (tests/unit/lab/test_shell_cat.py
    compares it with the real cat)."""
    flags: set[str] = set()
    names: list[str] = []
    options = True
    for arg in args:
        if options and arg == "--":
            options = False
        elif options and arg.startswith("--"):
            if arg not in _CAT_LONG:
                return Output.error(f"cat: unrecognized option '{arg}'{_CAT_USAGE}")
            flags.update(_CAT_LONG[arg])
        elif options and arg.startswith("-") and arg != "-":
            for letter in arg[1:]:
                if letter not in _CAT_SHORT:
                    return Output.error(f"cat: invalid option -- '{letter}'{_CAT_USAGE}")
                flags.update(_CAT_SHORT[letter])
        else:
            names.append(arg)
    out: list[str] = []
    errors: list[str] = []
    for name in names or ["-"]:
        text = ctx.stdin if name == "-" else read(ctx, name)
        if text is None:
            errors.append(f"cat: {name}: No such file or directory")
            continue
        out.append(text)
    joined = "".join(out)
    if flags:
        joined = _cat_lines(joined, flags)
    return Output.exactly(joined, 1 if errors else 0, stderr="\n".join(errors))


def _cat_lines(text: str, flags: set[str]) -> str:
    """cat's line options on the concatenated text: squeeze, number, show (as GNU cat orders
    them; numbering goes on across files, as GNU's does)."""
    shown: list[str] = []
    number = 0
    blank_before = False
    pieces = text.split("\n")  # lines end at a newline only (a carriage return is a byte)
    for index, body in enumerate(pieces):
        end = "\n" if index < len(pieces) - 1 else ""
        if not body and not end:
            break  # the text ended with its newline
        blank = not body and bool(end)
        if "s" in flags and blank and blank_before:
            continue
        blank_before = blank
        prefix = ""
        if "b" in flags:
            if not blank:
                number += 1
                prefix = f"{number:>6}\t"
        elif "n" in flags:
            number += 1
            prefix = f"{number:>6}\t"
        if "E" in flags and end and body.endswith("\r"):
            body = body[:-1] + "^M"  # coreutils 9.1: a CRLF line ends ^M$
        if "v" in flags:
            body = _nonprinting(body, tabs="T" not in flags)
        elif "T" in flags:
            body = body.replace("\t", "^I")
        shown.append(prefix + body + ("$" if "E" in flags and end else "") + end)
    return "".join(shown)


def _nonprinting(text: str, tabs: bool) -> str:
    """cat -v's notation for the text's UTF-8 bytes: ^X for controls, ^? for DEL, M- for the
    high half; a tab stays a tab unless -T."""
    out: list[str] = []
    for byte in text.encode("utf-8", errors="surrogateescape"):
        prefix = ""
        if byte >= 128:
            prefix, byte = "M-", byte - 128
        if byte == 9 and tabs and not prefix:
            out.append("\t")
        elif byte < 32:
            out.append(f"{prefix}^{chr(byte + 64)}")
        elif byte == 127:
            out.append(f"{prefix}^?")
        else:
            out.append(prefix + chr(byte))
    return "".join(out)


def _chomp(text: str) -> str:
    """The text as Output holds it: without its one final newline (blank lines kept)."""
    return text[:-1] if text.endswith("\n") else text


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
