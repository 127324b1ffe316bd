"""kubectl set resources (-f FILENAME | TYPE NAME) --limits=... --requests=..., as
k8s.io/kubectl/pkg/cmd/set/set_resources.go: the quantities (in their canonical form, as
kubectl encodes a resource.Quantity) set on the containers `-c` matches."""

from __future__ import annotations

import copy
import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation

from simulators.lab.flags import Flag, Parsed
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.set_common import (
    BASE_FLAGS,
    CONTAINERS,
    SELECTOR,
    Change,
    Failure,
    complete,
    pod_spec,
    select_containers,
    send_all,
)
from simulators.lab.tool import Context, Output

FLAGS = [
    *BASE_FLAGS,
    CONTAINERS,
    SELECTOR,
    Flag("limits", long="limits", takes_value=True),
    Flag("requests", long="requests", takes_value=True),
]

_QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
_FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}
_BINARY_SUFFIX = {v // 10: k for k, v in _BINARY.items()}
_NANO = Decimal("1e-9")


def parse_quantity(text: str) -> tuple[Decimal, str]:
    """resource.ParseQuantity: the value (rounded up to a nano) and its format ("decimal",
    "binary" or "exponent"); ValueError with kubectl's message."""
    match = _QUANTITY.match(text)
    if match is None:
        raise ValueError(_FORMAT_ERROR)
    number, suffix = match.groups()
    if suffix[:1] in ("e", "E") and len(suffix) > 6:
        raise ValueError(_FORMAT_ERROR)  # an exponent no quantity reaches
    if suffix in _DECIMAL:
        scale, form = Decimal(10) ** _DECIMAL[suffix], "decimal"
    elif suffix in _BINARY:
        scale, form = Decimal(2) ** _BINARY[suffix], "binary"
    elif suffix[:1] in ("e", "E") and re.fullmatch(r"[-+]?[0-9]+", suffix[1:]):
        scale, form = Decimal(10) ** int(suffix[1:]), "exponent"
    else:
        raise ValueError("unable to parse quantity's suffix")
    try:
        value = Decimal(number) * scale
    except InvalidOperation:
        raise ValueError(_FORMAT_ERROR) from None
    sign = -1 if value < 0 else 1
    value = abs(value)
    if value:
        value = (value / _NANO).to_integral_value(rounding=ROUND_CEILING) * _NANO
    if form == "binary" and 0 < value < 1:
        form = "decimal"
    return sign * value, form


def _kept(text: str) -> bool:
    """Whether resource.ParseQuantity keeps the text as the quantity's string (its fast path
    for a number already in canonical form: `100m`, `1e3`, `+1Gi`, `1.500`)."""
    match = _QUANTITY.match(text)
    if match is None or text.count(".") > 1:
        return False
    number, suffix = match.groups()
    whole, _, fraction = number.lstrip("+-").partition(".")
    whole = whole.lstrip("0") or "0"
    if suffix in _BINARY:
        if fraction:
            return False
        exponent = _BINARY[suffix]
        if 15 - len(whole) - int(exponent * 3 / 10) - 1 < 0:
            return False
        return (int(whole) << exponent) < 2**63 and int(whole) & 0x07 != 0
    exponent = _DECIMAL[suffix] if suffix in _DECIMAL else int(suffix[1:])
    scale = exponent - len(fraction)
    shifted = whole + fraction
    if 18 - len(whole) - len(fraction) < 0 or scale < -9:
        return False
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def canonical(text: str) -> str:
    """Quantity.String() of what resource.ParseQuantity made of `text`: the text itself when
    already canonical (`_kept`), else the canonical form (`0.5` is `500m`, `1024Mi` is `1Gi`,
    `1000` is `1k`); ValueError with kubectl's message for no quantity."""
    value, form = parse_quantity(text)
    if text == "0" or _kept(text):
        return text
    if not value:
        return "0"
    if form == "binary" and (abs(value) < 1024 or value != value.to_integral_value()):
        form = "decimal"
    if form == "binary":
        mantissa, power = int(value), 0
        while mantissa % 1024 == 0 and power < 6:
            mantissa //= 1024
            power += 1
        return f"{mantissa}{_BINARY_SUFFIX.get(power, '')}"
    sign, digits, exponent = value.normalize().as_tuple()
    assert isinstance(exponent, int)
    mantissa = int("".join(map(str, digits)))
    shift = exponent % 3
    mantissa *= 10**shift
    exponent -= shift
    number = f"{'-' if sign else ''}{mantissa}"
    if form == "exponent":
        return number + (f"e{exponent}" if exponent else "")
    if exponent > 18:
        mantissa *= 10 ** (exponent - 18)
        return f"{'-' if sign else ''}{mantissa}E"
    return number + _DECIMAL_SUFFIX[exponent]


def parse_list(spec: str) -> dict[str, str]:
    """parseResourceList: `cpu=100m,memory=256Mi` with each quantity canonical."""
    out: dict[str, str] = {}
    if not spec:
        return out
    for statement in spec.split(","):
        parts = statement.split("=")
        if len(parts) != 2:
            raise KubectlError(
                f"error: Invalid argument syntax {statement}, expected <resource>=<value>"
            )
        try:
            out[parts[0]] = canonical(parts[1])
        except ValueError as exc:
            raise KubectlError(f"error: {exc}") from None
    return out


def _same(current: object, wanted: str) -> bool:
    try:
        return isinstance(current, str) and canonical(current) == wanted
    except ValueError:
        return False


def run(ctx: Context, parsed: Parsed, words: list[str]) -> Output:
    """`kubectl set resources`: Complete (printer, objects), Validate, Run."""
    del words
    dry, output, local, items = complete(ctx, parsed)
    limits_spec = parsed.value("limits") or ""
    requests_spec = parsed.value("requests") or ""
    if not limits_spec and not requests_spec:
        raise KubectlError(
            "error: you must specify an update to requests or limits (in the form of "
            "--requests/--limits)"
        )
    wanted = {"limits": parse_list(limits_spec), "requests": parse_list(requests_spec)}
    chosen_name = parsed.value("containers") or "*"
    failures: list[Failure] = []
    changes: list[Change] = []
    for item in items:
        after = copy.deepcopy(item.obj)
        try:
            spec = pod_spec(item, after)
        except ValueError as exc:
            changes.append(Change(item, None, str(exc)))
            continue
        chosen = select_containers(spec, chosen_name)
        if not chosen:
            failures.append(Failure(f"error: unable to find container named {chosen_name}"))
            continue
        for container in chosen:
            resources = container.get("resources")
            if not isinstance(resources, dict):
                resources = container["resources"] = {}
            for side, values in wanted.items():
                if not values:
                    continue
                current = resources.get(side)
                if not isinstance(current, dict):
                    current = resources[side] = {}
                for key, value in values.items():
                    if not _same(current.get(key), value):
                        current[key] = value
        changes.append(Change(item, after))
    return send_all(
        ctx,
        changes,
        failures,
        dry=dry,
        local=local,
        output=output,
        operation="resource requirements updated",
        patch_failure="failed to patch resources update to pod template ",
    )
