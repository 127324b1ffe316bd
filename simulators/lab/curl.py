"""`curl` on the admin host: curl 7.81 (Ubuntu 22.04's), on a host whose only neighbour that
answers is the cluster's API server, https://10.0.0.10:6443 (the kubeconfig's server).

The API answers from the lab's own store through the cluster's transport-free API
(``simulators.cluster.http_api.respond``: the same code the HTTP server runs for the real
kubectl), as the user the request authenticates as: a service account's bearer token
(``kubectl create token``), the admin's client certificate and key from the kubeconfig
(``--cert``/``--key``), or nobody (``system:anonymous``, whom kubeadm's RBAC lets read little
but ``/version`` and ``/healthz``); a token the server does not know is its 401. The body is
what kube-apiserver sends curl: Go's indented JSON (curl's User-Agent asks for it).

curl's side is 7.81's: TLS is verified against the system's CAs, which do not hold the cluster's
CA (exit 60) unless ``-k`` or ``--cacert`` names a file that holds the kubeconfig's
``certificate-authority-data`` decoded, alone or in a bundle (``kubeconfig.holds_ca``, which
kubectl asks too); a client certificate the CA did not sign is kube-apiserver's 401 (it asks for
client certificates without verifying them in the handshake); HTTP/2 over TLS (``-i`` shows
``HTTP/2 200`` and lower-case headers; ``--http1.1`` the other form); names other than the
host's own and the nodes' do not resolve (the host is air-gapped: exit 6), and nothing else
listens (exit 7). A watch or a followed log prints what the server has sent by the time the
command ends: the lab's world does not move while a command runs, so ``--max-time`` ends it as
curl's exit 28 would, ``?timeoutSeconds=`` as the server would, and without either the lab says
it stopped.

What it sends (URLs, globs, the body, headers) is ``simulators.lab.curl_request``; its options
``curl_options``; what it prints besides the body ``curl_render``.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field
from datetime import datetime

from simulators.cluster import access, http_access, http_api, http_messages
from simulators.cluster.api import ApiError
from simulators.cluster.request import number
from simulators.cluster.served import ServedCluster
from simulators.cluster.store import MockCluster
from simulators.lab import budget, files, kubeconfig, pem
from simulators.lab.curl_options import TRY, CurlUsage, Options, parse
from simulators.lab.curl_render import (
    CA_CERT_ERROR,
    HELP_TEXT,
    VERSION_TEXT,
    Reply,
    Verbose,
    api_headers,
    certificate_dates,
    progress_meter,
    warning,
    write_out,
)
from simulators.lab.curl_request import (
    API_HOST,
    API_PORT,
    DEFAULT_PORTS,
    LOOPBACK,
    Failure,
    Url,
    body_of,
    globbed,
    normalized,
    parse_url,
    request_headers,
)
from simulators.lab.kubectl import tls_keys
from simulators.lab.tool import Context, Output

TLS_VERIFY_FAILED = "SSL certificate problem: unable to get local issuer certificate"
# Seconds each part of a transfer takes (-w's time_* variables, the progress meter).
_TIMES = {
    "time_namelookup": 0.000021,
    "time_connect": 0.000412,
    "time_appconnect": 0.008803,
    "time_pretransfer": 0.008871,
    "time_starttransfer": 0.011637,
    "time_redirect": 0.0,
    "time_total": 0.011804,
}
_WATCH_NOTE = (
    "lab: curl stops here with what the server sent so far: a watch (or a followed log) stays "
    "open until Ctrl-C; end it with --max-time N or ?timeoutSeconds=N"
)


@dataclass
class Result:
    """One URL's transfer."""

    url: str
    reply: Reply | None = None
    failure: Failure | None = None
    note: str = ""  # the lab's own line, when it stopped a stream
    remote: str = ""
    port: int = 0
    method: str = "GET"
    sent_bytes: int = 0
    uploaded: int = 0
    verify: int = 0
    verbose: Verbose = field(default_factory=Verbose)


# --------------------------------------------------------------------- the tool
def curl(ctx: Context, args: list[str]) -> Output:
    if not args:
        return Output("", 2, stderr=TRY)
    try:
        options = parse(args)
    except CurlUsage as usage:
        return Output("", 2, stderr=str(usage))
    if options.help:
        return Output.exactly(HELP_TEXT)
    if options.version:
        return Output.exactly(VERSION_TEXT)
    if not options.urls:
        return Output("", 2, stderr=f"curl: no URL specified!\n{TRY}")
    stderr: list[str] = []
    try:
        data = body_of(ctx, options, stderr)
        urls = [u for given in options.urls for u in globbed(given, options.globoff)]
    except Failure as failure:
        if options.show_errors:
            stderr.append(f"curl: ({failure.code}) {failure.message}")
        return Output("", failure.code, stderr="\n".join(stderr))
    stdout: list[str] = []
    code = 0
    for index, url in enumerate(urls):
        result = _transfer(ctx, options, url, data)
        code = _shown(ctx, options, result, index == 0, stdout, stderr)
        budget.check_output(sum(len(p) for p in stdout), "curl")
    return Output.exactly("".join(stdout), code, "\n".join(stderr))


def _shown(
    ctx: Context,
    options: Options,
    result: Result,
    first: bool,
    stdout: list[str],
    stderr: list[str],
) -> int:
    """Print one transfer as curl does; its exit status."""
    reply, failure = result.reply, result.failure
    if options.verbose:
        stderr.extend(result.verbose.lines)
    header_block = reply.header_block() if reply is not None else ""
    body = reply.body.decode("utf-8", errors="replace") if reply is not None else ""
    if reply is not None:  # a stream cut by --max-time still wrote what it received
        failed = (options.fail or options.fail_with_body) and reply.code >= 400
        if failed:
            failure = Failure(22, f"The requested URL returned error: {reply.code}")
        if not failed or options.fail_with_body:
            content = (header_block if options.include else "") + body
            written = _deliver(ctx, options, result, content, first, stdout, stderr)
            if written is not None and failure is None:
                failure = written
    if options.verbose and reply is not None and failure is None and not result.note:
        stderr.append(f"* Connection #0 to host {result.remote} left intact")
    if options.write_out is not None:
        text, err, warnings = write_out(
            _format(ctx, options.write_out), _variables(result, failure, header_block)
        )
        stderr.extend(warnings)
        stdout.append(text)
        if err:
            stderr.append(err.rstrip("\n"))
    if failure is not None:
        if options.show_errors:
            stderr.append(f"curl: ({failure.code}) {failure.message}")
            if failure.extra:
                stderr.append(failure.extra)
        return failure.code
    if result.note:
        stderr.append(result.note)
        return 130
    return 0


def _deliver(
    ctx: Context,
    options: Options,
    result: Result,
    content: str,
    first: bool,
    stdout: list[str],
    stderr: list[str],
) -> Failure | None:
    """Write a transfer's output where -o/-O say (else stdout); a failure to write is 23."""
    name = options.output if first else None
    if options.remote_name and name is None:
        name = urllib.parse.urlsplit(result.url).path.rsplit("/", 1)[-1]
        if not name:
            return Failure(23, "Remote file name has no length!")
    if name is None or name in ("-", "/dev/stdout"):
        stdout.append(content)
        return None
    if not (options.silent or options.no_progress or options.verbose):
        received = len(content.encode())
        stderr.append(progress_meter(received, result.uploaded, _TIMES["time_total"]))
    if name == "/dev/null":
        return None
    if name == "/dev/stderr":
        stderr.append(content.rstrip("\n"))
        return None
    problem = files.write(ctx, name, content)
    if problem is None:
        return None
    if not options.silent:
        reason = problem.rsplit(": ", 1)[-1]
        stderr.append(warning(f"Failed to open the file {name}: {reason}"))
    return Failure(23, "Failure writing output to destination")


def _format(ctx: Context, text: str) -> str:
    """-w's format: `@file` (`@-` the standard input) reads it from a file."""
    if not text.startswith("@"):
        return text
    if text == "@-":
        return ctx.stdin
    return files.read(ctx, text[1:]) or ""


def _variables(result: Result, failure: Failure | None, header_block: str) -> dict[str, str]:
    reply = result.reply
    code = f"{reply.code:03d}" if reply is not None and reply.code else "000"
    content_type = ""
    if reply is not None:
        content_type = next((v for k, v in reply.headers if k.lower() == "content-type"), "")
    values = {
        "http_code": code,
        "response_code": code,
        "http_connect": "000",
        "http_version": reply.version if reply is not None else "0",
        "size_download": str(len(reply.body)) if reply is not None else "0",
        "size_header": str(len(header_block)),
        "size_request": str(result.sent_bytes),
        "size_upload": str(result.uploaded),
        "content_type": content_type,
        "url_effective": result.url,
        "remote_ip": result.remote,
        "remote_port": str(result.port) if result.port else "",
        "local_ip": "10.0.0.5" if result.remote else "",
        "scheme": urllib.parse.urlsplit(result.url).scheme.upper() or "HTTP",
        "method": result.method,
        "num_connects": "1" if result.remote else "0",
        "num_redirects": "0",
        "num_headers": str(len(reply.headers)) if reply is not None else "0",
        "redirect_url": "",
        "ssl_verify_result": str(result.verify),
        "exitcode": str(failure.code if failure is not None else 0),
        "errormsg": failure.message if failure is not None else "",
        "onerror": "",
    }
    elapsed = 0.0 if reply is None else 1.0
    values.update({name: f"{seconds * elapsed:.6f}" for name, seconds in _TIMES.items()})
    return values


# --------------------------------------------------------------------- the transfer
def _transfer(ctx: Context, options: Options, given: str, data: bytes | None) -> Result:
    result = Result(given)
    verbose = result.verbose
    try:
        url = parse_url(given)
        if options.get and data is not None:
            url.path += ("&" if "?" in url.path else "?") + data.decode()
            data = None
        if not options.path_as_is:
            url.path = normalized(url.path)
        result.url = f"{url.scheme}://{url.host_header}{url.path}"
        method = options.method or ("POST" if data is not None else "GET")
        result.method = method
        if options.method and options.method == ("POST" if data is not None else "GET"):
            verbose.lines.append(
                f"Note: Unnecessary use of -X or --request, {options.method} is already inferred."
            )
        if url.scheme == "file":
            text = files.read(ctx, urllib.parse.unquote(url.path.split("?")[0]))
            if text is None:
                raise Failure(37, f"Couldn't open file {url.path}")
            result.reply = Reply(0, [], text.encode(), version="0")
            return result
        if url.scheme not in DEFAULT_PORTS:
            raise Failure(1, f'Protocol "{url.scheme}" not supported by the lab\'s curl')
        address = _resolve(ctx, url.host)
        result.remote, result.port = address, url.port
        verbose.info(f"  Trying {address}:{url.port}...")
        _connect(ctx, url, address, verbose)
        verbose.info(f"Connected to {url.host} ({address}) port {url.port} (#0)")
        headers = request_headers(options, url, data)
        result.uploaded = len(data) if data is not None else 0
        if url.scheme == "http":
            _plain_http(result, method, url, headers)
            return result
        who = _tls(ctx, options, url, result)
        _exchange(ctx, options, url, method, headers, data or b"", who, result)
    except Failure as failure:
        result.failure = failure
        if result.remote:
            verbose.info("Closing connection 0")
    return result


def _resolve(ctx: Context, host: str) -> str:
    """The address a name resolves to on kadmin: an address as it is, the host's own names,
    the nodes' (in its /etc/hosts); nothing else (no DNS: the host is air-gapped)."""
    if re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", host) and all(int(p) < 256 for p in host.split(".")):
        return host
    if ":" in host:
        return host  # an IPv6 address
    if host in LOOPBACK:
        return LOOPBACK[host]
    nodes = _node_addresses(ctx)
    if host in nodes:
        return nodes[host]
    raise Failure(6, f"Could not resolve host: {host}")


def _node_addresses(ctx: Context) -> dict[str, str]:
    api = ctx.world.api
    if not isinstance(api, MockCluster):
        return {}
    found: dict[str, str] = {}
    for node in api.select("nodes"):
        for address in (node.get("status") or {}).get("addresses") or []:
            if address.get("type") == "InternalIP":
                found[str(node["metadata"]["name"])] = str(address.get("address", ""))
    return found


def _connect(ctx: Context, url: Url, address: str, verbose: Verbose) -> None:
    """Only the API server listens, at its port; the host itself and the nodes refuse, the
    rest of 10.0.0.0/8 is no host, and past it there is no route (air-gapped)."""
    if address == API_HOST and url.port == API_PORT:
        if not isinstance(ctx.world.api, MockCluster):
            raise Failure(
                7, "the lab's curl reaches the simulated cluster only (kubectl get --raw here)"
            )
        return
    known = address.startswith("127.") or address in ("::1", API_HOST)
    if known or address in _node_addresses(ctx).values():
        why, after = "Connection refused", 0
    elif address.startswith("10."):
        why, after = "No route to host", 3071
    else:
        why, after = "Network is unreachable", 0
    verbose.info(f"connect to {address} port {url.port} failed: {why}")
    message = f"Failed to connect to {url.host} port {url.port} after {after} ms: {why}"
    verbose.info(message)
    raise Failure(7, message)


def _plain_http(result: Result, method: str, url: Url, headers: list[tuple[str, str]]) -> None:
    """HTTP to the API server's TLS port: Go's answer to a plain request on a TLS listener."""
    verbose = result.verbose
    verbose.sent(f"{method} {url.path} HTTP/1.1")
    for name, value in headers:
        verbose.sent(f"{name}: {value}")
    verbose.sent("")
    verbose.info("Mark bundle as not supporting multiuse")
    verbose.info("HTTP 1.0, assume close after body")
    result.reply = Reply(
        400, [], b"Client sent an HTTP request to an HTTPS server.\n", version="1.0"
    )
    verbose.received("HTTP/1.0 400 Bad Request")
    verbose.received("")
    verbose.info("Closing connection 0")


def _client_identity(ctx: Context, options: Options) -> bool | None:
    """Whether the client certificate (--cert, --key) is the admin's: True; False for one the
    cluster's CA did not sign (kube-apiserver requests client certificates without verifying
    them in the handshake: its x509 authenticator refuses it); None without one; curl's
    error 58 for one it cannot load or a key that is not the certificate's."""
    if options.cert is None:
        return None
    cert_file = options.cert
    text = files.read(ctx, cert_file)
    if text is None:
        raise Failure(
            58,
            "could not load PEM client certificate, OpenSSL error error:80000002:system "
            "library::No such file or directory, (no key found, wrong pass phrase, or wrong "
            "file format?)",
        )
    if not pem.certificates(text):
        raise Failure(
            58,
            "could not load PEM client certificate, OpenSSL error error:0480006C:PEM "
            "routines::no start line, (no key found, wrong pass phrase, or wrong file format?)",
        )
    key_file = options.key or cert_file
    key_text = files.read(ctx, key_file) if options.key else text
    if not pem.private_keys(key_text or ""):
        raise Failure(58, f"unable to set private key file: '{key_file}' type PEM")
    why = tls_keys.pair_error(text, key_text or "")
    if why == tls_keys.MALFORMED_CERTIFICATE:
        raise Failure(
            58,
            f"could not load PEM client certificate from {cert_file}, OpenSSL error "
            "error:0680009B:asn1 encoding routines::too long, (no key found, wrong pass "
            "phrase, or wrong file format?)",
        )
    if not why:
        return kubeconfig.is_admin_certificate(text)
    if why == tls_keys.TYPE_MISMATCH:
        # OpenSSL 3 keeps a key of another type beside the certificate; the check refuses it.
        raise Failure(58, "Private key does not match the certificate public key")
    # A key of the certificate's type that is not its own (or not a key): refused as it is
    # set, as curl 7.88 with OpenSSL 3 does.
    raise Failure(58, f"unable to set private key file: '{key_file}' type PEM")


def _tls(ctx: Context, options: Options, url: Url, result: Result) -> bool | None:
    """The TLS handshake with the API server (the lines -v shows); whether the client
    certificate is the admin's."""
    verbose = result.verbose
    admin = _client_identity(ctx, options)
    verbose.info("ALPN, offering http/1.1" if options.http1 else "ALPN, offering h2")
    if not options.http1:
        verbose.info("ALPN, offering http/1.1")
    trusted = False
    if options.cacert is not None:
        text = files.read(ctx, options.cacert)
        if not pem.certificates(text or ""):
            raise Failure(77, f"error setting certificate file: {options.cacert}")
        trusted = kubeconfig.holds_ca(text or "")
        verbose.info(f" CAfile: {options.cacert}")
    else:
        verbose.info(" CAfile: /etc/ssl/certs/ca-certificates.crt")
    verbose.info(" CApath: /etc/ssl/certs")
    verbose.info("SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256")
    verbose.info("ALPN, server accepted to use " + ("http/1.1" if options.http1 else "h2"))
    verbose.info("Server certificate:")
    verbose.info(" subject: CN=kube-apiserver")
    start, expire = certificate_dates(_cluster_created(ctx))
    verbose.info(f" start date: {start}")
    verbose.info(f" expire date: {expire}")
    if trusted:
        verbose.info(f' subjectAltName: host "{url.host}" matched cert\'s IP address!')
    verbose.info(" issuer: CN=kubernetes")
    if not trusted and not options.insecure:
        verbose.info(f" {TLS_VERIFY_FAILED}")
        raise Failure(60, TLS_VERIFY_FAILED, CA_CERT_ERROR)
    if trusted:
        verbose.info(" SSL certificate verify ok.")
    else:
        result.verify = 20
        verbose.info(
            " SSL certificate verify result: unable to get local issuer certificate (20), "
            "continuing anyway."
        )
    return admin


def _cluster_created(ctx: Context) -> datetime:
    api = ctx.world.api
    try:
        stamp = str(api.get("namespaces", "kube-system")["metadata"]["creationTimestamp"])
        return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")
    except (ApiError, KeyError, ValueError):
        return api.now().replace(tzinfo=None)


def _exchange(
    ctx: Context,
    options: Options,
    url: Url,
    method: str,
    headers: list[tuple[str, str]],
    data: bytes,
    admin: bool | None,
    result: Result,
) -> None:
    """The request to the API server and its answer, from the lab's store."""
    api = ctx.world.api
    assert isinstance(api, MockCluster)  # _connect let only the simulated cluster through
    verbose = result.verbose
    http1 = options.http1
    if not http1:
        verbose.info("Using HTTP2, server supports multiplexing")
        verbose.info("Connection state changed (HTTP/2 confirmed)")
    sent = [f"{method} {url.path} HTTP/{'1.1' if http1 else '2'}"]
    for name, value in headers:
        if not http1 and name in ("User-Agent", "Accept"):
            name = name.lower()
        sent.append(f"{name}: {value}")
    for line in [*sent, ""]:
        verbose.sent(line)
    result.sent_bytes = sum(len(line) + 2 for line in sent) + 2
    request = http_messages.Request(method, url.path, http_messages.Headers(headers), data)
    world = ServedCluster(api, step=_no_step)
    who: access.Identity | None = access.ADMIN if admin else None
    try:
        if who is None:
            who = http_access.authenticate(api, request.headers)
            if admin is False and who == access.ANONYMOUS:
                who = None  # x509's error ends the union before the anonymous authenticator
        if who is None:
            response = http_messages.error_response(http_access.unauthorized(), request)
        else:
            who = http_access.impersonating(api, who, request.headers)
            response = http_api.respond(world, request, who, lab_paths=False)
    except ApiError as error:
        response = http_messages.error_response(error, request, api)
    except budget.BudgetExceeded:
        raise
    except Exception as error:  # as the server answers: never a traceback
        response = http_messages.internal_error(error, request)
    body = response.body
    if response.stream is not None:
        response, body, result.note, failure = _streamed(
            world, options, request, response, http1, result
        )
        if failure is not None:
            result.failure = failure
    user = who.user if who is not None else ""
    reply_headers = api_headers(
        code=response.code,
        content_type=response.content_type,
        cache=response.cache,
        size=None if response.stream is not None else len(body),
        now=api.now(),
        user=user,
        request_id=f"{api.resource_version}:{api.now().isoformat()}:{method}:{url.path}",
        http1=http1,
    )
    result.reply = Reply(response.code, reply_headers, body, "1.1" if http1 else "2")
    verbose.received(result.reply.status_line())
    for name, value in reply_headers:
        verbose.received(f"{name}: {value}")
    verbose.received("")


def _no_step(api: MockCluster) -> None:
    """The lab's world steps after each command (the session's), not within curl."""
    del api


def _streamed(
    world: ServedCluster,
    options: Options,
    request: http_messages.Request,
    response: http_messages.Response,
    http1: bool,
    result: Result,
) -> tuple[http_messages.Response, bytes, str, Failure | None]:
    """A watch, followed log or exec: what the server sends by the time the command ends."""
    stream = response.stream
    assert stream is not None
    try:
        if stream.kind == "exec":
            # curl 7.81 speaks no WebSocket (and HTTP/2 drops an Upgrade header): the API
            # refuses the exec before anything streams.
            http_api.check_exec(http_api.exec_command(request.target), None)
        timeout: int | None = None
        if stream.kind == "watch":
            as_table = "as=Table" in (request.headers.get("Accept") or "")
            cursor = http_api.WatchCursor(world, stream.target, stream.query, as_table)
            timeout = number(stream.query, "timeoutSeconds")
            cursor.check()
            lines, _ = cursor.step()
            body = b"".join(lines)
            streamed = http_messages.Response(200, body, http_messages.JSON, True, stream)
        else:
            body = stream.text.encode()
            streamed = http_messages.Response(200, body, http_messages.TEXT, False, stream)
    except ApiError as error:
        failed = http_messages.error_response(error, request, world.api)
        return failed, failed.body, "", None
    budget.check_output(len(body), "curl")
    limit = options.max_time
    if limit is not None and (timeout is None or timeout > limit):
        ms = int(limit * 1000) + 1
        message = f"Operation timed out after {ms} milliseconds with {len(body)} bytes received"
        return streamed, body, "", Failure(28, message)
    if timeout is not None:
        return streamed, body, "", None
    return streamed, body, _WATCH_NOTE, None
