"""Option ids renamed when the answer keys were spread evenly over a-d (issue 33).

Per quiz or bank question, and per scenario: old option id -> new id (unlisted ids kept theirs).
Answers saved or exported before then name the old ids: migration 0003 renames the saved ones,
and a progress file of version 1 is read through this table (studysite.study.progress). A frozen
record of one change: never edit it; a later renaming gets a table of its own.
"""

from __future__ import annotations

from typing import Any

QUESTIONS: dict[str, dict[str, str]] = {
    "access-missing-project": {"a": "b", "b": "a"},
    "access-role-scope": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "air-gapped-needs-self-hosted": {"a": "c", "c": "a"},
    "asset-credential-ngc": {"a": "b", "b": "a"},
    "asset-template": {"a": "c", "c": "a"},
    "asset-types": {"b": "c", "c": "b"},
    "borrowed-overnight-evicted-morning": {"b": "d", "d": "b"},
    "cli-all-workload-types": {"a": "d", "d": "a"},
    "cli-default-project": {"b": "d", "d": "b"},
    "cli-kubectl-node-pool-labels": {"a": "d", "d": "a"},
    "cli-v1-to-v2": {"a": "d", "d": "a"},
    "cli-v1-v2-list": {"a": "c", "c": "a"},
    "control-plane-holds-what": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "control-plane-hosted-or-self-hosted": {"a": "d", "d": "a"},
    "crashloop-vs-imagepull": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "crashloopbackoff-not-scheduling": {"a": "c", "c": "a"},
    "default-priorities-by-type": {"a": "d", "d": "a"},
    "department-fair-share-engine": {"a": "b", "b": "a"},
    "department-quota-caps-or-guarantees": {"a": "d", "d": "a"},
    "disconnected-cluster-agents": {"a": "d", "d": "a"},
    "dynamic-fractions-concept": {"a": "b", "b": "a"},
    "fabric-net-socket-diagnosis": {"b": "c", "c": "b"},
    "fabric-what-pods-need": {"a": "d", "d": "a"},
    "fairness-moves-toward-fair-share": {"a": "b", "b": "a"},
    "fractions-portion-vs-memory-flags": {"a": "d", "d": "a"},
    "fractions-share-faults": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "fractions-workspace-pending-fit": {"b": "c", "c": "b"},
    "fragmentation-arithmetic": {"b": "d", "d": "b"},
    "fragmentation-eight-free-gpus": {"b": "c", "c": "b"},
    "gang-and-fabric": {"a": "c", "c": "a"},
    "gang-needs-training-operators": {"a": "c", "c": "a"},
    "gang-pending-fixes": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "gang-waits-for-simultaneous-capacity": {"a": "b", "b": "a"},
    "gang-which-workloads": {"a": "d", "d": "a"},
    "gpu-memory-swap-concept": {"a": "c", "c": "a"},
    "gpu-operator-components": {"b": "c", "c": "b"},
    "half-gpu-notebooks-share": {"a": "d", "d": "a"},
    "imagepullbackoff-from-nvcr": {"b": "c", "c": "b"},
    "install-helm-values-from-ui": {"a": "d", "d": "a"},
    "install-order": {"a": "c", "c": "a"},
    "installation-prerequisites": {"c": "d", "d": "c"},
    "kai-scheduler-open-source": {"a": "c", "c": "a"},
    "kubectl-investigation-of-project": {"b": "c", "c": "b"},
    "limit-caps-a-weighted-share": {"a": "b", "b": "a"},
    "limit-caps-over-quota": {"b": "d", "d": "b"},
    "limit-versus-quota-versus-over-quota": {"a": "c", "c": "a"},
    "mig-apply-failed-gpu-in-use": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "mig-apply-sequence": {"a": "b", "b": "a"},
    "mig-back-to-whole-gpus": {"a": "d", "d": "a"},
    "mig-bcm-or-operator": {"a": "d", "d": "a"},
    "mig-custom-configmap": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "mig-device-plugin-crashloop": {"a": "c", "c": "a"},
    "mig-label-triggers": {"a": "d", "d": "a"},
    "mig-manager-what-it-stops": {"b": "d", "d": "b"},
    "mig-mixed-balanced-resources": {"a": "d", "d": "a"},
    "mig-retry-failed-apply": {"a": "c", "c": "a"},
    "mig-single-arithmetic-3g": {"a": "b", "b": "a"},
    "mig-single-product-selector": {"a": "c", "c": "a"},
    "mig-state-values": {"a": "c", "c": "a"},
    "mig-strategy-doesnt-enable": {"b": "c", "c": "b"},
    "mig-strategy-switch-renames": {"a": "b", "b": "a"},
    "mig-vs-fraction-cue-notebooks": {"a": "d", "d": "a"},
    "mig-with-reboot": {"a": "b", "b": "a"},
    "monitoring-idle-workspaces-fix": {"b": "d", "d": "b"},
    "monitoring-metrics-source": {"a": "c", "c": "a"},
    "node-pool-selected-by-label": {"a": "c", "c": "a"},
    "office-analogy-mapping": {"b": "d", "d": "b"},
    "over-quota-needs-checkpoints": {"a": "c", "c": "a"},
    "oversubscription-fair-shares-exceed-the-pool": {"a": "d", "d": "a"},
    "pending-at-quota-no-free-gpus": {"a": "c", "c": "a"},
    "pending-first-look": {"b": "d", "d": "b"},
    "pending-inference-wrong-pool": {"a": "c", "c": "a"},
    "pending-request-too-big": {"a": "d", "d": "a"},
    "pending-volume-pvc": {"a": "b", "b": "a"},
    "pending-volume-storageclass-missing": {"a": "d", "d": "a"},
    "placement-set-per-pool": {"a": "c", "c": "a"},
    "plain-kubectl-pods-bypass-quota": {"b": "c", "c": "b"},
    "quota-guaranteed-means-reclaim": {"a": "c", "c": "a"},
    "quota-is-per-node-pool": {"b": "c", "c": "b"},
    "quota-per-pool-zero-in-second-pool": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "reclaim-is-across-projects": {"a": "d", "d": "a"},
    "reclaim-stops-at-fair-share": {"a": "b", "b": "a"},
    "reclaim-validation-test": {"b": "c", "c": "b"},
    "runai-in-the-exam-blueprint": {"a": "d", "d": "a"},
    "sample-allocatable-still-8": {"a": "b", "b": "a"},
    "sample-describe-nonpreemptible-numbers": {"a": "b", "b": "a"},
    "sample-drain-output": {"b": "c", "c": "b"},
    "sample-helm-revision": {"a": "c", "b": "d", "c": "a", "d": "b"},
    "sample-label-not-labeled": {"a": "d", "d": "a"},
    "sample-list-jobs-v1-header": {"a": "c", "c": "a"},
    "sample-mig-manager-log-lines": {"b": "d", "d": "b"},
    "sample-nvidia-smi-l-missing-gpu": {"a": "c", "c": "a"},
    "sample-pods-wide-node-none": {"a": "d", "d": "a"},
    "sample-pytorch-submit-unknown-command": {"a": "d", "d": "a"},
    "sample-runai-login-headless": {"a": "d", "d": "a"},
    "sample-runai-pods-scheduler-crash": {"a": "b", "b": "a"},
    "sample-strategy-single-output": {"a": "c", "c": "a"},
    "sample-training-list-reading": {"a": "d", "d": "a"},
    "sample-training-submit-not-scheduled": {"a": "c", "c": "a"},
    "sample-v1-fraction-project": {"a": "b", "b": "a"},
    "sim-owner-takes-back-at-most-its-quota": {"a": "c", "c": "a"},
    "sim-unused-quota-is-lent": {"a": "b", "b": "a"},
    "sim-weight-zero-alone-still-borrows": {"a": "d", "d": "a"},
    "sim-weight-zero-beside-another-project": {"a": "c", "c": "a"},
    "sim-weights-split-the-idle-pool": {"a": "d", "d": "a"},
    "sim-which-gpus-are-reclaimable": {"a": "b", "b": "a"},
    "slurm-k8s-multinode-compare": {"a": "d", "d": "a"},
    "slurm-k8s-sharing-compare": {"a": "c", "c": "a"},
    "slurm-vs-runai": {"a": "c", "c": "a"},
    "spread-for-inference": {"a": "b", "b": "a"},
    "stack-bcm-role": {"a": "b", "b": "a"},
    "stack-missing-components": {"a": "c", "c": "a"},
    "strict-isolation-points-to-mig": {"b": "d", "d": "b"},
    "topology-nvswitch-baseboard": {"a": "c", "c": "a"},
    "topology-steer-with-pools": {"a": "d", "d": "a"},
    "training-killed-when-team-starts": {"a": "b", "b": "a"},
    "validation-after-helm-deployed": {"b": "d", "d": "b"},
    "validation-layer-order": {"a": "b", "b": "a"},
    "validation-smoke-test": {"b": "c", "c": "b"},
    "weights-three-to-one": {"a": "c", "c": "a"},
    "what-belongs-over-quota": {"b": "d", "d": "b"},
    "when-more-quota-will-not-help": {"a": "c", "c": "a"},
    "whole-gpu-best-for": {"a": "b", "b": "a"},
    "workspace-pending-idle-gpus": {"b": "d", "d": "b"},
    "zero-quota-weight-two": {"a": "d", "d": "a"},
}

SCENARIOS: dict[str, dict[str, str]] = {
    "device-plugin-crashloop-mixed-layout": {"a": "c", "c": "a"},
    "gang-cannot-fit": {"b": "c", "c": "b"},
    "imagepullbackoff-looks-like-scheduling": {"b": "d", "d": "b"},
    "insufficient-gpu-on-mixed-node": {"b": "d", "d": "b"},
    "nodes-advertise-zero-gpus": {"c": "d", "d": "c"},
    "plain-kubectl-pods-bypass-quota": {"a": "b", "b": "a"},
    "sixteen-gpu-single-pod": {"a": "c", "c": "a"},
    "volume-cannot-mount": {"b": "d", "d": "b"},
    "workload-in-pool-without-quota": {"a": "b", "b": "a"},
}


def _renamed(table: dict[str, str], chosen: Any) -> Any:
    if not isinstance(chosen, list):
        return chosen
    return sorted(table.get(value, value) if isinstance(value, str) else value for value in chosen)


def upgrade_file_parts(parts: dict[str, Any]) -> dict[str, Any]:
    """A version 1 progress file's parts with their option ids renamed; anything not shaped as
    version 1 wrote it is left for the parts' own checks to refuse."""
    found = dict(parts)
    quiz, bank, scenarios = found.get("quiz"), found.get("bank"), found.get("scenarios")
    if isinstance(quiz, list):
        found["quiz"] = [
            {
                **attempt,
                "answers": {
                    qid: _renamed(QUESTIONS.get(str(qid), {}), chosen)
                    for qid, chosen in attempt["answers"].items()
                },
            }
            if isinstance(attempt, dict) and isinstance(attempt.get("answers"), dict)
            else attempt
            for attempt in quiz
        ]
    if isinstance(bank, list):
        found["bank"] = [
            {**row, "chosen": _renamed(QUESTIONS.get(str(row.get("question")), {}), row["chosen"])}
            if isinstance(row, dict) and "chosen" in row
            else row
            for row in bank
        ]
    if isinstance(scenarios, dict):
        found["scenarios"] = {
            sid: {**row, "choice": SCENARIOS.get(str(sid), {}).get(row["choice"], row["choice"])}
            if isinstance(row, dict) and isinstance(row.get("choice"), str)
            else row
            for sid, row in scenarios.items()
        }
    return found
