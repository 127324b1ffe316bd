"""awk on kadmin: what admins type (`-F`, `-v`, `$N`, NR, NF, /re/ and comparison patterns,
BEGIN/END, print, printf, arrays, `sum += $3; END {...}`, length, substr, split, sub, gsub,
match, sprintf, getline ...), answering as gawk 5.2 does in a UTF-8 locale (compared with the
real gawk on generated programs: tests/unit/lab/test_awk_oracle.py), with gawk's wording for its
errors. No command runs: `print | cmd`, `cmd | getline` and system() are refused in one line.

The program is read by simulators.lab.awk_parse and run here over the home folder's files or
the pipe. Regular expressions go through RE2 (simulators.lab.regex.compile_regex), so none
takes more than linear time; loops and records check the command's budget, strings and output
are capped, so `awk 'BEGIN{while(1);}'` stops at the budget like any other command.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator
from typing import Any

from simulators.lab import budget, files, regex
from simulators.lab.awk_parse import AwkSyntaxError, Node, Parser, unescape
from simulators.lab.awk_values import (
    UNSET,
    AwkError,
    StrNum,
    arith,
    compare,
    format_values,
    num,
    re_split,
    replacement,
    text,
    truth,
    whole,
)
from simulators.lab.fs import IS_FOLDER
from simulators.lab.tool import Context, Output

MAX_STRING = 1 << 20
USAGE = (
    "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...\n"
    "Usage: awk [POSIX or GNU style options] [--] 'program' file ..."
)


# RS = "": the end of a paragraph (gawk: a newline, then one or more blank lines).
_BLANK_LINES = re.compile(r"\n\n+")


class _Next(Exception):
    pass


class _Exit(Exception):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Interpreter:
    def __init__(self, ctx: Context, source: str) -> None:
        self.ctx = ctx
        self.begin, self.rules, self.end = Parser(source).program()
        self.vars: dict[str, Any] = {
            "FS": " ", "OFS": " ", "ORS": "\n", "RS": "\n", "RT": "", "NR": 0.0, "NF": 0.0,
            "FNR": 0.0, "FILENAME": "", "SUBSEP": "\x1c", "RSTART": 0.0, "RLENGTH": 0.0,
            "CONVFMT": "%.6g", "OFMT": "%.6g",
        }  # fmt: skip
        self.arrays: dict[str, dict[str, Any]] = {"ENVIRON": dict(ctx.env)}
        self.fields: list[Any] = [StrNum("")]
        self.out: list[str] = []
        self.errors: list[str] = []  # what the program printed to /dev/stderr
        self.reader: Iterator[str] = iter(())  # the input's records, shared with getline
        self.opened: dict[str, Iterator[str]] = {}  # files read by `getline < FILE`
        self.size = 0
        self.steps = 0
        self.regexes: dict[str, Any] = {}
        self.status = 0
        self.random = random.Random(0)
        self.written: set[str] = set()  # files this program has written (> appends after)

    # -- records and fields
    def set_record(self, line: str) -> None:
        fs = text(self.vars["FS"])
        if text(self.vars["RS"]) == "" and len(fs) == 1 and fs not in " \n":
            # Paragraphs: a newline separates fields too where FS is one character (gawk's
            # manual; not where it is a regular expression).
            fs = f"{re.escape(fs)}|\n"
        self.fields = [StrNum(line), *(StrNum(f) for f in self.split(line, fs))]
        self.vars["NF"] = float(len(self.fields) - 1)

    def split(self, line: str, fs: str) -> list[str]:
        if fs == " ":
            return line.split()
        if line == "":
            return []
        if fs == "":  # gawk: each character a field
            return list(line)
        if len(fs) == 1 and fs != "\\":
            return line.split(fs)
        return re_split(self.regex(fs), line)

    def get_field(self, index: float) -> Any:
        i = int(index)
        if i < 0:
            raise AwkError(f"attempt to access field {i}")
        return self.fields[i] if i < len(self.fields) else StrNum("")

    def set_field(self, index: float, value: Any) -> None:
        i = int(index)
        if i < 0 or i > 100_000:
            raise AwkError(f"attempt to access field {i}")
        if i == 0:
            self.set_record(text(value))
            return
        while len(self.fields) <= i:
            self.fields.append(StrNum(""))
        self.fields[i] = value
        self.vars["NF"] = float(len(self.fields) - 1)
        self.rebuild()

    def reach(self, index: float) -> None:
        """A field named as a place to write (sub's and gsub's target) exists from then on, as
        in gawk: NF grows to it even if nothing is written, $0 stays as it was."""
        i = int(index)
        if len(self.fields) <= i <= 100_000:
            self.fields += [StrNum("")] * (i + 1 - len(self.fields))
            self.vars["NF"] = float(len(self.fields) - 1)

    def rebuild(self) -> None:
        ofs = text(self.vars["OFS"])
        record = ofs.join(text(f, self.vars["CONVFMT"]) for f in self.fields[1:])
        self.fields[0] = StrNum(self.bounded(record))

    def regex(self, pattern: str) -> Any:
        compiled = self.regexes.get(pattern)
        if compiled is None:
            try:
                compiled = regex.compile_regex(regex.translate(pattern, extended=True))
            except regex.RegexError as exc:
                raise AwkError(f"invalid regexp: {exc}: /{pattern}/") from None
            if len(self.regexes) > 256:
                self.regexes.clear()
            self.regexes[pattern] = compiled
        return compiled

    def bounded(self, value: str) -> str:
        if len(value) > MAX_STRING:
            raise AwkError("string too long for this lab (over 1 MiB)")
        return value

    def tick(self) -> None:
        self.steps += 1
        if self.steps % 64 == 0:
            budget.check_time()

    def emit(self, value: str, to: list[str] | None = None) -> None:
        (self.out if to is None else to).append(value)
        self.size += len(value)
        budget.check_output(self.size, "awk")

    # -- running
    def records(self, inputs: list[tuple[str, str]]) -> Iterator[str]:
        """The input's records, file after file, counted in NR and FNR as each is read, each
        split off by RS as it is then (set in BEGIN or a rule: the next record is read so)."""
        for name, body in inputs:
            self.vars["FILENAME"] = name  # "-" for the standard input, as gawk
            self.vars["FNR"] = 0.0
            for record in self.split_records(body):
                self.vars["NR"] = num(self.vars["NR"]) + 1
                self.vars["FNR"] = num(self.vars["FNR"]) + 1
                yield record

    def split_records(self, body: str) -> Iterator[str]:
        at = 0
        while (found := self.next_record(body, at)) is not None:
            record, at = found
            yield record

    def next_record(self, body: str, at: int) -> tuple[str, int] | None:
        """gawk's record at `at` and where the next starts (RT set to what ended it): RS a
        newline or one character, that character; "" (paragraphs), one or more blank lines,
        newlines before the first and after the last skipped; longer, a regular expression."""
        rs = text(self.vars["RS"])
        if rs == "":
            while at < len(body) and body[at] == "\n":
                at += 1
        if at >= len(body):
            return None
        if rs == "":
            found = _BLANK_LINES.search(body, at)
            end = None if found is None else found.span()
        elif len(rs) == 1:
            index = body.find(rs, at)
            end = None if index < 0 else (index, index + 1)
        else:
            found = next(
                (m for m in self.regex(rs).finditer(body, at) if m.end() > m.start()), None
            )
            end = None if found is None else found.span()
        if end is None:  # the last record: in paragraphs, the newlines after it are its RT
            record = body[at:].rstrip("\n") if rs == "" else body[at:]
            self.vars["RT"] = body[at + len(record) :]
            return record, len(body)
        self.vars["RT"] = body[end[0] : end[1]]
        return body[at : end[0]], end[1]

    def run(self, inputs: list[tuple[str, str]]) -> None:
        self.reader = self.records(inputs)
        try:
            for action in self.begin:
                self.execute(action)
            if self.rules or self.end:
                for line in self.reader:
                    self.set_record(line)
                    self.tick()
                    try:
                        self.record()
                    except _Next:
                        continue
        except _Exit:
            pass
        try:
            for action in self.end:
                self.execute(action)
        except _Exit:
            pass

    def record(self) -> None:
        for pattern, action in self.rules:
            if pattern is not None and not self.matches(pattern):
                continue
            if action is None:
                self.emit(text(self.fields[0]) + text(self.vars["ORS"]))
            else:
                self.execute(action)

    def matches(self, pattern: Node) -> bool:
        if pattern[0] == "range":
            state = pattern[3]
            if not state[0]:
                if truth(self.value(pattern[1])):
                    state[0] = not truth(self.value(pattern[2]))
                    return True
                return False
            if truth(self.value(pattern[2])):
                state[0] = False
            return True
        return truth(self.value(pattern))

    def execute(self, node: Node) -> None:
        kind = node[0]
        if kind == "block":
            for statement in node[1]:
                self.execute(statement)
        elif kind == "expr":
            self.value(node[1])
        elif kind in ("print", "printf"):
            self.print(node)
        elif kind == "if":
            if truth(self.value(node[1])):
                self.execute(node[2])
            elif node[3] is not None:
                self.execute(node[3])
        elif kind in ("while", "do", "for"):
            self.loop(node)
        elif kind == "forin":
            for key in list(self.arrays.get(node[2], {})):
                self.tick()
                self.assign(("var", node[1]), StrNum(key))
                try:
                    self.execute(node[3])
                except _Break:
                    break
                except _Continue:
                    continue
        elif kind == "next" or kind == "nextfile":
            raise _Next
        elif kind == "exit":
            if node[1] is not None:
                self.status = int(num(self.value(node[1]))) & 0xFF
            raise _Exit
        elif kind == "break":
            raise _Break
        elif kind == "continue":
            raise _Continue
        elif kind == "delete":
            if node[2] is None:
                self.arrays.pop(node[1], None)
            else:
                self.arrays.get(node[1], {}).pop(self.key(node[2]), None)

    def loop(self, node: Node) -> None:
        kind = node[0]
        if kind == "for" and node[1] is not None:
            self.value(node[1])
        body = node[2] if kind == "while" else (node[1] if kind == "do" else node[4])
        cond = node[2] if kind == "do" else (node[1] if kind == "while" else node[2])
        first = kind == "do"
        while True:
            self.tick()
            if not first and cond is not None and not truth(self.value(cond)):
                break
            first = False
            try:
                self.execute(body)
            except _Break:
                break
            except _Continue:
                pass
            if kind == "for" and node[3] is not None:
                self.value(node[3])

    def print(self, node: Node) -> None:
        kind, args, redirect = node
        if kind == "printf":
            values = [self.value(a) for a in args]
            output = format_values(text(values[0]), values[1:], self.vars["CONVFMT"])
        else:
            fmt = self.vars["OFMT"]
            items = [text(self.value(a), fmt) for a in args] if args else [text(self.fields[0])]
            output = text(self.vars["OFS"]).join(items) + text(self.vars["ORS"])
        if redirect is None:
            self.emit(output)
            return
        op, target = redirect
        if op == "|":
            raise AwkError("print to a command is not available in this lab")
        name = text(self.value(target))
        if name == "/dev/stdout":
            self.emit(output)
            return
        if name == "/dev/stderr":
            self.emit(output, self.errors)
            return
        written = self.written
        existing = files.read(self.ctx, name) if (op == ">>" or name in written) else ""
        problem = files.write(self.ctx, name, (existing or "") + output)
        if problem:
            raise AwkError(f"can't redirect to `{name}' ({problem.rsplit(': ', 1)[-1]})")
        written.add(name)

    def getline(self, target: Node | None, source: Node | None) -> float:
        """`getline [VAR] [< FILE]`: the next record of the input (NR and FNR counted) or of a
        home-folder FILE, into $0 (NF set) or VAR; 1, 0 at the end, -1 for a missing file."""
        if source is None:
            reader = self.reader
        else:
            name = text(self.value(source))
            if name not in self.opened:
                body = self.ctx.stdin if name in ("-", "/dev/stdin") else files.read(self.ctx, name)
                if body is None:
                    return -1.0
                self.opened[name] = self.split_records(body)
            reader = self.opened[name]
        line = next(reader, None)
        if line is None:
            return 0.0
        if target is None:
            self.set_record(line)
        else:
            self.assign(target, StrNum(line))
        return 1.0

    def key(self, indexes: list[Node]) -> str:
        sep = text(self.vars["SUBSEP"])
        return sep.join(text(self.value(i), self.vars["CONVFMT"]) for i in indexes)

    def array(self, name: str) -> dict[str, Any]:
        if name in self.vars and name not in self.arrays:
            raise AwkError(f"attempt to use scalar `{name}' as an array")
        return self.arrays.setdefault(name, {})

    # -- expressions
    def value(self, node: Node) -> Any:
        kind = node[0]
        if kind == "num" or kind == "str":
            return node[1]
        if kind == "var":
            if node[1] in self.arrays:
                raise AwkError(f"attempt to use array `{node[1]}' in a scalar context")
            return self.vars.get(node[1], UNSET)
        if kind == "field":
            return self.get_field(num(self.value(node[1])))
        if kind == "index":
            return self.array(node[1]).setdefault(self.key(node[2]), UNSET)
        if kind == "group":
            return self.value(node[1])
        if kind == "getline":
            return self.getline(node[1], node[2])
        if kind == "ere":
            return 1.0 if self.regex(node[1]).search(text(self.fields[0])) else 0.0
        if kind == "concat":
            return self.bounded(
                text(self.value(node[1]), self.vars["CONVFMT"])
                + text(self.value(node[2]), self.vars["CONVFMT"])
            )
        if kind == "arith":
            return arith(node[1], num(self.value(node[2])), num(self.value(node[3])))
        if kind == "neg":
            return -num(self.value(node[1]))
        if kind == "plus":
            return num(self.value(node[1]))
        if kind == "not":
            return 0.0 if truth(self.value(node[1])) else 1.0
        if kind == "&&":
            return 1.0 if truth(self.value(node[1])) and truth(self.value(node[2])) else 0.0
        if kind == "||":
            return 1.0 if truth(self.value(node[1])) or truth(self.value(node[2])) else 0.0
        if kind == "?":
            return self.value(node[2]) if truth(self.value(node[1])) else self.value(node[3])
        if kind == "cmp":
            return 1.0 if compare(node[1], self.value(node[2]), self.value(node[3])) else 0.0
        if kind in ("~", "!~"):
            right = node[2]
            pattern = right[1] if right[0] == "ere" else text(self.value(right))
            found = bool(self.regex(pattern).search(text(self.value(node[1]))))
            return 1.0 if found == (kind == "~") else 0.0
        if kind == "in":
            return 1.0 if self.key(node[1]) in self.array(node[2]) else 0.0
        if kind == "assign":
            op, target, expr = node[1], node[2], node[3]
            new = self.value(expr)
            if op != "=":
                target = self.place(target)
                new = arith(op[:-1].replace("**", "^"), num(self.value(target)), num(new))
            elif isinstance(new, StrNum) and target[0] != "field":
                new = StrNum(new)
            return self.assign(target, new)
        if kind == "incr":
            target = self.place(node[2])
            old = num(self.value(target))
            new = old + (1 if node[1] == "++" else -1)
            self.assign(target, new)
            return new if node[3] else old
        if kind == "slot":
            return self.array(node[1]).setdefault(node[2], UNSET)
        if kind == "call":
            return self.call(node[1], node[2])
        raise AwkError(f"unknown expression {kind}")

    def place(self, target: Node) -> Node:
        """The place `target` names, its subscript or field number worked out once, for what
        reads it and then writes it (`c[i++]++`, `$(n++) += 1`, sub's target): i moves once."""
        if target[0] == "index":
            return ("slot", target[1], self.key(target[2]))
        if target[0] == "field":
            return ("field", ("num", num(self.value(target[1]))))
        return target

    def assign(self, target: Node, value: Any) -> Any:
        if target[0] == "var":
            if target[1] in self.arrays:
                raise AwkError(f"attempt to use array `{target[1]}' in a scalar context")
            self.vars[target[1]] = value
            if target[1] == "NF":
                count = max(0, min(int(num(value)), 100_000))
                self.fields = (self.fields + [StrNum("")] * count)[: count + 1]
                self.rebuild()
        elif target[0] == "field":
            self.set_field(num(self.value(target[1])), value)
        else:
            array = self.array(target[1])
            if len(array) > 200_000:
                raise AwkError("array too large for this lab")
            array[target[2] if target[0] == "slot" else self.key(target[2])] = value
        return value

    def call(self, name: str, args: list[Node]) -> Any:
        if name in ("system", "close", "fflush"):
            if name == "system":
                raise AwkError("system() is not available in this lab")
            return 0.0
        if name in ("sub", "gsub"):
            return self.substitute(name, args)
        if name == "split":
            if len(args) < 2 or args[1][0] != "var" or args[1][1] in self.vars:
                raise AwkError("split: second argument is not an array")
            source = text(self.value(args[0]))
            fs = text(self.value(args[2])) if len(args) > 2 else text(self.vars["FS"])
            if len(args) > 2 and args[2][0] == "ere":
                fs = args[2][1]
            parts = self.split(source, fs)
            self.arrays[args[1][1]] = {str(i): StrNum(p) for i, p in enumerate(parts, start=1)}
            return float(len(parts))
        if name == "length" and args and args[0][0] == "var" and args[0][1] in self.arrays:
            return float(len(self.arrays[args[0][1]]))
        values = [self.value(a) for a in args]
        if name == "length":
            return float(len(text(values[0]) if values else text(self.fields[0])))
        if name == "substr":
            # gawk's: the start and length cut toward zero, a start before 1 taken as 1.
            s = text(values[0])
            begin = max(whole(num(values[1])), 1) if len(values) > 1 else 1
            length = whole(num(values[2])) if len(values) > 2 else len(s)
            return s[begin - 1 : begin - 1 + max(length, 0)]
        if name == "index":
            return float(text(values[0]).find(text(values[1])) + 1)
        if name == "match":
            pattern = args[1][1] if args[1][0] == "ere" else text(values[1])
            found = self.regex(pattern).search(text(values[0]))
            self.vars["RSTART"] = float(found.start() + 1) if found else 0.0
            self.vars["RLENGTH"] = float(found.end() - found.start()) if found else -1.0
            return self.vars["RSTART"]
        if name == "sprintf":
            return (
                self.bounded(format_values(text(values[0]), values[1:], self.vars["CONVFMT"]))
                if values
                else ""
            )
        if name == "tolower":
            return text(values[0]).lower()
        if name == "toupper":
            return text(values[0]).upper()
        if name == "int":
            return (
                float(math.trunc(num(values[0])))
                if math.isfinite(num(values[0]))
                else num(values[0])
            )
        if name in ("sqrt", "exp", "log", "sin", "cos"):
            x = num(values[0])
            try:
                return float(getattr(math, name)(x))
            except (ValueError, OverflowError):
                return math.nan if name != "exp" else math.inf
        if name == "atan2":
            return math.atan2(num(values[0]), num(values[1]))
        if name == "rand":
            return self.random.random()
        if name == "srand":
            self.random.seed(num(values[0]) if values else 0)
            return 0.0
        raise AwkError(f"function `{name}' not defined")

    def substitute(self, name: str, args: list[Node]) -> float:
        if len(args) < 2:
            raise AwkError(f"{name}: not enough arguments")
        pattern = args[0][1] if args[0][0] == "ere" else text(self.value(args[0]))
        template = text(self.value(args[1]))
        target = self.place(args[2] if len(args) > 2 else ("field", ("num", 0.0)))
        if target[0] == "field":
            self.reach(num(self.value(target[1])))
        source = text(self.value(target))
        regex = self.regex(pattern)
        out: list[str] = []
        last, count = 0, 0
        for match in regex.finditer(source):
            out.append(source[last : match.start()])
            out.append(replacement(template, source[match.start() : match.end()]))
            last = match.end()
            count += 1
            self.tick()
            if name == "sub":
                break
        if count:
            out.append(source[last:])
            self.assign(target, self.bounded("".join(out)))
        return float(count)


def awk(ctx: Context, args: list[str]) -> Output:
    fs: str | None = None
    assigns: list[str] = []
    source: str | None = None
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if source is not None or operands or not arg.startswith("-") or arg == "-":
            operands.append(arg)
            continue
        if arg == "--":
            operands.extend(args[i:])
            break
        flag, value = arg[1:2], arg[2:]
        if flag in ("F", "v", "f"):
            if not value:
                if i >= len(args):
                    return Output(
                        "", 2, stderr=f"awk: option requires an argument -- {flag}\n{USAGE}"
                    )
                value = args[i]
                i += 1
            if flag == "F":
                fs = "\t" if value == "t" else unescape(value)
            elif flag == "v":
                assigns.append(value)
            else:
                program = files.read(ctx, value)
                if program is None:
                    return Output(
                        "",
                        2,
                        stderr=f"awk: fatal: can't open source file `{value}' for reading:"
                        " No such file or directory",
                    )
                source = program
            continue
        return Output("", 2, stderr=f"awk: invalid option -- '{flag}'\n{USAGE}")
    if source is None:
        if not operands:
            return Output("", 2, stderr=USAGE)
        source = operands.pop(0)
    try:
        machine = Interpreter(ctx, source)
    except AwkSyntaxError as exc:
        return Output("", 1, stderr=str(exc))
    except RecursionError:
        return Output("", 1, stderr="awk: cmd. line:1: program too deeply nested for this lab")
    if fs is not None:
        machine.vars["FS"] = fs
    for assign in assigns:
        name, sep, value = assign.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return Output("", 2, stderr=f"awk: fatal: `{assign}' is not a legal variable name")
        machine.vars[name] = StrNum(unescape(value))
    inputs: list[tuple[str, str]] = []
    skipped: list[str] = []  # gawk's warnings for folders among the operands
    for name in operands or ["-"]:
        if "=" in name and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", name):
            continue
        body, why = (ctx.stdin, "") if name == "-" else files.opened(ctx, name)
        if why == IS_FOLDER:
            skipped.append(
                f"awk: warning: command line argument `{name}' is a directory: skipped\n"
            )
            continue
        if body is None:
            message = (
                f"awk: fatal: cannot open file `{name}' for reading: No such file or directory"
            )
            if not inputs:
                return Output("", 2, stderr=message)
            inputs.append(("", ""))
            break
        inputs.append((name, body))
    try:
        machine.run(inputs)
    except AwkError as exc:
        problem = f"awk: cmd. line:1: fatal: {exc}"
    except RecursionError:
        problem = "awk: cmd. line:1: fatal: expression too deeply nested for this lab"
    else:
        problem = ""
    errors = "\n".join(
        part for part in ("".join(skipped).rstrip("\n"), "".join(machine.errors) + problem) if part
    )
    return Output.exactly("".join(machine.out), 2 if problem else machine.status, errors)
