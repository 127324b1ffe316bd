"""GNU diff (diffutils 3.8, /usr/bin/diff on kadmin): two files compared line by line, with
GNU's own algorithm so that its hunks come out where GNU's do when several shortest edit
scripts exist.

As diffutils does it: the common first and last lines are set aside (but for N lines of the
format's context), lines are put in classes of equal lines (-i, -b, -w and -Z decide which are
equal; a last line without its newline equals only the other file's such line, unless blanks
are ignored), lines that match nothing in the other file are discarded first (analyze.c's
discard_confusing_lines), gnulib's diffseq.h finds the changes (Myers' O(ND) search from both
ends, given up past its too_expensive cost), analyze.c's shift_boundaries slides each run of
changes down as far as it goes, and simulators.lab.diff_output prints them. Exit status 0 for
the same, 1 for different, 2 for trouble.

Operands: the home folder's files, `-` (the pipe) and `/dev/fd/N` (a `<(...)`). Options: -q,
-s, -u/-U N/--unified[=N], -c/-C N/--context[=N], the old -NUM, --normal, -i, -b, -w, -Z, -B,
--strip-trailing-cr, -d, -N, -a, -T, -t, --label (twice), --horizon-lines, --help, --version
(simulators.lab.diff_output reads them). The files have no times: -u and -c print the time
`ls -l` shows, the pipe and a `<(...)` the lab's clock. Left out: folders (-r, a folder
operand), -y, -e, -n, -D and the format options, -I, -E, -p/-F, -H, -x, -l, --color,
--from-file/--to-file; bytes that are not UTF-8 (the lab's files are text).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime

from simulators.cluster.clock import datetime_at
from simulators.lab import budget, files, fs
from simulators.lab import diff_output as out
from simulators.lab.diff_output import WHITE, Change
from simulators.lab.textutils import tool, try_help
from simulators.lab.tool import Context, Output

# ---------------------------------------------------------------------------- the comparison


def _classes(middles: tuple[list[str], list[str]], white: int, icase: bool) -> list[list[int]]:
    """io.c's equivalence classes (numbered from 1) of the lines being compared: lines are
    equal after -i's ASCII case folding and -w's, -b's or -Z's blanks; a last line without its
    newline stays apart unless blanks are ignored."""
    classes: dict[tuple[str, bool], int] = {}
    equivs: list[list[int]] = []
    lower = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    for lines in middles:
        numbers = []
        for at, line in enumerate(lines):
            if at % 4096 == 4095:
                budget.check_time()
            complete = line.endswith("\n")
            body = line[:-1] if complete else line
            if white == 5:
                body = re.sub(r"[ \t\v\f\r]+", "", body)
            elif white == 4:
                body = re.sub(r"[ \t\v\f\r]+", " ", body.rstrip(WHITE))
            elif white:
                body = body.rstrip(WHITE)
            if icase:
                body = body.translate(lower)
            key = (body, complete or white >= 2)
            numbers.append(classes.setdefault(key, len(classes) + 1))
        equivs.append(numbers)
    return equivs


def _run_end(discards: list[int], start: int) -> tuple[int, int]:
    """The end of a run of discardable lines from `start` (its provisional ones at the end
    cancelled) and how many provisional ones it keeps."""
    end = start
    provisional = 0
    while end < len(discards) and discards[end]:
        provisional += discards[end] == 2
        end += 1
    while end > start and discards[end - 1] == 2:
        end -= 1
        discards[end] = 0
        provisional -= 1
    return end, provisional


def _cancel_edges(discards: list[int], first: int, length: int, step: int) -> None:
    """From one end of a run: cancel provisional discards until 3 kept ones in a row, or
    the first kept one at least 8 lines in."""
    consec = 0
    for j in range(length):
        at = first + j * step
        if j >= 8 and discards[at] == 1:
            break
        if discards[at] == 2:
            consec = 0
            discards[at] = 0
        elif discards[at] == 0:
            consec = 0
        else:
            consec += 1
        if consec == 3:
            break


def _discards(equivs: list[int], other_counts: dict[int, int]) -> list[int]:
    """analyze.c's discard_confusing_lines for one file: 1 for a line matching no line of the
    other file, kept 0 for the rest; a line matching many (provisional) only inside a run."""
    end = len(equivs)
    many, tem = 5, end // 64
    while (tem := tem >> 2) > 0:
        many *= 2
    discards = [0] * end
    for i, number in enumerate(equivs):
        matches = other_counts.get(number, 0)
        discards[i] = 1 if matches == 0 else 2 if matches > many else 0
    i = steps = 0
    while i < end:
        steps += 1
        if steps % 4096 == 0:
            budget.check_time()
        if discards[i] == 2:
            discards[i] = 0
        elif discards[i]:
            j, provisional = _run_end(discards, i)
            length = j - i
            if provisional * 4 > length:
                for k in range(i, j):
                    if discards[k] == 2:
                        discards[k] = 0
            else:
                minimum, tem = 1, length >> 2
                while (tem := tem >> 2) > 0:
                    minimum <<= 1
                minimum += 1
                # Cancel every subrun of `minimum` or more provisionals in the run.
                k = consec = 0
                while k < length:
                    if discards[i + k] != 2:
                        consec = 0
                    else:
                        consec += 1
                        if consec == minimum:
                            k -= consec
                        elif consec > minimum:
                            discards[i + k] = 0
                    k += 1
                _cancel_edges(discards, i, length, 1)
                i += length - 1
                _cancel_edges(discards, i, length, -1)
        i += 1
    return discards


def _widened(
    diagonals: list[int], o: int, low: int, high: int, dmin: int, dmax: int, out: int
) -> tuple[int, int]:
    """One more edit step: the search's diagonals low..high one wider each way where the part
    has room (the new neighbour out of reach: `out`), else one narrower."""
    if low > dmin:
        low -= 1
        diagonals[low - 1 + o] = out
    else:
        low += 1
    if high < dmax:
        high += 1
        diagonals[high + 1 + o] = out
    else:
        high -= 1
    return low, high


class _Search:
    """gnulib's diffseq.h on the lines left after the discards: `changed[f]` holds a flag for
    each line compared (with a 0 before the first and after the last, as diffutils has)."""

    def __init__(self, xv: list[int], yv: list[int], changed: list[list[int]]) -> None:
        self.xv, self.yv, self.changed = xv, yv, changed
        diagonals = len(xv) + len(yv) + 3
        self.fd = [0] * diagonals
        self.bd = [0] * diagonals
        self.off = len(yv) + 1
        expensive = 1
        while diagonals:
            expensive <<= 1
            diagonals >>= 2
        self.too_expensive = max(4096, expensive)

    def diag(self, xoff: int, xlim: int, yoff: int, ylim: int, minimal: bool) -> tuple[int, ...]:
        """The midpoint (x, y) of a shortest edit script for the part, searching from both
        ends, and whether each half is then searched minimally."""
        fd, bd, xv, yv, o = self.fd, self.bd, self.xv, self.yv, self.off
        dmin, dmax = xoff - ylim, xlim - yoff
        fmid, bmid = xoff - yoff, xlim - ylim
        fmin = fmax = fmid
        bmin = bmax = bmid
        odd = (fmid - bmid) & 1
        fd[fmid + o] = xoff
        bd[bmid + o] = xlim
        c = 0
        while True:
            c += 1
            if c % 32 == 0 or c > 256:  # past 256, each step has hundreds of diagonals
                budget.check_time()
            fmin, fmax = _widened(fd, o, fmin, fmax, dmin, dmax, -1)
            for d in range(fmax, fmin - 1, -2):
                tlo, thi = fd[d - 1 + o], fd[d + 1 + o]
                x = thi if tlo < thi else tlo + 1
                y = x - d
                while x < xlim and y < ylim and xv[x] == yv[y]:
                    x += 1
                    y += 1
                fd[d + o] = x
                if odd and bmin <= d <= bmax and bd[d + o] <= x:
                    return x, y, 1, 1
            bmin, bmax = _widened(bd, o, bmin, bmax, dmin, dmax, sys.maxsize)
            for d in range(bmax, bmin - 1, -2):
                tlo, thi = bd[d - 1 + o], bd[d + 1 + o]
                x = tlo if tlo < thi else thi - 1
                y = x - d
                while xoff < x and yoff < y and xv[x - 1] == yv[y - 1]:
                    x -= 1
                    y -= 1
                bd[d + o] = x
                if not odd and fmin <= d <= fmax and x <= fd[d + o]:
                    return x, y, 1, 1
            if not minimal and c >= self.too_expensive:
                return self._halfway(xoff, xlim, yoff, ylim, (fmin, fmax, bmin, bmax))

    def _halfway(
        self, xoff: int, xlim: int, yoff: int, ylim: int, ranges: tuple[int, ...]
    ) -> tuple[int, ...]:
        """Past too_expensive: the furthest point either search reached."""
        fmin, fmax, bmin, bmax = ranges
        fd, bd, o = self.fd, self.bd, self.off
        fxybest, fxbest = -1, 0
        for d in range(fmax, fmin - 1, -2):
            x = min(fd[d + o], xlim)
            y = x - d
            if ylim < y:
                x, y = ylim + d, ylim
            if fxybest < x + y:
                fxybest, fxbest = x + y, x
        bxybest, bxbest = sys.maxsize, 0
        for d in range(bmax, bmin - 1, -2):
            x = max(xoff, bd[d + o])
            y = x - d
            if y < yoff:
                x, y = yoff + d, yoff
            if x + y < bxybest:
                bxybest, bxbest = x + y, x
        if (xlim + ylim) - bxybest < fxybest - (xoff + yoff):
            return fxbest, fxybest - fxbest, 1, 0
        return bxbest, bxybest - bxbest, 0, 1

    def compare(self, real: tuple[list[int], list[int]], minimal: bool) -> None:
        """compareseq, with a stack for its recursion: flags the lines (their indexes in the
        files, `real`) that are deleted or inserted."""
        xv, yv = self.xv, self.yv
        changed0, changed1 = self.changed
        stack = [(0, len(xv), 0, len(yv), minimal)]
        steps = 0
        while stack:
            xoff, xlim, yoff, ylim, exact = stack.pop()
            steps += 1
            if steps % 256 == 0:
                budget.check_time()
            while xoff < xlim and yoff < ylim and xv[xoff] == yv[yoff]:
                xoff += 1
                yoff += 1
            while xoff < xlim and yoff < ylim and xv[xlim - 1] == yv[ylim - 1]:
                xlim -= 1
                ylim -= 1
            if xoff == xlim:
                for y in range(yoff, ylim):
                    changed1[real[1][y] + 1] = 1
            elif yoff == ylim:
                for x in range(xoff, xlim):
                    changed0[real[0][x] + 1] = 1
            else:
                xmid, ymid, low, high = self.diag(xoff, xlim, yoff, ylim, exact)
                stack.append((xmid, xlim, ymid, ylim, bool(high)))
                stack.append((xoff, xmid, yoff, ymid, bool(low)))


def _shift(changed: list[int], other: list[int], equivs: list[int]) -> None:
    """analyze.c's shift_boundaries for one file (flags offset by the leading 0): each run of
    changes slides up to merge with the one before, then down as far as equal lines let it
    (merging on the way), then back up to end where a run of the other file's does."""
    i = j = 0
    end = len(equivs)
    while True:
        while i < end and not changed[i + 1]:
            while other[j + 1]:
                j += 1
            j += 1
            i += 1
        if i == end:
            return
        budget.check_time()
        start = i
        i += 1
        while changed[i + 1]:
            i += 1
        while other[j + 1]:
            j += 1
        while True:
            runlength = i - start
            while start and equivs[start - 1] == equivs[i - 1]:
                start -= 1
                changed[start + 1] = 1
                i -= 1
                changed[i + 1] = 0
                while changed[start]:
                    start -= 1
                j -= 1
                while other[j + 1]:
                    j -= 1
            corresponding = i if other[j] else end
            while i != end and equivs[start] == equivs[i]:
                changed[start + 1] = 0
                start += 1
                changed[i + 1] = 1
                i += 1
                while changed[i + 1]:
                    i += 1
                j += 1
                while other[j + 1]:
                    corresponding = i
                    j += 1
            if runlength == i - start:
                break
        while corresponding < i:
            start -= 1
            changed[start + 1] = 1
            i -= 1
            changed[i + 1] = 0
            j -= 1
            while other[j + 1]:
                j -= 1


def _built(changed0: list[int], changed1: list[int], skipped: int) -> list[Change]:
    """analyze.c's build_script: the runs of flagged lines as changes, in order, numbered in
    the whole files (`skipped`: the common first lines set aside)."""
    script: list[Change] = []
    i0, i1 = len(changed0) - 2, len(changed1) - 2
    while i0 >= 0 or i1 >= 0:
        if changed0[i0] or changed1[i1]:
            line0, line1 = i0, i1
            while changed0[i0]:
                i0 -= 1
            while changed1[i1]:
                i1 -= 1
            script.append(Change(i0 + skipped, i1 + skipped, line0 - i0, line1 - i1))
        i0 -= 1
        i1 -= 1
    script.reverse()
    return script


def script_of(
    a: list[str], b: list[str], white: int, icase: bool, minimal: bool, horizon: int
) -> list[Change]:
    """The changes from lines `a` to lines `b` (each with its newline, a last one perhaps
    without), as diff_2_files finds them: io.c sets aside the common first and last lines but
    `horizon` (the format's context) of each, the rest is compared."""
    n0, n1 = len(a), len(b)
    head = 0
    while head < min(n0, n1) and a[head] == b[head]:
        head += 1
    head = max(0, head - horizon)
    tail = 0
    budget.check_time()
    if (bool(a) and not a[-1].endswith("\n")) == (bool(b) and not b[-1].endswith("\n")):
        room = min(n0, n1) - head
        while tail < room and a[n0 - 1 - tail] == b[n1 - 1 - tail]:
            tail += 1
        tail = max(0, tail - horizon)
    middles = (a[head : n0 - tail], b[head : n1 - tail])
    equivs = _classes(middles, white, icase)
    changed = [[0] * (len(middle) + 2) for middle in middles]
    counts: list[dict[int, int]] = [{}, {}]
    for f in (0, 1):
        for number in equivs[f]:
            counts[f][number] = counts[f].get(number, 0) + 1
    kept: list[list[int]] = [[], []]
    real: tuple[list[int], list[int]] = ([], [])
    for f in (0, 1):
        discards = [0] * len(equivs[f]) if minimal else _discards(equivs[f], counts[1 - f])
        for i, number in enumerate(equivs[f]):
            if discards[i]:
                changed[f][i + 1] = 1
            else:
                kept[f].append(number)
                real[f].append(i)
    _Search(kept[0], kept[1], changed).compare(real, minimal)
    _shift(changed[0], changed[1], equivs[0])
    _shift(changed[1], changed[0], equivs[1])
    return _built(changed[0], changed[1], head)


def unified(old: str, new: str, names: tuple[str, str], moment: datetime) -> str:
    """`diff -u -N OLD NEW` of two texts as GNU prints it, both files of time `moment`: the two
    header lines and the hunks, or "" when the texts are the same (kubectl diff's files)."""
    a, b = files.lines_ended(old), files.lines_ended(new)
    script = script_of(a, b, 0, False, False, 3)
    style = out.Style("unified", 3, False, 0, False, False)
    if not out.differs(script, a, b, style):
        return ""
    headers = (out.header(names[0], moment, "unified"), out.header(names[1], moment, "unified"))
    return out.render(script, a, b, style, headers)


# ---------------------------------------------------------------------------- the tool


@dataclass
class _Input:
    name: str
    text: str | None  # None: absent (with -N, an empty file of 1970)
    moment: datetime


def _same_file(ctx: Context, one: str, other: str) -> bool:
    first, second = fs.locate(ctx, one), fs.locate(ctx, other)
    return first.file and second.file and first.path == second.path


def _inputs(ctx: Context, names: list[str], absent_empty: bool) -> tuple[_Input, _Input, bool]:
    """Both operands, as compare_files opens them, and whether they are the same file (a name
    given twice, or one file by two names: not read, the same). `-` is the pipe and a
    `<(...)` a pipe too: of the lab's time now; the home folder's files of `ls -l`'s time."""
    found: list[_Input] = []
    errors: list[str] = []
    same = False
    for name in names:
        where = fs.locate(ctx, name) if name != "-" and not name.startswith("/dev/fd/") else None
        if where is not None and where.folder:
            errors.append(f"{name}: comparing folders is not available in this lab")
            found.append(_Input(name, "", datetime_at(0)))
        elif found and (name == names[0] or _same_file(ctx, name, names[0])):
            found.append(_Input(name, found[0].text, found[0].moment))
            same = True
        elif name == "-" or name.startswith("/dev/fd/"):
            text = ctx.stdin if name == "-" else files.read(ctx, name)
            found.append(_Input(name, text, datetime_at(ctx.world.now)))
        else:
            found.append(_Input(name, files.read(ctx, name), datetime_at(0)))
    old, new = found
    for entry, other in ((old, new), (new, old)):
        if entry.text is None and absent_empty and other.text is not None:
            entry.moment = datetime(1970, 1, 1, tzinfo=UTC)
        elif entry.text is None:
            errors.append(f"{entry.name}: No such file or directory")
    if errors:
        raise out.Trouble("\n".join(errors), hint=False)
    return old, new, same


def _binary(text: str) -> bool:
    """io.c's test: a NUL in the first buffer (4 KiB) read."""
    return "\0" in text[:4096] and b"\0" in text[:4096].encode(errors="replace")[:4096]


def _stripped(text: str) -> str:
    """--strip-trailing-cr: a carriage return before a newline is gone (one at the end of a
    last line without its newline stays: diff strips before it adds the newline)."""
    return text.replace("\r\n", "\n")


def _compared(ctx: Context, opts: out.Options, names: list[str]) -> Output:
    flags = opts.flags
    form = opts.form or "normal"
    context = opts.context
    # The old -NUM: the context length, unless a -C/-U NUM asked for more.
    ocontext = opts.ocontext
    if ocontext >= 0 and form != "normal" and (ocontext > context or not opts.explicit):
        context = ocontext
    old, new, same = _inputs(ctx, names, "N" in flags)
    shown = [*opts.labels, *names[len(opts.labels) :]]
    pair = f"{shown[0]} and {shown[1]}"
    identical = f"Files {pair} are identical\n" if "s" in flags else ""
    differ = f"Files {pair} differ\n"
    texts = [old.text or "", new.text or ""]
    if same:
        return Output.exactly(identical)
    if "a" not in flags and (_binary(texts[0]) or _binary(texts[1])):
        if texts[0] == texts[1]:
            return Output.exactly(identical)
        return Output.exactly(differ if "q" in flags else f"Binary files {pair} differ\n", 1)
    if "strip" in flags:
        texts = [_stripped(text) for text in texts]
    a, b = (files.lines_ended(text) for text in texts)
    horizon = max(opts.horizon, context)
    script = script_of(a, b, opts.white, "i" in flags, "d" in flags, horizon)
    style = out.Style(form, context, "B" in flags, opts.white, "T" in flags, "t" in flags)
    if not out.differs(script, a, b, style):
        return Output.exactly(identical)
    if "q" in flags:
        return Output.exactly(differ, 1)
    headers = [out.header(f.name, f.moment, form) for f in (old, new)]
    headers[: len(opts.labels)] = opts.labels
    return Output.exactly(out.render(script, a, b, style, (headers[0], headers[1])), 1)


def _diff(ctx: Context, args: list[str]) -> Output:
    try:
        opts, names = out.parse(args)
        if opts.printed is not None:
            return Output.exactly(opts.printed)
        if len(names) < 2:
            last = names[-1] if names else args[-1] if args else "diff"
            raise out.Trouble(f"missing operand after '{last}'")
        if len(names) > 2:
            raise out.Trouble(f"extra operand '{names[2]}'")
        return _compared(ctx, opts, names)
    except out.Trouble as trouble:
        lines = [f"diff: {line}" for line in str(trouble).split("\n")]
        if trouble.hint:
            lines.append(f"diff: {try_help('diff')}")
        return Output.exactly("", 2, "\n".join(lines))


diff = tool("diff", _diff)
