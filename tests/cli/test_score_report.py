"""`fieldstudio score` and `fieldstudio report` through typer's CliRunner on a fresh app with register()."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.inference import profiles
from fieldstudio.scoring.scorers import fs_match, fwa_official
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.scoring.service import current_scores
from fieldstudio.store.project import Project
from tests.support.fake_openai import Reply
from tests.support.scoring_fixtures import add_run, add_task


@pytest.fixture
def two_runs_file(tmp_path):
    """A project file with two FieldWorkArena tasks (a distance, a free text) answered by runs alpha and beta."""
    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as p:
        dist = add_task(p, "2.3.0001", "12 meters", eval_func="numerical_match")
        free = add_task(p, "2.1.0001", "A worker carries a box", eval_func="fuzzy_match")
        add_run(p, "alpha", {dist: {"raw_text": "11 meters", "cost_usd": 0.5}, free: {"raw_text": "a box is carried",
                                                                                     "cost_usd": 0.5}})
        add_run(p, "beta", {dist: "20 meters", free: "nobody"})
    return path


def test_score_without_judge_reports_unscored(app, two_runs_file):
    result = CliRunner().invoke(app, ["score", str(two_runs_file)])
    assert result.exit_code == 0, result.output
    assert f"fs-match {fs_match.VERSION}" in result.output                              # judge-free: fieldstudio's matchers
    assert "4 answers: 2 scored, 2 unscored" in result.output
    assert "2 x needs a judge" in result.output
    # FieldWorkArena's own aggregation, over the answered tasks, named apart from the headline
    assert "alpha: official FieldWorkArena correctRate 0.0000 over 2 answered of fs-match scores" in \
        " ".join(result.output.split())
    assert "alpha" in result.output and "beta" in result.output
    with Project.open(two_runs_file) as p:
        values = current_scores(p, "fs-match").set_index("run_id")["value"]
    # 11 vs 12 m and 20 vs 12 m: another value -> 0 (fs-match 2 credits only the same value); free text unscored
    assert sorted(values.dropna().tolist()) == [0.0, 0.0]


def test_score_with_judge_profile(app, two_runs_file, fake_openai):
    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0,
                                      price_input_per_mtok=1.0, price_output_per_mtok=1.0))
    fake_openai.responder = lambda request: Reply(
        text="correct" if "a box is carried" in request.body["messages"][-1]["content"] else "incorrect",
        prompt_tokens=500, completion_tokens=500)
    result = CliRunner().invoke(app, ["score", str(two_runs_file), "--scorer", "fwa-logic+fs-prompt", "--judge",
                                      "judge", "--run", "alpha"])
    assert result.exit_code == 0, result.output
    assert "2 answers: 2 scored, 0 unscored" in result.output
    # numbers prompt for 2.3.0001 gets "incorrect" (not JSON) -> 0; both calls: 1000 tokens at 1 USD/M each
    assert "judge judge: 2 calls, 0 from the cache, cost 0.002 USD" in result.output
    assert "prompts: fieldstudio's own judge prompts (judge_three_level.txt sha256" in result.output
    assert "not comparable with published tables" in result.output


def test_score_fwa_official_shows_the_prompt_source_and_settings(app, two_runs_file, fake_openai, tmp_path):
    from fieldstudio.scoring.official import known
    from tests.support.official_standins import write_standin

    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0))
    fake_openai.responder = lambda request: Reply(text="correct")
    folder = write_standin(tmp_path / "fwa", "fieldworkarena")
    try:
        result = CliRunner().invoke(app, ["score", str(two_runs_file), "--judge", "judge", "--run", "alpha"])
        assert result.exit_code == 2 and "not located" in result.output          # default with a judge: official
        result = CliRunner().invoke(app, ["score", str(two_runs_file), "--judge", "judge", "--run", "alpha",
                                          "--official-source", str(folder)])
    finally:
        known.clear_stand_ins()
    assert result.exit_code == 0, result.output
    assert f"fwa-official {fwa_official.VERSION}" in result.output
    assert "prompts: FieldWorkArena judge prompts from" in result.output and "test stand-in" in result.output
    assert "judge settings: temperature 0, top_p 1, seed 7, 99 tokens, system message 'stand-in system'" in result.output
    assert "the benchmark's own judge model is standin-judge-1" in result.output
    result = CliRunner().invoke(app, ["score", str(two_runs_file), "--scorer", "fwa-official"])
    assert result.exit_code == 2 and "needs a judge" in result.output and "fs-match" in result.output


def test_score_errors(app, two_runs_file):
    result = CliRunner().invoke(app, ["score", str(two_runs_file), "--scorer", "nope"])
    assert result.exit_code == 2 and "unknown scorer 'nope'" in result.output
    result = CliRunner().invoke(app, ["score", str(two_runs_file), "--run", "gamma"])
    assert result.exit_code == 2 and "no run 'gamma'" in result.output
    result = CliRunner().invoke(app, ["score", str(two_runs_file), "--param", "alpha"])
    assert result.exit_code == 2 and "NAME=NUMBER" in result.output
    result = CliRunner().invoke(app, ["score", str(two_runs_file), "--judge", "missing-profile"])
    assert result.exit_code == 2 and "missing-profile" in result.output


def test_fwa_paper_params_from_the_command_line(app, two_runs_file):
    result = CliRunner().invoke(app, ["score", str(two_runs_file), "--scorer", "fwa-paper", "--param", "r_th=1.0"])
    assert result.exit_code == 0, result.output
    with Project.open(two_runs_file) as p:
        values = sorted(current_scores(p, "fwa-paper")["value"].dropna().tolist())
    # r_th 1: 11 vs 12 -> S_n = 1 - (1/12) = 0.9167, S = 0.9583; 20 vs 12 -> S_n = 1 - 0.6667 = 0.3333, S = 0.6667
    assert values == pytest.approx([0.5 + 0.5 * (1 - 8 / 12), 0.5 + 0.5 * (1 - 1 / 12)])


def test_report_formats(app, two_runs_file, tmp_path):
    runner = CliRunner()
    assert runner.invoke(app, ["score", str(two_runs_file)]).exit_code == 0
    result = runner.invoke(app, ["report", str(two_runs_file), "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "4 answers" in result.output and "alpha" in result.output
    assert len(pd.read_csv(tmp_path / "r.csv")) == 4
    result = runner.invoke(app, ["report", str(two_runs_file), "--out", str(tmp_path / "r.data"), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "r.data").read_text())
    assert data["sources"]["alpha"]["all"]["cost_usd"] == pytest.approx(1.0)
    result = runner.invoke(app, ["report", str(two_runs_file), "--out", str(tmp_path / "r.doc")])
    assert result.exit_code == 2 and "r.doc" in result.output
    result = runner.invoke(app, ["report", str(two_runs_file), "-o", str(tmp_path / "r.html"), "--resamples", "200"])
    assert result.exit_code == 0 and (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("args, message", [
    (["--scorer", "fwa-paper", "--param", "r_th=0"], "r_th=0.0 must be a number above 0"),
    (["--scorer", "fwa-paper", "--param", "alpha=2"], "alpha=2.0 must be a number in [0, 1]"),
    (["--scorer", "fwa-paper", "--param", "alpha=nan"], "alpha=nan must be a number in [0, 1]"),
    (["--param", "alpha=0.5"], "fs-match has no parameter 'alpha'"),
    (["--scorer", "bogus"], "unknown scorer 'bogus'"),
])
def test_score_refuses_bad_scorers_and_parameters_before_scoring(app, two_runs_file, args, message):
    result = CliRunner().invoke(app, ["score", str(two_runs_file), *args])
    assert result.exit_code == 2 and message in result.output, result.output
    assert "scoring with" not in result.output
    with Project.open(two_runs_file) as p:
        assert current_scores(p).empty                                   # nothing was written


def test_report_refuses_bad_options_and_says_why_it_is_empty(app, two_runs_file, tmp_path):
    runner = CliRunner()
    for args, message in ((["--resamples", "5"], "--resamples"), (["--seed", "-1"], "--seed"),
                          (["--scorer", "nosuch"], "unknown scorer 'nosuch'")):
        result = runner.invoke(app, ["report", str(two_runs_file), "-o", str(tmp_path / "r.json"), *args])
        assert result.exit_code == 2 and message in result.output, result.output
    result = runner.invoke(app, ["report", str(two_runs_file), "-o", str(tmp_path), "--format", "html"])
    assert result.exit_code == 2 and "is a folder" in result.output
    result = runner.invoke(app, ["report", str(two_runs_file), "-o", str(tmp_path / "r.json")])
    assert result.exit_code == 0 and "no answer is scored yet" in result.output
    empty = tmp_path / "empty.fieldstudio"
    Project.create(empty).close()
    result = runner.invoke(app, ["report", str(empty), "-o", str(tmp_path / "e.html")])
    assert result.exit_code == 1 and "holds no answers" in result.output


def test_benchmarks_locate_show_forget(tmp_path):
    from fieldstudio.cli.benchmarks import register as register_benchmarks
    from fieldstudio.scoring.official import known
    from tests.support.official_standins import write_standin

    app = typer.Typer()
    register_benchmarks(app)
    app.command("noop")(lambda: None)            # a second command keeps "benchmarks" a sub-command
    folder = write_standin(tmp_path / "ieqa", "industryeqa")
    try:
        result = CliRunner().invoke(app, ["benchmarks", "locate", "industryeqa", str(tmp_path / "nowhere")])
        assert result.exit_code == 1 and "not a folder" in result.output
        result = CliRunner().invoke(app, ["benchmarks", "locate", "industryeqa", str(folder)])
        assert result.exit_code == 0, result.output
        assert "IndustryEQA judge prompts from" in result.output and "1000" not in result.output
        assert "55 tokens" in result.output and "official judge model standin-ieqa-judge" in result.output
        result = CliRunner().invoke(app, ["benchmarks", "show"])
        assert result.exit_code == 0 and "ok:" in result.output and "not located" in result.output
    finally:
        known.clear_stand_ins()
    result = CliRunner().invoke(app, ["benchmarks", "show"])
    assert "refused" in result.output                           # the stand-in is not a known version any more
    result = CliRunner().invoke(app, ["benchmarks", "forget", "industryeqa"])
    assert result.exit_code == 0 and "forgot" in result.output


def test_default_scorer_without_a_judge(tmp_path):
    from fieldstudio.scoring.service import default_scorer

    with Project.create(tmp_path / "e.fieldstudio") as p:
        q = add_task(p, "q1", "AC", source="openeqa")
        add_run(p, "m", {q: "AC."})
        assert default_scorer(p, None, judged=False) == "llm-match"      # only a judge scores OpenEQA
        assert default_scorer(p, None, judged=True) == "llm-match"
    with Project.create(tmp_path / "f.fieldstudio") as p:
        t = add_task(p, "2.1.0001", "Yes", eval_func="fuzzy_match")
        add_run(p, "m", {t: "yes"})
        assert default_scorer(p, None, judged=False) == "fs-match"
        assert default_scorer(p, None, judged=True) == "fwa-official"


def test_report_prints_accuracy_split_by_evidence(app, wide_console, tmp_path):
    """The split of tests/support/evidence_answers.py (by hand), one line per source."""
    from tests.support.annotation_fixtures import add_test_media
    from tests.support.evidence_answers import SCORER, add_evidence_runs

    path = tmp_path / "ev.fieldstudio"
    with Project.create(path) as p:
        add_test_media(p)
        add_evidence_runs(p)
    result = CliRunner().invoke(app, ["report", str(path), "-o", str(tmp_path / "r.json"), "--scorer", SCORER,
                                      "--resamples", "200"])
    assert result.exit_code == 0, result.output
    assert "accuracy by evidence coverage (a frame sent in the ground truth's span or not):" in result.output
    assert ("misses — never saw it: mean 0.000, accuracy 0.000 (2/2 scored); unknown: mean 1.000, accuracy 1.000 "
            "(1/1 scored); no evidence: mean — (0/1 scored)") in result.output
    assert ("sees — saw the evidence: mean 0.500, accuracy 0.500 (2/2 scored); never saw it: mean 0.000, accuracy "
            "0.000 (1/1 scored); no evidence: mean 1.000, accuracy 1.000 (1/1 scored)") in result.output


@pytest.mark.parametrize("fmt", ["csv", "html", "json", "xlsx"])
def test_report_never_writes_over_the_project_file(app, two_runs_file, fmt):
    before = two_runs_file.read_bytes()
    result = CliRunner().invoke(app, ["report", str(two_runs_file), "-o", str(two_runs_file), "--format", fmt])
    assert result.exit_code == 2, result.output
    assert "is a database" in result.output and "Traceback" not in result.output
    assert two_runs_file.read_bytes() == before
