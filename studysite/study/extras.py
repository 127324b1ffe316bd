"""What the study app adds to the guide: the study sections' extra HTML and the
reference terms in the site search."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from urllib.parse import urlencode

from django.template.loader import render_to_string

from studysite.guide.pages import register_extra
from studysite.guide.search import Document, register_provider
from studysite.study.content import load_study


def reference_url(term: str, anchor: str) -> str:
    return f"/reference/?{urlencode({'q': term})}#{anchor}"


def reference_documents() -> Iterator[Document]:
    for item in load_study().reference:
        yield Document(reference_url(item.term, item.anchor), item.term, "Reference", item.meaning)


def _extra(template: str) -> Callable[[], str]:
    def render() -> str:
        return render_to_string(f"study/extras/{template}.html", {"study": load_study()})

    return render


def register() -> None:
    for slug in ("scenarios", "reference", "flashcards", "exam-traps", "practice-quiz"):
        register_extra(slug, _extra(slug))
    register_provider(reference_documents)
