"""Passwords never reach a message or the log: the one rule that masks them in database URLs (issue 22)."""

from __future__ import annotations

import re

_PASSWORD_IN_URL = re.compile(r"(postgres(?:ql)?(?:\+\w+)?://[^:/@\s]+):[^@\s]*@", re.IGNORECASE)


def mask_in_text(text: str) -> str:
    """``text`` with the password of any PostgreSQL URL in it replaced by ``***`` (for logs and messages)."""
    return _PASSWORD_IN_URL.sub(r"\1:***@", str(text))
