"""The subject-matter review's errors (issue 13), each pinned by the fact that corrects it."""

from __future__ import annotations

import re

import pytest
import yaml
from django.test import Client

from simulators.engine.cli import run_fairshare, run_whole_cycle
from simulators.lab.runai import VERSION as LAB_RUNAI_VERSION
from studysite.guide.sections import content_dir, load_guide
from studysite.study.content import load_study
from tests.content.html_parts import prose_text

pytestmark = pytest.mark.django_db

STUDY = load_study()
CARDS = STUDY.card_by_id
QUESTIONS = STUDY.question_by_id


def page(client: Client, slug: str) -> str:
    response = client.get(f"/guide/{slug}/")
    assert response.status_code == 200
    return response.content.decode()


SAMPLE = re.compile(
    r'<details class="sample"><summary><span class="sample-title">([^<]+)</span>(.*?)</details>',
    re.S,
)


def samples(html: str) -> dict[str, str]:
    return {title: body for title, body in SAMPLE.findall(html)}


def grab(pattern: str, text: str) -> str:
    match = re.search(pattern, text, re.M)
    assert match, pattern
    return match.group(1)


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">")


# 1. Section 21: NonPreemptibleOverQuota belongs to a workspace, with numbers that add up.


def test_the_pending_sample_is_a_workspace_over_its_quota_by_consistent_numbers(
    client: Client,
) -> None:
    shown = {title: plain(body) for title, body in samples(page(client, "sample-outputs")).items()}
    describe = shown["Why a workload is Pending"]
    assert "Type:             Workspace" in describe
    quota = int(grab(r"would exceed its quota of (\d+) GPUs", describe))
    requested = float(grab(r"GPU devices:\s+([\d.]+)", describe))
    project = grab(r"Project:\s+(\S+)", describe)
    projects = shown["List projects, set the default"]
    assert int(grab(rf"^{project}\s+\S+\s+(\d+)", projects)) == quota
    allocated = float(grab(rf"^{project}\s+\S+\s+\d+\s+([\d.]+)", projects))
    assert allocated + requested > quota


def test_no_sample_shows_a_training_blocked_as_non_preemptible(client: Client) -> None:
    for title, body in samples(page(client, "sample-outputs")).items():
        text = plain(body)
        if "NonPreemptibleOverQuota" in text:
            assert "Training" not in text, title
            assert "InteractiveWorkload" in text or "Workspace" in text, title


def test_the_pending_sample_says_plainly_that_only_non_preemptible_work_gets_that_reason(
    client: Client,
) -> None:
    html = page(client, "sample-outputs")
    notes = [n for n in re.findall(r"<aside.*?</aside>", html, re.S) if "NonPreemptible" in n]
    assert len(notes) == 1
    assert "training is preemptible" in notes[0] and "2.5 of its 8 GPUs" in notes[0]
    assert "original" not in notes[0].lower() and "corrected" not in notes[0].lower()


def test_the_from_column_card_quotes_the_corrected_event() -> None:
    back = CARDS["out-describe-pod-from"].back_html
    assert "project team-vision would exceed its quota of 8 GPUs" in back
    assert "team-llm would exceed its quota of 32" not in back


# 2. Weight 0 leaves the weighted split; it doesn't forbid borrowing.


def test_the_weight_card_says_what_the_engine_does_with_weight_zero() -> None:
    back = CARDS["over-quota-weight"].back_html
    assert "nothing beyond quota" not in back
    assert "goes back first" in back
    jobs = [
        {"name": f"j{i}", "queue": "a", "gpus_per_task": 1, "preemptible": True,
         "min_available": 1, "priority": 50, "creation_rank": i, "tasks": [{"status": "Pending"}]}
        for i in range(8)
    ]  # fmt: skip
    queue = {"name": "a", "parent": None, "deserved": 2, "over_quota_weight": 0, "limit": None,
             "priority": 0}  # fmt: skip
    result = run_whole_cycle({"nodes": {"n1": 8}, "queues": [queue], "jobs": jobs})
    statuses = [job["status"] for job in result["jobs"].values()]  # type: ignore[attr-defined]
    running = statuses.count("Running")
    assert f"it runs all {running}, {running - 2} of them borrowed" in back


# 4. The MIG question names its layout and never edits a Pending pod as "running".


def test_the_mixed_strategy_question_names_the_layout_and_the_pod_state() -> None:
    question = QUESTIONS["mixed-strategy-resource-name"]
    assert "`all-balanced`" in question.prompt
    assert all("running pod" not in option.text for option in question.options)
    assert "Pending" in question.option_by_id["a"].text


# 5. Section 1: reclaim across projects by quota and fair share; preemption within one by priority.


def test_run_ai_adds_tells_reclaim_from_preemption(client: Client) -> None:
    text = prose_text(page(client, "big-picture"))
    assert "reclaim and preemption by priority" not in text
    assert "works across projects by quota and fair share" in text
    assert "works within a project by priority" in text


# 6. Scenario fixes never resubmit a name that still exists.


def test_scenario_fixes_delete_a_workload_before_reusing_its_name() -> None:
    for scenario in STUDY.scenarios:
        raw = yaml.safe_load((content_dir() / "scenarios.yaml").read_text())["scenarios"]
        record = next(item for item in raw if item["id"] == scenario.id)
        for match in re.finditer(r"runai (?:workspace|training) submit (\S+)", record["fix"]):
            name = match.group(1)
            if re.search(rf"\b{re.escape(name)}\b", record["situation"]):
                before = record["fix"][: match.start()]
                assert re.search(rf"delete {re.escape(name)}\b", before), (scenario.id, name)


# 7. The simulator card: B takes back at most 4 GPUs, as the engine computes.


def test_the_simulator_card_takes_back_only_what_the_owner_needs() -> None:
    back = CARDS["simulator-worked-example"].back_html
    queues = [
        {"name": "A", "parent": None, "deserved": 8, "over_quota_weight": 1, "limit": None,
         "priority": 0, "request": 16},
        {"name": "B", "parent": None, "deserved": 8, "over_quota_weight": 1, "limit": None,
         "priority": 0, "request": 8},
        {"name": "C", "parent": None, "deserved": 0, "over_quota_weight": 1, "limit": None,
         "priority": 0, "request": 12},
    ]  # fmt: skip
    shares = run_fairshare({"total_gpus": 24, "queues": queues})["fair_share"]
    assert shares == {"A": 12, "B": 8, "C": 4}
    assert "A 12, B 8, C 4" in back and "at most 4" in back
    assert "The 12 over-quota GPUs (A's 6, C's 6) are the ones reclaimed" not in back


# 8. schedulerName matters only outside a project's namespace.


def test_the_default_scheduler_question_says_when_scheduler_name_matters() -> None:
    question = QUESTIONS["plain-kubectl-pods-bypass-quota"]
    assert "not a Run:ai project" in question.prompt
    key = next(o for o in question.options if o.correct and "namespace" in o.text)
    assert "by default" in key.text
    assert "schedulerName" in key.explanation and "enforcement is off" in key.explanation
    assert "default queue" in key.explanation


# 9. The v1-to-v2 answer adds nothing the prompt didn't say.


def test_the_cli_answer_adds_no_project_the_prompt_never_named() -> None:
    question = QUESTIONS["cli-v1-to-v2"]
    assert "team-vision" not in question.prompt
    assert all("-p " not in option.text for option in question.options)


# 10. The validate-runai ticket: no release that the lab's CLI contradicts; an honest hint.


def test_the_validation_ticket_story_and_lab_cli_agree_and_the_hint_is_honest() -> None:
    ticket = yaml.safe_load((content_dir() / "tickets" / "validate-runai.yaml").read_text())
    for release in re.findall(r"Run:ai (\d+\.\d+)", ticket["story"]):
        assert LAB_RUNAI_VERSION.startswith(release + ".")
    hint = next(h for h in ticket["hints"] if h.startswith("Fractions:"))
    assert "GPU Allocation 0.50" in hint
    assert "shows only the node, not the GPU" in hint


# 12. No cross-reference to a page the site doesn't have.


@pytest.mark.parametrize(
    "phrase",
    ["see MIG through BCM", "nvidia-smi guide", "see the NGC guide", "blueprint tracker",
     "from the bring-up guide"],
)  # fmt: skip
def test_no_page_points_at_a_guide_the_site_doesnt_have(client: Client, phrase: str) -> None:
    for section in load_guide().sections:
        assert phrase.lower() not in prose_text(page(client, section.slug)).lower(), section.slug


def test_the_replaced_references_say_plainly_what_is_outside_this_guide(client: Client) -> None:
    for slug in ["ncp-aii-exam", "mig-gpu-operator", "workloads-assets", "validation"]:
        assert "outside this guide" in prose_text(page(client, slug)), slug
