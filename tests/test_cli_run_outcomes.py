"""What `fieldstudio run` says and returns when usage is never reported or every answer fails (items 7c, 7d)."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.cli.run import register
from fieldstudio.inference import profiles
from fieldstudio.store.project import Project
from tests.fake_openai import Reply
from tests.run_fixtures import add_task, fake_profile


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


@pytest.fixture
def project_file(tmp_path):
    path = tmp_path / "cli.fieldstudio"
    with Project.create(path) as p:
        for i in range(3):
            add_task(p, f"question {i}", external_id=f"1.1.000{i}", category="1.1", source="fieldworkarena")
    return path


def test_cost_is_unknown_when_no_answer_reported_usage(app, project_file, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.responder = lambda request: Reply(text="an answer", usage=False)
    result = CliRunner().invoke(app, ["run", str(project_file), "--model", "fake"])
    assert result.exit_code == 0, result.output
    assert "3 answered, 0 failed" in result.output
    assert "cost unknown (no answer reported usage)" in result.output
    assert "$0.0000" not in result.output and "partial" not in result.output
    listing = CliRunner().invoke(app, ["answers", str(project_file), "--json"])
    assert [r["cost_status"] for r in json.loads(listing.output)] == ["unknown"]


def test_cost_is_partial_when_some_answers_reported_usage(app, project_file, fake_openai):
    """One answer reports 1000 in / 100 out at $2 / $8 per million: $0.0028 known, two unknown."""
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.queue(Reply(text="a", prompt_tokens=1000, completion_tokens=100))
    fake_openai.responder = lambda request: Reply(text="b", usage=False)
    result = CliRunner().invoke(app, ["run", str(project_file), "--model", "fake", "--concurrency", "1"])
    assert result.exit_code == 0, result.output
    assert "cost $0.0028 (partial: some answers did not report usage)" in result.output


def test_run_exits_1_when_every_answer_failed(app, project_file, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.responder = lambda request: Reply(status=500, error_message="model crashed")
    result = CliRunner().invoke(app, ["run", str(project_file), "--model", "fake"])
    assert "0 answered, 3 failed" in result.output
    assert result.exit_code == 1, result.output
    # one answer that works is enough for 0
    fake_openai.responder = lambda request: Reply(text="fine")
    again = CliRunner().invoke(app, ["run", str(project_file), "--model", "fake", "--new", "--limit", "1"])
    assert "1 answered, 0 failed" in again.output and again.exit_code == 0, again.output
