"""`fieldstudio cost`: cost per correct answer per source and category, the frontier, JSON and the plot."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.scoring.service import score_answers
from fieldstudio.store.project import Project
from tests.support.scoring_fixtures import add_run, add_task


@pytest.fixture
def cost_app() -> typer.Typer:
    from fieldstudio.cli import costs

    app = typer.Typer()
    costs.register(app)
    app.command("unused")(lambda: None)         # two commands: typer keeps the subcommand name
    return app


def test_cost_prints_per_source_and_category_and_the_frontier(cost_app, tmp_path, wide_console):
    """cheap: $0.10 a task, 1 of 2 correct -> $0.20 per correct; dear: $1.00 a task, 2 of 2 -> $1.00; local: no cost
    known. Both known ones are on the frontier (dear is more accurate, cheap is cheaper)."""
    path = tmp_path / "p.fieldstudio"
    p = Project.create(path)
    a = add_task(p, "2.3.0001", "12 meters", eval_func="numerical_match")
    b = add_task(p, "1.1.0001", "Yes", eval_func="fuzzy_match")
    add_run(p, "cheap", {a: {"raw_text": "12 meters", "cost_usd": 0.1}, b: {"raw_text": "No", "cost_usd": 0.1}})
    add_run(p, "dear", {a: {"raw_text": "12 meters", "cost_usd": 1.0}, b: {"raw_text": "Yes", "cost_usd": 1.0}})
    add_run(p, "local", {a: "12 meters", b: "Yes"})
    score_answers(p, "fs-match")
    p.close()
    runner = CliRunner()
    plot = tmp_path / "frontier.png"
    result = runner.invoke(cost_app, ["cost", str(path), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert "$0.2000 [n too small]" in result.output and "$1.0000 [n too small]" in result.output
    assert "unknown (0 of 2 answers priced)" in result.output
    assert "cost-accuracy frontier (no other source is cheaper and at least as accurate): cheap, dear" in result.output
    assert plot.read_bytes()[:4] == b"\x89PNG"
    data = json.loads(runner.invoke(cost_app, ["cost", str(path), "--json"]).output)
    assert data["sources"]["cheap"]["categories"]["2.3"]["cost_per_correct_usd"] == pytest.approx(0.1)
    assert data["sources"]["local"]["all"]["cost_status"] == "unknown"


@pytest.mark.parametrize("args, message", [
    (["--scorer", "nosuch"], "--scorer: unknown scorer 'nosuch'; known:"),
    (["--plot", "frontier.jpg"], "format 'jpg' is not one of png, svg"),
    (["--plot", "missing/frontier.png"], "does not exist"),
])
def test_an_unknown_scorer_or_unwritable_plot_is_one_line_and_exit_2(cost_app, tmp_path, args, message):
    path = tmp_path / "p.fieldstudio"
    p = Project.create(path)
    a = add_task(p, "2.3.0001", "12 meters", eval_func="numerical_match")
    add_run(p, "cheap", {a: {"raw_text": "12 meters", "cost_usd": 0.1}})
    score_answers(p, "fs-match")
    p.close()
    args = [str(tmp_path / v) if v.endswith((".jpg", ".png")) else v for v in args]
    result = CliRunner().invoke(cost_app, ["cost", str(path), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
