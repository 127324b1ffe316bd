"""The simulator's input as Django forms: a formset each for node pools, departments
and projects (prefixes `pool`, `d`, `p`), and a form for the step.

`SimForms` binds a `state.SimState` (the text the reader gave) to them, checks every
value, and turns the whole into the engine's own scenario (`QuotaScenario`), or leaves
one message on each field that needs fixing. The limits are the engine's, imported,
never restated. A project's department and the step's project and pool are chosen by
position, so renaming one keeps the choice; a link naming one that isn't there gets a
message on that field. Field ids are their names (`p-0-quota-0`), so each message's
id is the field's plus `-msg`.

The formsets' management form is never sent: the rows are the ones the request holds
(`query.parse_query`), so form addresses saved before the formsets keep working. A new
optional project setting is a field on `ProjectForm` plus its link spelling in
`state.PROJECT_OPTIONS`; the template draws it with the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, cast

from django import forms
from django.core.exceptions import ValidationError

from simulators.engine import (
    MAX_DEMAND,
    MAX_DEPARTMENTS,
    MAX_POOL_GPUS,
    MAX_POOLS,
    MAX_PRIORITY,
    MAX_PROJECTS,
    MAX_TOTAL_DEMAND,
    MAX_WEIGHT,
    DepartmentSpec,
    PoolSpec,
    ProjectSpec,
    QuotaScenario,
)
from studysite.simulator.state import PROJECT_OPTIONS, Row, SimState, Step, StepChoice

NAME_RE = re.compile(r"^[a-z](?:[a-z0-9-]{0,28}[a-z0-9])?$")
# Plain decimal numbers only: Decimal() alone would also take "1_000", "NaN" or "Infinity".
_NUMBER_RE = re.compile(r"^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,4})?$", re.ASCII)
_CLASH = "Another project or department already has this name."
_NO_CHOICE = StepChoice()


# ---------------------------------------------------------------------------- fields


class SimField(forms.Field):
    """A field as `simulator/_field.html` draws it; its `clean` gives one message."""

    kind = "whole"  # "whole", "weight", "name" or "select"

    def __init__(
        self,
        label: str,
        *,
        required: bool = True,
        maximum: int = MAX_POOL_GPUS,
        placeholder: str = "",
        hint: str = "",
    ) -> None:
        super().__init__(label=label, required=required, help_text=hint)
        self.maximum, self.placeholder = maximum, placeholder
        self.pool: int | None = None  # the label ends "in <pool>" (the JS keeps it in step)
        self.pool_name = ""

    @property
    def full_label(self) -> str:
        return f"{self.label} in {self.pool_name}" if self.pool is not None else str(self.label)


class Amount(SimField):
    """GPUs (whole, 0 to `maximum`), or with `unit=""` a weight or priority."""

    def __init__(self, label: str, *, unit: str = "GPUs", whole: bool = True, **more: Any) -> None:
        super().__init__(label, **more)
        self.unit, self.whole = unit, whole
        self.kind = "whole" if whole else "weight"

    def clean(self, value: Any) -> int | float | None:
        raw = value or ""
        if raw == "" and not self.required:
            return None
        kind = "a number"
        if self.whole:
            kind = f"a whole number of {self.unit}" if self.unit else "a whole number"
        if raw == "":
            raise ValidationError(f"Enter {kind}.")
        try:
            number = Decimal(raw) if _NUMBER_RE.match(raw) else None
        except InvalidOperation:
            number = None
        if number is None or not number.is_finite():
            raise ValidationError(f"“{raw}” is not a number. Enter {kind}.")
        if number < 0:
            raise ValidationError(f"Can't be negative ({raw}). Enter 0 or more.")
        if number > self.maximum:
            unit = f" {self.unit}" if self.unit else ""
            raise ValidationError(f"Too large: at most {self.maximum}{unit}.")
        if self.whole and number != number.to_integral_value():
            raise ValidationError(f"Use {kind}: {raw} is not whole.")
        return int(number) if self.whole else float(number)


class Name(SimField):
    kind = "name"

    def __init__(self, what: str) -> None:
        super().__init__("Name")
        self.what = what

    def clean(self, value: Any) -> str:
        raw = str(value or "")
        if raw == "":
            raise ValidationError(f"Give the {self.what} a name.")
        if not NAME_RE.match(raw):
            raise ValidationError(
                "Use lowercase letters, digits and hyphens, starting with a letter "
                "(at most 30 characters)."
            )
        return raw


class Pick(SimField):
    """A choice by position ("0", "1", ...); it cleans to the chosen name."""

    kind = "select"

    def __init__(self, label: str, names: Sequence[str], message: str, none: bool = False) -> None:
        super().__init__(label, required=not none)
        self.options = ((("", "none"),) if none else ()) + tuple(
            (str(i), name) for i, name in enumerate(names)
        )
        self.message = message

    @property
    def values(self) -> set[str]:
        """The options' values: a value not among them (a name from a link) shows the first."""
        return {value for value, _ in self.options}

    def clean(self, value: Any) -> str | None:
        raw = str(value or "")
        if raw == "" and not self.required:
            return None
        names = dict(self.options)
        if raw and raw in names:
            return names[raw]
        raise ValidationError(self.message.format(raw))


def position(name: str, names: Sequence[str]) -> str:
    """The form's value for a choice held by name: its position, or the name if unknown."""
    return str(names.index(name)) if name in names else name


# ---------------------------------------------------------------------------- forms


class _RowForm(forms.Form):
    """One formset row: fields per node pool after the name, and a group for messages."""

    title = ""
    per_pool: tuple[tuple[str, str, int], ...] = ()  # (field, label, maximum)

    def __init__(self, *args: Any, index: int, pools: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.index, self.number = index, index + 1
        self.group = f"{self.title} {self.number}"
        fields = dict(self.fields)
        self.fields = {"name": fields.pop("name")}
        for key, label, maximum in self.per_pool:
            for k, pool in enumerate(pools):
                field = Amount(label, maximum=maximum)
                field.pool, field.pool_name = (k if len(pools) > 1 else None), pool
                self.fields[f"{key}-{k}"] = field
        self.fields |= fields
        self.pool_count = len(pools)

    def column(self, key: str) -> list[forms.BoundField]:
        return [self[f"{key}-{k}"] for k in range(self.pool_count)]

    @property
    def quotas(self) -> list[forms.BoundField]:
        return self.column("quota")


class PoolForm(_RowForm):
    title = "Node pool"
    name = Name("node pool")
    gpus = Amount("GPUs")


class DepartmentForm(_RowForm):
    title = "Department"
    per_pool = (("quota", "Quota", MAX_POOL_GPUS),)
    name = Name("department")
    weight = Amount("Over-quota weight", unit="", whole=False, maximum=MAX_WEIGHT)
    limit = Amount("Limit", required=False, placeholder="none")


class ProjectForm(_RowForm):
    title = "Project"
    per_pool = (("quota", "Quota", MAX_POOL_GPUS), ("demand", "Demand", MAX_DEMAND))
    name = Name("project")
    weight = Amount("Over-quota weight", unit="", whole=False, maximum=MAX_WEIGHT)
    limit = Amount(
        "Limit", required=False, placeholder="none",
        hint="The most GPUs it may use; empty for no limit.",
    )  # fmt: skip
    priority = Amount(
        "Priority", unit="", required=False, maximum=MAX_PRIORITY, placeholder="0",
        hint="Higher priority takes idle GPUs first.",
    )  # fmt: skip

    def __init__(self, *args: Any, departments: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["dept"] = Pick(
            "Department", departments, "There is no department called “{}”.", none=True
        )

    @property
    def demands(self) -> list[forms.BoundField]:
        return self.column("demand")

    @property
    def more(self) -> list[forms.BoundField]:
        """The optional settings, shown under "Limit, priority, department"."""
        return [self[key] for key in PROJECT_OPTIONS.values()]

    @property
    def more_open(self) -> bool:
        """The optional settings start open when one of them is set or needs fixing."""
        return any(field.value() or field.errors for field in self.more)


class StepForm(forms.Form):
    """Raise one project's demand in one pool (`step-project`, `step-pool`, `step-extra`)."""

    group = "What happens next"
    extra = Amount("Extra demand (GPUs)", maximum=MAX_DEMAND)

    def __init__(
        self, *args: Any, projects: Sequence[str], pools: Sequence[str], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields = {
            "project": Pick("Project", projects, "Choose one of the projects."),
            "pool": Pick("Node pool", pools, "Choose one of the node pools."),
            "extra": self.fields["extra"],
        }
        self.show_pool = len(pools) > 1

    def clean_extra(self) -> int:
        extra = int(self.cleaned_data["extra"])
        if extra == 0:
            raise ValidationError("Raise the demand by at least 1 GPU.")
        return extra


class _Rows(forms.BaseFormSet):  # type: ignore[type-arg]
    """A formset whose rows know their position (for "Project 2" and its messages)."""

    def get_form_kwargs(self, index: int | None) -> dict[str, Any]:
        return {**self.form_kwargs, "index": index}


def _formset(form: type[forms.Form], most: int) -> type[_Rows]:
    made = forms.formset_factory(form, _Rows, extra=0, max_num=most, absolute_max=most)
    return cast("type[_Rows]", made)


PoolFormSet = _formset(PoolForm, MAX_POOLS)
DepartmentFormSet = _formset(DepartmentForm, MAX_DEPARTMENTS)
ProjectFormSet = _formset(ProjectForm, MAX_PROJECTS)


def _data(prefix: str, rows: Sequence[Row]) -> dict[str, str]:
    """A formset's data for these rows; every row counts as sent (none may be left blank)."""
    count = str(len(rows))
    data = {f"{prefix}-TOTAL_FORMS": count, f"{prefix}-INITIAL_FORMS": count}
    for i, row in enumerate(rows):
        data |= {f"{prefix}-{i}-{key}": value for key, value in row.items()}
    return data


# ---------------------------------------------------------------------------- the whole


class SimForms:
    """The simulator's whole form bound to a state, checked.

    `scenario` is None while a value needs fixing; `asked` is None unless the state asks
    for a step and it is valid (a bad step value only drops the step, not the result).
    `form_errors` are about several fields at once. Every other message is on its field.
    """

    def __init__(self, state: SimState, choice: StepChoice = _NO_CHOICE) -> None:
        pools = [p["name"] for p in state.pools]
        depts = [d["name"] for d in state.departments]
        self.pools = PoolFormSet(
            _data("pool", state.pools), prefix="pool", auto_id="%s", form_kwargs={"pools": pools}
        )
        self.departments = DepartmentFormSet(
            _data("d", state.departments), prefix="d", auto_id="%s", form_kwargs={"pools": pools}
        )
        self.projects = ProjectFormSet(
            _data("p", [{**p, "dept": position(p["dept"], depts)} for p in state.projects]),
            prefix="p", auto_id="%s", form_kwargs={"pools": pools, "departments": depts},
        )  # fmt: skip
        names = [p["name"] for p in state.projects]
        shown = {"project": str(choice.project), "pool": str(choice.pool), "extra": choice.extra}

        def step_form(asked: Row | None) -> StepForm:
            data = asked and {
                "step-project": position(asked["project"], names),
                "step-pool": position(asked["pool"] or pools[0], pools),
                "step-extra": asked["extra"],
            }
            return StepForm(data, initial=shown, prefix="step", auto_id="%s", projects=names,
                            pools=pools)  # fmt: skip

        self.form_errors: tuple[str, ...] = ()
        self.scenario = self._check()
        # The step is checked only against a setup the engine can run.
        self.step = step_form(state.step if self.scenario else None)
        self.asked: Step | None = self._check_step()

    @property
    def rows(self) -> Iterator[_RowForm]:
        yield from self.pools.forms
        yield from self.departments.forms
        yield from self.projects.forms

    def fields(self) -> Iterator[tuple[str, forms.BoundField]]:
        """Every field on the page with its group ("Project 2"), in the page's order."""
        for form in self.rows:
            for field in form:
                yield form.group, field
        for key in ("project", "pool", "extra"):
            if key != "pool" or self.step.show_pool:
                yield self.step.group, self.step[key]

    def _check(self) -> QuotaScenario | None:
        for formset in (self.pools, self.departments, self.projects):
            formset.is_valid()
        _unique(self.pools.forms, "Another node pool already has this name.")
        _unique([*self.departments.forms, *self.projects.forms], _CLASH)
        demands = [form.cleaned_data for form in self.projects]
        totals = [
            (pool["name"].value(), sum(d.get(f"demand-{k}") or 0 for d in demands))
            for k, pool in enumerate(self.pools.forms)
        ]
        self.form_errors = tuple(
            f"All projects' demand in node pool {name} adds up to {total} GPUs; the "
            f"simulator takes at most {MAX_TOTAL_DEMAND} in one pool."
            for name, total in totals
            if total > MAX_TOTAL_DEMAND
        )
        if self.form_errors or any(form.errors for form in self.rows):
            return None
        pools = [p.cleaned_data for p in self.pools]
        order = [pool["name"] for pool in pools]

        def per_pool(data: Mapping[str, Any], key: str) -> dict[str, int]:
            return {name: data[f"{key}-{k}"] for k, name in enumerate(order)}

        return QuotaScenario(
            tuple(PoolSpec(p["name"], p["gpus"]) for p in pools),
            tuple(
                ProjectSpec(
                    d["name"], per_pool(d, "quota"), per_pool(d, "demand"), d["weight"],
                    d["limit"], d["priority"] or 0, d["dept"],
                )
                for d in (form.cleaned_data for form in self.projects)
            ),
            tuple(
                DepartmentSpec(d["name"], per_pool(d, "quota"), d["weight"], d["limit"])
                for d in (form.cleaned_data for form in self.departments)
            ),
        )  # fmt: skip

    def _check_step(self) -> Step | None:
        if not self.step.is_bound or not self.step.is_valid() or self.scenario is None:
            return None
        asked = Step(**self.step.cleaned_data)
        total = sum(p.demand[asked.pool] for p in self.scenario.projects) + asked.extra
        project = next(p for p in self.scenario.projects if p.name == asked.project)
        if project.demand[asked.pool] + asked.extra > MAX_DEMAND or total > MAX_TOTAL_DEMAND:
            self.step.add_error(
                "extra",
                f"Too large: demand in one pool can add up to at most {MAX_TOTAL_DEMAND} GPUs.",
            )
            return None
        return asked


def _unique(rows: Sequence[forms.Form], message: str) -> None:
    """A name already taken gets `message` (bad names count as taken, as typed)."""
    taken: set[str] = set()
    for form in rows:
        raw = form["name"].value() or ""
        if raw in taken and not form.errors.get("name"):
            form.add_error("name", message)
        taken.add(raw)
