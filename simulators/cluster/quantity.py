"""Kubernetes resource quantities (``500m``, ``2Gi``, ``1e3``) as the API server parses them."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

QUANTITY_RE = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
QUANTITY_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)

_SUFFIXES: dict[str, Decimal] = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal(10) ** 3,
    "M": Decimal(10) ** 6,
    "G": Decimal(10) ** 9,
    "T": Decimal(10) ** 12,
    "P": Decimal(10) ** 15,
    "E": Decimal(10) ** 18,
    "Ki": Decimal(2) ** 10,
    "Mi": Decimal(2) ** 20,
    "Gi": Decimal(2) ** 30,
    "Ti": Decimal(2) ** 40,
    "Pi": Decimal(2) ** 50,
    "Ei": Decimal(2) ** 60,
}


class QuantityError(ValueError):
    pass


def parse_quantity(value: object) -> Decimal:
    """The quantity's value; raises ``QuantityError`` with the API server's message."""
    if isinstance(value, bool):
        raise QuantityError(QUANTITY_ERROR)
    if isinstance(value, int | float):
        return Decimal(str(value))
    if not isinstance(value, str):
        raise QuantityError(QUANTITY_ERROR)
    match = QUANTITY_RE.match(value.strip())
    if match is None:
        raise QuantityError(QUANTITY_ERROR)
    number, suffix = match.groups()
    try:
        base = Decimal(number)
    except InvalidOperation as error:
        raise QuantityError(QUANTITY_ERROR) from error
    if suffix in _SUFFIXES:
        return base * _SUFFIXES[suffix]
    if suffix[:1] in "eE":
        try:
            return base * (Decimal(10) ** int(suffix[1:]))
        except (ValueError, ArithmeticError) as error:  # decimal's Overflow is one
            raise QuantityError(QUANTITY_ERROR) from error
    raise QuantityError("unable to parse quantity's suffix")
