"""10,000 lines through the lab's websocket consumer, many of them hostile.

Adversarial regular expressions, output amplifiers (jsonpath, sed, pipes), long
and odd lines, lone surrogates, deep and broken JSON. Every frame must get its
answer in order, no answer may be an internal error or exceed the output limit,
the socket must stay open, and the lab must reopen afterwards. Seeded, so a
failure replays; the CPU budget is lowered so that the run fits a 2-core machine.
"""

from __future__ import annotations

import json
import random

import pytest
from django.test import override_settings

from tests.reliability.sockets import connect, new_session_key, receive

pytestmark = [pytest.mark.reliability, pytest.mark.django_db(transaction=True)]

LINES = 10_000
OUTPUT_LIMIT = 64 * 1024

REGEXES = [
    "(a|a)*b",
    "(a+)+$",
    "(.*)*x",
    "a.*a.*a.*a.*a.*a.*x",
    "(x+x+)+y",
    "([a-z]+)*[0-9]",
    "\\(a\\)\\1",
    "[[:alpha:]]*",
    "^$",
    "gpu",
    "a{1000}",
    "(((((((((a)))))))))*",
    "[",
    "\\",
    "*",
]
SAFE = [
    "kubectl get nodes",
    "kubectl get pods -A",
    "kubectl get pods -A -o wide",
    "kubectl describe node gpu-node1",
    "kubectl label node gpu-node1 fuzz=yes --overwrite",
    "kubectl cordon gpu-node2",
    "kubectl uncordon gpu-node2",
    "kubectl get nodes -o json",
    "runai list jobs",
    "helm list -A",
    "ls",
    "history 5",
    "help",
    "hint",
    "",
    "clear",
]
AMPLIFIERS = [
    "kubectl get pods -A -o jsonpath='" + "{@}" * 400 + "'",
    "kubectl get pods -A -o jsonpath='" + "{range .items[*]}" * 6 + "{end}" * 6 + "'",
    "kubectl get pods -A -o yaml" + " | sed 's/./&&&&&&&&/g'" * 6,
    "kubectl get nodes" + " | sed 's/.*/aaaaaaaaaaaaaaaaaaaaaaaaaaaa/'" + " | grep -E '(a|a)*b'",
    "kubectl get nodes -o yaml | sed -E 's/(a|a)*b/x/g' | sed 's/./&&&&/g' | sed 's/./&&&&/g'",
    "kubectl get pods -A -o yaml | grep 'a.*a.*a.*a.*a.*a.*x'",
    "kubectl get nodes | grep -A 99999999999999999999999 -B 99999999999 gpu",
    "kubectl get nodes | head -n 99999999999999999999999999 | tail -n 999999999999999999",
]


def random_line(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(SAFE)
    if roll < 0.60:
        tool = rng.choice(["grep", "grep -E", "grep -v", "grep -c", "sed", "sed -E"])
        regex = rng.choice(REGEXES)
        source = rng.choice(["kubectl get nodes", "kubectl get pods -A", "cat README.md"])
        if tool.startswith("sed"):
            return f"{source} | {tool} 's/{regex}/{rng.choice(['x', '&&', '\\\\1', ''])}/g'"
        return f"{source} | {tool} '{regex}'"
    if roll < 0.62:
        return rng.choice(AMPLIFIERS)
    if roll < 0.80:
        alphabet = "abcxyz -|&;><'\"\\$`(){}[]*?.#\t\n\x00é漢字🙂"
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80)))
    if roll < 0.85:
        return "echo " + "a" * rng.randint(4000, 5000)
    return " | ".join(rng.choice(SAFE[:4]) for _ in range(rng.randint(2, 6)))


def random_frame(rng: random.Random) -> tuple[str, str]:
    """A frame's text and the type of answer it must get (output or error)."""
    roll = rng.random()
    if roll < 0.90:
        return json.dumps({"type": "line", "data": random_line(rng)}), "output"
    if roll < 0.92:
        return '{"type": "line", "data": "ls \\ud800 \\udfff"}', "error"
    if roll < 0.94:
        depth = rng.randint(100, 3000)
        return "[" * depth + "]" * depth, "error"
    if roll < 0.96:
        return rng.choice(["not json", "{", "[]", '{"type": 5}', "null", '"x"']), "error"
    if roll < 0.98:
        return json.dumps({"type": "complete", "line": random_line(rng)[:200]}), "completions"
    return json.dumps({"type": rng.choice(["launch", "line"])}), "error"


@override_settings(
    LAB_MAX_FRAMES_PER_SECOND=1_000_000,
    LAB_SESSION_CPU_MS_PER_SECOND=1_000_000,
    LAB_COMMAND_CPU_MS=10,
    LAB_MAX_OUTPUT_BYTES=OUTPUT_LIMIT,
)
async def test_ten_thousand_hostile_lines_all_get_an_answer_and_nothing_breaks() -> None:
    rng = random.Random(11)
    key = await new_session_key()
    comm, _ = await connect("mig-single", key)
    outputs = frames = 0
    while outputs < LINES:
        frames += 1
        text, expected = random_frame(rng)
        await comm.send_to(text_data=text)
        answer = await receive(comm, timeout=60)
        assert answer["type"] == expected, (text[:200], answer)
        if expected == "output":
            outputs += 1
            assert "internal error" not in answer["data"], text[:200]
            assert len(answer["data"]) <= OUTPUT_LIMIT + 200, text[:200]
            assert answer["checklist"], text[:200]
    await comm.disconnect()
    again, replay = await connect("mig-single", key)
    assert len(replay["data"].encode()) <= 256 * 1024 + 64
    await again.disconnect()
    assert frames > outputs == LINES
