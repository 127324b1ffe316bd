"""NCCL's transport in a pod, as fabric.transport judges it from the pod's spec."""

from __future__ import annotations

from typing import Any

import pytest

from simulators.controllers import fabric


def _pod(*, rdma: bool = False, caps: list[str] | None = None, **env: str) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "t", "image": "nvcr.io/nvidia/pytorch:24.05-py3"}
    if rdma:
        container["resources"] = {"limits": {fabric.RDMA_RESOURCE: "1"}}
    if caps is not None:
        container["securityContext"] = {"capabilities": {"add": caps}}
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    return {"metadata": {"name": "p", "namespace": "n"}, "spec": {"containers": [container]}}


@pytest.mark.parametrize(
    ("pod", "expected"),
    [
        (_pod(), fabric.SOCKET),
        (_pod(caps=["IPC_LOCK"]), fabric.SOCKET),
        (_pod(rdma=True), fabric.NO_MEMLOCK),
        (_pod(rdma=True, caps=["IPC_LOCK"]), fabric.IB),
        (_pod(rdma=True, caps=["CAP_IPC_LOCK"]), fabric.IB),
        (_pod(rdma=True, caps=["IPC_LOCK"], NCCL_IB_DISABLE="1"), fabric.SOCKET),
        (_pod(rdma=True, caps=["IPC_LOCK"], NCCL_IB_DISABLE="0"), fabric.IB),
    ],
)
def test_the_transport_follows_the_device_and_the_capability(
    pod: dict[str, Any], expected: str
) -> None:
    assert fabric.transport(pod) == expected


@pytest.mark.parametrize(
    ("ifname", "found"),
    [("eth", True), ("eth0", True), ("=eth0", True), ("=eth", False), ("ib0", False),
     ("^eth", True), ("^eth,lo", False), ("e", True)],
)  # fmt: skip
def test_nccl_socket_ifname_matches_as_ncclfindinterfaces_does(ifname: str, found: bool) -> None:
    # The pod has eth0 and lo; a one-character value is ignored (strlen > 1 in socket.cc).
    expected = fabric.SOCKET if found else fabric.NO_INTERFACE
    assert fabric.transport(_pod(NCCL_SOCKET_IFNAME=ifname)) == expected
