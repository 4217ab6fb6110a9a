"""A model profile's base URL: normalised (what a person pastes, down to ``scheme://host[:port]/.../v1``), masked
for display (no password, no key in a query), and the secrets it may hold split off to be kept in the keyring
(``inference.profiles`` keeps them there) and joined back to send. :class:`ProfileError` is what a profile that
cannot be used as given raises, here and in ``inference.profiles``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from fieldstudio.core.errors import FieldstudioError

__all__ = ["ProfileError", "normalize_base_url", "refuse_path_parameters", "mask_url", "mask_urls_in_text", "split_url_secret",
           "join_url_secret", "url_secret_values"]

_VERSION_SEGMENT = re.compile(r"^v\d+[a-z0-9]*$", re.IGNORECASE)   # v1, v2, v1beta
_PASTED_ENDPOINTS = ("/chat/completions", "/completions", "/models")
_SECRET_QUERY_KEYS = {"key", "api_key", "apikey", "api-key", "token", "access_token", "sig", "signature", "password",
                      "secret", "auth"}
# Services name their key parameter freely (Azure API Management's `subscription-key`, `x-api-key`,
# `client_secret`, `auth_token`): a name holding one of these words is treated as a secret too; masking a harmless
# parameter costs little, printing a key costs a key.
_SECRET_NAME_WORDS = ("key", "token", "secret", "passw", "signature", "auth")


def _is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in _SECRET_QUERY_KEYS or any(word in lowered for word in _SECRET_NAME_WORDS)


class ProfileError(FieldstudioError):
    """A model profile is invalid, missing, duplicated, or the profile file cannot be read or written."""


def normalize_base_url(url: str) -> str:
    """Normalise an endpoint root so the OpenAI client finds ``{base}/chat/completions``.

    Strips spaces and trailing slashes, drops a pasted ``/chat/completions`` or ``/models`` ending, and
    appends ``/v1`` when the path has no version segment (``v1``, ``v2``, ``v1beta``...). A URL without a
    scheme gets ``http://``.
        ``http://localhost:11434`` -> ``http://localhost:11434/v1``;  ``http://x/v1/`` -> ``http://x/v1``.

    Raises ProfileError if no host is given.
    """
    url = (url or "").strip()
    if not url:
        raise ProfileError("A base URL is needed (for example http://localhost:11434/v1), or a preset.")
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProfileError(f"{mask_url(url)} is not an http(s) address with a host name.")
    path = parts.path.rstrip("/")
    for ending in _PASTED_ENDPOINTS:
        if path.endswith(ending):
            path = path[: -len(ending)].rstrip("/")
            break
    if not any(_VERSION_SEGMENT.match(segment) for segment in path.split("/")):
        path += "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def refuse_path_parameters(url: str) -> None:
    """Raise ProfileError when `url`'s path holds ``;name=value`` parameters, without echoing the path.

    They may carry a key that no masking rule sees (``http://h/v1;token=K`` was stored in clear). Checked when a
    profile is added or changed, not when the profile file is read, so one older profile never makes the others
    unreadable.
    """
    try:
        parts = urlsplit((url or "").strip())
    except ValueError:
        return
    if ";" in parts.path:
        raise ProfileError(f"{parts.scheme}://{parts.hostname}/...: a base URL path with ';' parameters is not "
                           f"supported; give the key with --api-key-env (or --keyring) instead.")


def mask_url(url: str) -> str:
    """The URL with credentials hidden, for the UI and logs.

    ``http://user:pass@host/v1`` -> ``http://***@host/v1``; query values such as ``key=`` or ``token=``
    become ``***``. Text that is not a URL is returned unchanged.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_is_secret_name(k) for k, _ in pairs):
            query = urlencode([(k, "***" if _is_secret_name(k) else v) for k, v in pairs], safe="*")
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_URL_IN_TEXT = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")


def mask_urls_in_text(text: str) -> str:
    """Apply `mask_url` to every URL found in a piece of text (log lines, error messages)."""
    return _URL_IN_TEXT.sub(lambda m: mask_url(m.group(0)), text)


def split_url_secret(url: str) -> tuple[str, dict[str, Any] | None]:
    """(the URL without its secrets, the secrets) for a URL holding ``user:password@`` or secret query values.

    The secrets are ``{"userinfo": "user:password" or None, "query": [[name, value], ...]}``; None when the URL
    holds none. ``http://u:p@h/v1?key=K&x=1`` -> (``http://h/v1?x=1``, {"userinfo": "u:p", "query": [["key", "K"]]}).
    """
    parts = urlsplit(url)
    userinfo = parts.netloc.rsplit("@", 1)[0] if "@" in parts.netloc else None
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    secret_pairs = [[k, v] for k, v in pairs if _is_secret_name(k) and v]
    if userinfo is None and not secret_pairs:
        return url, None
    netloc = parts.netloc.rsplit("@", 1)[1] if userinfo is not None else parts.netloc
    query = urlencode([(k, v) for k, v in pairs if [k, v] not in secret_pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)), \
        {"userinfo": userinfo, "query": secret_pairs}


def join_url_secret(url: str, secret: dict[str, Any]) -> str:
    """`url` with the secrets `split_url_secret` took from it put back (secret query values last)."""
    parts = urlsplit(url)
    netloc = f"{secret['userinfo']}@{parts.netloc}" if secret.get("userinfo") else parts.netloc
    pairs = parse_qsl(parts.query, keep_blank_values=True) + [tuple(p) for p in secret.get("query") or []]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(pairs), parts.fragment))


def url_secret_values(secret: dict[str, Any]) -> list[str]:
    """Every form in which the secrets of a URL may come back in a server's text: the password (as written and
    percent-decoded), the ``user:password`` pair and its Base64 (HTTP Basic), each query value."""
    import base64
    from urllib.parse import unquote

    values = []
    userinfo = secret.get("userinfo")
    if userinfo:
        user, _, password = userinfo.partition(":")
        plain = f"{unquote(user)}:{unquote(password)}"
        values += [password, unquote(password), userinfo, plain,
                   base64.b64encode(plain.encode("utf-8")).decode("ascii"),
                   base64.b64encode(userinfo.encode("utf-8")).decode("ascii")]
    for _, value in secret.get("query") or []:
        values += [value, unquote(value)]
    return [v for v in dict.fromkeys(values) if v]
