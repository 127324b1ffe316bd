"""kubectl logs' flags read as kubectl 1.36 reads them (pkg/cmd/logs/logs.go).

pflag parses `--tail`, `--limit-bytes` and `--max-log-requests` with Go's strconv.ParseInt
(base 0: `0x10`, `0o17`, `1_000`), `--since` and `--pod-running-timeout` with
time.ParseDuration, and LogsOptions reads `--since-time` as RFC 3339 with time.Parse. Each
refusal here is kubectl's own text, word for word; `read` raises it as a KubectlError in the
order kubectl checks (pflag, then Complete's checks before it asks the server). `validate`
is LogsOptions.Validate, which runs after the server found the object.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass

from simulators.lab.flags import Parsed
from simulators.lab.gotext import go_quote
from simulators.lab.kubectl.common import KubectlError, see

SECOND = 1_000_000_000
# defaultPodLogsTimeout: how long kubectl waits for a workload's first pod.
DEFAULT_POD_TIMEOUT = 20 * SECOND
# --max-log-requests' default: how many logs kubectl follows at once.
DEFAULT_MAX_REQUESTS = 5
# The tail kubectl asks for with a selector and no --tail (selectorTail).
SELECTOR_TAIL = 10


@dataclass
class LogsOptions:
    """What `kubectl logs` was asked for; `container` is -c's value or the inline
    [CONTAINER] word (which of the two gave it: `container_flag`)."""

    container: str = ""
    container_flag: bool = False
    selector: str = ""
    tail: int = -1
    tail_given: bool = False
    limit_bytes: int = 0
    since: int = 0  # nanoseconds
    since_time: str = ""
    pod_timeout: int = DEFAULT_POD_TIMEOUT  # nanoseconds
    max_requests: int = DEFAULT_MAX_REQUESTS
    previous: bool = False
    follow: bool = False
    prefix: bool = False
    all_containers: bool = False
    all_pods: bool = False
    ignore_errors: bool = False

    def tail_lines(self) -> int | None:
        """PodLogOptions.tailLines as ToLogOptions sets it: ten with a selector and no
        --tail, --tail when it is not -1, else none (the whole log)."""
        if self.selector and self.tail == -1 and not self.tail_given:
            return SELECTOR_TAIL
        return None if self.tail == -1 else self.tail


def read(parsed: Parsed) -> LogsOptions:
    """The flags' values (pflag's refusal of one it cannot read), then what Complete checks
    before it asks the server: --pod-running-timeout above zero and a readable --since-time.
    The positional words are checked by the caller (they decide which usage error)."""
    opts = LogsOptions(
        selector=parsed.value("selector") or "",
        container=parsed.value("container") or "",
        container_flag=parsed.value("container") is not None,
        since_time=parsed.value("since-time") or "",
        previous=parsed.has("previous"),
        follow=parsed.has("follow"),
        prefix=parsed.has("prefix"),
        all_containers=parsed.has("all-containers"),
        all_pods=parsed.has("all-pods"),
        ignore_errors=parsed.has("ignore-errors"),
    )
    tail = parsed.value("tail")
    if tail is not None:
        opts.tail, opts.tail_given = _int_flag("tail", tail), True
    if (limit := parsed.value("limit-bytes")) is not None:
        opts.limit_bytes = _int_flag("limit-bytes", limit)
    if (since := parsed.value("since")) is not None:
        opts.since = _duration_flag("since", since)
    if (timeout := parsed.value("pod-running-timeout")) is not None:
        opts.pod_timeout = _duration_flag("pod-running-timeout", timeout)
    if (most := parsed.value("max-log-requests")) is not None:
        opts.max_requests = _int_flag("max-log-requests", most)
    return opts


def complete(opts: LogsOptions) -> None:
    """Complete's checks before the resource builder: the pod timeout, then --since-time."""
    if opts.pod_timeout <= 0:
        raise KubectlError("error: --pod-running-timeout must be higher than zero")
    if opts.since_time:
        try:
            parse_rfc3339(opts.since_time)
        except ValueError as exc:
            raise KubectlError(f"error: {exc}") from None


def validate(opts: LogsOptions, inline_container: bool) -> None:
    """LogsOptions.Validate, in its order; `inline_container`: a second positional word."""
    if opts.since_time and opts.since:
        raise KubectlError("error: at most one of `sinceTime` or `sinceSeconds` may be specified")
    if opts.all_containers and opts.container:
        raise KubectlError(
            "error: --all-containers=true should not be specified with container name "
            + opts.container
        )
    if opts.container_flag and inline_container:
        raise KubectlError("error: only one of -c or an inline [CONTAINER] arg is allowed")
    if opts.limit_bytes < 0:
        raise KubectlError("error: --limit-bytes must be greater than 0")
    if opts.since and _round_seconds(opts.since) < 0:
        raise KubectlError("error: --since must be greater than 0")
    tail = opts.tail_lines()
    if tail is not None and tail < -1:
        raise KubectlError("error: --tail must be greater than or equal to -1")


def _round_seconds(nanos: int) -> int:
    """time.Duration.Round(time.Second) in seconds: halves away from zero."""
    whole, rest = divmod(abs(nanos), SECOND)
    if rest * 2 >= SECOND:
        whole += 1
    return whole if nanos >= 0 else -whole


def _flag_error(flag: str, text: str, why: str) -> KubectlError:
    """pflag's refusal of a value it could not read, with cobra's hint."""
    return KubectlError(
        f'error: invalid argument {go_quote(text)} for "--{flag}" flag: {why}\n{see("logs")}'
    )


def _int_flag(flag: str, text: str) -> int:
    """An int64 (or int) flag's value, as pflag reads it."""
    try:
        return parse_int(text)
    except ValueError as exc:
        raise _flag_error(flag, text, str(exc)) from None


def _duration_flag(flag: str, text: str) -> int:
    """A duration flag's value in nanoseconds, as pflag reads it."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise _flag_error(flag, text, str(exc)) from None


# ------------------------------------------------------------------------- Go's quoting


def _time_quote(text: str) -> str:
    """The time package's own quote: non-ASCII and control characters as \\x bytes."""
    out: list[str] = []
    for ch in text:
        if ord(ch) >= 0x80 or ch < " ":
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", errors="surrogatepass"))
        else:
            out.append("\\" + ch if ch in '"\\' else ch)
    return '"' + "".join(out) + '"'


# ------------------------------------------------------------------- strconv.ParseInt


def parse_int(text: str) -> int:
    """strconv.ParseInt(text, 0, 64): a sign, a base prefix (0x, 0o, 0b, or 0 for octal),
    underscores between digits; ValueError carries Go's message."""
    syntax = ValueError(f"strconv.ParseInt: parsing {go_quote(text)}: invalid syntax")
    out_of_range = ValueError(f"strconv.ParseInt: parsing {go_quote(text)}: value out of range")
    rest, negative = text, False
    if rest[:1] in ("+", "-"):
        negative, rest = rest[0] == "-", rest[1:]
    if not rest:
        raise syntax
    base, digits = 10, rest
    if rest[0] == "0":
        prefix = rest[1:2].lower()
        if len(rest) >= 3 and prefix in ("b", "o", "x"):
            base, digits = {"b": 2, "o": 8, "x": 16}[prefix], rest[2:]
        else:
            base, digits = 8, rest[1:]
    value, underscores = 0, False
    for ch in digits:
        if ch == "_":
            underscores = True
            continue
        if "0" <= ch <= "9":
            digit = ord(ch) - ord("0")
        elif "a" <= ch.lower() <= "z" and ch.isascii():
            digit = ord(ch.lower()) - ord("a") + 10
        else:
            raise syntax
        if digit >= base:
            raise syntax
        value = value * base + digit
        if value >= 1 << 64:
            raise out_of_range
    if underscores and not _underscores_ok(rest):
        raise syntax
    if (not negative and value >= 1 << 63) or (negative and value > 1 << 63):
        raise out_of_range
    return -value if negative else value


def _underscores_ok(text: str) -> bool:
    """strconv's underscoreOK: each underscore sits between digits (or after a base prefix)."""
    saw, i, hexa = "^", 0, False
    if len(text) >= 2 and text[0] == "0" and text[1].lower() in ("b", "o", "x"):
        i, saw, hexa = 2, "0", text[1].lower() == "x"
    for ch in text[i:]:
        if ("0" <= ch <= "9") or (hexa and "a" <= ch.lower() <= "f"):
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


# ------------------------------------------------------------------ time.ParseDuration

_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": SECOND,
    "m": 60 * SECOND,
    "h": 3600 * SECOND,
}


def parse_duration(text: str) -> int:
    """time.ParseDuration in nanoseconds; ValueError carries Go's message."""
    invalid = ValueError(f"time: invalid duration {_time_quote(text)}")
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise invalid
    total = 0
    while rest:
        if not (rest[0] == "." or "0" <= rest[0] <= "9"):
            raise invalid
        i = _digits(rest)
        whole, rest = rest[:i], rest[i:]
        fraction = ""
        if rest[:1] == ".":
            j = _digits(rest, 1)
            fraction, rest = rest[1:j], rest[j:]
        if not whole and not fraction:
            raise invalid
        k = 0
        while k < len(rest) and not (rest[k] == "." or "0" <= rest[k] <= "9"):
            k += 1
        if k == 0:
            raise ValueError(f"time: missing unit in duration {_time_quote(text)}")
        unit, rest = rest[:k], rest[k:]
        if unit not in _UNITS:
            raise ValueError(
                f"time: unknown unit {_time_quote(unit)} in duration {_time_quote(text)}"
            )
        value = int(whole or "0") * _UNITS[unit]
        if fraction:
            value += int(int(fraction) * (_UNITS[unit] / 10 ** len(fraction)))
        total += value
        if total > 1 << 63:
            raise invalid
    if not negative and total > (1 << 63) - 1:
        raise invalid
    return -total if negative else total


def _digits(text: str, start: int = 0) -> int:
    """Where the run of ASCII digits from `start` ends."""
    i = start
    while i < len(text) and "0" <= text[i] <= "9":
        i += 1
    return i


# --------------------------------------------------------------- time.Parse(RFC3339)

RFC3339 = "2006-01-02T15:04:05Z07:00"
# The layout's elements after their literal prefix: (prefix, element).
_LAYOUT = [("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05")]


class _Bad(Exception):
    """An element of the value that does not read as its layout element."""


def parse_rfc3339(value: str) -> None:
    """time.Parse(time.RFC3339, value), for its refusal only (ValueError, Go's message):
    the lab's logs keep no times, so a readable time changes nothing they show."""
    whole = _time_quote(value)

    def cannot(element: str, rest: str) -> ValueError:
        """Go's `cannot parse REST as ELEMENT`."""
        return ValueError(
            f"parsing time {whole} as {_time_quote(RFC3339)}: cannot parse "
            f"{_time_quote(rest)} as {_time_quote(element)}"
        )

    def out_of_range(what: str) -> ValueError:
        """Go's `WHAT out of range`."""
        return ValueError(f"parsing time {whole}: {what} out of range")

    rest = value
    numbers: dict[str, int] = {}
    for prefix, element in _LAYOUT:
        if not rest.startswith(prefix):
            # skip() stops at the first character that differs: what is left from there.
            same = 0
            while same < len(prefix) and same < len(rest) and rest[same] == prefix[same]:
                same += 1
            raise cannot(prefix, rest[same:])
        rest = rest[len(prefix) :]
        hold = rest
        try:
            number, rest = _element(element, rest)
        except _Bad:
            raise cannot(element, hold) from None
        numbers[element] = number
        limits = {"01": (1, 12, "month"), "15": (0, 23, "hour"), "04": (0, 59, "minute")}
        limits["05"] = (0, 59, "second")
        if element in limits:
            low, high, what = limits[element]
            if not low <= number <= high:
                raise out_of_range(what)
        if element == "05" and len(rest) >= 2 and rest[0] in ".," and rest[1].isdigit():
            rest = rest[_digits(rest, 1) :]  # a fraction of a second
    hold = rest
    if rest.startswith("Z"):
        rest = rest[1:]
    else:
        if len(rest) < 6 or rest[3] != ":":
            raise cannot("Z07:00", hold)
        sign, hours, minutes, rest = rest[0], rest[1:3], rest[4:6], rest[6:]
        # As Go: the offset's numbers (0 where unreadable), their ranges, then the errors.
        bad = not _two_digits(hours) or not _two_digits(minutes)
        hour = int(hours) if _two_digits(hours) else 0
        minute = int(minutes) if _two_digits(hours) and _two_digits(minutes) else 0
        if hour > 24:
            raise out_of_range("time zone offset hour")
        if minute > 60:
            raise out_of_range("time zone offset minute")
        if bad or sign not in "+-":
            raise cannot("Z07:00", hold)
    if rest:
        raise ValueError(f"parsing time {whole}: extra text: {_time_quote(rest)}")
    year, month, day = numbers["2006"], numbers["01"], numbers["02"]
    if day < 1 or day > calendar.monthrange(year, month)[1]:
        raise out_of_range("day")


def _two_digits(text: str) -> bool:
    """Whether `text` is exactly two ASCII digits (getnum, fixed)."""
    return len(text) == 2 and all("0" <= c <= "9" for c in text)


def _element(element: str, rest: str) -> tuple[int, str]:
    """One numeric element: the year's four digits, the hour's one or two, two otherwise."""
    if element == "2006":
        if len(rest) < 4 or not all("0" <= c <= "9" for c in rest[:4]):
            raise _Bad
        return int(rest[:4]), rest[4:]
    if not rest[:1] or not "0" <= rest[0] <= "9":
        raise _Bad
    if len(rest) < 2 or not "0" <= rest[1] <= "9":
        if element != "15":
            raise _Bad
        return int(rest[0]), rest[1:]
    return int(rest[:2]), rest[2:]
