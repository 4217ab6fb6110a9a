"""Fixtures of the comparison tests (tests/compare/)."""

from __future__ import annotations

import pytest


@pytest.fixture
def any_n_intervals(monkeypatch):
    """Intervals for every n: tests of the interval arithmetic on a handful of tasks, below the 10 scored
    from which fieldstudio shows an interval (that rule, ``compare.coverage.MIN_INTERVAL_N``, has its own
    tests in tests/compare/test_coverage.py)."""
    from fieldstudio.compare import coverage

    monkeypatch.setattr(coverage, "MIN_INTERVAL_N", 1)
