"""A lab's document is encoded in slices (simulators.lab.sliced_json): the same text as
json.dumps, written by many short calls of the encoder, so a big world never holds the
interpreter's lock for one long call while other learners wait (issue 33)."""

from __future__ import annotations

import json
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from simulators.lab import LabSession, sliced_json

SCALE = "kubectl scale deployment coredns -n kube-system --replicas=600"

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
keys = st.text() | st.integers() | st.booleans() | st.none()
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=40) | st.dictionaries(keys, inner, max_size=40),
    max_leaves=400,
)


@given(documents, st.sampled_from([(", ", ": "), (",", ":")]))
def test_sliced_text_is_json_dumps_byte_for_byte(document, separators) -> None:
    assert sliced_json.dumps(document, separators=separators) == json.dumps(
        document, separators=separators
    )


def test_a_lab_scaled_to_600_pods_saves_the_same_text_in_pieces_of_one_object_at_most() -> None:
    lab = LabSession.new("validate-runai", seed=0)
    for line in [SCALE, *["kubectl get pods -n kube-system | wc -l"] * 5]:
        lab.run(line)
    document = lab._state._all_but_transcript(copy=False, compact=True)
    whole = json.dumps(document)
    pods = document["world"]["changes"]["objects"]["pods"]
    assert len(pods) > 50 and len(whole) > 400_000
    parts = sliced_json.pieces(document)
    assert "".join(parts) == whole
    # Each pod its own call at least; none of them longer than a big object (0.1-0.3 ms).
    assert len(parts) > len(pods)
    assert max(len(part) for part in parts) < 64 * 1024 < len(whole) // 8


@given(st.text(max_size=60), st.integers(min_value=1, max_value=7))
def test_a_long_string_sliced_is_json_dumps_byte_for_byte(text: str, size: int) -> None:
    with mock.patch.object(sliced_json, "STRING_SLICE", size):
        assert sliced_json.dumps({"data": text}) == json.dumps({"data": text})


def test_a_terminal_frame_with_512_kib_of_output_is_encoded_in_pieces_of_16_kib() -> None:
    output = ('map[name:"x" labels:map[a:b]] \u00e9\n' * 20_000)[: 512 * 1024]
    frame = {"type": "output", "data": output, "prompt": "$ "}
    parts = sliced_json.pieces(frame)
    assert "".join(parts) == json.dumps(frame)
    assert max(len(part) for part in parts) < 6 * sliced_json.STRING_SLICE
    assert len(parts) > 30
