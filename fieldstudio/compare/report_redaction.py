"""Keeping secrets out of exported reports: key-like strings (``sk-…``, ``Bearer …``) and the values of
environment variables named like a key, token, secret or password are replaced by ``[redacted]``."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

__all__ = ["KEYLIKE", "secret_values", "redact", "redact_frame"]

KEYLIKE = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}|\bBearer\s+[A-Za-z0-9._\-]{8,}")
SECRET_ENV = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)


def secret_values() -> list[str]:
    """The values (8 characters or more) of the environment variables named like a key, longest first."""
    return sorted({v for k, v in os.environ.items() if SECRET_ENV.search(k) and len(v) >= 8}, key=len, reverse=True)


def redact(text: Any, secrets: Sequence[str] | None = None) -> Any:
    """``text`` with key-like strings and the given secret values replaced by ``[redacted]``; non-strings unchanged."""
    if not isinstance(text, str):
        return text
    for secret in secrets if secrets is not None else secret_values():
        if secret in text:
            text = text.replace(secret, "[redacted]")
    return KEYLIKE.sub("[redacted]", text)


def redact_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with ``redact`` applied to every text cell (vectorised search, Python only on hits)."""
    secrets = secret_values()
    out = df.copy()
    for col in out.columns:
        if not (out[col].dtype == object or pd.api.types.is_string_dtype(out[col])):
            continue
        text = out[col].astype("string")
        hit = text.str.contains(KEYLIKE.pattern, regex=True, na=False)
        for secret in secrets:
            hit |= text.str.contains(secret, regex=False, na=False)
        if hit.any():
            values = out[col].astype(object)
            values[hit.to_numpy()] = [redact(v, secrets) for v in values[hit.to_numpy()]]
            out[col] = values
    return out
