"""Secrets never reach a message, a stored text or the log: the one place that masks them.

Two ways, both applied by `mask_in_text`:

* by the secrets this process knows: every API key read from an environment variable or the keyring, every
  password or key taken from a base URL (with its Base64 for HTTP Basic), remembered by `remember_secret` when
  they are read, so an echo by a server is masked whatever its form around it;
* by their forms: the password of any URL (``scheme://user:password@``; a PostgreSQL URL keeps its user name,
  a URL with a user name alone is left as it is),
  ``Bearer``/``Basic`` credentials, secret query values (``key=``, ``token=``, ``api_key=``, ``sig=``...) and
  OpenAI-style keys (``sk-...``).

Masking is not a list of known servers: a new server's echo is caught by the secret or by the form.
"""

from __future__ import annotations

import re
import threading

MASK = "***"
#: A remembered secret shorter than this is masked only by its forms (masking "ab" everywhere would garble text).
MIN_SECRET_CHARS = 4

_PASSWORD_IN_URL = re.compile(r"(postgres(?:ql)?(?:\+\w+)?://[^:/@\s]+):[^@\s]*@", re.IGNORECASE)
_USERINFO_IN_URL = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*://)(?![^/@\s]*:\*\*\*@)[^/@\s:]*:[^/@\s]*@")
# Any parameter whose name holds one of these words (`subscription-key`, `x-api-key`, `client_secret`), as
# `inference.base_urls` splits them off: services name their key parameter freely.
_SECRET_QUERY = re.compile(
    r"([?&;](?:sig|[A-Za-z0-9_.-]*(?:key|token|secret|passw|signature|auth)[A-Za-z0-9_.-]*)=)[^&#\s'\"<>]+",
    re.IGNORECASE)
_AUTH_HEADER = re.compile(r"(authorization['\"]?\s*[:=]\s*['\"]?)(?:(?:bearer|basic)\s+)?[^\s'\",;]+", re.IGNORECASE)
# "Basic dXNlcjpwYXNz" / "Bearer sk-..." outside a header: the credential must not read as a plain word
# (a digit, a symbol, or a capital after its first letter), so "Basic information" stays as it is.
_SCHEME_CREDENTIAL = re.compile(r"\b(Bearer|Basic|bearer|basic|BEARER|BASIC)\s+"
                                r"(?=[A-Za-z0-9._~+/-][a-z]*[0-9._~+/=A-Z-])[A-Za-z0-9._~+/-]{8,}=*")
_KEYLIKE = re.compile(r"\b(sk|rk|pk|or)-[A-Za-z0-9_\-]{6,}")

_known: set[str] = set()
_known_pattern: re.Pattern[str] | None = None
_lock = threading.Lock()


def remember_secret(value: str | None) -> None:
    """Mask `value` wherever `mask_in_text` sees it from now on (for the life of the process)."""
    global _known_pattern
    if not value or len(value) < MIN_SECRET_CHARS:
        return
    with _lock:
        if value in _known:
            return
        _known.add(value)
        # longest first, so that a secret containing another is masked whole
        ordered = sorted(_known, key=len, reverse=True)
        _known_pattern = re.compile("|".join(re.escape(v) for v in ordered))


def mask_known_secrets(text: str | None) -> str | None:
    """`text` with only the remembered secrets masked (for a model's own reply, whose wording the forms of
    `mask_in_text` might change); None stays None."""
    pattern = _known_pattern
    return text if text is None or pattern is None else pattern.sub(MASK, text)


def mask_in_text(text: str) -> str:
    """`text` with every secret it shows replaced by ``***``: the known ones and those of a known form."""
    text = str(text)
    pattern = _known_pattern
    if pattern is not None:
        text = pattern.sub(MASK, text)
    text = _PASSWORD_IN_URL.sub(r"\1:***@", text)
    text = _USERINFO_IN_URL.sub(r"\1***@", text)
    text = _SECRET_QUERY.sub(r"\1***", text)
    text = _AUTH_HEADER.sub(r"\1***", text)
    text = _SCHEME_CREDENTIAL.sub(r"\1 ***", text)
    return _KEYLIKE.sub(lambda m: m.group(1) + "-***", text)
