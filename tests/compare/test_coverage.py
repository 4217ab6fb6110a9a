"""Coverage in every summary (issue 18 §4): scored / total, the headline mean that counts unscored tasks as
the benchmark's evaluator does, no interval below 10 scored, and the coverage warning; in the comparison
tables, the CLI, the report (HTML, CSV, JSON, XLSX) and the plots. Expected values worked out by hand."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.cli.score_report import register
from fieldstudio.compare import answer_table, summaries
from fieldstudio.compare import comparison as cmp
from fieldstudio.compare import coverage, plots
from fieldstudio.compare.report_export import export_report
from fieldstudio.scoring.service import score_answers
from fieldstudio.store.project import Project
from tests.support import sample_sources

CAREFUL, GUESSER = "sample: careful", "sample: guesser"


@pytest.fixture
def sources(project):
    ids = sample_sources.build(project)
    report = score_answers(project, sample_sources.MATCHER_SCORER)
    # by hand: the 11 "I am not sure" answers are the only unscored ones
    assert (report.scored, report.unscored) == (2 * 42 - 11, 11)
    return project, ids


def test_eleven_of_42_unscored_count_as_zero_in_the_headline(sources):
    project, _ = sources
    c = cmp.build_comparison(project, sample_sources.MATCHER_SCORER, n_resamples=500)
    careful, guesser = c.summary.loc[CAREFUL], c.summary.loc[GUESSER]
    assert (careful["n"], careful["total"], careful["unscored"], careful["missing"]) == (31, 42, 11, 0)
    assert careful["mean"] == pytest.approx(1.0)                   # over the 31 scored: all right
    assert careful["headline"] == pytest.approx(31 / 42)           # 31 x 1 + 11 x 0 over 42 = 0.7381
    assert careful["headline_accuracy"] == pytest.approx(31 / 42)
    assert careful["coverage"] == pytest.approx(31 / 42)
    assert (guesser["n"], guesser["total"]) == (42, 42)
    assert guesser["headline"] == pytest.approx(21 / 42) == guesser["mean"]
    # the headline interval is over all 42 tasks and holds the headline; careful's scored-only one is [1, 1]
    assert careful["headline_ci_low"] <= 31 / 42 <= careful["headline_ci_high"] < 1.0
    assert (careful["ci_low"], careful["ci_high"]) == (1.0, 1.0)
    # category 1.1 holds tasks 0, 3, ..., 39 (14); careful left 0, 3, 6, 9 unscored: 10/14 scored, headline 10/14
    cat = c.by_category.loc[(CAREFUL, "1.1")]
    assert (cat["n"], cat["total"], cat["headline"]) == (10, 14, pytest.approx(10 / 14))
    # 1.3 holds 2, 5, ..., 41 (14); careful left 2, 5, 8 unscored: 11/14
    assert c.by_category.loc[(CAREFUL, "1.3"), "n"] == 11
    warnings = c.coverage_warnings
    assert warnings == ["coverage differs by 26 points: sample: guesser 42 of 42 scored (100%), sample: careful "
                        "31 of 42 scored (74%); their means over scored answers cover different tasks"]


def test_no_interval_below_ten_scored_and_the_rule_per_scorer():
    rows = []
    for i in range(12):
        for src, v in (("a", 1.0 if i % 2 else 0.0), ("b", np.nan if i >= 9 else 1.0)):
            rows.append({"task_id": f"t{i}", "external_id": f"t{i:02d}", "category": "A", "source": src, "value": v,
                         "correct": None if np.isnan(v) else v > 0.5, "cost_usd": np.nan, "prompt_tokens": np.nan,
                         "completion_tokens": np.nan, "reasoning_tokens": np.nan, "judge_cost_usd": np.nan,
                         "overridden": False, "scorer": "eqa-direct"})
    answers = pd.DataFrame(rows)
    summary, _, pairs = summaries.summarise(answers, n_resamples=200, pairs=True)
    a, b = summary.loc["a"], summary.loc["b"]
    assert (a["n"], a["interval_note"]) == (12, "") and np.isfinite(a["ci_low"])
    assert (b["n"], b["interval_note"]) == (9, coverage.N_TOO_SMALL)
    assert np.isnan(b["ci_low"]) and np.isnan(b["headline_ci_low"]) and np.isnan(b["accuracy_ci_low"])
    # IndustryEQA drops unscored items: its headline is the mean over the 9 scored
    assert b["headline"] == pytest.approx(1.0)
    # the pair shares 9 scored tasks: no interval, never "distinguishable"
    assert pairs[0][2].n_shared == 9 and pairs[0][2].ci_low is None and not pairs[0][2].distinguishable
    # FieldWorkArena counts them 0: 9 / 12
    fwa = summaries.summarise(answers.assign(scorer="fwa-official"), n_resamples=200)[0]
    assert fwa.loc["b", "headline"] == pytest.approx(9 / 12)
    assert coverage.unscored_rule("eqa-reasoning").counts_as is None
    assert coverage.unscored_rule("fwa-logic+fs-prompt").counts_as == 0.0
    assert coverage.interval_text(0.1, 0.2, 9) == "(n too small)"
    assert coverage.interval_text(0.1, 0.2, 10) == "[0.100–0.200]"
    # 5 points exactly is no warning; 6 is
    assert coverage.coverage_warnings(pd.DataFrame({"n": [95, 100], "total": [100, 100]}, index=["x", "y"])) == []
    tab = pd.DataFrame({"n": [95, 100, 94], "total": [100, 100, 100]}, index=["x", "y", "z"])
    assert coverage.coverage_warnings(tab) == [
        "coverage differs by 6 points: y 100 of 100 scored (100%), x 95 of 100 scored (95%), z 94 of 100 scored "
        "(94%); their means over scored answers cover different tasks"]


def test_coverage_gaps_among_many_sources_are_one_warning_naming_each_source_once():
    # five sources, every pair but one more than 5 points apart: one statement, not one per pair
    n = {"a": 40, "b": 30, "c": 20, "d": 10, "e": 39}
    tab = pd.DataFrame({"n": list(n.values()), "total": [40] * 5}, index=list(n))
    (warning,) = coverage.coverage_warnings(tab)
    assert warning.startswith("coverage differs by 75 points: ")
    for src, k in n.items():
        assert warning.count(f"{src} {k} of 40 scored") == 1, (src, warning)
    # a source without a task in scope has no coverage to compare
    assert coverage.coverage_warnings(pd.DataFrame({"n": [0, 5], "total": [0, 10]}, index=["x", "y"])) == []


def test_cli_summary_shows_coverage_and_headline(sources, tmp_path):
    project, _ = sources
    app = typer.Typer()
    register(app)
    path = project.path
    project.close()
    result = CliRunner().invoke(app, ["report", str(path), "--out", str(tmp_path / "s.json"),
                                      "--scorer", sample_sources.MATCHER_SCORER, "--resamples", "200"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    # the table wraps its cells in a narrow terminal: read the careful row's first line
    row = next(ln for ln in result.output.splitlines() if "31/42" in ln and "│" in ln)
    assert [c.strip() for c in row.split("│")][2:4] == ["31/42", "0.738"]
    assert [c.strip() for c in row.split("│")][4].startswith("1.000")            # the mean of scored
    assert "42/42" in text and re.search(r"\[0\.5\d\d,", text)
    assert "warning: coverage differs by 26 points" in text
    assert "unscored, failed and missing answers count 0" in text
    data = json.loads((tmp_path / "s.json").read_text())
    careful = data["sources"][CAREFUL]["all"]
    assert (careful["n"], careful["total"], careful["headline"]) == (31, 42, pytest.approx(31 / 42))
    assert data["coverage_warnings"] and "count 0" in data["headline_means"]


def test_report_html_csv_and_plots_show_coverage(sources, tmp_path):
    project, _ = sources
    c = cmp.build_comparison(project, sample_sources.MATCHER_SCORER, n_resamples=200)
    export_report(project, tmp_path / "r.html", comparison=c)
    html = (tmp_path / "r.html").read_text()
    assert "31/42 scored" in html and "Warning: coverage differs by 26 points" in html
    assert "<th>headline mean [95% CI]</th>" in html and "<th>mean of scored [95% CI]</th>" in html
    assert "0.738 [" in html
    assert "84 answers from 2 sources." in html
    # the category tables' means have the summary's 3 decimals (not 3 significant digits: 0.00225 vs 0.002)
    import re

    shaded = re.findall(r'<td class="num" style="[^"]*">([^<]*)</td>', html)
    assert shaded and all(re.fullmatch(r"\d\.\d{3}", t) or t == "—" for t in shaded), shaded
    export_report(project, tmp_path / "r.csv", comparison=c)
    df = pd.read_csv(tmp_path / "r.csv")
    assert set(zip(df["source"], df["source_scored"], df["source_tasks"])) == {(CAREFUL, 31, 42), (GUESSER, 42, 42)}
    ax = plots.score_distribution(c.answers, c.summary).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"{CAREFUL}\n(31/42 scored)", f"{GUESSER}\n(42/42 scored)"]
    texts = [t.get_text() for t in plots.cost_vs_score(c.summary.assign(cost_usd=[1.0, 2.0],
                                                                        cost_status="complete")).axes[0].texts]
    assert texts == [f"{CAREFUL} (31/42 scored)", f"{GUESSER} (42/42 scored)"]
    # no cost known for any source: the plot says whose and why instead of an empty box
    (blank,) = [t.get_text() for t in plots.cost_vs_score(c.summary.assign(cost_usd=None)).axes[0].texts]
    assert blank.startswith("No source has both a known cost and a score:\n")
    assert f"{CAREFUL}: cost unknown" in blank and f"{GUESSER}: cost unknown" in blank


def test_reopened_project_keeps_the_numbers(sources, tmp_path):
    project, _ = sources
    path = project.path
    project.close()
    with Project.open(path) as p:
        s = cmp.build_comparison(p, sample_sources.MATCHER_SCORER, n_resamples=200).summary
    assert s.loc[CAREFUL, "headline"] == pytest.approx(31 / 42)


def test_tasks_no_source_answered_count_as_missing(project, tmp_path):
    """Issue 18 item 4 follow-up, by hand: 10 FieldWorkArena tasks (categories A: 0-4, B: 5-9), one source
    answers tasks 0-5, tasks 0-3 right (1.0) and 4-5 wrong (0.0); two OpenEQA tasks nobody answered stay out
    of the scope. Total 10, 6 answered, 4 missing, headline (4 x 1 + 6 x 0) / 10 = 0.4, mean of scored 4/6."""
    from fieldstudio.store.models import Answer, Score
    from tests.support.scoring_fixtures import add_run, add_task, scored_now

    tasks = [add_task(project, f"1.1.000{i}", "x", category="A" if i < 5 else "B") for i in range(10)]
    for i in range(2):
        add_task(project, f"eqa-{i}", "x", category="A", source="openeqa")
    run = add_run(project, "only six", {t: f"a{i}" for i, t in enumerate(tasks[:6])})
    with project.write() as s:
        for a in s.query(Answer).filter(Answer.run_id == run):
            v = 1.0 if tasks.index(a.task_id) < 4 else 0.0
            s.add(Score(answer_id=a.id, scorer="fs-match", **scored_now(s, a.id, "fs-match"), value=v, correct=v > 0.5))
    c = cmp.build_comparison(project, "fs-match", n_resamples=200)
    r = c.summary.loc["only six"]
    assert (r["total"], r["answers"], r["n"], r["unscored"], r["missing"]) == (10, 6, 6, 0, 4)
    assert r["headline"] == pytest.approx(0.4) and r["coverage"] == pytest.approx(0.6)
    assert r["mean"] == pytest.approx(4 / 6)
    assert coverage.answered_text(r["answers"], r["total"], r["n"]) == "6 answered, 4 missing, 0 unscored"
    assert sorted(c.tasks["task_id"]) == sorted(tasks)                    # the OpenEQA tasks are out
    # category B: tasks 5-9, only 5 answered (wrong): 0/5; A: 4 of 5 right, task 4 wrong
    assert (c.by_category.loc[("only six", "B"), "total"], c.by_category.loc[("only six", "B"), "missing"]) == (5, 4)
    assert c.by_category.loc[("only six", "B"), "headline"] == pytest.approx(0.0)
    assert c.by_category.loc[("only six", "A"), "headline"] == pytest.approx(0.8)
    # a filter narrows the scope the same way: category A alone is 5 tasks, 5 answered
    scope_a = answer_table.filter_tasks(c.tasks, category="A")
    summary_a = summaries.summarise(answer_table.filter_answers(c.answers, category="A"), tasks=scope_a,
                                    scorer="fs-match", n_resamples=200)[0]
    assert (summary_a.loc["only six", "total"], summary_a.loc["only six", "missing"]) == (5, 0)
    # the CLI, the JSON and the HTML report show the same counts
    app = typer.Typer()
    register(app)
    path = project.path
    project.close()
    result = CliRunner().invoke(app, ["report", str(path), "--out", str(tmp_path / "s.json"), "--scorer", "fs-match",
                                      "--resamples", "200"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "6/10 scored" in result.output and "0.400" in result.output
    assert "6 answered, 4 missing, 0 unscored" in result.output
    data = json.loads((tmp_path / "s.json").read_text())
    src = data["sources"]["only six"]["all"]
    assert (src["total"], src["missing"], src["headline"]) == (10, 4, pytest.approx(0.4))
    with Project.open(path) as again:
        export_report(again, tmp_path / "r.html", scorer="fs-match", n_resamples=200)
    page = (tmp_path / "r.html").read_text()
    assert "6/10 scored" in page and "6 answered, 4 missing, 0 unscored" in page
