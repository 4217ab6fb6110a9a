"""How counts read in the text fieldstudio shows: one rule for the window, the CLI and the reports."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    """``1 video``, ``2 videos``, ``0 documents``: ``n`` and ``word`` with an ``s`` unless ``n`` is 1."""
    return f"{n} {word}{'' if n == 1 else 's'}"
