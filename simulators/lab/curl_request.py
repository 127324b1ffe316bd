"""What `curl` (simulators.lab.curl) sends: its URLs (curl 7.81's parsing, `[1-3]` and `{a,b}`
globs), its body (`-d`, `--data-binary`, `--data-urlencode`, `@file`, `@-`) and its request
headers, and the transfer's failure (curl's exit status and error line)."""

from __future__ import annotations

import base64
import re
import urllib.parse
from dataclasses import dataclass

from simulators.lab import files, kubeconfig
from simulators.lab.curl_options import Options
from simulators.lab.curl_render import (
    USER_AGENT,
    warning,
)
from simulators.lab.tool import Context

_SERVER = urllib.parse.urlsplit(kubeconfig.SERVER)
API_HOST = _SERVER.hostname or "10.0.0.10"
API_PORT = _SERVER.port or 6443
LOOPBACK = {"localhost": "127.0.0.1", "kadmin": "127.0.1.1", "ip6-localhost": "::1"}
DEFAULT_PORTS = {"http": 80, "https": 443}
_BAD_URL = "URL using bad/illegal format or missing URL"


class Failure(Exception):
    """A transfer that failed: curl's exit status and its error line (and what follows it)."""

    def __init__(self, code: int, message: str, extra: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra


@dataclass
class Url:
    text: str
    scheme: str
    host: str
    port: int
    path: str  # the request target: path and query
    userinfo: str = ""

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.port == DEFAULT_PORTS.get(self.scheme):
            return host
        return f"{host}:{self.port}"


# --------------------------------------------------------------------- the request
def _read(ctx: Context, name: str) -> str | None:
    if name == "-":
        return ctx.stdin
    return files.read(ctx, name)


def body_of(ctx: Context, options: Options, stderr: list[str]) -> bytes | None:
    """The body -d, --data-binary, --data-raw and --data-urlencode make, joined by `&`; None
    without any. A file that cannot be read is curl's warning and an empty part."""
    if not options.data:
        return None
    parts: list[str] = []
    for how, value in options.data:
        if how in ("ascii", "binary") and value.startswith("@"):
            text = _read(ctx, value[1:])
            if text is None:
                if not options.silent:
                    stderr.append(
                        warning(
                            f'Couldn\'t read data from file "{value[1:]}", this makes an '
                            "empty POST."
                        )
                    )
                text = ""
            if how == "ascii":
                text = text.replace("\r", "").replace("\n", "")
            parts.append(text)
        elif how == "urlencode":
            parts.append(_urlencoded(ctx, value))
        else:
            parts.append(value)
    return "&".join(parts).encode()


def _urlencoded(ctx: Context, value: str) -> str:
    """--data-urlencode's forms: `content`, `=content`, `name=content`, `@file`,
    `name@file`."""

    def quoted(text: str) -> str:
        return urllib.parse.quote(text, safe="-._~")

    equals, at = value.find("="), value.find("@")
    if equals >= 0 and (at < 0 or equals < at):
        name, content = value[:equals], value[equals + 1 :]
        return f"{name}={quoted(content)}" if name else quoted(content)
    if at >= 0:
        name, content = value[:at], _read(ctx, value[at + 1 :]) or ""
        return f"{name}={quoted(content)}" if name else quoted(content)
    return quoted(value)


def globbed(url: str, off: bool) -> list[str]:
    """The URLs a glob names (`{a,b}` lists, `[1-3]` and `[a-c]` ranges), as curl expands
    them unless -g; its error for a broken one."""
    if off:
        return [url]
    found: list[list[str]] = [[""]]
    i = 0
    while i < len(url):
        char = url[i]
        if char == "{":
            end = url.find("}", i)
            if end < 0:
                raise Failure(3, f"unmatched brace in URL position {i + 1}:\n{url}\n{' ' * i}^")
            found.append(url[i + 1 : end].split(","))
            found.append([""])
            i = end + 1
            continue
        if char == "[" and not re.match(r"\[[0-9a-fA-F:.]*:[0-9a-fA-F:.]*\]", url[i:]):
            end = url.find("]", i)
            match = re.fullmatch(r"(\d+)-(\d+)|([a-z])-([a-z])|([A-Z])-([A-Z])", url[i + 1 : end])
            if end < 0 or match is None:
                raise Failure(3, f"bad range in URL position {i + 1}:\n{url}\n{' ' * i}^")
            if match.group(1) is not None:
                low, high = match.group(1), match.group(2)
                width = len(low) if low.startswith("0") else 0
                values = [str(n).zfill(width) for n in range(int(low), int(high) + 1)]
            else:
                low, high = (g for g in match.groups() if g is not None)
                values = [chr(c) for c in range(ord(low), ord(high) + 1)]
            if not values or len(values) > 1000:
                raise Failure(3, f"bad range in URL position {i + 1}:\n{url}\n{' ' * i}^")
            found.append(values)
            found.append([""])
            i = end + 1
            continue
        if char in "}]":
            raise Failure(3, f"unmatched close brace/bracket in URL position {i + 1}:\n{url}\n"
                          f"{' ' * i}^")  # fmt: skip
        found[-1] = [found[-1][0] + char]
        i += 1
    urls = [""]
    for choices in found:
        urls = [u + c for u in urls for c in choices]
        if len(urls) > 1000:
            raise Failure(3, "too many URLs in the glob (the lab stops at 1000)")
    return urls


def parse_url(text: str) -> Url:
    given = text.split("#", 1)[0]
    if any(ord(c) <= 32 or ord(c) == 127 for c in given):
        raise Failure(3, _BAD_URL)
    scheme_match = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", given)
    if scheme_match:
        scheme, rest = scheme_match.group(1).lower(), given[scheme_match.end() :]
    else:
        scheme, rest = "http", given
    split = re.search(r"[/?]", rest)
    authority, target = (rest[: split.start()], rest[split.start() :]) if split else (rest, "")
    userinfo, _, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        host, _, after = hostport[1:].partition("]")
        port_text = after[1:] if after.startswith(":") else ""
    else:
        host, _, port_text = hostport.partition(":")
    if not host:
        raise Failure(3, _BAD_URL)
    port = DEFAULT_PORTS.get(scheme, 0)
    if port_text:
        if not port_text.isdigit():
            bad = next(c for c in port_text if not c.isdigit())
            raise Failure(3, f"Port number ended with '{bad}'")
        port = int(port_text)
        if port > 65535:
            raise Failure(3, _BAD_URL)
    if target.startswith("?") or not target:
        target = "/" + target
    return Url(given, scheme, host.lower(), port, target, userinfo)


def normalized(target: str) -> str:
    """The path without its dot segments (RFC 3986's remove_dot_segments), as curl sends it
    unless --path-as-is."""
    path, question, query = target.partition("?")
    out: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == "..":
            if out:
                out.pop()
        elif segment != ".":
            out.append(segment)
    if path.endswith(("/.", "/..")):
        out.append("")
    return "/" + "/".join(out) + question + query


def request_headers(options: Options, url: Url, data: bytes | None) -> list[tuple[str, str]]:
    """The headers curl sends, in its order: Host, Authorization (-u), User-Agent, Accept,
    Referer, the -H ones (replacing, emptying or removing its own), then the body's."""
    own: list[tuple[str, str]] = [("Host", url.host_header)]
    user = options.user if options.user is not None else urllib.parse.unquote(url.userinfo)
    if user:
        credentials = user if ":" in user else user + ":"
        own.append(("Authorization", "Basic " + base64.b64encode(credentials.encode()).decode()))
    if options.bearer is not None:
        own.append(("Authorization", f"Bearer {options.bearer}"))
    if options.user_agent is None:
        own.append(("User-Agent", USER_AGENT))
    elif options.user_agent:
        own.append(("User-Agent", options.user_agent))
    own.append(("Accept", "*/*"))
    if options.referer:
        own.append(("Referer", options.referer))
    body_headers: list[tuple[str, str]] = []
    if data is not None and not options.get:
        body_headers = [
            ("Content-Length", str(len(data))),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ]
    custom: list[tuple[str, str]] = []
    removed: set[str] = set()
    for header in options.headers:
        name, colon, value = header.partition(":")
        if colon and name.strip():
            name, value = name.strip(), value.strip()
            if not value:
                removed.add(name.lower())
                continue
            custom.append((name, value))
        elif header.endswith(";") and header[:-1].strip():
            custom.append((header[:-1].strip(), ""))
    overridden = removed | {name.lower() for name, _ in custom}
    host = [(n, v) for n, v in custom if n.lower() == "host"]
    kept = [(n, v) for n, v in own if n.lower() not in overridden]
    if host and "host" not in removed:
        kept.insert(0, host[0])
    others = [(n, v) for n, v in custom if n.lower() != "host"]
    return kept + others + [(n, v) for n, v in body_headers if n.lower() not in overridden]
