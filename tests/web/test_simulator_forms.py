"""The simulator's input as Django forms: rows added through the projects' formset, one
message per bad value beside its field, and links shared before the forms still opening
the same setup."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from tests.web.simulator_page import form_inputs, pool_tables
from tests.web.test_simulator_views import HX, form_query, get_page, rows, text_of

pytestmark = pytest.mark.django_db


def two_pools_and_a_department(**extra: str) -> dict[str, str]:
    """The form as a browser sends it with two node pools and a department."""
    fields = form_query() | {"pool-1-name": "l40s", "pool-1-gpus": "8"}
    for i in range(3):
        fields |= {f"p-{i}-quota-1": "0", f"p-{i}-demand-1": "0"}
    fields |= {"d-0-name": "research", "d-0-quota-0": "8", "d-0-quota-1": "0"}
    return fields | {"d-0-weight": "1", "d-0-limit": ""} | extra


# ---------------------------------------------------------------------------- the formset


def test_a_project_row_added_through_the_formset_joins_the_result_and_the_link(
    client: Client,
) -> None:
    fourth = {"p-3-name": "team-d", "p-3-quota-0": "2", "p-3-demand-0": "6", "p-3-weight": "1"}
    response = client.get("/simulator/", form_query(**fourth), headers=HX)
    assert response.status_code == 200
    assert response["HX-Push-Url"].endswith("&p=team-c,8,10,1&p=team-d,2,6,1")
    shown = rows(response.content.decode())
    assert list(shown) == ["team-a", "team-b", "team-c", "team-d"]
    assert shown["team-d"].quota_backed == 2
    without_js = client.get("/simulator/", form_query(**fourth))
    assert without_js.status_code == 302 and without_js["Location"].endswith("&p=team-d,2,6,1")


def test_the_add_button_gives_the_formset_a_new_labelled_row(client: Client) -> None:
    response = client.get("/simulator/", form_query(action="add-project"), headers=HX)
    body = response.content.decode()
    assert "<legend>Project 4</legend>" in body
    inputs, messages = form_inputs(body)
    for key in ["name", "quota-0", "demand-0", "weight", "limit", "priority", "dept"]:
        field_id = f"p-3-{key}"
        assert f'<label for="{field_id}">' in body, field_id
        assert f"{field_id}-msg" in inputs[field_id]["aria-describedby"].split()
        assert messages[field_id] == ""
    assert inputs["p-3-name"]["value"] == "team-d" and inputs["p-3-demand-0"]["value"] == "4"


def test_a_saved_form_address_with_a_gap_in_its_rows_keeps_every_row(client: Client) -> None:
    fields = form_query() | {"p-5-name": "team-z", "p-5-quota-0": "1", "p-5-demand-0": "1"}
    response = client.get("/simulator/", fields)
    assert response.status_code == 302
    assert response["Location"].endswith("&p=team-c,8,10,1&p=team-z,1,1,1")


# ---------------------------------------------------------------------------- messages


TYPED = [
    ("pool-0-name", "", "Give the node pool a name."),
    ("pool-0-gpus", "lots", "“lots” is not a number. Enter a whole number of GPUs."),
    ("pool-1-name", "default", "Another node pool already has this name."),
    ("pool-1-gpus", "2000", "Too large: at most 1024 GPUs."),
    ("d-0-name", "R&D", "Use lowercase letters, digits and hyphens, starting with a letter"),
    ("d-0-quota-1", "-2", "Can't be negative (-2). Enter 0 or more."),
    ("d-0-weight", "101", "Too large: at most 100."),
    ("d-0-limit", "1.5", "Use a whole number of GPUs: 1.5 is not whole."),
    ("p-0-name", "research", "Another project or department already has this name."),
    ("p-0-quota-0", "2000", "Too large: at most 1024 GPUs."),
    ("p-1-demand-1", "", "Enter a whole number of GPUs."),
    ("p-1-weight", "heavy", "“heavy” is not a number. Enter a number."),
    ("p-2-limit", "-1", "Can't be negative (-1). Enter 0 or more."),
    ("p-2-priority", "1.5", "Use a whole number: 1.5 is not whole."),
]


@pytest.mark.parametrize(("field_id", "value", "message"), TYPED)
def test_each_typed_field_answers_a_bad_value_with_its_own_message(
    client: Client, field_id: str, value: str, message: str
) -> None:
    query = two_pools_and_a_department(**{field_id: value})
    body = client.get("/simulator/", query, headers=HX).content.decode()
    spans = dict(re.findall(r'<span class="sim-msg" id="([^"]+)-msg"[^>]*>([^<]*)</span>', body))
    assert html.unescape(spans.pop(field_id)).startswith(message)
    assert not any(spans.values()), "only the bad value gets a message"
    assert "1 value needs fixing" in body and f'href="#{field_id}"' in body
    page = get_page(client, client.get("/simulator/", query)["Location"])
    inputs, messages = form_inputs(page)
    assert messages[field_id].startswith(message)
    assert inputs[field_id]["aria-invalid"] == "true"
    assert inputs[field_id].get("value", "") == html.unescape(value).replace("&", "_")


CHOSEN = [
    ("p=team-a,8,4,1,dept:nowhere", "p-0-dept", "There is no department called “nowhere”."),
    ("p=team-a,8,4,1&step=nobody,4", "step-project", "Choose one of the projects."),
    ("pool=a:8&pool=b:8&p=team-a,8/0,4/0,1&step=team-a,4,mars", "step-pool",
     "Choose one of the node pools."),
    ("p=team-a,8,4,1&step=team-a,0", "step-extra", "Raise the demand by at least 1 GPU."),
    ("p=team-a,8,4,1&step=team-a,x", "step-extra",
     "“x” is not a number. Enter a whole number of GPUs."),
    ("p=team-a,8,4,1&step=team-a,253", "step-extra",
     "Too large: demand in one pool can add up to at most 256 GPUs."),
]  # fmt: skip


@pytest.mark.parametrize(("link", "field_id", "message"), CHOSEN)
def test_a_choice_a_link_names_wrongly_gets_its_own_message(
    client: Client, link: str, field_id: str, message: str
) -> None:
    page = get_page(client, f"/simulator/?{link}")
    inputs, messages = form_inputs(page)
    assert messages[field_id] == message
    assert inputs[field_id]["aria-invalid"] == "true"
    assert [text for key, text in messages.items() if text] == [message]


def test_a_bad_value_never_breaks_the_page(client: Client) -> None:
    for value in ["", " ", "1e99999", "9" * 5000, "0x10", "½", "--1", "1,5"]:
        query = two_pools_and_a_department(**{"p-0-quota-0": value, "step-extra": value})
        assert client.get("/simulator/", query, headers=HX).status_code == 200, value
        assert client.get("/simulator/", query | {"action": "step"}).status_code == 302, value


# ---------------------------------------------------------------------------- old links


def test_an_old_shared_link_still_opens_the_same_setup(client: Client) -> None:
    old = (
        "/simulator/?pool=h100:16&pool=l40s:8&d=research,12/4,2,limit:20"
        "&p=team-a,8/2,12/3,1.5,max:10,priority:2,department:research&p=team-b,0/0,4/4,1"
        "&step=team-a,6,l40s"
    )
    page = get_page(client, old)
    inputs, messages = form_inputs(page)
    values = {key: attrs.get("value", "") for key, attrs in inputs.items()}
    assert [values[f"pool-{k}-{key}"] for k in (0, 1) for key in ("name", "gpus")] == [
        "h100", "16", "l40s", "8"
    ]  # fmt: skip
    assert [values[f"d-0-{key}"] for key in ("name", "quota-0", "quota-1", "weight", "limit")] == [
        "research", "12", "4", "2", "20"
    ]  # fmt: skip
    project = ["name", "quota-0", "quota-1", "demand-0", "demand-1", "weight", "limit"]
    raised = ["team-a", "8", "2", "12", "9", "1.5", "10"]  # the step raised l40s demand 3 → 9
    assert [values[f"p-0-{key}"] for key in project] == raised
    assert (values["p-0-priority"], values["p-0-dept"]) == ("2", "0")
    assert (values["step-project"], values["step-pool"], values["step-extra"]) == ("0", "1", "6")
    assert not any(messages.values())
    assert "team-a's demand in node pool l40s grew by 6 GPUs" in text_of(page)
    new = (
        "/simulator/?pool=h100:16&pool=l40s:8&p=team-a,8/2,12/3,1.5,limit:10,prio:2,dept:research"
        "&p=team-b,0/0,4/4,1&d=research,12/4,2,limit:20&step=team-a,6,l40s"
    )
    assert f'data-share-url="{html.escape(new)}"' in page
    assert pool_tables(get_page(client, new)) == pool_tables(page)
