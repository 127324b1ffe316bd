"""The second half of Go's tls.X509KeyPair, as `kubectl create secret tls` meets it: parse the
first certificate and the first private key (PKCS #1, PKCS #8 or SEC 1 DER, as Go's
parsePrivateKey), then require the key to be the certificate's, with crypto/tls's messages."""

from __future__ import annotations

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from simulators.lab.kubectl.common import KubectlError

MISMATCH = "error: tls: private key does not match public key"
TYPE_MISMATCH = "error: tls: private key type does not match public key type"


def check_match(cert_der: bytes, key_der: bytes) -> None:
    """Raise kubectl's line unless `key_der` is the private key of `cert_der`'s public key."""
    try:
        public = x509.load_der_x509_certificate(cert_der).public_key()
    except (ValueError, UnsupportedAlgorithm):
        raise KubectlError("error: x509: malformed certificate") from None
    try:
        private = serialization.load_der_private_key(key_der, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise KubectlError("error: tls: failed to parse private key") from None
    if isinstance(public, rsa.RSAPublicKey):
        if not isinstance(private, rsa.RSAPrivateKey):
            raise KubectlError(TYPE_MISMATCH)
        if public.public_numbers() != private.public_key().public_numbers():
            raise KubectlError(MISMATCH)
    elif isinstance(public, ec.EllipticCurvePublicKey):
        if not isinstance(private, ec.EllipticCurvePrivateKey):
            raise KubectlError(TYPE_MISMATCH)
        if public.public_numbers() != private.public_key().public_numbers():
            raise KubectlError(MISMATCH)
    elif isinstance(public, ed25519.Ed25519PublicKey):
        if not isinstance(private, ed25519.Ed25519PrivateKey):
            raise KubectlError(TYPE_MISMATCH)
        raw = serialization.Encoding.Raw, serialization.PublicFormat.Raw
        if public.public_bytes(*raw) != private.public_key().public_bytes(*raw):
            raise KubectlError(MISMATCH)
    else:
        raise KubectlError("error: tls: unknown public key algorithm")
