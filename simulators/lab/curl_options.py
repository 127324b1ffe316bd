"""curl 7.81's command line, as its getparameter reads it: short options bundled (`-sSk`, a
value the rest of the word or the next one: `-XPOST`, `-X POST`), long options with their value
in the next word only (`--max-time=5` is unknown), options and URLs in any order, and the
messages and status 2 of a line it cannot read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TRY = "curl: try 'curl --help' or 'curl --manual' for more information"

# long name -> (short letter or "", takes a value)
LONG: dict[str, tuple[str, bool]] = {
    "insecure": ("k", False),
    "header": ("H", True),
    "request": ("X", True),
    "data": ("d", True),
    "data-ascii": ("", True),
    "data-binary": ("", True),
    "data-raw": ("", True),
    "data-urlencode": ("", True),
    "get": ("G", False),
    "silent": ("s", False),
    "show-error": ("S", False),
    "include": ("i", False),
    "output": ("o", True),
    "remote-name": ("O", False),
    "write-out": ("w", True),
    "fail": ("f", False),
    "fail-with-body": ("", False),
    "verbose": ("v", False),
    "max-time": ("m", True),
    "connect-timeout": ("", True),
    "cacert": ("", True),
    "capath": ("", True),
    "cert": ("E", True),
    "key": ("", True),
    "user": ("u", True),
    "user-agent": ("A", True),
    "oauth2-bearer": ("", True),
    "location": ("L", False),
    "globoff": ("g", False),
    "http1.1": ("", False),
    "http2": ("", False),
    "no-progress-meter": ("", False),
    "compressed": ("", False),
    "url": ("", True),
    "noproxy": ("", True),
    "retry": ("", True),
    "path-as-is": ("", False),
    "referer": ("e", True),
    "help": ("h", False),
    "version": ("V", False),
    # Real options the lab's curl does not serve: refused in one line.
    "head": ("I", False),
    "form": ("F", True),
    "upload-file": ("T", True),
    "proxy": ("x", True),
    "cookie": ("b", True),
    "cookie-jar": ("c", True),
    "resolve": ("", True),
    "unix-socket": ("", True),
    "config": ("K", True),
    "parallel": ("Z", False),
    "trace": ("", True),
    "trace-ascii": ("", True),
    "no-buffer": ("N", False),
    "continue-at": ("C", True),
    "range": ("r", True),
    "dump-header": ("D", True),
}
SHORT: dict[str, str] = {short: name for name, (short, _) in LONG.items() if short}
UNSERVED = {
    "head", "form", "upload-file", "proxy", "cookie", "cookie-jar", "resolve", "unix-socket",
    "config", "parallel", "trace", "trace-ascii", "no-buffer", "continue-at", "range",
    "dump-header",
}  # fmt: skip


class CurlUsage(Exception):
    """str() is curl's whole message (status 2)."""


@dataclass
class Options:
    """What the command line asked for."""

    urls: list[str] = field(default_factory=list)
    insecure: bool = False
    headers: list[str] = field(default_factory=list)
    method: str | None = None
    # (how, value): "ascii" (-d), "binary", "raw", "urlencode"
    data: list[tuple[str, str]] = field(default_factory=list)
    get: bool = False
    silent: bool = False
    show_error: bool = False
    include: bool = False
    output: str | None = None
    remote_name: bool = False
    write_out: str | None = None
    fail: bool = False
    fail_with_body: bool = False
    verbose: bool = False
    max_time: float | None = None
    cacert: str | None = None
    cert: str | None = None
    key: str | None = None
    user: str | None = None
    user_agent: str | None = None
    bearer: str | None = None
    globoff: bool = False
    http1: bool = False
    no_progress: bool = False
    path_as_is: bool = False
    referer: str | None = None
    help: bool = False
    version: bool = False

    @property
    def show_errors(self) -> bool:
        """Whether curl prints its error line: not with -s, unless -S."""
        return not self.silent or self.show_error


def _number(flag: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if number < 0 or value.strip() != value or value.lower() in ("inf", "nan", "infinity"):
        raise CurlUsage(f"curl: option {flag}: expected a proper numerical parameter\n{TRY}")
    return number


def _apply(options: Options, name: str, flag: str, value: str) -> None:
    if name in UNSERVED:
        raise CurlUsage(
            f"curl: option {flag}: the lab's curl does not serve it (it speaks HTTP to the "
            "cluster's API: -H, -X, -d, -i, -o, -w, -f, -s, -k, --cacert, --cert)"
        )
    if name in ("data", "data-ascii"):
        options.data.append(("ascii", value))
    elif name in ("data-binary", "data-raw", "data-urlencode"):
        options.data.append((name[5:], value))
    elif name == "header":
        options.headers.append(value)
    elif name == "request":
        options.method = value
    elif name == "output":
        options.output = value
    elif name == "write-out":
        options.write_out = value
    elif name == "max-time":
        options.max_time = _number(flag, value)
    elif name in ("connect-timeout", "retry"):
        _number(flag, value)
    elif name == "cacert":
        options.cacert = value
    elif name == "cert":
        options.cert = value
    elif name == "key":
        options.key = value
    elif name == "user":
        options.user = value
    elif name == "user-agent":
        options.user_agent = value
    elif name == "oauth2-bearer":
        options.bearer = value
    elif name == "url":
        options.urls.append(value)
    elif name == "referer":
        options.referer = value
    else:
        _switch(options, name)


_SWITCHES = {
    "insecure": "insecure",
    "get": "get",
    "silent": "silent",
    "show-error": "show_error",
    "include": "include",
    "remote-name": "remote_name",
    "fail": "fail",
    "fail-with-body": "fail_with_body",
    "verbose": "verbose",
    "globoff": "globoff",
    "http1.1": "http1",
    "no-progress-meter": "no_progress",
    "path-as-is": "path_as_is",
    "help": "help",
    "version": "version",
}


def _switch(options: Options, name: str) -> None:
    attribute = _SWITCHES.get(name)
    if attribute is not None:
        setattr(options, attribute, True)
    elif name == "http2":
        options.http1 = False
    # --location, --compressed, --noproxy, --capath: taken, nothing to do here


def parse(args: list[str]) -> Options:
    """The options and URLs of a curl command line; CurlUsage for one curl refuses."""
    options = Options()
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg.startswith("--") and len(arg) > 2:
            name = arg[2:]
            entry = LONG.get(name)
            if entry is None:
                raise CurlUsage(f"curl: option {arg}: is unknown\n{TRY}")
            value = ""
            if entry[1]:
                if i >= len(args):
                    raise CurlUsage(f"curl: option {arg}: requires parameter\n{TRY}")
                value = args[i]
                i += 1
            _apply(options, name, arg, value)
            continue
        if arg.startswith("-") and len(arg) > 1:
            j = 1
            while j < len(arg):
                letter = arg[j]
                long_name = SHORT.get(letter)
                if long_name is None:
                    raise CurlUsage(f"curl: option -{letter}: is unknown\n{TRY}")
                if LONG[long_name][1]:
                    value = arg[j + 1 :]
                    if not value:
                        if i >= len(args):
                            raise CurlUsage(f"curl: option -{letter}: requires parameter\n{TRY}")
                        value = args[i]
                        i += 1
                    _apply(options, long_name, f"-{letter}", value)
                    break
                _apply(options, long_name, f"-{letter}", "")
                j += 1
            continue
        options.urls.append(arg)
    return options
