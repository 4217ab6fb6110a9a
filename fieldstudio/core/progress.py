"""The two callables every long job takes (STYLE.md §1), defined once for every package.

``progress(done, total)`` is called as the work advances (counts of the job's own units: files, tasks,
answers, frames); ``cancelled()`` is polled between units and, when it returns True, the job stops after
the unit in hand, keeping what it already committed. The CLI passes a progress bar and ``lambda: False``;
the GUI passes a worker's signal and its cancel flag (gui/workers.py).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Progress", "Cancelled", "no_progress", "never_cancelled"]

Progress = Callable[[int, int], None]
"""``progress(done, total)``: ``done`` of ``total`` units finished (``total`` may grow while work is found)."""

Cancelled = Callable[[], bool]
"""``cancelled() -> bool``: True once the user asked to stop."""


def no_progress(done: int, total: int) -> None:
    """A ``Progress`` that reports nowhere (the default of every long job)."""


def never_cancelled() -> bool:
    """A ``Cancelled`` that never asks to stop (the default of every long job)."""
    return False
