"""The reproducibility tests' fixture: a project with two clips, two tasks and one scored run whose answers were
sent frames by the fake OpenAI-compatible server (tests/support/recorded_runs.py)."""

from __future__ import annotations

import pytest

from tests.support.recorded_runs import make_recorded_run


@pytest.fixture
def recorded_run(tmp_path, clips, fake_openai):
    """``make_recorded_run``'s project, closed after the test."""
    run = make_recorded_run(tmp_path, clips, fake_openai)
    yield run
    run.project.close()
