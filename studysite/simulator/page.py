"""Everything the simulator's template shows, built from a parsed query.

`build_page` is the whole pipeline below the view: check the values (`forms.SimForms`),
ask the engine (`results.run_engine`), and show the forms (each field with its value and
message) beside the result. The form shows the state *after* a step, so stepping again builds
on it, while the shared link keeps the state before the step plus the step itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.forms import BoundField

from simulators.engine import EngineError
from studysite.simulator.forms import SimField, SimForms
from studysite.simulator.presets import PRESETS, Preset
from studysite.simulator.query import to_url
from studysite.simulator.results import ResultView, result_view, run_engine
from studysite.simulator.state import Parsed, after_step


@dataclass(frozen=True)
class ErrorLink:
    target: str
    text: str


@dataclass(frozen=True)
class SimPage:
    form: SimForms
    result: ResultView | None
    error_links: tuple[ErrorLink, ...]
    form_errors: tuple[str, ...]
    notes: tuple[str, ...]
    share_url: str
    live: str
    embed: bool = False
    focus: str = ""
    presets: tuple[Preset, ...] = PRESETS

    @property
    def h(self) -> int:
        """The level of the simulator's own headings (2 on its page, 3 in the guide)."""
        return 3 if self.embed else 2

    @property
    def hsub(self) -> int:
        return self.h + 1

    @property
    def problem_count(self) -> int:
        return len(self.error_links) + len(self.form_errors)


# ---------------------------------------------------------------------------- the page


def _label(field: BoundField) -> str:
    return field.field.full_label if isinstance(field.field, SimField) else str(field.label)


def _lower_first(label: str) -> str:
    """ "Quota" → "quota", but "GPUs" stays "GPUs"."""
    return label[0].lower() + label[1:] if label[1:2].islower() else label


def build_page(parsed: Parsed) -> SimPage:
    form = SimForms(parsed.state, parsed.choice)
    form_errors = list(form.form_errors)
    result = None
    if form.scenario is not None:
        try:
            outcome, step = run_engine(form.scenario, form.asked)
        except EngineError as error:
            form_errors.append(f"The simulator could not run this setup: {error}.")
        else:
            result = result_view(form.scenario, form.asked, outcome, step)
            if form.asked is not None:
                form = SimForms(after_step(parsed.state, form.asked), parsed.choice)
    links = tuple(
        ErrorLink(field.html_name, f"{group}, {_lower_first(_label(field))}: {field.errors[0]}")
        for group, field in form.fields()
        if field.errors
    )
    problems = len(links) + len(form_errors)
    if problems:
        first = links[0].text if links else form_errors[0]
        live = f"{problems} {'value needs' if problems == 1 else 'values need'} fixing. {first}"
    else:
        live = result.summary if result else ""
    return SimPage(
        form=form,
        result=result,
        error_links=links,
        form_errors=tuple(form_errors),
        notes=parsed.notes,
        share_url=to_url(parsed.state),
        live=live,
        embed=parsed.embed,
        focus=parsed.focus,
    )
