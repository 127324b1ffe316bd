"""Go's tls.X509KeyPair, as kubectl meets it (`create secret tls`, a kubeconfig's client
certificate and key) and as curl's client certificate is checked beside it: the PEM blocks
(simulators.lab.pem, Go's pem.Decode), then the first certificate and the first private key parsed
(PKCS #1, PKCS #8 or SEC 1 DER, as Go's parsePrivateKey) and the key required to be the
certificate's, with crypto/tls's messages (the reasons below; kubectl prints them after
"error: ")."""

from __future__ import annotations

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from simulators.lab import kubeconfig, pem
from simulators.lab.kubectl.common import KubectlError

NO_CERTIFICATE_PEM = "tls: failed to find any PEM data in certificate input"
NO_KEY_PEM = "tls: failed to find any PEM data in key input"
MALFORMED_CERTIFICATE = "x509: malformed certificate"
UNPARSED_KEY = "tls: failed to parse private key"
MISMATCH = "tls: private key does not match public key"
TYPE_MISMATCH = "tls: private key type does not match public key type"
UNKNOWN_ALGORITHM = "tls: unknown public key algorithm"


def check_match(cert_der: bytes, key_der: bytes) -> None:
    """Raise kubectl's line unless `key_der` is the private key of `cert_der`'s public key."""
    if why := mismatch(cert_der, key_der):
        raise KubectlError(f"error: {why}")


def mismatch(cert_der: bytes, key_der: bytes) -> str:
    """Why `key_der` is not the private key of `cert_der`'s public key ("" when it is)."""
    try:
        public = x509.load_der_x509_certificate(cert_der).public_key()
    except (ValueError, UnsupportedAlgorithm):
        return MALFORMED_CERTIFICATE
    try:
        private = serialization.load_der_private_key(key_der, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return UNPARSED_KEY
    if isinstance(public, rsa.RSAPublicKey):
        if not isinstance(private, rsa.RSAPrivateKey):
            return TYPE_MISMATCH
        if public.public_numbers() != private.public_key().public_numbers():
            return MISMATCH
    elif isinstance(public, ec.EllipticCurvePublicKey):
        if not isinstance(private, ec.EllipticCurvePrivateKey):
            return TYPE_MISMATCH
        if public.public_numbers() != private.public_key().public_numbers():
            return MISMATCH
    elif isinstance(public, ed25519.Ed25519PublicKey):
        if not isinstance(private, ed25519.Ed25519PrivateKey):
            return TYPE_MISMATCH
        raw = serialization.Encoding.Raw, serialization.PublicFormat.Raw
        if public.public_bytes(*raw) != private.public_key().public_bytes(*raw):
            return MISMATCH
    else:
        return UNKNOWN_ALGORITHM
    return ""


def pair_error(cert: str, key: str) -> str:
    """Why tls.X509KeyPair refuses the first certificate and the first private key ("" when
    the key is the certificate's), in Go's order: the certificate parsed, the key parsed, then
    compared. The lab's own PEMs say whose they are (kubeconfig.is_admin_certificate,
    is_admin_key): the admin's certificate pairs with the admin's key alone, the CA's with no
    key on the admin host, and each stands for RSA. Other PEMs are parsed and compared as Go
    does (mismatch), so a real pair made elsewhere pairs."""
    lab_key = kubeconfig.is_admin_key(key)
    if lab_key and kubeconfig.is_admin_certificate(cert):
        return ""  # the lab's one pair (every command of the starting kubeconfig)
    cert_der = next(iter(pem.certificates(cert)), b"")
    key_der = next(iter(pem.private_keys(key)), b"")
    lab_cert = kubeconfig.is_lab_certificate(cert)
    if not (lab_cert or lab_key):
        return mismatch(cert_der, key_der)
    cert_rsa = lab_cert or _real_public_rsa(cert_der)
    if cert_rsa is None:
        return MALFORMED_CERTIFICATE
    key_rsa = lab_key or _real_private_rsa(key_der)
    if key_rsa is None:
        return UNPARSED_KEY
    if cert_rsa != key_rsa:
        return TYPE_MISMATCH
    return MISMATCH


def _real_public_rsa(der: bytes) -> bool | None:
    """Whether a real certificate's public key is RSA; None where it does not parse."""
    try:
        return isinstance(x509.load_der_x509_certificate(der).public_key(), rsa.RSAPublicKey)
    except (ValueError, UnsupportedAlgorithm):
        return None


def _real_private_rsa(der: bytes) -> bool | None:
    """Whether a real private key is RSA; None where it does not parse."""
    try:
        return isinstance(serialization.load_der_private_key(der, password=None), rsa.RSAPrivateKey)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        return None
