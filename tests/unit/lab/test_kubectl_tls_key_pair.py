"""kubectl create secret tls checks that the key is the certificate's own, as Go's
tls.X509KeyPair does, with crypto/tls's messages, and stores nothing when it is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.lab.kubectl_world import World

FILES = Path(__file__).resolve().parents[2] / "oracle" / "files"


@pytest.fixture
def world() -> World:
    w = World()
    for name in ("tls.crt", "tls.key", "other.key", "rsa.key"):
        w.ctx.world.state.files[name] = (FILES / name).read_text(encoding="utf-8")
    w.ctx.world.state.files["junk.key"] = (
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
    )
    return w


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("other.key", "error: tls: private key does not match public key"),
        ("rsa.key", "error: tls: private key type does not match public key type"),
        ("junk.key", "error: tls: failed to parse private key"),
    ],
)
def test_a_key_that_is_not_the_certificates_is_refused_and_nothing_is_stored(
    world: World, key: str, message: str
) -> None:
    before = world.state()
    out = world.run(f"kubectl create secret tls web-tls -n runai --cert=tls.crt --key={key}")
    assert (out.text, out.code) == (message, 1)
    assert world.state() == before


def test_the_certificates_own_key_makes_the_secret(world: World) -> None:
    out = world.run("kubectl create secret tls web-tls -n runai --cert=tls.crt --key=tls.key")
    assert (out.text, out.code) == ("secret/web-tls created", 0)
