"""kubectl create quota (upstream's create_quota.go): --hard's resource=quantity pairs, each
quantity parsed and written in its canonical form as resource.Quantity does (`1000m` is `1`,
`1024Mi` is `1Gi`, `1e2` is `100`), and --scopes, each kept as given (the server judges them).
"""

from __future__ import annotations

from simulators.cluster.api import Obj
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.create_names import one_name
from simulators.lab.kubectl.quantities import canonical


def _hard(spec: str) -> dict[str, str]:
    """populateResourceListV1: `resource=quantity,...`."""
    hard: dict[str, str] = {}
    if not spec:
        return hard
    for statement in spec.split(","):
        parts = statement.split("=")
        if len(parts) != 2:
            raise KubectlError(
                f"error: Invalid argument syntax {statement}, expected <resource>=<value>"
            )
        hard[parts[0]] = canonical(parts[1])
    return hard


def _scopes(spec: str) -> list[str]:
    if not spec:
        return []
    scopes = spec.split(",")
    if "" in scopes:
        raise KubectlError('error: invalid resource quota scope ""')
    return scopes


def quota(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    """create quota NAME [--hard=resource=quantity,...] [--scopes=Scope,...]."""
    name = one_name("create quota", [name, *rest] if name else rest)
    hard = _hard(parsed.value("hard") or "")
    scopes = _scopes(parsed.value("scopes") or "")
    spec: Obj = {}
    if hard:
        spec["hard"] = hard
    if scopes:
        spec["scopes"] = scopes
    return "resourcequotas", {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name},
        "spec": spec,
        "status": {},
    }


def typed_status(obj: Obj) -> Obj:
    """The created ResourceQuota as kubectl's typed client decodes it: an empty status.hard
    or status.used (Go's omitempty maps) is not printed."""
    status = obj.get("status")
    if isinstance(status, dict):
        for key in ("hard", "used"):
            if status.get(key) == {}:
                del status[key]
    return obj
