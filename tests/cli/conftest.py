"""Fixtures of the command line's tests (tests/cli/)."""

from __future__ import annotations

import pytest
import typer


@pytest.fixture
def app() -> typer.Typer:
    """A fresh typer app with only the ``run``, ``answers``, ``score`` and ``report`` commands (each module's
    ``register()``), so that a test drives them without the rest of the command line."""
    from fieldstudio.cli import run, score_report

    app = typer.Typer()
    run.register(app)
    score_report.register(app)
    return app


@pytest.fixture
def wide_console(monkeypatch) -> None:
    """A 250-column console (COLUMNS), so that rich wraps no line the test reads."""
    monkeypatch.setenv("COLUMNS", "250")
