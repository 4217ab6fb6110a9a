"""How counts read in the text fieldstudio shows: one rule for the window, the CLI and the reports."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    """``1 video``, ``2 videos``, ``0 documents``: ``n`` and ``word`` with an ``s`` unless ``n`` is 1."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def or_list(items: list[str] | tuple[str, ...]) -> str:
    """``a``, ``a or b``, ``a, b or c``: the choices a message offers, in their order."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1] if items else ""
