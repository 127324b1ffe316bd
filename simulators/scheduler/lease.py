"""Leader election through a ``coordination.k8s.io/v1`` Lease, as client-go's leaderelection.

One replica holds the Lease and renews it; the others read it and wait. Expiry is judged by the
waiting replica's own monotonic clock from the moment it last saw the Lease change (not by
comparing ``renewTime`` with its wall clock), so clock skew between machines cannot make two
leaders. Every write carries the ``resourceVersion`` it read: of two replicas racing for an
expired Lease, the API server lets one through and answers the other 409 Conflict.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from simulators.cluster.api import ApiError, ClusterAPI, Obj

LEASES = "leases.coordination.k8s.io"


def micro_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaderElector:
    """``try_acquire_or_renew()`` once per loop; act only while ``is_leader()``."""

    def __init__(
        self,
        api: ClusterAPI,
        *,
        namespace: str,
        name: str,
        identity: str,
        lease_seconds: int = 15,
        monotonic: Callable[[], float],
        wall: Callable[[], datetime] | None = None,
    ) -> None:
        self.api = api
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.lease_seconds = lease_seconds
        self._monotonic = monotonic
        self._wall = wall or (lambda: datetime.now(UTC))
        self._observed: tuple[str, str, str] | None = None
        self._observed_at = 0.0
        self._renewed_at: float | None = None
        self.holder = ""

    def is_leader(self) -> bool:
        """Held, and renewed recently enough that nobody else can have taken it over."""
        if self._renewed_at is None:
            return False
        # A margin of a third of the lease: stop acting well before another replica may start.
        return self._monotonic() - self._renewed_at < self.lease_seconds * 2 / 3

    def fresh(self) -> bool:
        """Held and renewed within the last third of the lease: no need to renew yet."""
        if self._renewed_at is None:
            return False
        return self._monotonic() - self._renewed_at < self.lease_seconds / 3

    def try_acquire_or_renew(self) -> bool:
        now = self._wall()
        try:
            lease = self.api.get(LEASES, self.name, self.namespace)
        except ApiError as error:
            if error.code != 404:
                # The API is unreachable: lead on until the margin runs out, then stop.
                return self.is_leader()
            return self._create(now)
        lease_spec = dict(lease.get("spec") or {})
        holder = str(lease_spec.get("holderIdentity") or "")
        record = (
            holder,
            str(lease_spec.get("renewTime") or ""),
            str(lease["metadata"].get("resourceVersion") or ""),
        )
        if record != self._observed:
            self._observed = record
            self._observed_at = self._monotonic()
        self.holder = holder
        duration = int(lease_spec.get("leaseDurationSeconds") or self.lease_seconds)
        held_by_other = bool(holder) and holder != self.identity
        if held_by_other and self._monotonic() - self._observed_at < duration:
            self._renewed_at = None
            return False
        new_spec: Obj = {
            **lease_spec,
            "holderIdentity": self.identity,
            "leaseDurationSeconds": self.lease_seconds,
            "renewTime": micro_time(now),
        }
        if holder != self.identity:
            new_spec["acquireTime"] = micro_time(now)
            new_spec["leaseTransitions"] = int(lease_spec.get("leaseTransitions") or 0) + (
                1 if holder else 0
            )
        lease["spec"] = new_spec
        try:
            updated = self.api.update(LEASES, lease, self.namespace)
        except ApiError:
            # 409: another replica wrote first. Anything else: we could not renew.
            self._renewed_at = None
            return False
        return self._won(updated)

    def _create(self, now: datetime) -> bool:
        body: Obj = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": {
                "holderIdentity": self.identity,
                "leaseDurationSeconds": self.lease_seconds,
                "acquireTime": micro_time(now),
                "renewTime": micro_time(now),
                "leaseTransitions": 0,
            },
        }
        try:
            created = self.api.create(LEASES, body, self.namespace)
        except ApiError:
            self._renewed_at = None
            return False
        return self._won(created)

    def _won(self, lease: Obj) -> bool:
        lease_spec = lease.get("spec") or {}
        self._observed = (
            str(lease_spec.get("holderIdentity") or ""),
            str(lease_spec.get("renewTime") or ""),
            str(lease["metadata"].get("resourceVersion") or ""),
        )
        self._observed_at = self._renewed_at = self._monotonic()
        self.holder = self.identity
        return True

    def release(self) -> None:
        """Give the Lease up on a clean stop, so the next replica need not wait it out."""
        if self._renewed_at is None:
            return
        self._renewed_at = None
        try:
            lease = self.api.get(LEASES, self.name, self.namespace)
            if (lease.get("spec") or {}).get("holderIdentity") != self.identity:
                return
            lease["spec"] = {
                **lease["spec"],
                "holderIdentity": "",
                "leaseDurationSeconds": 1,
                "renewTime": micro_time(self._wall()),
            }
            self.api.update(LEASES, lease, self.namespace)
        except ApiError:
            pass
