"""Issue 29's eleven errors, each pinned by the fact a learner now reads instead.

Every learner-facing text (guide, quiz, bank, cards, scenarios, reference, traps, tickets) is
searched, so a wrong fact can't come back in a text nobody thought to check.
"""

from __future__ import annotations

import re

import pytest
import yaml

from studysite.guide.sections import content_dir
from studysite.study.content import Question, load_bank, load_study

STUDY = load_study()
BANK = {question.id: question for question in load_bank()}
QUIZ = STUDY.question_by_id
SCENARIOS = {scenario.id: scenario for scenario in STUDY.scenarios}


def learner_texts() -> dict[str, str]:
    """Every content file a learner reads, by its path under content/."""
    root = content_dir()
    return {
        str(path.relative_to(root)): path.read_text()
        for pattern in ("guide/*.md", "*.yaml", "bank/*.yaml", "tickets/*.yaml")
        for path in sorted(root.glob(pattern))
    }


TEXTS = learner_texts()


def lines_matching(pattern: str) -> list[str]:
    found = re.compile(pattern, re.I)
    return [
        f"{name}: {line.strip()}"
        for name, text in TEXTS.items()
        for line in text.splitlines()
        if found.search(line)
    ]


def key_text(question: Question) -> str:
    return " ".join(option.text for option in question.options if option.correct)


def ticket(name: str) -> dict[str, object]:
    loaded = yaml.safe_load((content_dir() / "tickets" / f"{name}.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


# 1 and 3. The CLI's versions: v2 needs 2.18, distributed had its own noun until 2.20, v1 was
# deprecated in 2.20.


def test_no_text_calls_the_v1_cli_unsupported_or_v1_style_for_a_missing_training_noun() -> None:
    assert lines_matching(r"v1 is unsupported|v1 CLI is unsupported|v1-style") == []


def test_the_unknown_pytorch_command_is_read_as_a_2_18_or_2_19_v2_cli() -> None:
    key = key_text(BANK["sample-pytorch-submit-unknown-command"])
    assert "2.18" in key and "2.19" in key
    assert "runai distributed submit" in key and "--framework PyTorch" in key


def test_the_cli_section_states_the_versions_of_v2_and_of_v1s_deprecation() -> None:
    text = TEXTS["guide/14-runai-cli.md"]
    assert "needs a Run:ai 2.18 or newer cluster" in text
    assert "deprecated in 2.20 and stays available for two more releases" in text
    assert "runai distributed submit <name> --framework PyTorch" in text


# 2. The master pod: --workers N gives N + 1 pods unless --no-master.


def test_every_distributed_submit_explains_the_master_pod_where_it_teaches_the_command() -> None:
    for name in ("guide/09-gang-scheduling.md", "guide/14-runai-cli.md", "reference.yaml"):
        assert "master" in TEXTS[name] and "--no-master" in TEXTS[name], name
    back = re.sub(r"<[^>]+>", "", STUDY.card_by_id["distributed-submit"].back_html)
    assert "one master and two workers" in back and "24 GPUs" in back


def test_the_sample_outputs_count_the_master_in_pods_and_gpus() -> None:
    text = TEXTS["guide/21-sample-outputs.md"]
    workers = int(re.search(r"submit llm-ft .*--workers (\d+) -g 8", text).group(1))  # type: ignore[union-attr]
    pods = workers + 1
    listed = rf"llm-ft\s+Training\s+Running\s+team-llm\s+Yes\s+{pods}/{pods}\s+{pods * 8}\.00"
    assert re.search(listed, text)
    assert re.search(rf"alice\s+{pods * 8} \({pods * 8}\)\s+{pods} \(0\)", text)
    shown = set(re.findall(r"^(llm-ft-(?:master|worker)-\d+)\s", text, re.M))
    assert shown == {"llm-ft-master-0"} | {f"llm-ft-worker-{i}" for i in range(workers)}


def test_the_gang_scenarios_fix_fits_the_free_gpus_once_the_master_is_counted() -> None:
    scenario = SCENARIOS["gang-cannot-fit"]
    situation = " ".join(scenario.situation_html.split())
    assert "4 nodes × 8 GPUs" in situation and "Three nodes are completely free" in situation
    free = 3 * 8
    asked = re.search(r"--workers (\d+) -g (\d+)", situation)
    assert asked
    pods = int(asked.group(1)) + 1
    assert f"0/{pods}" in situation
    assert f"{pods * int(asked.group(2))} GPUs at once" in " ".join(
        choice.text_html for choice in scenario.choices if choice.correct
    )
    command = r"submit pretrain [^\n<]*?--workers (\d+) -g (\d+)([^\n<]*)"
    fixes = re.findall(command, scenario.fix_html)
    assert fixes
    for workers, gpus, rest in fixes:
        fix_pods = int(workers) + (0 if "--no-master" in rest else 1)
        assert fix_pods * int(gpus) <= free


def test_the_validation_ticket_counts_the_master_of_its_distributed_job() -> None:
    hint = next(h for h in ticket("validate-runai")["hints"] if h.startswith("Distributed:"))  # type: ignore[attr-defined]
    assert "a master and 2 workers" in hint and "3 GPUs" in hint


# 4 and 5. Answers that were keyed wrong.


def test_the_default_project_question_has_exactly_two_working_answers() -> None:
    question = BANK["cli-default-project"]
    assert len(question.correct_ids) == 2
    wrong = [option.text for option in question.options if not option.correct]
    assert not any("runai config project" in text for text in wrong)


def test_removing_the_mig_config_label_is_not_a_wrong_answer() -> None:
    wrong = [o.text for o in BANK["mig-back-to-whole-gpus"].options if not o.correct]
    assert not any(re.search(r"remove the `nvidia\.com/mig\.config` label", t, re.I) for t in wrong)


# 6. schedulerName: only where enforcement is off; an unlabelled pod lands in a default queue.


def test_scheduler_name_is_not_taught_as_bringing_pods_under_a_teams_quota() -> None:
    key = next(
        o
        for o in QUIZ["plain-kubectl-pods-bypass-quota"].options
        if o.correct and "namespace" in o.text
    )
    assert "schedulerName" not in key.text
    assert "enforcement is off" in key.explanation and "default queue" in key.explanation


# 7. In-place resize: CPU and memory since 1.33 (GA 1.35), never extended resources.


def test_no_text_says_kubernetes_cannot_resize_a_pod_in_place_at_all() -> None:
    assert lines_matching(r"doesn't let you change a pod's resources|changed in place") == []
    assert lines_matching(r"cannot change in place|resources in place, Pending or not") == []
    for name, text in TEXTS.items():
        for found in re.finditer(r"in-place resize", text, re.I):
            said = " ".join(text[found.start() : found.start() + 250].split())
            assert "nvidia.com" in said, (name, said)


# 8. No talk of the site's own editing.


@pytest.mark.parametrize(
    "phrase",
    ["site fixed", "corrected sample", "seed's error", "site note", "the original showed",
     "this site corrected"],
)  # fmt: skip
def test_no_text_tells_the_learner_about_the_sites_own_corrections(phrase: str) -> None:
    assert lines_matching(re.escape(phrase)) == []


# 9. Reclaim and priority: queue priority divides over-quota first; weight and priority differ.


def test_no_text_says_reclaim_ignores_priority() -> None:
    assert lines_matching(r"not by priority|weight / priority|weight/priority") == []


def test_the_quota_section_tells_weight_from_priority() -> None:
    text = TEXTS["guide/06-quota-fairness.md"]
    assert 'renamed the older "over-quota priority" setting to this weight' in text
    assert "by queue priority first" in text and "department priority" in text


# 10. NonPreemptibleOverQuota counts non-preemptible allocations only.


def test_the_non_preemptible_question_says_what_the_allocated_gpus_are() -> None:
    question = QUIZ["workspace-pending-idle-gpus"]
    assert "workspaces and inference" in question.prompt
    key = next(option for option in question.options if option.correct)
    assert "counts only the project's non-preemptible allocations" in key.explanation


# 11. The department cap: the API's nodePoolResources, the deprecated flat field kept working.


def test_the_department_cap_ticket_teaches_node_pool_resources() -> None:
    hints = " ".join(ticket("department-cap")["hints"])  # type: ignore[arg-type]
    assert "nodePoolResources" in hints and "deprecated" in hints


def test_the_mig_section_says_what_removing_the_layout_label_does() -> None:
    text = " ".join(TEXTS["guide/12-mig-gpu-operator.md"].split())
    assert "puts the default layout (`all-disabled`) back on a MIG-capable node" in text


def test_the_fragmentation_tickets_story_counts_the_same_pods_as_its_world() -> None:
    loaded = ticket("gang-fragmentation")
    job = next(w for w in loaded["world"]["runai"]["workloads"] if w["name"] == "llm-dist")  # type: ignore[index]
    assert job["pods"] == 2 and job["gpus"] == 8
    assert "a master and one worker, 8 GPUs each" in loaded["story"]  # type: ignore[operator]
