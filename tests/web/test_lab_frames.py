"""A terminal frame's text (studysite.lab.consumers.frame_text): json.dumps's text always; a long
output encoded in pieces, so other learners' commands get the interpreter's lock between them."""

from __future__ import annotations

import json

import pytest

from simulators.lab import sliced_json
from studysite.lab import consumers


def frame(output: str) -> dict[str, object]:
    return consumers.output_frame(output, [], "> ")


def test_a_long_outputs_frame_is_encoded_in_pieces_and_reads_as_json_dumps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []
    real = sliced_json.pieces

    def counted(*args: object, **kwargs: object) -> list[str]:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sliced_json, "pieces", counted)
    long = frame('"quoted" \u00e9\n' * 40_000)
    assert consumers.frame_text(long) == json.dumps(long)
    assert calls


def test_a_short_frame_is_one_call_of_the_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sliced_json, "pieces", lambda *a, **k: pytest.fail("sliced"))
    short = frame("NAME   STATUS\ngpu-node1   Ready\n")
    assert consumers.frame_text(short) == json.dumps(short)
