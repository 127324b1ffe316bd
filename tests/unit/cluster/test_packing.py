"""Between two commands a lab holds its cluster's big buckets packed (simulators.cluster.packing),
and nothing a learner sees or saves can tell (issue 30: a kept lab's memory)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulators.cluster import packing
from simulators.cluster.store import MockCluster
from simulators.lab import LabSession
from simulators.lab.world import World
from tests.unit.lab.test_lab_resting import KEPT_LIMIT, _kept_bytes
from tests.unit.lab.test_lab_tickets import TICKETS

# JSON values of every type a stored object holds: 1, 1.0 and True stay apart.
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
KEYS = st.tuples(st.sampled_from(["", "default", "kube-system"]), st.text(min_size=1, max_size=6))
BUCKETS = st.dictionaries(
    KEYS, st.dictionaries(st.text(max_size=4), VALUES, max_size=3), max_size=8
)


@given(BUCKETS, BUCKETS, st.data())
def test_a_bucket_unpacks_to_the_same_objects_in_the_same_order_sharing_its_bases(
    base: dict[Any, Any], own: dict[Any, Any], data: st.DataObject
) -> None:
    # A bucket as a lab holds it: some of the base's objects (by identity), its own, in any order.
    kept = data.draw(st.lists(st.sampled_from(sorted(base)), unique=True)) if base else []
    entries = [(key, base[key]) for key in kept] + [(k, v) for k, v in own.items() if k not in base]
    bucket = dict(data.draw(st.permutations(entries)))
    with patch.object(packing, "PACK_FROM", 0):  # however small
        packed = packing.pack(bucket, base)
    assert packed is not None
    unpacked = packing.unpack(packed, base)
    assert list(unpacked) == list(bucket)
    assert repr(unpacked) == repr(bucket)  # types too: 1, 1.0 and True are not one another
    assert all((unpacked[key] is base.get(key)) == (bucket[key] is base.get(key)) for key in bucket)
    assert packed.size == len(bucket)


@pytest.fixture
def packing_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bucket of the lab's own is packed, however small: every kind of object and every
    reader goes through an unpacking."""
    monkeypatch.setattr(packing, "PACK_FROM", 0)


def _never_packing(monkeypatch: pytest.MonkeyPatch) -> Callable[[bool], None]:
    real = World.pack_idle

    def switch(on: bool) -> None:
        monkeypatch.setattr(World, "pack_idle", real if on else lambda self: None)

    return switch


# After the answer key, what reads the changed buckets and changes more (a namespace deleted
# with what it holds: the garbage collector's scan of every bucket).
MORE = [
    "kubectl get pods -A -o wide",
    "kubectl describe node gpu-node2",
    "kubectl get events -A --sort-by=.lastTimestamp | tail -3",
    "kubectl create ns scratch",
    "kubectl create deployment web --image=nginx -n scratch --replicas=3",
    "kubectl get all -n scratch",
    "kubectl delete ns scratch",
    "kubectl logs -n gpu-operator ds/nvidia-device-plugin-daemonset --tail=2",
    "kubectl delete pod -n gpu-operator -l app=nvidia-device-plugin-daemonset",
    "kubectl get pods -A | wc -l",
    "kubectl logs -n kube-system -l k8s-app=kube-dns --tail=1",
]


@pytest.mark.parametrize("ticket_id", TICKETS)
def test_a_lab_packed_between_commands_answers_and_saves_as_one_never_packed(
    ticket_id: str, packing_everything: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    switch = _never_packing(monkeypatch)
    packed, plain = LabSession.new(ticket_id, seed=3), LabSession.new(ticket_id, seed=3)
    for line in [*packed.answer_key(), *MORE]:
        switch(True)
        seen = packed.run(line)
        switch(False)
        assert plain.run(line).output == seen.output, line
        assert packed.world.api._packed, line  # something was packed
    assert packed.encode() == plain.encode()
    # Opened again (as another process would) and packed at once: the same lab.
    switch(True)
    reopened = LabSession.from_json(packed.encode())
    assert reopened.world.api._packed
    seen = reopened.run("kubectl get pods -A").output
    switch(False)
    assert seen == plain.run("kubectl get pods -A").output


def test_a_forked_store_packed_leaves_its_base_and_its_counts_as_they_were(
    packing_everything: None,
) -> None:
    base = MockCluster(seed=1)
    for n in range(3):
        base.create("configmaps", {"metadata": {"name": f"cm{n}"}, "data": {"n": str(n)}})
    before = base.to_json()
    names = {c["metadata"]["name"] for c in base.list("configmaps", "default")["items"]}
    lab = base.fork()
    lab.create("configmaps", {"metadata": {"name": "mine"}}, "default")
    lab.delete("configmaps", "cm1", "default")
    lab.pack_idle()
    assert "configmaps" in lab._packed and "configmaps" not in lab._objects
    assert packing.sizes(lab)["configmaps"] == packing.sizes(base)["configmaps"]  # one in, one out
    listed = [c["metadata"]["name"] for c in lab.list("configmaps", "default")["items"]]
    assert listed == sorted(names - {"cm1"} | {"mine"})
    assert base.to_json() == before


def test_a_solved_mig_lab_holds_its_big_buckets_packed_between_commands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # About 80 new Events and a dozen replaced pods: 240 KB live, about half of it packed.
    packed = _kept_bytes("mig-single", rest=False)
    _never_packing(monkeypatch)(False)
    live = _kept_bytes("mig-single", rest=False)
    assert packed <= 1.3 * KEPT_LIMIT < live, f"{packed / 1024:.0f} KB, {live / 1024:.0f} KB"


def test_a_bucket_unpacked_then_left_too_small_to_pack_shares_its_bases_parts_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = MockCluster(seed=1)
    text = {"text": "x" * 2000, "n": "1"}
    base.create("configmaps", {"metadata": {"name": "big"}, "data": text}, "default")
    lab = base.fork()
    lab.patch("configmaps", "big", {"data": {"n": "2"}}, "default")
    monkeypatch.setattr(packing, "PACK_FROM", 0)
    lab.pack_idle()
    monkeypatch.setattr(packing, "PACK_FROM", 10**9)
    lab.patch("configmaps", "big", {"data": {"n": "3"}}, "default")  # unpacked, then written
    lab.pack_idle()  # now too small to pack: it stays live
    key = ("default", "big")
    mine, theirs = lab._objects["configmaps"][key], base._objects["configmaps"][key]
    assert mine["data"] == {"text": "x" * 2000, "n": "3"}
    assert mine["data"]["text"] is theirs["data"]["text"]  # one string, not an unpickled copy


def test_a_labs_logs_are_held_packed_read_as_they_were_and_written_afresh(
    packing_everything: None,
) -> None:
    base = MockCluster(seed=1)
    base.create(
        "pods",
        {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
    )
    base.append_log("default", "p", "c", ["from the template"])
    lab = base.fork()
    lab.append_log("default", "p", "c", ["mine"])
    lab.restart_log("default", "p", "c")
    lab.append_log("default", "p", "c", ["after the restart"])
    lab.pack_idle()
    blob = lab._packed_logs
    assert blob is not None
    assert lab.logs("p", "default") == "after the restart\n"
    assert lab.logs("p", "default", previous=True) == "from the template\nmine\n"
    lab.pack_idle()
    assert lab._packed_logs is blob  # only read: packed as it was
    lab.append_log("default", "p", "c", ["more"])
    lab.pack_idle()
    assert lab._packed_logs not in (None, blob)
    assert lab.logs("p", "default") == "after the restart\nmore\n"
    assert base.logs("p", "default") == "from the template\n"
    lab.delete("pods", "p", "default", grace_period=0)
    lab.pack_idle()
    assert lab.read_logs() == ({}, {})


def test_a_small_bucket_no_command_reads_is_packed_and_one_read_again_stays_unpacked() -> None:
    base = MockCluster(seed=1)
    base.create("configmaps", {"metadata": {"name": "a"}, "data": {"n": "1"}}, "default")
    lab = base.fork()
    lab.create("configmaps", {"metadata": {"name": "mine"}, "data": {"n": "2"}}, "default")
    listed = lab.list("configmaps", "default")["items"]
    for _ in range(packing.IDLE_COMMANDS):
        lab.pack_idle()  # a command that read other things
        assert "configmaps" in lab._objects
    lab.pack_idle()
    assert lab._packed["configmaps"].small and "configmaps" not in lab._objects
    assert lab.list("configmaps", "default")["items"] == listed  # read: unpacked
    lab.pack_idle()
    lab.pack_idle()
    assert "configmaps" in lab._objects  # read again: kept unpacked a while
    assert lab._stored(lab.info("configmaps"), "a", "default") is base._stored(
        base.info("configmaps"), "a", "default"
    )


def test_small_logs_are_weighed_once_until_written_and_a_bucket_read_each_command_stays_live(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lab = MockCluster(seed=1).fork()
    lab.create("namespaces", {"metadata": {"name": "team"}})
    lab.append_log("team", "p", "c", ["one line"])
    lab.pack_idle()
    assert lab._packed_logs is None and lab._small_logs
    for n in range(packing.IDLE_COMMANDS + 2):
        # Each command creates in the namespace: the store reads the namespaces to check it.
        lab.create("configmaps", {"metadata": {"name": f"cm{n}"}}, "team")
        with patch.object(packing.pickle, "dumps", side_effect=AssertionError("weighed")):
            packing.pack_logs(lab)
        lab.pack_idle()
        assert "namespaces" in lab._objects, n
    lab.append_log("team", "p", "c", ["another"])
    assert not lab._small_logs
