"""Labs kept in this process rest once idle (studysite.lab.kept: LabSession.rest), and a rested
lab's next command, page and transcript are what they would have been awake."""

from __future__ import annotations

import json
import threading
import time

import pytest

from simulators.lab import LabSession
from studysite.lab import store
from studysite.lab.consumers import completions
from studysite.lab.kept import REST_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)

TICKET = "mig-single"
LINES = ["kubectl label node gpu-node1 nvidia.com/mig.config=all-1g.10gb --overwrite"] + [
    "kubectl get pods -n gpu-operator"
] * 3


def _later() -> float:
    return time.monotonic() + REST_SECONDS + 1


def test_an_idle_kept_lab_rests_and_its_next_command_answers_as_if_it_never_had() -> None:
    opened = store.open_lab("r" * 32, TICKET)
    awake = LabSession.new(TICKET, seed=opened.lab.seed)
    for line in LINES:
        assert store.apply(opened, line).output == awake.run(line).output
    assert store.kept.rest_idle(_later()) >= 1
    assert opened.lab.at_rest
    # The page's transcript and the checklist come back from the rested form.
    assert opened.lab.transcript == awake.transcript
    line = "kubectl get nodes -L nvidia.com/mig.config.state"
    assert store.kept.rest_idle(_later()) >= 1
    assert store.apply(opened, line).output == awake.run(line).output
    assert not opened.lab.at_rest
    assert _saved(opened.lab) == _saved(awake)
    # What the database holds opens to the same lab, in another process as here.
    store.kept.clear()
    assert _saved(store.open_lab("r" * 32, TICKET).lab) == _saved(awake)


def _saved(lab: LabSession) -> dict[str, object]:
    """The lab's snapshot but its record of what was typed (which holds processor times)."""
    data = json.loads(lab.encode())
    del data["typed"]
    return data  # type: ignore[no-any-return]


def test_a_lab_used_within_the_rest_delay_or_busy_stays_awake() -> None:
    used = store.open_lab("u" * 32, TICKET)
    store.apply(used, "kubectl cordon gpu-node2")
    busy = store.open_lab("b" * 32, TICKET)
    store.apply(busy, "kubectl cordon gpu-node3")
    store.kept.rest_idle(time.monotonic())  # just used: too soon
    assert not used.lab.at_rest and not busy.lab.at_rest
    with store.lock_for(busy.saved_id):  # a command or a page holds it
        store.kept.rest_idle(_later())
        assert not busy.lab.at_rest
    assert used.lab.at_rest
    store.kept.rest_idle(_later())
    assert busy.lab.at_rest


def test_a_lab_that_fails_to_rest_stays_awake_and_the_others_still_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = store.open_lab("f" * 32, TICKET)
    store.apply(broken, "kubectl cordon gpu-node1")
    fine = store.open_lab("g" * 32, TICKET)
    store.apply(fine, "kubectl cordon gpu-node2")

    def fails() -> bool:
        raise RuntimeError("no room")

    monkeypatch.setattr(broken.lab, "rest", fails)
    store.kept.rest_idle(_later())
    assert fine.lab.at_rest and not broken.lab.at_rest
    assert "SchedulingDisabled" in store.apply(broken, "kubectl get node gpu-node1").output


def test_tab_completion_waits_for_the_labs_lock_so_it_never_reads_a_lab_halfway_to_rest() -> None:
    opened = store.open_lab("c" * 32, TICKET)
    store.apply(opened, "kubectl cordon gpu-node2")
    answers: list[list[str]] = []
    with store.lock_for(opened.saved_id):  # the resting thread (or another tab) holds it
        reader = threading.Thread(
            target=lambda: answers.append(completions(opened, "kubectl drain gpu-n"))
        )
        reader.start()
        reader.join(0.3)
        assert answers == [], "completion read the lab while another thread held it"
        store.kept.rest_idle(_later())
        assert not opened.lab.at_rest  # busy: not rested under the holder
    reader.join(5)
    assert answers and "gpu-node2" in " ".join(answers[0])
