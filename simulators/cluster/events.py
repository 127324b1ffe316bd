"""core/v1 Events as client-go's event recorder writes them (with its de-duplication)."""

from __future__ import annotations

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.cluster.clock import format_time


def object_reference(obj: Obj, field_path: str | None = None) -> Obj:
    meta = obj.get("metadata", {})
    ref: Obj = {
        "kind": obj.get("kind", ""),
        "apiVersion": obj.get("apiVersion", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "resourceVersion": meta.get("resourceVersion", ""),
    }
    if meta.get("namespace"):
        ref["namespace"] = meta["namespace"]
    if field_path:
        ref["fieldPath"] = field_path
    return ref


def record_event(
    api: ClusterAPI,
    involved: Obj,
    type_: str,
    reason: str,
    message: str,
    source_component: str,
    *,
    host: str | None = None,
    field_path: str | None = None,
) -> Obj:
    """Record an event about ``involved``; a repeat of the same event bumps its count.

    Events of cluster-scoped objects (nodes) go to the ``default`` namespace, as in Kubernetes.
    """
    ref = object_reference(involved, field_path)
    namespace = ref.get("namespace") or "default"
    source: Obj = {"component": source_component}
    if host:
        source["host"] = host
    now = format_time(api.now())
    # The field selector narrows the scan to this object's events of this reason, so a busy
    # namespace's other events are not copied on every record.
    candidates = api.list(
        "events",
        namespace,
        field_selector=f"involvedObject.name={ref['name']},reason={reason}",
    )["items"]
    for event in candidates:
        other = event.get("involvedObject", {})
        if (
            other.get("uid") == ref["uid"]
            and other.get("name") == ref["name"]
            and other.get("kind") == ref["kind"]
            and other.get("fieldPath") == ref.get("fieldPath")
            and event.get("reason") == reason
            and event.get("message") == message
            and event.get("type") == type_
            and event.get("source") == source
        ):
            return api.patch(
                "events",
                event["metadata"]["name"],
                {"count": int(event.get("count", 1)) + 1, "lastTimestamp": now},
                namespace,
            )
    stamp = int(api.now().timestamp() * 1_000_000_000)
    event_obj: Obj = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{ref['name']}.{stamp:x}", "namespace": namespace},
        "involvedObject": ref,
        "reason": reason,
        "message": message,
        "source": source,
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": type_,
        "eventTime": None,
        "reportingComponent": source_component,
        "reportingInstance": host or "",
    }
    for bump in range(1000):
        try:
            return api.create("events", event_obj, namespace)
        except ApiError as error:
            if error.code != 409:
                raise
            # Two events in one step: the recorder's name is a nanosecond stamp, so step on.
            event_obj["metadata"]["name"] = f"{ref['name']}.{stamp + bump + 1:x}"
    raise ApiError(500, "InternalError", "could not name the event")
