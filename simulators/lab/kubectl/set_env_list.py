"""`kubectl set env --list`: one container's variables as set_env.go prints them, a reference
as `# NAME from configmap CM, key K` unless `--resolve` looks its value up
(k8s.io/kubectl/pkg/cmd/set/env/env_resolve.go)."""

from __future__ import annotations

import base64
import binascii
import math
from decimal import Decimal
from typing import Any

from simulators.cluster.api import ApiError
from simulators.cluster.quantity import QuantityError, parse_quantity
from simulators.lab.gotext import go_quote
from simulators.lab.kubectl.set_common import Item
from simulators.lab.tool import Context


def listing(
    ctx: Context,
    item: Item,
    obj: dict[str, Any],
    container: dict[str, Any],
    ns: str,
    resolve: bool,
) -> tuple[list[str], bool]:
    """The lines printed for `container` of `obj` (its heading, a line a variable, then the
    lookups that failed, sorted), and whether one failed."""
    lines = [f"# {item.kind} {item.name}, container {container.get('name', '')}\n"]
    failed: dict[str, list[str]] = {}
    for env in container.get("env") or []:
        name = str(env.get("name", ""))
        source = env.get("valueFrom")
        if not isinstance(source, dict):
            lines.append(f"{name}={env.get('value', '')}\n")
            continue
        if resolve:
            try:
                lines.append(f"{name}={_value(ctx, ns, source, obj, container)}\n")
                continue
            except ValueError as exc:
                failed.setdefault(str(exc), []).append(name)
        lines.append(f"# {name} from {ref_string(source)}\n")
    errors = sorted(
        f"error retrieving reference for {', '.join(sorted(names))}: {error}"
        for error, names in failed.items()
    )
    return lines + [f"{e}\n" for e in errors], bool(failed)


def ref_string(source: dict[str, Any]) -> str:
    """GetEnvVarRefString."""
    if isinstance(ref := source.get("configMapKeyRef"), dict):
        return f"configmap {ref.get('name', '')}, key {ref.get('key', '')}"
    if isinstance(ref := source.get("secretKeyRef"), dict):
        return f"secret {ref.get('name', '')}, key {ref.get('key', '')}"
    if isinstance(ref := source.get("fieldRef"), dict):
        return f"field path {ref.get('fieldPath', '')}"
    if isinstance(ref := source.get("resourceFieldRef"), dict):
        owner = f"{ref['containerName']}/" if ref.get("containerName") else ""
        return f"resource field {owner}{ref.get('resource', '')}"
    return "invalid valueFrom"


def _value(
    ctx: Context, ns: str, source: dict[str, Any], obj: dict[str, Any], container: dict[str, Any]
) -> str:
    """GetEnvVarRefValue; ValueError with the lookup's error."""
    for field, resource, what in (
        ("secretKeyRef", "secrets", "secret"),
        ("configMapKeyRef", "configmaps", "config map"),
    ):
        ref = source.get(field)
        if not isinstance(ref, dict):
            continue
        name, key = str(ref.get("name", "")), str(ref.get("key", ""))
        try:
            found = ctx.api.get(resource, name, ns)
        except ApiError as exc:
            raise ValueError(exc.message) from None
        data = found.get("data") or {}
        if key not in data:
            raise ValueError(f"key {key} not found in {what} {name}")
        if resource == "configmaps":
            return str(data[key])
        try:
            return base64.b64decode(str(data[key])).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return str(data[key])
    if isinstance(ref := source.get("fieldRef"), dict):
        return _field(obj, str(ref.get("fieldPath", "")))
    if isinstance(ref := source.get("resourceFieldRef"), dict):
        return _resource(container, ref)
    raise ValueError("invalid valueFrom")


def _format_map(values: dict[str, Any]) -> str:
    return "\n".join(f"{k}={go_quote(str(values[k]))}" for k in sorted(values))


def _field(obj: dict[str, Any], path: str) -> str:
    """extractFieldPathAsString over the object itself (not a pod)."""
    meta = obj.get("metadata") or {}
    if path.endswith("']") and "['" in path and not path.startswith("['"):
        base, _, subscript = path.removesuffix("']").partition("['")
        if base == "metadata.annotations":
            return str((meta.get("annotations") or {}).get(subscript, ""))
        if base == "metadata.labels":
            return str((meta.get("labels") or {}).get(subscript, ""))
        raise ValueError(f"fieldPath {go_quote(path)} does not support subscript")
    if path == "metadata.annotations":
        return _format_map(meta.get("annotations") or {})
    if path == "metadata.labels":
        return _format_map(meta.get("labels") or {})
    if path in ("metadata.name", "metadata.namespace", "metadata.uid"):
        return str(meta.get(path.partition(".")[2], ""))
    raise ValueError(f"unsupported fieldPath: {path}")


def _quantity(text: Any) -> Decimal:
    try:
        return parse_quantity(text) if text not in (None, "") else Decimal(0)
    except QuantityError:
        return Decimal(0)


def _resource(container: dict[str, Any], ref: dict[str, Any]) -> str:
    """extractContainerResourceValue: the container's limit or request over the divisor,
    rounded up (cpu in thousandths first, as MilliValue)."""
    divisor = _quantity(ref.get("divisor")) or Decimal(1)
    resource = str(ref.get("resource", ""))
    side, _, name = resource.partition(".")
    known = name in ("cpu", "memory", "ephemeral-storage") or name.startswith("hugepages-")
    if side not in ("limits", "requests") or not known:
        raise ValueError(f"Unsupported container resource : {resource}")
    values = (container.get("resources") or {}).get(side) or {}
    value = _quantity(values.get(name))
    if name == "cpu":
        milli = math.ceil(value * 1000)
        return str(math.ceil(Decimal(milli) / Decimal(math.ceil(divisor * 1000))))
    return str(math.ceil(Decimal(math.ceil(value)) / Decimal(math.ceil(divisor))))
