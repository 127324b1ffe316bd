"""The lab's quota: how many objects one simulated cluster holds.

A real cluster shared by learners would give each a ResourceQuota; the simulated one has a
fixed quota of its own, checked on every create by the store (and so by the lab's kubectl, the
controllers and the HTTP API server alike), so that one command (``kubectl scale ...
--replicas=1000000``, a thousand ``kubectl create ns``) cannot make the cluster, its
controllers' work per step or its saved snapshot grow without end.

A create over the quota is refused as kube-apiserver's ResourceQuota admission refuses it
(403 Forbidden, ``pods "x" is forbidden: exceeded quota: ...``); the controllers take that
as they take any refused create (a FailedCreate event, a retry at a later step).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from simulators.cluster.api import ApiError, ResourceInfo

# The quota's name in its messages, as a ResourceQuota object's name appears in kube-apiserver's.
QUOTA_NAME = "lab-quota"

# Pods per namespace: a few times what any ticket needs, and what the controllers settle within
# one command's CPU budget.
PODS_PER_NAMESPACE = 100
# Namespaces in all (the six system namespaces included).
NAMESPACES = 60
# Objects of every kind but events in all (a built lab holds about 120).
OBJECTS = 3000
# Events in all (the event-ttl controller deletes them an hour after their last time).
EVENTS = 3000


def check_create(
    sizes: Callable[[], Mapping[str, int]],
    bucket: Mapping[tuple[str, str], Any],
    info: ResourceInfo,
    ns: str,
    name: str,
) -> None:
    """Raise kube-apiserver's 403 if creating `name` (of `info`, in `ns`) would exceed the
    quota. `sizes` gives how many objects the store holds by resource key (asked only for the
    count of all objects, not for an Event), `bucket` the objects of `info`'s resource by
    (namespace, name)."""
    if info.plural == "pods":
        used = sum(1 for key in bucket if key[0] == ns)
        if used >= PODS_PER_NAMESPACE:
            raise exceeded(info, name, "pods", used, PODS_PER_NAMESPACE)
    if info.plural == "namespaces":
        used = len(bucket)
        if used >= NAMESPACES:
            raise exceeded(info, name, "count/namespaces", used, NAMESPACES)
    if info.plural == "events":
        # Events have their own count: a busy cluster's events (five or so a pod) must not use
        # up the room for the objects that make the work; the recorder drops those refused.
        used = len(bucket)
        if used >= EVENTS:
            raise exceeded(info, name, "count/events", used, EVENTS)
        return
    used = sum(size for key, size in sizes().items() if key != "events")
    if used >= OBJECTS:
        # ResourceQuota's object-count names: count/<resource>.<group>, or count/<resource>.
        resource = "count/" + info.key
        raise exceeded(info, name, resource, used, OBJECTS)


def exceeded(info: ResourceInfo, name: str, resource: str, used: int, limit: int) -> ApiError:
    """ResourceQuota admission's refusal, word for word (plugin/pkg/admission/resourcequota)."""
    return ApiError(
        403,
        "Forbidden",
        f'{info.key} "{name}" is forbidden: exceeded quota: {QUOTA_NAME}, requested: '
        f"{resource}=1, used: {resource}={used}, limited: {resource}={limit}",
        {"name": name, "group": info.group, "kind": info.plural},
    )


# kube-apiserver's --max-request-body-bytes default (MaxRequestBodyBytes): 3 MiB for a write.
MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024
# How much of a refused body the server reads (and drops) before it answers and closes.
DISCARD_BYTES = 16 * 1024 * 1024


def request_too_large(limit: int = MAX_REQUEST_BODY_BYTES) -> ApiError:
    """kube-apiserver's 413 for a body over the limit (limitedReadBody)."""
    return ApiError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")
