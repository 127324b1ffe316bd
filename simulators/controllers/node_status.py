"""The kubelet's node status: its Lease in `kube-node-lease`, renewed every step, and the node's
conditions' heartbeats, reported every STATUS_REPORT_SECONDS (as the kubelet's
nodeStatusReportFrequency does once the Lease carries liveness)."""

from __future__ import annotations

import contextlib

from simulators.cluster.api import ApiError, ClusterAPI
from simulators.cluster.clock import parse_time
from simulators.controllers.util import get_or_none, items, name_of, status, timestamp, uid_of

LEASE_NAMESPACE = "kube-node-lease"
LEASE_SECONDS = 40
STATUS_REPORT_SECONDS = 300


def _micro(api: ClusterAPI) -> str:
    return api.now().strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def heartbeat(api: ClusterAPI) -> None:
    """Node leases in kube-node-lease, and the conditions' lastHeartbeatTime."""
    now = timestamp(api)
    for node in items(api, "nodes"):
        name = name_of(node)
        lease = get_or_none(api, "leases.coordination.k8s.io", name, LEASE_NAMESPACE)
        if lease is None:
            with contextlib.suppress(ApiError):
                api.create(
                    "leases.coordination.k8s.io",
                    {
                        "metadata": {
                            "name": name,
                            "namespace": LEASE_NAMESPACE,
                            "ownerReferences": [
                                {
                                    "apiVersion": "v1",
                                    "kind": "Node",
                                    "name": name,
                                    "uid": uid_of(node),
                                }
                            ],
                        },
                        "spec": {
                            "holderIdentity": name,
                            "leaseDurationSeconds": LEASE_SECONDS,
                            "renewTime": _micro(api),
                        },
                    },
                    LEASE_NAMESPACE,
                )
        else:
            api.patch(
                "leases.coordination.k8s.io",
                name,
                {"spec": {"renewTime": _micro(api)}},
                LEASE_NAMESPACE,
            )
        conditions = list(status(node).get("conditions") or [])
        stale = [
            c
            for c in conditions
            if (api.now() - parse_time(str(c.get("lastHeartbeatTime") or now))).total_seconds()
            >= STATUS_REPORT_SECONDS
        ]
        if conditions and stale:
            fresh = [{**c, "lastHeartbeatTime": now} for c in conditions]
            api.patch("nodes", name, {"status": {"conditions": fresh}}, subresource="status")
