"""The scheduler's loop: hold the Lease, wait for a change, run a cycle, apply it.

A cycle is level-triggered: it rebuilds the engine's model from a fresh read of the cluster
(``PodModel``), so a restart, a missed watch event or an API error costs at most a cycle, never a
double binding: a bound pod has ``spec.nodeName`` and is seated where it is, and the API server
refuses a second binding of the same pod (409).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from simulators.cluster.api import ApiError, ClusterAPI, Obj
from simulators.controllers.snapshot import Writer, write_back
from simulators.controllers.util import emit, name_of, namespace_of
from simulators.engine import ACTIONS, Action, CycleResult, EngineError
from simulators.scheduler.lease import LeaderElector
from simulators.scheduler.model import PodModel

SOURCE = "runai-scheduler"
POD_SELECTOR = "spec.schedulerName=runai-scheduler"

Log = Callable[[str], None]


@dataclass
class CycleReport:
    bound: list[str] = field(default_factory=list)
    evicted: list[str] = field(default_factory=list)
    events: int = 0


class _Writer(Writer):
    """The scheduler's writes: only while it leads, each one logged."""

    def __init__(self, scheduler: Scheduler, report: CycleReport) -> None:
        self.scheduler = scheduler
        self.report = report

    def may_write(self) -> bool:
        return self.scheduler.elector.is_leader()

    def evicted(self, action: Action, pod: Obj) -> None:
        where = f"{namespace_of(pod)}/{name_of(pod)}"
        self.report.evicted.append(where)
        self.scheduler.log(f"evicted {where} ({action.reason.value})")

    def bound(self, pod: Obj, node: str) -> None:
        self.scheduler._bound(pod, node, self.report)

    def failed(self, verb: str, pod: Obj, error: ApiError) -> None:
        self.scheduler.log(f"{verb} {namespace_of(pod)}/{name_of(pod)}: {error.message}")


class Scheduler:
    """One replica of runai-scheduler over a ClusterAPI (the kube backend on a cluster)."""

    def __init__(
        self,
        api: ClusterAPI,
        elector: LeaderElector,
        *,
        log: Log,
        crash_after_binds: int | None = None,
    ) -> None:
        self.api = api
        self.elector = elector
        self.log = log
        self.crash_after_binds = crash_after_binds
        self.binds = 0
        self.wake = threading.Event()
        self.stop = threading.Event()
        self.relists = 0

    # ------------------------------------------------------------------ one cycle
    def cycle(self) -> CycleReport:
        report = CycleReport()
        model = PodModel(self.api)
        if not model.groups:
            return report
        try:
            # No settling: the engine takes last cycle's releasing pods as gone, but on a
            # cluster a Terminating pod holds its GPUs until the kubelet has stopped it. While
            # any does, only allocate: the pod it makes room for is bound by the first cycle
            # that no longer sees it, and nobody else is evicted for the same need meanwhile.
            actions = ("allocate",) if model.terminating else ACTIONS
            result = model.cluster.run_cycle(actions, settle=False)
        except EngineError as error:
            self.log(f"cycle skipped: {error}")
            return report
        self._apply(model, result, report)
        return report

    def _apply(self, model: PodModel, result: CycleResult, report: CycleReport) -> None:
        write_back(model, result, _Writer(self, report))
        for event in result.events:
            if self._record(model, event.object_kind, event.object_name, event.project, event):
                report.events += 1

    def _bound(self, pod: Obj, node: str, report: CycleReport) -> None:
        name, namespace = name_of(pod), namespace_of(pod)
        report.bound.append(f"{namespace}/{name}")
        self.log(f"bound {namespace}/{name} to {node}")
        self.binds += 1
        if self.crash_after_binds is not None and self.binds >= self.crash_after_binds:
            # Test hook: die mid-cycle without releasing anything, as a killed process would.
            os._exit(3)

    def _record(self, model: PodModel, kind: str, name: str, project: str, event: object) -> bool:
        from simulators.engine import Event

        assert isinstance(event, Event)
        involved: Obj | None
        if kind == "Pod":
            involved = model.api_pods.get((project, name))
        else:
            group = model.groups.get((project, name))
            involved = group.podgroup if group is not None else None
        if involved is None:
            return False
        try:
            emit(self.api, involved, event.type, event.reason, model.message(event.message), SOURCE)
        except ApiError as error:
            self.log(f"event on {name}: {error.message}")
            return False
        return True

    # ------------------------------------------------------------------ the loop
    def watch_pods(self, timeout_seconds: int = 30, since: str = "") -> None:
        """Wake the loop on every change of a runai-scheduler pod; relist on 410 Gone.

        ``since``: the resourceVersion to go on from (empty: list first).
        """
        stream = getattr(self.api, "stream", None)
        version = since
        while not self.stop.is_set():
            try:
                if not version:
                    listed = self.api.list("pods", field_selector=POD_SELECTOR)
                    version = str(listed.get("metadata", {}).get("resourceVersion") or "")
                    self.wake.set()
                if stream is None:
                    events = self.api.watch(
                        "pods", resource_version=version, field_selector=POD_SELECTOR
                    )
                    self.stop.wait(0.2)
                else:
                    events = stream(
                        "pods",
                        resource_version=version,
                        field_selector=POD_SELECTOR,
                        timeout_seconds=timeout_seconds,
                    )
                for event in events:
                    rv = str(event.object.get("metadata", {}).get("resourceVersion") or "")
                    if rv:
                        version = rv
                    if event.type != "BOOKMARK":
                        self.wake.set()
                    if self.stop.is_set():
                        return
            except ApiError as error:
                if error.code == 410:
                    self.relists += 1
                    self.log("watch expired (410 Gone): relisting pods")
                    version = ""
                    continue
                self.log(f"watch: {error.message}")
                self.stop.wait(1.0)
            except Exception as error:  # a broken stream: start over from a fresh list
                self.log(f"watch: {type(error).__name__}")
                version = ""
                self.stop.wait(1.0)

    def run(self, *, resync_seconds: float = 5.0, retry_seconds: float = 2.0) -> None:
        watcher = threading.Thread(target=self.watch_pods, name="pod-watch", daemon=True)
        watcher.start()
        leading: bool | None = None
        try:
            while not self.stop.is_set():
                if not (self.elector.fresh() or self.elector.try_acquire_or_renew()):
                    if leading is not False:
                        holder = self.elector.holder or "another replica"
                        self.log(f"waiting for the lease: held by {holder}")
                        leading = False
                    self.stop.wait(retry_seconds)
                    continue
                if not leading:
                    self.log(f"leading as {self.elector.identity}")
                    leading = True
                self.wake.wait(min(resync_seconds, self.elector.lease_seconds / 3))
                # Pods of one submission arrive together: let them all land first.
                self.stop.wait(0.02)
                self.wake.clear()
                if self.stop.is_set() or not self.elector.is_leader():
                    continue
                try:
                    self.cycle()
                except ApiError as error:
                    self.log(f"cycle failed: {error.message}")
                    self.stop.wait(retry_seconds)
                except Exception as error:  # one odd object must not stop the scheduler
                    self.log(f"cycle failed: {type(error).__name__}: {error}")
                    self.stop.wait(retry_seconds)
        finally:
            self.stop.set()
            self.elector.release()
