"""The simulator's URL state: both spellings, the buttons, the forms' checks (no engine)."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import parse_qs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.engine import MAX_DEPARTMENTS, MAX_POOLS, MAX_PROJECTS, PoolSpec, ProjectSpec
from studysite.simulator import state as s
from studysite.simulator.forms import NAME_RE, SimForms
from studysite.simulator.query import parse_query, to_query, to_url
from studysite.simulator.state import (
    DEFAULT_STATE,
    Row,
    SimState,
    Step,
    after_step,
    department_row,
    pool_row,
    project_row,
)


def parse(query: str) -> s.Parsed:
    return parse_query(parse_qs(query, keep_blank_values=True))


def project(pools: int, name: str, quota: str, demand: str, weight: str = "1", **more: str) -> Row:
    """A project row; QUOTA and DEMAND are a/b with two pools, as in the compact link."""
    row = {"name": name, "weight": weight, **more}
    row |= {f"quota-{k}": v for k, v in enumerate(quota.split("/"))}
    row |= {f"demand-{k}": v for k, v in enumerate(demand.split("/"))}
    return project_row(pools, **row)


def department(pools: int, name: str, quota: str, weight: str = "1", limit: str = "") -> Row:
    quotas = {f"quota-{k}": v for k, v in enumerate(quota.split("/"))}
    return department_row(pools, name=name, weight=weight, limit=limit, **quotas)


def step(name: str, extra: str, pool: str = "") -> Row:
    return {"project": name, "extra": extra, "pool": pool}


# ---------------------------------------------------------------------------- compact spelling


def test_the_default_setup_is_the_guides_three_projects_in_one_pool() -> None:
    assert to_query(DEFAULT_STATE) == "pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,8,10,1"
    assert parse("").state == DEFAULT_STATE


def test_the_compact_spelling_reads_every_setting() -> None:
    parsed = parse(
        "pool=h100:16&pool=l40s:8&p=team-a,8/2,12/0,1.5,limit:10,prio:2,dept:research"
        "&d=research,12/4,2,limit:20&step=team-a,6,l40s"
    )
    assert parsed.state == SimState(
        pools=(pool_row("h100", "16"), pool_row("l40s", "8")),
        projects=(
            project(2, "team-a", "8/2", "12/0", "1.5", limit="10", priority="2", dept="research"),
        ),
        departments=(department(2, "research", "12/4", "2", "20"),),
        step=step("team-a", "6", "l40s"),
    )
    assert not parsed.from_form and parsed.notes == ()
    assert parsed.choice == s.StepChoice(project=0, pool=1, extra="6")


def test_missing_parts_take_defaults_and_unknown_parts_are_noted() -> None:
    parsed = parse("p=solo&p=duo,4,,2,colour:red")
    assert parsed.state.pools == (pool_row("default", "24"),)
    assert parsed.state.projects[0] == project(1, "solo", "0", "0")
    assert parsed.state.projects[1] == project(1, "duo", "4", "", "2")
    assert parsed.notes == ("“colour_red” is not a setting the simulator knows: left out.",)


def test_a_pool_without_projects_gets_the_guides_projects() -> None:
    state = parse("pool=16").state
    assert state.pools == (pool_row("default", "16"),)
    assert state.projects == DEFAULT_STATE.projects


def test_too_many_projects_or_pools_are_cut_with_a_note() -> None:
    query = "&".join(f"p=p{i},1,1,1" for i in range(10)) + "&pool=8&pool=8&pool=8"
    parsed = parse(query)
    assert len(parsed.state.projects) == MAX_PROJECTS
    assert len(parsed.state.pools) == MAX_POOLS
    assert any("first 8 projects" in note for note in parsed.notes)
    assert any("first 2 node pools" in note for note in parsed.notes)


def test_unsafe_characters_never_reach_the_url() -> None:
    state = parse("p=team%20a,1%2F2,%3Cb%3E,1").state
    assert state.projects[0]["name"] == "team_a"
    assert state.projects[0]["quota-0"] == "1" and "quota-1" not in state.projects[0]  # "1/2"
    assert state.projects[0]["demand-0"] == "_b_"
    assert "%" not in to_query(state) and "<" not in to_query(state)


def test_the_step_pool_is_spelled_only_when_it_is_not_the_first() -> None:
    two = "pool=a:8&pool=b:8&p=x,1/1,1/1,1"
    assert parse(f"{two}&step=x,2,a").state.step == step("x", "2", "")
    assert to_query(parse(f"{two}&step=x,2,b").state).endswith("&step=x,2,b")
    assert to_query(parse(f"{two}&step=x,2").state).endswith("&step=x,2")


def test_to_url_is_readable() -> None:
    state = replace(DEFAULT_STATE, step=step("team-a", "4"))
    assert to_url(state) == (
        "/simulator/?pool=24&p=team-a,8,4,1&p=team-b,8,16,2&p=team-c,8,10,1&step=team-a,4"
    )


# ---------------------------------------------------------------------------- round trip

token = st.text(alphabet="abz09-._~", max_size=5)
name = st.from_regex(NAME_RE, fullmatch=True)
number = st.integers(0, 5000).map(str)


@st.composite
def states(draw: st.DrawFn) -> SimState:
    count = draw(st.integers(1, 2))
    pool_names = draw(st.lists(name, min_size=count, max_size=count, unique=True))
    pools = tuple(pool_row(n, draw(number | token)) for n in pool_names)
    values = st.lists(number | token, min_size=count, max_size=count).map("/".join)
    departments = tuple(
        department(count, d, draw(values), draw(number | token), draw(st.just("") | number))
        for d in draw(st.lists(name, max_size=MAX_DEPARTMENTS, unique=True))
    )
    dept_names = st.sampled_from(["", *(d["name"] for d in departments)])
    projects = tuple(
        project(
            count,
            draw(name | token),
            draw(values),
            draw(values),
            draw(number | token),
            limit=draw(st.just("") | number | token),
            priority=draw(st.sampled_from(["", "1", "7", "x"])),
            dept=draw(dept_names),
        )
        for _ in range(draw(st.integers(1, MAX_PROJECTS)))
    )
    stepped = draw(
        st.none()
        | st.builds(
            step,
            st.sampled_from([p["name"] for p in projects]),
            number | token,
            st.sampled_from(["", *(p["name"] for p in pools[1:])]),
        )
    )
    return SimState(pools, projects, departments, stepped)


@settings(max_examples=200)
@given(states())
def test_every_state_survives_the_round_trip_through_its_url(state: SimState) -> None:
    query = to_query(state)
    assert parse(query).state == state
    assert to_query(parse(query).state) == query


@settings(max_examples=100)
@given(states())
def test_the_form_spelling_reads_back_the_same_state(state: SimState) -> None:
    assert parse_query(form_fields(state)).state == replace(state, step=None)


def form_fields(state: SimState, **extra: str) -> dict[str, list[str]]:
    """The query a browser sends for the simulator's form showing this state."""
    fields: dict[str, str] = {}
    for prefix, rows in (("pool", state.pools), ("d", state.departments), ("p", state.projects)):
        for i, row in enumerate(rows):
            fields |= {f"{prefix}-{i}-{key}": value for key, value in row.items()}
    names = [d["name"] for d in state.departments]
    for i, p in enumerate(state.projects):
        fields[f"p-{i}-dept"] = str(names.index(p["dept"])) if p["dept"] else ""
    fields |= {"step-project": "0", "step-extra": "4"} | extra
    return {key: [value] for key, value in fields.items()}


# ---------------------------------------------------------------------------- form buttons


def test_the_step_button_turns_the_chosen_project_into_a_step() -> None:
    parsed = parse_query(
        form_fields(DEFAULT_STATE, **{"action": "step", "step-project": "2", "step-extra": "5"})
    )
    assert parsed.state.step == step("team-c", "5", "")
    assert parsed.reshapes and parsed.anchor == "sim-step-result"
    assert parsed.choice == s.StepChoice(project=2, pool=0, extra="5")


def test_adding_and_removing_projects_keeps_between_one_and_eight() -> None:
    state = DEFAULT_STATE
    for _ in range(10):
        state = parse_query(form_fields(state, action="add-project")).state
    assert len(state.projects) == 8
    assert [p["name"] for p in state.projects][3:] == [
        "team-d",
        "team-e",
        "team-f",
        "team-g",
        "team-h",
    ]
    parsed = parse_query(form_fields(state, action="remove-project-0"))
    assert parsed.state.projects[0]["name"] == "team-b" and parsed.focus == "sim-add-project"
    for _ in range(10):
        state = parse_query(form_fields(state, action="remove-project-0")).state
    assert [p["name"] for p in state.projects] == ["team-h"]


def test_a_new_project_arrives_with_demand_and_no_quota_and_takes_the_focus() -> None:
    parsed = parse_query(form_fields(DEFAULT_STATE, action="add-project"))
    assert parsed.state.projects[-1] == project(1, "team-d", "0", "4")
    assert parsed.focus == "p-3-name"


def test_a_second_pool_adds_a_column_of_values_and_removing_it_drops_them() -> None:
    two = parse_query(form_fields(DEFAULT_STATE, action="add-pool")).state
    assert two.pools == (pool_row("default", "24"), pool_row("l40s", "8"))
    assert two.projects[1] == project(2, "team-b", "8/0", "16/0", "2")
    one = parse_query(form_fields(two, action="remove-pool-1")).state
    assert one == DEFAULT_STATE
    assert parse_query(form_fields(one, action="remove-pool-0")).state == DEFAULT_STATE


def test_departments_are_chosen_by_position_so_renaming_keeps_the_link() -> None:
    with_dept = parse_query(form_fields(DEFAULT_STATE, action="add-department")).state
    assert with_dept.departments == (department(1, "research", "0"),)
    fields = form_fields(with_dept) | {"p-1-dept": ["0"], "d-0-name": ["labs"]}
    state = parse_query(fields).state
    assert state.projects[1]["dept"] == "labs"
    removed = parse_query(form_fields(state, action="remove-department-0")).state
    assert removed.departments == () and removed.projects[1]["dept"] == ""


def test_an_unknown_button_is_just_an_update() -> None:
    parsed = parse_query(form_fields(DEFAULT_STATE, action="explode-9"))
    assert parsed.state == DEFAULT_STATE and not parsed.reshapes and parsed.from_form


# ---------------------------------------------------------------------------- checks


def check(state: SimState) -> SimForms:
    return SimForms(state)


def errors_for(query: str) -> dict[str, str]:
    return errors_of(check(parse(query).state))


def errors_of(forms: SimForms) -> dict[str, str]:
    """Each field's message by the field's id, as the page shows it."""
    return {field.html_name: field.errors[0] for _, field in forms.fields() if field.errors} | {
        f"step-{key}": forms.step.errors[key][0] for key in forms.step.errors
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-3", "Can't be negative (-3). Enter 0 or more."),
        ("abc", "“abc” is not a number. Enter a whole number of GPUs."),
        ("2.5", "Use a whole number of GPUs: 2.5 is not whole."),
        ("5000", "Too large: at most 1024 GPUs."),
        ("1e9", "Too large: at most 1024 GPUs."),
        ("", "Enter a whole number of GPUs."),
        ("NaN", "“NaN” is not a number. Enter a whole number of GPUs."),
        ("1_000", "“1_000” is not a number. Enter a whole number of GPUs."),
    ],
)
def test_a_bad_quota_gets_a_plain_message_on_its_own_field(value: str, message: str) -> None:
    checked = check(parse(f"pool=24&p=a,{value},4,1&p=b,8,8,1").state)
    assert checked.scenario is None
    assert errors_of(checked) == {"p-0-quota-0": message}


def test_each_kind_of_value_has_its_own_rule() -> None:
    errors = errors_for(
        "pool=9999&p=Team,1,2,-1,limit:1.5,prio:101&p=team-b,0,4097,101&p=team-b,0,0,1"
    )
    assert errors == {
        "pool-0-gpus": "Too large: at most 1024 GPUs.",
        "p-0-name": (
            "Use lowercase letters, digits and hyphens, starting with a letter "
            "(at most 30 characters)."
        ),
        "p-0-weight": "Can't be negative (-1). Enter 0 or more.",
        "p-0-limit": "Use a whole number of GPUs: 1.5 is not whole.",
        "p-0-priority": "Too large: at most 100.",
        "p-1-demand-0": "Too large: at most 1024 GPUs.",
        "p-1-weight": "Too large: at most 100.",
        "p-2-name": "Another project or department already has this name.",
    }


def test_weights_may_be_fractional_and_numbers_may_be_written_plainly() -> None:
    checked = check(parse("pool=24.0&p=a,8,4,0.5&p=b,1e1,0,2,limit:8,prio:3").state)
    assert errors_of(checked) == {}
    assert checked.scenario is not None
    assert checked.scenario.pools[0] == PoolSpec("default", 24)
    assert checked.scenario.projects[0].over_quota_weight == 0.5
    second = ProjectSpec("b", {"default": 10}, {"default": 0}, 2.0, 8, 3)
    assert checked.scenario.projects[1] == second


def test_names_must_be_unique_across_projects_and_departments() -> None:
    errors = errors_for("p=research,1,1,1,dept:research&d=research,4,1")
    assert errors == {"p-0-name": "Another project or department already has this name."}


def test_an_unknown_department_is_flagged_on_the_project() -> None:
    assert errors_for("p=a,1,1,1,dept:nowhere") == {
        "p-0-dept": "There is no department called “nowhere”."
    }


def test_total_demand_in_a_pool_is_capped_as_a_whole() -> None:
    checked = check(parse("pool=24&p=a,0,256,1&p=b,0,1,1").state)
    assert checked.scenario is None and errors_of(checked) == {}
    assert checked.form_errors == (
        "All projects' demand in node pool default adds up to 257 GPUs; the simulator "
        "takes at most 256 in one pool.",
    )


def test_a_bad_step_drops_only_the_step() -> None:
    for query, key, message in [
        ("step=nobody,4", "step-project", "Choose one of the projects."),
        ("step=team-a,0", "step-extra", "Raise the demand by at least 1 GPU."),
        ("step=team-a,x", "step-extra", "“x” is not a number. Enter a whole number of GPUs."),
        ("step=team-a,4,mars", "step-pool", "Choose one of the node pools."),
        (
            "step=team-a,250",
            "step-extra",
            "Too large: demand in one pool can add up to at most 256 GPUs.",
        ),
    ]:
        checked = check(parse(f"{to_query(DEFAULT_STATE)}&{query}").state)
        assert errors_of(checked) == {key: message}, query
        assert checked.scenario is not None and checked.asked is None


def test_after_a_step_the_form_holds_the_raised_demand() -> None:
    state = parse("pool=a:8&pool=b:8&p=x,1/1,2/3,1&step=x,4,b").state
    checked = check(state)
    assert checked.scenario is not None and checked.asked == Step("x", "b", 4)
    after = after_step(state, checked.asked)
    assert (after.projects[0]["demand-0"], after.projects[0]["demand-1"]) == ("2", "7")
    assert after.step is None
