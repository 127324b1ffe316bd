"""The progress page: summary, export to a file, import it back, reset, the part registry."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpRequest, HttpResponse
from django.test import Client

from studysite.study import progress
from studysite.study.content import load_study
from studysite.study.models import CardProgress, QuizAttempt, ScenarioProgress
from tests.web.shown import exam_keys

pytestmark = pytest.mark.django_db

STUDY = load_study()
SCENARIO = STUDY.scenarios[0]


def text(response: HttpResponse) -> str:
    return html.unescape(response.content.decode())


def words(response: HttpResponse) -> str:
    """The page's words without tags, as read."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", response.content.decode())).split())


def make_progress(client: Client) -> None:
    client.post("/guide/stack/read", {"read": "1"})
    client.post("/guide/placement/read", {"read": "1"})
    url = client.post("/quiz/start", {"mode": "exam"})["Location"]
    first = STUDY.questions[0]
    right = exam_keys(client.get(url).content.decode(), first, first.correct_ids)
    client.post(f"{url}submit", {f"q-{first.id}": right})
    client.post("/quiz/start", {"mode": "practice"})
    client.post("/cards/grade", {"card": STUDY.cards[5].id, "rating": "4"})
    client.post(f"/scenarios/{SCENARIO.id}/guess", {"guess": "over quota"})
    client.post(f"/scenarios/{SCENARIO.id}/hint")


def export(client: Client) -> dict[str, Any]:
    response = client.get("/progress/export")
    assert response.status_code == 200
    return json.loads(response.content)


def upload(client: Client, content: bytes, name: str = "progress.json") -> HttpResponse:
    return client.post("/progress/import", {"file": SimpleUploadedFile(name, content)})


def test_the_progress_page_sums_up_each_kind_of_progress(client: Client) -> None:
    make_progress(client)
    body = words(client.get("/progress/"))
    assert "Guide sections read: 2 of 27 sections read" in body
    assert "Quiz history: 1 attempt finished; best score 1 / 28" in body
    made_due = {card for question in STUDY.questions[1:] for card in question.cards}
    due = len(made_due - {STUDY.cards[5].id})
    assert f"Flashcards: 1 of {len(STUDY.cards)} cards reviewed; {due} due now" in body
    assert f"Scenarios: 0 of {len(STUDY.scenarios)} scenarios solved" in body
    page = client.get("/progress/").content.decode()
    assert 'href="/guide/stack/"' in page and 'href="/guide/placement/"' in page
    assert "<td>1 / 28</td>" in page


def test_a_new_browser_sees_an_empty_progress_page(client: Client) -> None:
    body = text(client.get("/progress/"))
    assert "None yet." in body and "No finished quiz attempts yet." in body


def test_export_downloads_a_versioned_json_file_of_everything(client: Client) -> None:
    make_progress(client)
    response = client.get("/progress/export")
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="runai-study-progress.json"'
    document = json.loads(response.content)
    assert (document["format"], document["version"]) == ("runai-study-progress", 2)
    parts = document["parts"]
    assert parts["guide-read"] == ["placement", "stack"]
    assert [attempt["mode"] for attempt in parts["quiz"]] == ["exam", "practice"]
    assert list(parts["cards"]["states"]) != []
    assert parts["scenarios"] == {
        SCENARIO.id: {"choice": "", "guess": "over quota", "hints": 1, "revealed": False}
    }


def test_importing_an_export_in_another_browser_restores_the_same_progress(
    client: Client,
) -> None:
    make_progress(client)
    saved = client.get("/progress/export").content
    other = Client()
    response = upload(other, saved)
    assert response.status_code == 302 and response["Location"] == "/progress/"
    body = text(other.get("/progress/"))
    assert (
        "Progress imported: Guide sections read, Quiz history, Flashcards, Scenarios, "
        "Question bank, Lab terminal, Lab exam attempts." in body
    )
    assert "best score 1 / 28" in body
    mine, theirs = export(client), export(other)
    assert mine["parts"] == theirs["parts"]
    assert "You marked this section as read" in other.get("/guide/stack/read").content.decode()


def test_importing_replaces_the_progress_that_was_there(client: Client) -> None:
    saved = client.get("/progress/export").content
    make_progress(client)
    upload(client, saved)
    assert export(client)["parts"] == {"guide-read": [], "quiz": [], "cards": {"states": {}}} | {
        "scenarios": {},
        "bank": [],
        "lab": [],
        "lab-exam": [],
    }


def test_a_file_with_only_some_parts_leaves_the_others_alone(client: Client) -> None:
    make_progress(client)
    document = {"format": "runai-study-progress", "version": 1, "parts": {"guide-read": []}}
    upload(client, json.dumps(document).encode())
    parts = export(client)["parts"]
    assert parts["guide-read"] == [] and len(parts["quiz"]) == 2


def tamper(document: dict[str, Any], part: str, value: Any) -> bytes:
    changed = json.loads(json.dumps(document))
    changed["parts"][part] = value
    return json.dumps(changed).encode()


BAD_FILES: list[tuple[str, Any, str]] = [
    ("guide-read", "stack", "expected a list of guide section names"),
    ("guide-read", ["no-such-section"], "expected a list of guide section names"),
    ("quiz", {"mode": "exam"}, "expected a list of at most 500 attempts"),
    ("quiz", [{"mode": "exam", "questions": ["nope"], "seed": 1}], "names a question"),
    ("quiz", [{"mode": "race"}], "'mode' must be practice or exam"),
    (
        "quiz",
        [
            {
                "mode": "exam",
                "questions": [STUDY.questions[0].id],
                "seed": "1",
                "answers": {},
                "started_at": "2026-01-01T00:00:00+00:00",
            }
        ],
        "'seed' must be a whole number",
    ),
    (
        "quiz",
        [
            {
                "mode": "exam",
                "questions": [STUDY.questions[0].id],
                "seed": 1,
                "answers": {STUDY.questions[0].id: ["zz"]},
                "started_at": "2026-01-01T00:00:00+00:00",
            }
        ],
        "isn't one of the question's options",
    ),
    (
        "quiz",
        [
            {
                "mode": "exam",
                "questions": [STUDY.questions[0].id],
                "seed": 1,
                "answers": {},
                "started_at": "yesterday",
            }
        ],
        "'started_at' must be a date and time",
    ),
    ("cards", [], "expected an object"),
    ("cards", {"states": {"no-such-card": {}}}, "isn't one of this site's cards"),
    ("cards", {"states": {STUDY.cards[0].id: {"state": "learning"}}}, "not a card state"),
    ("scenarios", {"no-such": {}}, "isn't one of this site's"),
    ("scenarios", {SCENARIO.id: {"choice": "zz"}}, "isn't one of this scenario's answers"),
    ("scenarios", {SCENARIO.id: {"hints": "2"}}, "'hints' must be a whole number"),
]


@pytest.mark.parametrize(("part", "value", "message"), BAD_FILES)
def test_a_file_with_wrong_types_or_unknown_ids_is_refused_and_changes_nothing(
    client: Client, part: str, value: Any, message: str
) -> None:
    make_progress(client)
    before = export(client)
    response = upload(client, tamper(before, part, value))
    body = text(response)
    assert response.status_code == 400
    assert "Nothing was imported." in body and message in body
    assert export(client)["parts"] == before["parts"]


def test_a_bad_part_late_in_the_file_undoes_the_parts_before_it(client: Client) -> None:
    make_progress(client)
    before = export(client)
    document = json.loads(json.dumps(before))
    document["parts"]["guide-read"] = ["big-picture"]
    document["parts"]["quiz"] = []
    document["parts"]["scenarios"] = {"no-such": {}}
    response = upload(client, json.dumps(document).encode())
    assert response.status_code == 400
    assert export(client)["parts"] == before["parts"]
    assert QuizAttempt.objects.count() == 2


def test_a_new_browser_whose_import_fails_late_gets_the_message_not_an_error() -> None:
    fresh = Client()
    document = {
        "format": "runai-study-progress",
        "version": 1,
        "parts": {"guide-read": ["stack"], "quiz": [], "scenarios": {"no-such": {}}},
    }
    response = upload(fresh, json.dumps(document).encode())
    assert response.status_code == 400
    assert "Scenarios: scenario 'no-such' isn't one of this site's" in text(response)
    assert export(fresh)["parts"]["guide-read"] == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"this is not json", "it is not valid JSON"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "it is not valid JSON"),
        (
            json.dumps({"format": "runai-study-progress", "version": 99, "parts": {}}).encode(),
            "has version 99; this site reads versions 1 and 2",
        ),
        (json.dumps({"hello": "world"}).encode(), "isn't a progress file from this site"),
        (b" " * (3 * 1024 * 1024), "That file is too large"),
    ],
)
def test_a_file_that_is_not_a_progress_file_is_refused_and_changes_nothing(
    client: Client, content: bytes, message: str
) -> None:
    make_progress(client)
    before = export(client)
    response = upload(client, content)
    assert response.status_code == 400
    assert message in text(response)
    assert export(client)["parts"] == before["parts"]


def test_importing_without_choosing_a_file_asks_for_one(client: Client) -> None:
    response = client.post("/progress/import", {})
    assert response.status_code == 400
    assert "Choose a progress file to import." in text(response)


# Reset


def test_reset_asks_for_confirmation_first(client: Client) -> None:
    make_progress(client)
    body = text(client.get("/progress/reset"))
    assert "Reset progress?" in body
    for part in progress.parts():
        assert f'name="part" value="{part.name}" checked' in body
    assert 'action="/progress/reset/erase"' in body
    assert "Cancel, keep everything" in body
    assert QuizAttempt.objects.count() == 2


def test_confirming_the_reset_erases_everything_chosen(client: Client) -> None:
    make_progress(client)
    names = [part.name for part in progress.parts()]
    response = client.post("/progress/reset/erase", {"part": names}, follow=True)
    assert (
        "Erased: Guide sections read, Quiz history, Flashcards, Scenarios, "
        "Question bank, Lab terminal, Lab exam attempts." in text(response)
    )
    assert export(client)["parts"] == {"guide-read": [], "quiz": [], "cards": {"states": {}}} | {
        "scenarios": {},
        "bank": [],
        "lab": [],
        "lab-exam": [],
    }
    assert not CardProgress.objects.exists() and not ScenarioProgress.objects.exists()


def test_reset_can_erase_one_kind_and_keep_the_rest(client: Client) -> None:
    make_progress(client)
    client.post("/progress/reset/erase", {"part": ["quiz"]})
    parts = export(client)["parts"]
    assert parts["quiz"] == [] and parts["guide-read"] == ["placement", "stack"]
    assert CardProgress.objects.exists()


@pytest.mark.parametrize("form", [{}, {"part": ["everything"]}])
def test_a_reset_with_nothing_or_something_unknown_chosen_erases_nothing(
    client: Client, form: dict[str, Any]
) -> None:
    make_progress(client)
    response = client.post("/progress/reset/erase", form)
    assert response.status_code == 400
    assert "Choose at least one kind of progress to erase." in text(response)
    assert QuizAttempt.objects.count() == 2


def test_reset_only_touches_this_browser(client: Client) -> None:
    make_progress(client)
    Client().post("/progress/reset/erase", {"part": [part.name for part in progress.parts()]})
    assert QuizAttempt.objects.count() == 2


# The registry another feature (the lab) uses


def test_a_registered_part_is_exported_imported_and_reset(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "_parts", dict(progress._parts))
    stored: dict[str, Any] = {"value": {"done": ["task-1"]}}

    def import_lab(request: HttpRequest, data: Any) -> None:
        if not isinstance(data, dict):
            raise progress.ProgressDataError("expected an object")
        stored["value"] = data

    progress.register_progress_part(
        "lab",
        export=lambda request: stored["value"],
        import_=import_lab,
        reset=lambda request: stored.update(value={}),
        label="Lab terminal",
        summary=lambda request: "1 task done",
    )
    document = export(client)
    assert document["parts"]["lab"] == {"done": ["task-1"]}
    assert "Lab terminal: 1 task done" in words(client.get("/progress/"))
    upload(client, tamper(document, "lab", {"done": ["task-2"]}))
    assert stored["value"] == {"done": ["task-2"]}
    refused = upload(client, tamper(document, "lab", ["not", "an", "object"]))
    assert "Lab terminal: expected an object" in text(refused)
    client.post("/progress/reset/erase", {"part": ["lab"]})
    assert stored["value"] == {}


def test_a_part_name_must_be_lowercase_kebab() -> None:
    with pytest.raises(ValueError, match="lowercase-kebab"):
        progress.register_progress_part("Lab State", print, print, print)


def test_the_page_says_truthfully_where_progress_is_kept(client: Client) -> None:
    body = words(client.get("/progress/"))
    assert (
        "Where this is kept: on this site's server, in its database, tied to this browser's "
        "session cookie. There is no account." in body
    )
    assert "the cookie expires 365 days after it was last renewed" in body
    assert "Nothing leaves it" not in body


def test_the_import_has_a_styled_file_picker_for_json(client: Client) -> None:
    page = client.get("/progress/").content.decode()
    assert 'class="file-input" type="file" name="file" accept=".json,application/json"' in page


def test_an_exam_time_limit_survives_export_and_import(client: Client) -> None:
    client.post("/quiz/start", {"mode": "exam", "time_limit": "45"})
    saved = client.get("/progress/export").content
    assert json.loads(saved)["parts"]["quiz"][0]["time_limit"] == 45
    other = Client()
    upload(other, saved)
    assert QuizAttempt.objects.filter(time_limit=45).count() == 2


def test_an_import_with_a_nonsense_time_limit_changes_nothing(client: Client) -> None:
    client.post("/quiz/start", {"mode": "exam", "time_limit": "45"})
    document = export(client)
    document["parts"]["quiz"][0]["time_limit"] = -3
    response = upload(Client(), json.dumps(document).encode())
    assert "'time_limit' must be minutes from 1 to 600, or null" in text(response)
    assert QuizAttempt.objects.count() == 1
