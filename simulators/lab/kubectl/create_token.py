"""kubectl create token SERVICE_ACCOUNT (upstream's create_token.go): a TokenRequest for the
service account, answered by the server (simulators.cluster.access.token_request, the same
answer the apiserver gives the real kubectl), printed as the bare token or, with -o, as the
TokenRequest. `--duration` (a Go duration) sets spec.expirationSeconds; the server refuses less
than 10 minutes. There is no --dry-run: a token request stores nothing.
"""

from __future__ import annotations

import re

from simulators.cluster import access
from simulators.cluster.api import ApiError, Obj
from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import KubectlError, namespace
from simulators.lab.kubectl.create_names import one_name
from simulators.lab.kubectl.printing import object_output, object_text
from simulators.lab.tool import Context, Output

FLAGS = [
    Flag("audience", long="audience", takes_value=True),
    Flag("duration", long="duration", takes_value=True),
    Flag("bound-object-kind", long="bound-object-kind", takes_value=True),
    Flag("bound-object-name", long="bound-object-name", takes_value=True),
    Flag("bound-object-uid", long="bound-object-uid", takes_value=True),
]
# The kinds a token can be bound to, and their apiVersion.
BOUND_KINDS = {"Node": "v1", "Pod": "v1", "Secret": "v1"}
CREATE_ONLY = ("dry-run", "verb", "resource", "image", "from-literal", "cert", "key")
_NANOS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_PART = re.compile(r"(\d*\.?\d*)([^\d.]*)")


def parse_duration(text: str) -> int:
    """Go's time.ParseDuration, in nanoseconds (ValueError carries Go's message)."""
    invalid = f'time: invalid duration "{text}"'
    rest = text
    sign = 1
    if rest[:1] in ("-", "+"):
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise ValueError(invalid)
    total = 0
    while rest:
        match = _PART.match(rest)
        assert match is not None  # the pattern matches the empty string
        number, unit = match.groups()
        if number in ("", "."):
            raise ValueError(invalid)
        if not unit:
            raise ValueError(f'time: missing unit in duration "{text}"')
        if unit not in _NANOS:
            raise ValueError(f'time: unknown unit "{unit}" in duration "{text}"')
        total += round(float(number) * _NANOS[unit])
        rest = rest[match.end() :]
    return sign * total


def _validate(parsed: Parsed) -> int:
    """The expiration in seconds (0: the server's default), after kubectl's checks."""
    text = parsed.value("duration") or "0"
    try:
        nanos = parse_duration(text)
    except ValueError as exc:
        raise KubectlError(
            f'error: invalid argument "{text}" for "--duration" flag: {exc}\n'
            "See 'kubectl create token --help' for usage."
        ) from None
    if nanos < 0:
        raise KubectlError("error: --duration must be greater than or equal to 0")
    if nanos % 1_000_000_000:
        raise KubectlError("error: --duration cannot be expressed in units less than seconds")
    if any(not audience for audience in parsed.all("audience")):
        raise KubectlError("error: --audience must not be an empty string")
    kind = parsed.value("bound-object-kind") or ""
    if not kind:
        for flag in ("name", "uid"):
            if parsed.value(f"bound-object-{flag}"):
                raise KubectlError(
                    f"error: --bound-object-{flag} can only be set if --bound-object-kind "
                    "is provided"
                )
    else:
        if kind not in BOUND_KINDS:
            raise KubectlError(
                f"error: supported --bound-object-kind values are {', '.join(sorted(BOUND_KINDS))}"
            )
        if not parsed.value("bound-object-name"):
            raise KubectlError(
                "error: --bound-object-name is required if --bound-object-kind is provided"
            )
    return nanos // 1_000_000_000


def create_token(ctx: Context, parsed: Parsed, names: list[str]) -> Output:
    """`kubectl create token NAME [--duration] [--audience] [--bound-object-*] [-o]`."""
    for flag in CREATE_ONLY:
        if parsed.has(flag):
            raise KubectlError(
                f"error: unknown flag: --{flag}\nSee 'kubectl create token --help' for usage."
            )
    name = one_name("create token", names)
    output = object_output(parsed)
    seconds = _validate(parsed)
    spec: Obj = {}
    if parsed.all("audience"):
        spec["audiences"] = parsed.all("audience")
    if seconds:
        spec["expirationSeconds"] = seconds
    kind = parsed.value("bound-object-kind")
    bound: Obj | None = None
    if kind:
        bound = {"kind": kind, "apiVersion": BOUND_KINDS[kind]}
        bound["name"] = parsed.value("bound-object-name")
        if parsed.value("bound-object-uid"):
            bound["uid"] = parsed.value("bound-object-uid")
        spec["boundObjectRef"] = bound
    try:
        answer = access.token_request(ctx.api, namespace(parsed), name, {"spec": spec})
    except ApiError as exc:
        return Output(f"error: failed to create token: {exc.message}", 1)
    if not output:
        return Output(str(answer["status"]["token"]))
    answer["spec"].setdefault("boundObjectRef", None)
    metadata = {k: v for k, v in answer["metadata"].items() if v is not None}
    answer["metadata"] = metadata
    label = f"tokenrequest.authentication.k8s.io/{name}"
    return Output(object_text(answer, label, output, "").removesuffix("\n"))
