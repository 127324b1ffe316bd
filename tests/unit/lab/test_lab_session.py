"""The public API: round trips through JSON, completion, and the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from simulators.lab import LabError, LabSession
from tests.unit.lab.lab_helpers import run_all

REPO = Path(__file__).resolve().parents[3]


def test_a_session_round_trips_through_json_exactly(mixed: LabSession) -> None:
    run_all(
        mixed,
        [
            "sed -i 's/mig-config.yaml:/config.yaml:/' custom-mig-config.yaml",
            "kubectl apply -f custom-mig-config.yaml",
            "hint",
            "kubectl get pods -A",
        ],
    )
    data = mixed.to_json()
    text = json.dumps(data)
    restored = LabSession.from_json(json.loads(text))
    assert restored.to_json() == data
    assert restored.step == mixed.step == 4
    assert [e.line for e in restored.transcript] == [e.line for e in mixed.transcript]
    assert restored.checklist() == mixed.checklist()
    # Both continue identically: same outputs, same clock.
    for line in [
        "kubectl delete pod -n gpu-operator -l app=nvidia-mig-manager",
        "hint",
        "kubectl get pods -n gpu-operator",
        "kubectl get nodes -L nvidia.com/mig.config.state",
    ]:
        assert restored.run(line) == mixed.run(line)
    assert restored.to_json() == mixed.to_json()


def test_a_session_encoded_for_saving_restores_its_json_and_stays_unchanged(
    mixed: LabSession,
) -> None:
    run_all(mixed, ["kubectl cordon gpu-node1", "kubectl get pods -A -o yaml"])
    data = mixed.to_json()
    encoded = json.loads(mixed.encode())
    # The same but the world, which names the ticket's template and holds what changed since.
    assert {k: v for k, v in encoded.items() if k != "world"} == {
        k: v for k, v in data.items() if k != "world"
    }
    assert LabSession.from_json(encoded).to_json() == data
    assert mixed.to_json() == data  # encoded from the live objects, which it left alone


def test_a_session_encoded_again_after_more_commands_holds_them_all(mixed: LabSession) -> None:
    run_all(mixed, ["kubectl get nodes", 'echo "quoted \\ text"'])
    mixed.encode()  # each entry's text is made once and kept for the next snapshot
    run_all(mixed, ["kubectl cordon gpu-node1", "echo déjà vu"])
    restored = LabSession.from_json(mixed.encode())
    assert restored.to_json() == mixed.to_json()
    assert [entry.line for entry in restored.transcript][-2:] == [
        "kubectl cordon gpu-node1",
        "echo déjà vu",
    ]


def test_a_runai_session_round_trips_mid_reclaim(validate: LabSession) -> None:
    run_all(
        validate,
        [
            "runai login",
            "runai training submit a1 -p team-a -i x -g 8",
            "runai training submit a2 -p team-a -i x -g 8",
            "runai training submit a3 -p team-a -i x -g 8",
            "runai training submit b1 -p team-b -i x -g 8",
        ],
    )
    restored = LabSession.from_json(json.dumps(validate.to_json()))
    # Saved while team-b's training waits for the GPUs team-a borrowed: the reclaim has not
    # happened yet, so both copies must carry it out the same way from here.
    listing = restored.run("runai training list -A")
    assert listing == validate.run("runai training list -A")
    assert re.search(r"^b1 +Training +Pending", listing.output, re.M)
    assert len(re.findall(r"^a\d +Training +Running +team-a", listing.output, re.M)) == 3
    pods = restored.run("kubectl get pods -A -l runai/queue")
    assert pods == validate.run("kubectl get pods -A -l runai/queue")
    assert re.search(r"^runai-team-b +b1-0-0 +1/1 +Running", pods.output, re.M)
    assert restored.run("runai training describe a3 -p team-a") == validate.run(
        "runai training describe a3 -p team-a"
    )


def test_from_json_refuses_garbage_with_the_labs_error() -> None:
    for bad in ("not json", {"version": 99}, {"version": 1, "ticket_id": "mig-single"}, [1, 2]):
        with pytest.raises(LabError):
            LabSession.from_json(bad)  # type: ignore[arg-type]


def test_the_same_seed_builds_the_same_world_and_another_seed_renames_pods() -> None:
    a, b, c = (
        LabSession.new("mig-single", 3),
        LabSession.new("mig-single", 3),
        LabSession.new("mig-single", 4),
    )
    assert a.to_json() == b.to_json()
    pods = "kubectl get pods -n gpu-operator"
    assert a.run(pods).output != c.run(pods).output


def test_command_result_carries_output_checklist_step_and_changes(single: LabSession) -> None:
    result = single.run("kubectl cordon gpu-node2")
    assert result.output == "node/gpu-node2 cordoned"
    assert result.step == 1
    assert result.changed == []
    assert result.to_dict()["checklist"][2] == {
        "id": "schedulable-again",
        "text": "gpu-node2 takes new workloads again",
        "done": False,
    }


def test_nothing_is_ticked_before_the_ticket_is_worked(single: LabSession) -> None:
    assert [item.done for item in single.checklist()] == [False, False, False, False]


def test_an_item_reports_the_command_that_ticked_it(single: LabSession) -> None:
    for line in [
        "kubectl drain gpu-node2 --ignore-daemonsets",
        "kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g.10gb --overwrite",
        "kubectl get nodes",
        "kubectl get nodes",
        "kubectl get nodes",
    ]:
        single.run(line)
    result = single.run("kubectl uncordon gpu-node2")
    assert "schedulable-again" in [item.id for item in result.changed]


def test_completion_offers_commands_subcommands_and_resource_types(single: LabSession) -> None:
    assert single.complete("kub") == ["kubectl"]
    assert single.complete("kubectl ge") == ["get"]
    assert single.complete("kubectl get no") == ["nodes"]
    assert single.complete("kubectl drain gpu-node") == ["gpu-node1", "gpu-node2", "gpu-node3"]
    assert single.complete("kubectl drain gpu-node2 --ign") == ["--ignore-daemonsets"]


def test_completion_knows_pods_per_namespace_and_files(mixed: LabSession) -> None:
    assert mixed.complete("kubectl logs tri") == ["triton"]
    assert mixed.complete("kubectl logs -n gpu-operator nvidia-mig-manager-")
    assert all(
        c.startswith("nvidia-mig-manager-")
        for c in mixed.complete("kubectl logs -n gpu-operator nvidia-mig")
    )
    assert mixed.complete("kubectl logs -n ") == sorted(
        n["metadata"]["name"] for n in mixed.world.api.list("namespaces")["items"]
    )
    assert mixed.complete("cat tr") == ["triton.yaml"]
    assert mixed.complete("kubectl apply -f cu") == ["custom-mig-config.yaml"]


def test_completion_offers_label_keys_and_mig_layouts(single: LabSession) -> None:
    got = single.complete("kubectl label nodes gpu-node2 nvidia.com/mig.config=all-1g")
    assert got == ["nvidia.com/mig.config=all-1g.10gb", "nvidia.com/mig.config=all-1g.20gb"]
    assert "nvidia.com/mig.config.state" in single.complete("kubectl get nodes -L nvidia.com/mig.c")


def test_completion_of_runai_words(pending: LabSession) -> None:
    assert pending.complete("runai work") == ["workload", "workspace"]
    assert pending.complete("runai workspace describe nb-") == ["nb-alice", "nb-bob", "nb-carol"]
    assert pending.complete("runai project set team-v") == ["team-vision"]


def test_completion_does_not_advance_the_clock(single: LabSession) -> None:
    single.complete("kubectl get ")
    assert single.step == 0


def _cli(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "simulators", "lab", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )


def test_the_cli_runs_the_answer_key_to_a_full_checklist_in_json_mode() -> None:
    key = LabSession.new("mig-single", seed=0).answer_key()
    proc = _cli(["--ticket", "mig-single", "--json"], "\n".join(key) + "\n")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == len(key)
    assert set(rows[0]) == {"line", "output", "checklist", "step", "prompt"}
    assert rows[-1]["step"] == len(key)
    assert all(item["done"] for item in rows[-1]["checklist"])


def test_the_cli_prints_prompts_outputs_and_checklist_changes() -> None:
    proc = _cli(["--ticket", "mig-single"], "kubectl cordon gpu-node2\n")
    assert proc.returncode == 0
    assert "admin@kadmin:~$ kubectl cordon gpu-node2\nnode/gpu-node2 cordoned\n" in proc.stdout
    assert "[ ] gpu-node2 takes new workloads again" in proc.stdout


def test_the_cli_refuses_an_unknown_ticket_with_one_line_and_status_2() -> None:
    proc = _cli(["--ticket", "nope"], "")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "unknown ticket" in proc.stderr


def test_the_cli_reads_a_here_document_from_stdin_with_bashs_continuation_prompt() -> None:
    proc = _cli(["--ticket", "mig-single"], "cat <<EOF > a.txt\nhello $USER\nEOF\ncat a.txt\n")
    assert proc.returncode == 0, proc.stderr
    assert "admin@kadmin:~$ cat <<EOF > a.txt\n> hello $USER\n> EOF\n" in proc.stdout
    assert proc.stdout.endswith("admin@kadmin:~$ cat a.txt\nhello admin\n")
