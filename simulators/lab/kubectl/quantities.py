"""A resource.Quantity as kubectl writes what it parsed: `canonical("1000m")` is `1`, `1024Mi`
is `1Gi`, `1e2` is `100`, and past int64 what Go's parse makes of it (`1000E` is `1`, a binary
quantity is capped at the int64 maximum), checked against the real kubectl's `create quota`
and `set resources`. One place for `create quota --hard`, `set resources --limits/--requests`
and `run --overrides`' decoded resources.
"""

from __future__ import annotations

import re
from decimal import ROUND_UP, Decimal, localcontext

from simulators.cluster.quantity import QuantityError, parse_quantity
from simulators.lab.kubectl.common import KubectlError

_DECIMAL = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
_NANO = Decimal("1e-9")
_MAX = Decimal(2**63 - 1)


_EXPONENTS = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_NUMBER = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)")


def _kept_as_written(text: str) -> bool:
    """Whether ParseQuantity keeps the text as its String(): a small number already in
    canonical form (a multiple-of-3 decimal exponent, no trailing 000, no leading 0; or a
    binary suffix on a number that 8 does not divide)."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return False
    _sign, num, denom, suffix = match.groups()
    num, denom = num or "0", denom or ""
    if suffix in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        power = 10 * ("KMGTPE".index(suffix[0]) + 1)
        precision = 15 - len(num) - int(power * 3 / 10) - 1
        fits = int(num) << power < 2**63
        return not denom and precision >= 0 and fits and int(num) & 7 != 0
    if suffix in _EXPONENTS:
        exponent = _EXPONENTS[suffix]
    elif len(suffix) > 1 and suffix[0] in "eE" and re.fullmatch(r"[+-]?[0-9]+", suffix[1:]):
        exponent = int(suffix[1:])
    else:
        return False
    scale = exponent - len(denom)
    shifted = num + denom
    if len(num) + len(denom) > 18 or scale < -9 or int(shifted) >= 2**63:
        return False
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def _format(text: str) -> str:
    """The quantity's Format from its suffix: BinarySI, DecimalExponent or DecimalSI."""
    suffix = text.lstrip("+-").lstrip("0123456789.")
    if suffix in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        return "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        return "DecimalExponent"
    return "DecimalSI"


def _decimal_text(value: Decimal, exponent_form: bool) -> str:
    """AsCanonicalBytes: mantissa and a power of ten that is a multiple of 3."""
    sign, digits, exponent = value.normalize().as_tuple()
    assert isinstance(exponent, int)
    mantissa = int("".join(map(str, digits)))
    shift = exponent % 3
    mantissa, exponent = mantissa * 10**shift, exponent - shift
    number = ("-" if sign else "") + str(mantissa)
    if exponent_form:
        return number + (f"e{exponent}" if exponent else "")
    # Beyond E a DecimalSI has no suffix, and Go's CanonicalizeBytes prints none.
    return number + _DECIMAL.get(exponent, "")


def canonical(text: str) -> str:
    """resource.ParseQuantity(text).String(); KubectlError with its message when it fails.
    A binary quantity is capped at the int64 maximum, as Go's parse caps it."""
    with localcontext(prec=400):
        try:
            value = parse_quantity(text)
        except QuantityError as exc:
            raise KubectlError(f"error: {exc}") from None
        if text == "0" or _kept_as_written(text):
            return text
        if value == 0:
            return "0"
        form = _format(text)
        if form == "BinarySI" and abs(value) > _MAX:
            value = _MAX.copy_sign(value)
        if value.as_tuple().exponent < -9:  # type: ignore[operator]
            value = value.quantize(_NANO, rounding=ROUND_UP)
        if form == "BinarySI" and (abs(value) < 1024 or value != value.to_integral_value()):
            form = "DecimalSI"
        if form != "BinarySI":
            return _decimal_text(value, form == "DecimalExponent")
        amount, power = int(value), 0
        while amount % 1024 == 0 and power < len(_BINARY) - 1:
            amount, power = amount // 1024, power + 1
        return f"{amount}{_BINARY[power]}"
