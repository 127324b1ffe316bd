"""The lab store's parts, each at its job: the holder its tabs share, the rate limits, the one
encoder across the annex's process boundary, and the annex sharing store.apply's refusals."""

from __future__ import annotations

import dataclasses
import json
import time

import pytest
from django.conf import LazySettings

from simulators.lab import ChecklistItem, CommandResult, streams
from simulators.lab.editor import EditorRequest
from simulators.lab.streams import StreamRequest
from studysite import rates
from studysite.lab import annex, store
from studysite.lab.kept import Head
from tests.web.test_lab_annex import FakeAnnex

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_command_result_crosses_the_process_boundary_and_comes_back_equal() -> None:
    result = CommandResult(
        "vi dir/x",
        "out\u00e9\x1b[0m",
        [ChecklistItem("a", "The layout is applied", True), ChecklistItem("b", "B", False)],
        7,
        clear=True,
        changed=[ChecklistItem("a", "The layout is applied", True)],
        exit_code=2,
        editor=EditorRequest("dir/x", "text\n", "vim", "t0k"),
        stream=StreamRequest(
            streams.ROWS,
            "kubectl get pods -w",
            2.0,
            title="Every 2.0s",
            timeout=30.0,
            since="812",
            printed=True,
            widths=(12, 9, 6),
        ),
        prompt="> ",
    )
    # Through JSON, as the pipe carries it.
    assert CommandResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    plain = CommandResult("ls", "", [], 0)
    assert CommandResult.from_dict(json.loads(json.dumps(plain.to_dict()))) == plain


def test_a_reply_that_is_not_a_result_is_refused_by_the_decoder() -> None:
    with pytest.raises(KeyError):
        CommandResult.from_dict({"checklist": [], "step": 1})
    with pytest.raises(TypeError):
        CommandResult.from_dict({"output": "", "checklist": [{"nope": 1}], "step": 1})


def test_a_reload_replaces_what_the_tabs_share_whole_and_leaves_an_older_head_as_it_was() -> None:
    key = "h" * 32
    tab = store.open_lab(key, "mig-single")
    store.apply(tab, "kubectl cordon gpu-node1")
    before = tab.head
    # Another process saves a command: this process's copy is behind.
    other = store._load(key, "mig-single")
    store.apply(other, "kubectl label node gpu-node2 seen=yes")
    store.apply(tab, "kubectl get nodes")  # loses the race, reloads, runs again
    after = tab.head
    assert after is not before and after.lab is not before.lab
    # The head a reader took before is whole: its lab and its position belong together.
    assert (before.version, [e.line for e in before.lab.transcript]) == (
        1,
        ["kubectl cordon gpu-node1", "kubectl get nodes"],
    )
    assert after.version == 3
    assert [e.line for e in after.lab.transcript] == [
        "kubectl cordon gpu-node1",
        "kubectl label node gpu-node2 seen=yes",
        "kubectl get nodes",
    ]
    assert store.open_lab(key, "mig-single") is tab
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.version = 0  # type: ignore[misc]
    assert isinstance(after, Head)


def test_a_cpu_share_refuses_once_spent_and_allows_again_when_refilled(
    settings: LazySettings,
) -> None:
    settings.LAB_SESSION_CPU_MS_PER_SECOND = 100  # 0.1 s a second, a burst of 1 s
    share = rates.CpuShare()
    now = time.monotonic()
    assert share.allows("s", now)
    share.charge("s", 1.5)
    assert not share.allows("s", now + 0.01)
    assert share.heavy("s", now + 0.01)
    assert share.allows("s", now + 6)
    assert not share.heavy("s", now + 30)
    assert share.allows("other", now)


def test_a_cached_bucket_is_shared_by_every_holder_of_its_name() -> None:
    now = time.time()
    one, two = rates.CachedBuckets("test-shared"), rates.CachedBuckets("test-shared")
    assert two.has_tokens("k", 1.0, 10.0, now)
    one.spend("k", 12.0, 1.0, 10.0, now)
    assert not two.has_tokens("k", 1.0, 10.0, now + 1)
    assert two.has_tokens("k", 1.0, 10.0, now + 3)


@pytest.fixture
def annex_on(settings: LazySettings) -> None:
    settings.LAB_ANNEX = True


def test_a_line_over_the_limit_from_a_heavy_session_is_refused_here_never_sent_to_the_annex(
    annex_on: None, settings: LazySettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeAnnex({**CommandResult("x", "ran", [], 1).to_dict(), "cpu": 0.01, "saved_id": 1})
    monkeypatch.setattr(annex, "_annex", fake)
    key = "v" * 32
    opened = store.open_lab(key, "mig-single")
    store.cpu_share.allows(key, time.monotonic())
    store.cpu_share.charge(key, store.HEAVY_SECONDS + 0.1)
    assert annex.serves(opened)
    long_line = "echo " + "x" * settings.LAB_MAX_LINE_BYTES
    refused = annex.apply(opened, long_line)
    assert refused.output == store.apply(opened, long_line).output
    assert refused.output.startswith("bash: ") and fake.sent == []
    ran = annex.apply(opened, "kubectl get nodes")
    assert (ran.output, ran.line) == ("ran", "kubectl get nodes")
    assert len(fake.sent) == 1
