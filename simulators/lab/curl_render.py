"""What curl 7.81 prints around a transfer: the response's status line and headers (`-i`, and
`-v`'s `<` lines) as kube-apiserver sends them over HTTP/2 (curl's default over TLS) or
HTTP/1.1, `-v`'s connection and request lines, `-w`'s variables, the progress meter a transfer
to a file shows, `--help` and `--version`.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.utils import format_datetime
from http import HTTPStatus

VERSION = "7.81.0"
USER_AGENT = f"curl/{VERSION}"
VERSION_TEXT = (
    f"curl {VERSION} (x86_64-pc-linux-gnu) libcurl/{VERSION} OpenSSL/3.0.2 zlib/1.2.11 "
    "brotli/1.0.9 zstd/1.4.8 libidn2/2.3.2 libpsl/0.21.0 (+libidn2/2.3.2) "
    "libssh/0.9.6/openssl/zlib nghttp2/1.43.0 librtmp/2.3 OpenLDAP/2.5.11\n"
    "Release-Date: 2022-01-05\n"
    "Protocols: dict file ftp ftps gopher gophers http https imap imaps ldap ldaps mqtt pop3 "
    "pop3s rtmp rtsp scp sftp smb smbs smtp smtps telnet tftp \n"
    "Features: alt-svc AsynchDNS brotli GSS-API HSTS HTTP2 HTTPS-proxy IDN IPv6 Kerberos "
    "Largefile libz NTLM NTLM_WB PSL SPNEGO SSL TLS-SRP UnixSockets zstd\n"
)
HELP_TEXT = """Usage: curl [options...] <url>
 -d, --data <data>          HTTP POST data
 -f, --fail                 Fail silently (no output at all) on HTTP errors
 -h, --help <category>      Get help for commands
 -i, --include              Include protocol response headers in the output
 -o, --output <file>        Write to file instead of stdout
 -O, --remote-name          Write output to a file named as the remote file
 -s, --silent               Silent mode
 -T, --upload-file <file>   Transfer local FILE to destination
 -u, --user <user:password> Server user and password
 -A, --user-agent <name>    Send User-Agent <name> to server
 -v, --verbose              Make the operation more talkative
 -V, --version              Show version number and quit

This is not the full help, this menu is stripped into categories.
Use "--help category" to get an overview of all categories.
For all options use the manual or "--help all".
"""
CA_CERT_ERROR = (
    "More details here: https://curl.se/docs/sslcerts.html\n\n"
    "curl failed to verify the legitimacy of the server and therefore could not\n"
    "establish a secure connection to it. To learn more about this situation and\n"
    "how to fix it, please visit the web page mentioned above."
)
# Go's HTTP/2 server buffers this much of a handler's output: a body that fits is sent with
# its Content-Length, a longer one without (HTTP/1.1: chunked past 2 KiB).
_H2_BUFFER = 4096
_H1_BUFFER = 2048


@dataclass
class Reply:
    """One HTTP exchange as curl saw it."""

    code: int
    headers: list[tuple[str, str]]
    body: bytes
    version: str = "2"  # "2", "1.1" or "1.0"
    reason: str = ""

    def status_line(self) -> str:
        if self.version == "2":
            return f"HTTP/2 {self.code} "
        reason = self.reason or _reason(self.code)
        return f"HTTP/{self.version} {self.code} {reason}"

    def header_block(self) -> str:
        """The status line and headers as `-i` prints them (CRLF ends each line); nothing for
        a file (`file://`)."""
        if self.version == "0":
            return ""
        lines = [self.status_line(), *(f"{name}: {value}" for name, value in self.headers), ""]
        return "".join(line + "\r\n" for line in lines)


def _reason(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return ""


def _uid(*parts: str) -> str:
    digest = hashlib.sha256("\x00".join(parts).encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def api_headers(
    *,
    code: int,
    content_type: str,
    cache: bool,
    size: int | None,
    now: datetime,
    user: str,
    request_id: str,
    http1: bool,
) -> list[tuple[str, str]]:
    """kube-apiserver's response headers: its audit id, Cache-Control on JSON answers, the
    content type, `nosniff` on an authorization 403, the priority-and-fairness ids (not on a
    401: authentication refuses before API Priority and Fairness), then what Go's server adds
    (Content-Length for a body its buffer held, and Date). `size` None: a stream."""
    pairs: list[tuple[str, str]] = [("audit-id", _uid("audit", request_id))]
    if cache:
        pairs.append(("cache-control", "no-cache, private"))
    pairs.append(("content-type", content_type))
    if code == 403:
        pairs.append(("x-content-type-options", "nosniff"))
    if code != 401:
        schema = (
            "service-accounts"
            if user.startswith("system:serviceaccount:")
            else "exempt"
            if user == "kubernetes-admin"
            else "global-default"
        )
        pairs.append(("x-kubernetes-pf-flowschema-uid", _uid("flowschema", schema)))
        pairs.append(("x-kubernetes-pf-prioritylevel-uid", _uid("prioritylevel", schema)))
    date = format_datetime(now, usegmt=True)
    if http1:
        # Go's HTTP/1.1 server: the handler's headers by canonical name, then its own.
        named = [("-".join(p.capitalize() for p in k.split("-")), v) for k, v in pairs]
        if size is not None and size <= _H1_BUFFER:
            return [*named, ("Date", date), ("Content-Length", str(size))]
        return [*named, ("Transfer-Encoding", "chunked"), ("Date", date)]
    if size is not None and size <= _H2_BUFFER:
        pairs.append(("content-length", str(size)))
    pairs.append(("date", date))
    return pairs


# --------------------------------------------------------------------- -v
def certificate_dates(created: datetime) -> tuple[str, str]:
    """The API server's certificate's validity as OpenSSL prints it: a year from the cluster's
    first day (kubeadm's)."""

    def shown(when: datetime) -> str:
        return when.strftime("%b ") + f"{when.day:2d}" + when.strftime(" %H:%M:%S %Y GMT")

    return shown(created), shown(created + timedelta(days=365))


@dataclass
class Verbose:
    """`-v`'s lines on stderr, in order."""

    lines: list[str] = field(default_factory=list)

    def info(self, text: str) -> None:
        self.lines.append(f"* {text}")

    def sent(self, text: str) -> None:
        self.lines.append(f"> {text}")

    def received(self, text: str) -> None:
        self.lines.append(f"< {text}")


# --------------------------------------------------------------------- -w
def write_out(format_text: str, values: dict[str, str]) -> tuple[str, str, list[str]]:
    """(stdout, stderr, warnings) of a `-w` format: `%{name}` from `values`, `%%`, and the
    backslash escapes `\\n \\r \\t \\\\`; `%{stderr}` and `%{stdout}` switch where the rest
    goes."""
    out: list[str] = []
    err: list[str] = []
    warnings: list[str] = []
    target = out
    i = 0
    while i < len(format_text):
        char = format_text[i]
        if char == "%" and format_text.startswith("%%", i):
            target.append("%")
            i += 2
            continue
        if char == "%" and format_text.startswith("%{", i):
            end = format_text.find("}", i + 2)
            if end < 0:
                target.append(format_text[i:])
                break
            name = format_text[i + 2 : end]
            if name == "stderr":
                target = err
            elif name == "stdout":
                target = out
            elif name in values:
                target.append(values[name])
            else:
                warnings.append(f"curl: unknown --write-out variable: '{name}'")
            i = end + 1
            continue
        if char == "\\" and i + 1 < len(format_text):
            escaped = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}.get(format_text[i + 1])
            if escaped is not None:
                target.append(escaped)
                i += 2
                continue
        target.append(char)
        i += 1
    return "".join(out), "".join(err), warnings


# --------------------------------------------------------------------- progress meter
def _max5(size: float) -> str:
    """curl's max5data: a size in five characters."""
    number = int(size)
    if number < 100000:
        return f"{number:5d}"
    if number < 10000 * 1024:
        return f"{number // 1024:4d}k"
    if number < 100 * 1024 * 1024:
        mega = 1024 * 1024
        return f"{number // mega:2d}.{(number % mega) // (mega // 10)}M"
    return f"{number // (1024 * 1024):4d}M"


def progress_meter(received: int, uploaded: int, seconds: float) -> str:
    """The meter a transfer to a file shows on stderr, as it stands when the transfer ends."""
    header = (
        "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n"
        "                                 Dload  Upload   Total   Spent    Left  Speed\n"
    )
    total = received + uploaded
    down = received / seconds if seconds else 0
    up = uploaded / seconds if seconds else 0
    line = (
        f"{100 if total else 0:3d} {_max5(total)}  "
        f"{100 if received else 0:3d} {_max5(received)}  "
        f"{100 if uploaded else 0:3d} {_max5(uploaded)}  "
        f"{_max5(down)}  {_max5(up)} --:--:-- --:--:-- --:--:-- {_max5(down)}"
    )
    return header + line


def warning(text: str) -> str:
    """curl's warnf: `Warning: ` before each piece of the text cut at 79 columns."""
    prefix = "Warning: "
    width = 79 - len(prefix)
    lines = []
    rest = text
    while rest:
        if len(rest) > width:
            cut = width - 1
            while cut and not rest[cut].isspace():
                cut -= 1
            if cut == 0:
                cut = width - 1
            lines.append(prefix + rest[: cut + 1])
            rest = rest[cut + 1 :]
        else:
            lines.append(prefix + rest)
            rest = ""
    return "\n".join(line.rstrip("\n") for line in lines)
