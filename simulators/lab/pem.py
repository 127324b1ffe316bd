"""PEM files as Go's encoding/pem reads them (pem.Decode), the one reader of the lab's
certificates and keys: kubectl's kubeconfig credentials and `create secret tls`
(simulators.lab.kubectl.tls_keys), curl's CA bundle and client pair (simulators.lab.curl), and
which of them are the lab's own (simulators.lab.kubeconfig).

A block is `-----BEGIN TYPE-----`, a line end, base64 (headers such as `Proc-Type:` skipped),
then `-----END TYPE-----` of the same type; one whose body is not base64 is passed over, as
pem.Decode passes over what it cannot decode and goes on with the rest of the text.
"""

from __future__ import annotations

import base64
import binascii
import re

_BLOCK = re.compile(r"-----BEGIN ([^\n-]*)-----\r?\n(.*?)-----END \1-----", re.DOTALL)


def blocks(text: str) -> list[tuple[str, bytes]]:
    """The PEM blocks in `text`, in order: (type, DER bytes)."""
    found = []
    for match in _BLOCK.finditer(text):
        body = "".join(line for line in match.group(2).split("\n") if ":" not in line)
        try:
            der = base64.b64decode("".join(body.split()), validate=True)
        except (binascii.Error, ValueError):
            continue
        found.append((match.group(1), der))
    return found


def is_private_key(kind: str) -> bool:
    """A block type tls.X509KeyPair takes for a key: `PRIVATE KEY`, or one ending in
    ` PRIVATE KEY` (`RSA PRIVATE KEY`, `EC PRIVATE KEY`)."""
    return kind == "PRIVATE KEY" or kind.endswith(" PRIVATE KEY")


def certificates(text: str) -> list[bytes]:
    """The DER bytes of the file's certificates, in order."""
    return [der for kind, der in blocks(text) if kind == "CERTIFICATE"]


def private_keys(text: str) -> list[bytes]:
    """The DER bytes of the file's private keys, in order."""
    return [der for kind, der in blocks(text) if is_private_key(kind)]
