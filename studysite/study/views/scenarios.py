"""Troubleshooting scenarios: guess, then hints one at a time, then the cause and the fix."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from studysite.htmx import HtmxHttpRequest
from studysite.sessions import existing_key, session_key
from studysite.study import scenarios, store
from studysite.study.content import Scenario, load_study
from studysite.study.scenarios import Progress, ScenarioError
from studysite.study.views.common import Problem, form_error_status, friendly, is_partial, page

TEMPLATE = "study/scenarios/detail.html"

Step = Callable[[Scenario, Progress, QueryDict], Progress]
STEPS: dict[str, Step] = {
    "guess": lambda s, p, form: scenarios.commit_guess(
        s, p, form.get("choice", ""), form.get("guess", "")
    ),
    "hint": lambda s, p, form: scenarios.take_hint(s, p),
    "reveal": lambda s, p, form: scenarios.reveal(p),
    "restart": lambda s, p, form: Progress(),
}
NOTES = {
    "guess": "Guess saved. Take a hint, or reveal the cause.",
    "hint": "Hint {hints} shown.",
    "reveal": "The cause and the fix are shown below.",
    "restart": "Scenario restarted: make a new guess.",
}


def _scenario(scenario_id: str) -> Scenario:
    scenario = load_study().scenario_by_id.get(scenario_id)
    if scenario is None:
        raise Problem(
            "There's no scenario with that name.", reverse("study:scenarios"), "All scenarios"
        )
    return scenario


def _context(
    scenario: Scenario, progress: Progress, learner: str, error: str = "", note: str = ""
) -> Any:
    study = load_study()
    following = study.scenarios[scenario.number % len(study.scenarios)]
    return {
        "study_tool": "scenarios",
        "scenario": scenario,
        "choices": scenarios.choice_order(scenario, learner),
        "progress": progress,
        "chosen": scenarios.chosen(scenario, progress),
        "hints": scenario.hints_html[: progress.hints_shown],
        "hints_left": len(scenario.hints_html) - progress.hints_shown,
        "next_scenario": following,
        "error": error,
        "note": note,
    }


@require_safe
def scenario_list(request: HtmxHttpRequest) -> HttpResponse:
    found = store.all_scenario_progress(existing_key(request))
    rows = [(scenario, found.get(scenario.id, Progress())) for scenario in load_study().scenarios]
    context = {"study_tool": "scenarios", "rows": rows}
    return render(request, "study/scenarios/list.html", context)


@require_safe
@friendly
def scenario_detail(request: HtmxHttpRequest, scenario_id: str) -> HttpResponse:
    scenario = _scenario(scenario_id)
    key = existing_key(request)
    progress = store.scenario_progress(key, scenario)
    return page(request, TEMPLATE, _context(scenario, progress, key or ""), "stage")


@require_POST
@friendly
def scenario_step(request: HtmxHttpRequest, scenario_id: str, step: str) -> HttpResponse:
    scenario, key = _scenario(scenario_id), session_key(request)
    progress = store.scenario_progress(key, scenario)
    try:
        progress = STEPS[step](scenario, progress, request.POST)
    except ScenarioError as error:
        context = _context(scenario, progress, key, error=str(error))
        return page(request, TEMPLATE, context, "stage", form_error_status(request))
    store.save_scenario(key, scenario, progress)
    if not is_partial(request):
        return redirect(reverse("study:scenario", args=[scenario.id]) + "#stage")
    note = NOTES[step].format(hints=progress.hints_shown)
    return page(request, TEMPLATE, _context(scenario, progress, key, note=note), "stage")
