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

import functools
import re
import threading
from collections.abc import Callable

MASK = "***"
#: A remembered secret shorter than this is masked only by its forms (masking "ab" everywhere would garble text).
MIN_SECRET_CHARS = 4

# The secrets' forms, (pattern, flags, replacement) in the order they are applied; compiled on first use
# (functools.cache), not at import: this module is imported on the window's start path, where compiling them took
# a few ms before the first paint (issue 37 item 3).
_FORMS = (
    (r"(postgres(?:ql)?(?:\+\w+)?://[^:/@\s]+):[^@\s]*@", re.IGNORECASE, r"\1:***@"),
    (r"([a-zA-Z][a-zA-Z0-9+.-]*://)(?![^/@\s]*:\*\*\*@)[^/@\s:]*:[^/@\s]*@", 0, r"\1***@"),
    # Any parameter whose name holds one of these words (`subscription-key`, `x-api-key`, `client_secret`), as
    # `inference.base_urls` splits them off: services name their key parameter freely.
    (r"([?&;](?:sig|[A-Za-z0-9_.-]*(?:key|token|secret|passw|signature|auth)[A-Za-z0-9_.-]*)=)[^&#\s'\"<>]+",
     re.IGNORECASE, r"\1***"),
    (r"(authorization['\"]?\s*[:=]\s*['\"]?)(?:(?:bearer|basic)\s+)?[^\s'\",;]+", re.IGNORECASE, r"\1***"),
    # "Basic dXNlcjpwYXNz" / "Bearer sk-..." outside a header: the credential must not read as a plain word
    # (a digit, a symbol, or a capital after its first letter), so "Basic information" stays as it is.
    (r"\b(Bearer|Basic|bearer|basic|BEARER|BASIC)\s+(?=[A-Za-z0-9._~+/-][a-z]*[0-9._~+/=A-Z-])[A-Za-z0-9._~+/-]{8,}=*",
     0, r"\1 ***"),
    (r"\b(sk|rk|pk|or)-[A-Za-z0-9_\-]{6,}", 0, lambda m: m.group(1) + "-***"),
)


@functools.cache
def _form_patterns() -> tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...]:
    """The compiled :data:`_FORMS` with their replacements (compiled once, by the first caller)."""
    return tuple((re.compile(pattern, flags), replacement) for pattern, flags, replacement in _FORMS)


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
    for form, replacement in _form_patterns():
        text = form.sub(replacement, text)
    return text
