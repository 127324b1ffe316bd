"""The kubelet's side of a pod's ``log`` and ``exec`` subresources, for the mock store.

What a container wrote (and wrote before its last restart) is kept per container; ``exec``
asks the handlers that whoever assembles the world added (the lab's ``nvidia-smi``, say),
in order, until one answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from simulators.cluster import packing
from simulators.cluster.api import Obj, ResourceInfo
from simulators.cluster.changes import LOGS, Changes
from simulators.cluster.patches import deep_copy
from simulators.cluster.subresources import exec_container, exec_not_found, log_key, read_log

if TYPE_CHECKING:
    from simulators.cluster.store import MockCluster

# An exec handler answers a command run in a container, or returns None to pass.
ExecHandler = Callable[["MockCluster", Obj, str, list[str]], "str | None"]


class ContainerIO:
    """Containers' logs and exec, mixed into ``MockCluster`` (which sets these fields)."""

    _exec_handlers: list[ExecHandler]
    changes: Changes
    # Containers' log lines by log_key, each list replaced, never edited (append_log), and
    # those written before each container's last restart. Both are held packed between a lab's
    # commands (packing.pack_logs) until read; what they were packed as is kept while they are
    # only read (read_logs), and dropped by the first reach for them to write (_logs).
    _log_lines: dict[str, list[str]]
    _previous_log_lines: dict[str, list[str]]
    _packed_logs: bytes | None = None
    _clean_logs: bytes | None = None
    _small_logs = False

    @property
    def _logs(self) -> dict[str, list[str]]:
        """The logs, to write (or read and write)."""
        self._to_write()
        return self._log_lines

    @_logs.setter
    def _logs(self, value: dict[str, list[str]]) -> None:
        self._to_write()
        self._log_lines = value

    @property
    def _previous_logs(self) -> dict[str, list[str]]:
        self._to_write()
        return self._previous_log_lines

    @_previous_logs.setter
    def _previous_logs(self, value: dict[str, list[str]]) -> None:
        self._to_write()
        self._previous_log_lines = value

    def _to_write(self) -> None:
        packing.unpack_logs(self)
        self._clean_logs = None  # packed anew by the next pack_idle
        self._small_logs = False

    def read_logs(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """The logs and previous logs, only to read: packed again as they were."""
        packing.unpack_logs(self)
        return self._log_lines, self._previous_log_lines

    def info(self, resource: str) -> ResourceInfo:
        raise NotImplementedError

    def _stored(self, info: ResourceInfo, name: str, namespace: str | None) -> Obj:
        raise NotImplementedError

    def append_log(self, namespace: str, pod: str, container: str, lines: list[str]) -> None:
        """The kubelet's side of ``pods/log``: lines a container wrote."""
        self.changes.changed(LOGS)
        key = log_key(namespace, pod, container)
        # A new list, not an edit: a fork shares its template's lists (saved.fork).
        self._logs[key] = [*self._logs.get(key, ()), *lines]

    def restart_log(self, namespace: str, pod: str, container: str) -> None:
        """A container restarted: its log becomes ``--previous`` and a new one starts."""
        key = log_key(namespace, pod, container)
        self.changes.changed(LOGS)
        self._previous_logs[key] = self._logs.pop(key, [])

    def logs(
        self,
        name: str,
        namespace: str,
        *,
        container: str | None = None,
        tail: int | None = None,
        previous: bool = False,
    ) -> str:
        self.changes.read(LOGS)
        lines, before_restart = self.read_logs()
        return read_log(
            self._stored(self.info("pods"), name, namespace),
            container=container,
            tail=tail,
            previous=previous,
            logs=lines,
            previous_logs=before_restart,
        )

    def add_exec_handler(self, handler: ExecHandler) -> None:
        """Answer ``kubectl exec`` commands in this cluster's containers (e.g. the lab world's
        ``nvidia-smi``); whoever assembles the world adds them. Adding one twice keeps one."""
        if handler not in self._exec_handlers:
            self._exec_handlers.append(handler)

    def run_program(self, pod: Obj, container: str, command: list[str]) -> str | None:
        """What the exec handlers answer for ``command`` as a container's own program (the
        kubelet starting it: no running container yet); None when none knows it."""
        for handler in self._exec_handlers:
            answer = handler(cast("MockCluster", self), deep_copy(pod), container, list(command))
            if answer is not None:
                return answer
        return None

    def exec(
        self,
        name: str,
        namespace: str,
        command: list[str],
        *,
        container: str | None = None,
    ) -> str:
        pod = self._stored(self.info("pods"), name, namespace)
        answer = self.run_program(pod, exec_container(pod, container), command)
        if answer is None:
            raise exec_not_found(command)
        return answer
