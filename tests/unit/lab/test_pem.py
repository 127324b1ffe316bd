"""The lab's one PEM reader reads files as Go's pem.Decode does (simulators.lab.pem)."""

from __future__ import annotations

import base64

from simulators.lab import kubeconfig, pem


def block(kind: str, der: bytes, headers: str = "", end: str = "\n") -> str:
    text = base64.b64encode(der).decode()
    lines = [text[i : i + 64] for i in range(0, len(text), 64)]
    return (
        f"-----BEGIN {kind}-----{end}{headers}"
        + end.join(lines)
        + f"{end}-----END {kind}-----{end}"
    )


def test_blocks_come_back_in_the_files_order_with_their_der_bytes() -> None:
    text = "a comment\n" + block("CERTIFICATE", b"one") + block("RSA PRIVATE KEY", b"two" * 40)
    assert pem.blocks(text) == [("CERTIFICATE", b"one"), ("RSA PRIVATE KEY", b"two" * 40)]


def test_crlf_line_ends_and_headers_are_read_past() -> None:
    headers = "Proc-Type: 4,ENCRYPTED\r\nDEK-Info: AES-128-CBC,00\r\n\r\n"
    text = block("RSA PRIVATE KEY", b"key bytes", headers=headers, end="\r\n")
    assert pem.private_keys(text) == [b"key bytes"]


def test_a_block_whose_body_is_not_base64_is_passed_over_and_the_next_one_read() -> None:
    broken = "-----BEGIN CERTIFICATE-----\nnot*base64!\n-----END CERTIFICATE-----\n"
    assert pem.certificates(broken + block("CERTIFICATE", b"good")) == [b"good"]


def test_a_begin_line_without_its_line_end_or_with_another_types_end_is_no_block() -> None:
    body = base64.b64encode(b"x").decode()
    assert pem.blocks(f"-----BEGIN CERTIFICATE-----{body}-----END CERTIFICATE-----") == []
    assert pem.blocks(f"-----BEGIN CERTIFICATE-----\n{body}\n-----END PRIVATE KEY-----\n") == []


def test_private_keys_are_the_types_tls_takes_for_a_key() -> None:
    text = "".join(
        block(kind, kind.encode())
        for kind in ("PRIVATE KEY", "EC PRIVATE KEY", "PUBLIC KEY", "ENCRYPTED PRIVATE KEY")
    )
    assert pem.private_keys(text) == [b"PRIVATE KEY", b"EC PRIVATE KEY", b"ENCRYPTED PRIVATE KEY"]


def test_the_labs_own_certificates_are_told_apart_by_their_der_bytes() -> None:
    bundle = block("CERTIFICATE", b"another ca") + kubeconfig.ca_pem()
    assert kubeconfig.holds_ca(bundle)
    assert not kubeconfig.is_lab_certificate(bundle)  # its first certificate is not the lab's
    assert kubeconfig.is_admin_certificate(kubeconfig.admin_certificate_pem())
    assert kubeconfig.is_admin_key(kubeconfig.admin_key_pem())
