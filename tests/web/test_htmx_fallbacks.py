"""Every htmx request on the site has a plain fallback, so the site works without JavaScript:
a link with `hx-get` has its `href`, a form with `hx-get` or `hx-post` its `action`, and any
other element that sends one sits inside a form with an `action`."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


class HtmxTags(HTMLParser):
    """Collects each element that sends an htmx request, with the forms around it."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, str | None]] = []
        self.found: list[tuple[str, dict[str, str | None], dict[str, str | None] | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            self.forms.append(attributes)
        if any(name in attributes for name in ("hx-get", "hx-post")):
            self.found.append((tag, attributes, self.forms[-1] if self.forms else None))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.forms:
            self.forms.pop()


def htmx_tags(
    body: str,
) -> list[tuple[str, dict[str, str | None], dict[str, str | None] | None]]:
    parser = HtmxTags()
    parser.feed(body)
    return parser.found


def quiz_question(client: Client) -> str:
    started = client.post("/quiz/start", {"mode": "practice"})
    return str(started["Location"])


def quiz_feedback(client: Client) -> str:
    url = quiz_question(client)
    body = client.get(url).content.decode()
    question = body.split('name="question" value="', 1)[1].split('"', 1)[0]
    client.post(f"{url}answer", {"question": question, "option": "a"})
    return url


def bank_practice(client: Client) -> str:
    client.post("/bank/start", {"by": "topics", "topic": "quota-fairness"})
    return "/bank/practice/"


def cards_with_a_grade(client: Client) -> str:
    client.get("/cards/")
    return "/cards/"


PAGES = {
    "guide section": lambda client: "/guide/quota-fairness/",
    "search": lambda client: "/search/?q=reclaim",
    "simulator": lambda client: "/simulator/",
    "reference": lambda client: "/reference/",
    "scenario": lambda client: "/scenarios/gang-cannot-fit/",
    "flashcards": cards_with_a_grade,
    "quiz question": quiz_question,
    "quiz feedback": quiz_feedback,
    "bank practice": bank_practice,
    "lab ticket": lambda client: "/lab/mig-single/",
}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_htmx_request_on_the_page_has_a_plain_fallback(client: Client, page: str) -> None:
    url = PAGES[page](client)
    response = client.get(url)
    assert response.status_code == 200, url
    tags = htmx_tags(response.content.decode())
    # The page is listed because it sends htmx requests; finding none means the check
    # looked in the wrong place.
    assert tags, f"{url} has no hx-get or hx-post"
    for tag, attributes, form in tags:
        if tag == "a":
            assert attributes.get("href"), (url, attributes)
        elif tag == "form":
            assert attributes.get("action"), (url, attributes)
        else:
            assert form is not None and form.get("action"), (url, tag, attributes)
