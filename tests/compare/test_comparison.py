"""The comparison tables: means, intervals, categories, pairs, cost and hooks, checked against values computed
by hand or by an independent numpy bootstrap written here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fieldstudio.compare import answer_table, summaries
from fieldstudio.compare import comparison as cmp
from fieldstudio.scoring.service import current_scores, override_score
from fieldstudio.store.models import Answer, Rating, RatingItem, RatingSet, Score
from tests.support.scoring_fixtures import add_run, add_task, scored_now

SCORER = "fs-match"


def _score(project, run_id: str, values: dict[str, float | None], *, judge: dict | None = None) -> None:
    """Score rows written directly: {task_id: value}; correct = value > 0.5 as FieldWorkArena counts it."""
    with project.write() as s:
        answers = {a.task_id: a.id for a in s.query(Answer).filter(Answer.run_id == run_id)}
        for task_id, v in values.items():
            s.add(Score(answer_id=answers[task_id], scorer=SCORER, **scored_now(s, answers[task_id], SCORER), value=v,
                        correct=None if v is None else v > 0.5, explanation="set by the test", judge=judge))


@pytest.fixture
def two_sources(project):
    """Category A: 3 tasks, category B: 2 tasks; source 'alpha' and 'beta' answer all five."""
    tasks = [add_task(project, f"1.1.000{i}", "x", category="A") for i in range(3)] + \
            [add_task(project, f"2.1.000{i}", "x", category="B") for i in range(2)]
    alpha = add_run(project, "alpha", {t: {"raw_text": f"a{i}", "cost_usd": 0.01 * (i + 1), "prompt_tokens": 100,
                                           "completion_tokens": 10} for i, t in enumerate(tasks)})
    beta = add_run(project, "beta", {t: {"raw_text": f"b{i}", "cost_usd": None if i == 0 else 0.02}
                                     for i, t in enumerate(tasks)})
    # alpha: A all 1.0, B all 0.0 -> every stratified resample has mean 3/5 exactly
    _score(project, alpha, dict(zip(tasks, [1.0, 1.0, 1.0, 0.0, 0.0])))
    # beta: one answer unscored (needs a judge)
    _score(project, beta, dict(zip(tasks, [1.0, 0.6, None, 0.5, 0.9])))
    return project, tasks, alpha, beta


def test_summary_means_accuracy_and_stratified_interval(two_sources, any_n_intervals):
    project, tasks, alpha, beta = two_sources
    c = cmp.build_comparison(project, SCORER)
    a, b = c.summary.loc["alpha"], c.summary.loc["beta"]
    assert (a["answers"], a["n"], a["unscored"]) == (5, 5, 0)
    assert a["mean"] == pytest.approx(3 / 5)
    # strata are constant inside: every replicate is 3/5, so the interval collapses onto the mean
    assert (a["ci_low"], a["ci_high"]) == (pytest.approx(0.6), pytest.approx(0.6))
    assert (b["answers"], b["n"], b["unscored"]) == (5, 4, 1)
    assert b["mean"] == pytest.approx((1.0 + 0.6 + 0.5 + 0.9) / 4)
    assert b["accuracy"] == pytest.approx(3 / 4)                      # 1.0, 0.6, 0.9 are > 0.5; 0.5 is not
    # the headline counts beta's unscored answer as 0 (FieldWorkArena): (1.0 + 0.6 + 0 + 0.5 + 0.9) / 5
    assert (b["total"], b["coverage"]) == (5, pytest.approx(4 / 5))
    assert b["headline"] == pytest.approx(3.0 / 5) and b["headline_accuracy"] == pytest.approx(3 / 5)
    assert a["headline"] == pytest.approx(3 / 5) and (a["headline_ci_low"], a["headline_ci_high"]) == \
        (pytest.approx(0.6), pytest.approx(0.6))
    # seeded: the same call gives the same interval
    again = summaries.source_summary(c.answers)
    assert again.loc["beta", "ci_low"] == b["ci_low"] and again.loc["beta", "ci_high"] == b["ci_high"]


def test_interval_matches_an_independent_bootstrap(project):
    rng = np.random.default_rng(123)
    values = rng.uniform(0, 1, 60).round(3)
    cats = np.array(["A"] * 25 + ["B"] * 35)
    tasks = [add_task(project, f"9.9.{i:04d}", "x", category=c) for i, c in enumerate(cats)]
    run = add_run(project, "m", {t: "x" for t in tasks})
    _score(project, run, dict(zip(tasks, values.tolist())))
    c = cmp.build_comparison(project, SCORER)
    row = c.summary.loc["m"]
    # independent stratified percentile bootstrap: 20,000 replicates, another generator
    ind = np.random.default_rng(99)
    reps = np.zeros(20_000)
    for cat in ("A", "B"):
        v = values[cats == cat]
        reps += v[ind.integers(0, v.size, size=(20_000, v.size))].sum(axis=1)
    reps /= values.size
    lo, hi = np.percentile(reps, [2.5, 97.5])
    assert row["mean"] == pytest.approx(values.mean())
    assert row["ci_low"] == pytest.approx(lo, abs=0.01)
    assert row["ci_high"] == pytest.approx(hi, abs=0.01)


def test_category_breakdown_and_seed_shaped_table(two_sources):
    project, *_ = two_sources
    c = cmp.build_comparison(project, SCORER)
    by = c.by_category
    assert by.loc[("alpha", "A"), "mean"] == 1.0 and by.loc[("alpha", "B"), "mean"] == 0.0
    assert by.loc[("beta", "A"), "mean"] == pytest.approx((1.0 + 0.6) / 2)
    assert by.loc[("beta", "A"), "unscored"] == 1
    table = c.category_table("mean")
    assert list(table.index) == ["A", "B", "all"] and list(table.columns) == ["alpha", "beta"]
    assert table.loc["all", "beta"] == pytest.approx(3.0 / 4)
    assert table.loc["B", "beta"] == pytest.approx(0.7)


def test_paired_difference_and_pairs(two_sources, any_n_intervals):
    project, tasks, alpha, beta = two_sources
    c = cmp.build_comparison(project, SCORER)
    pair = c.pairs.iloc[0]
    assert (pair["source_a"], pair["source_b"], pair["n_shared"], pair["only_a"]) == ("alpha", "beta", 4, 1)
    # shared tasks: differences 0, 0.4, -0.5, -0.9 -> mean -0.25
    assert pair["difference"] == pytest.approx((0 + 0.4 - 0.5 - 0.9) / 4)
    # task bootstrap stratified by category: a replicate draws 3 of A's tasks (differences 0, 0.4 and one
    # task beta left unscored) and 2 of B's (-0.5, -0.9), and averages the differences it drew. Highest:
    # 0.4 three times with -0.5 twice, (1.2 - 1.0) / 5 = 0.04; lowest: only the unscored A task with -0.9
    # twice, -1.8 / 2 = -0.9
    assert -0.9 - 1e-9 <= pair["ci_low"] <= pair["difference"] <= pair["ci_high"] <= 0.04 + 1e-9
    unstratified = summaries.paired(c.answers, "alpha", "beta", strata=None)
    assert unstratified.difference == pair["difference"] and unstratified.n_shared == 4
    # the pair's own call and the table give the same numbers: one set of draws
    again = summaries.paired(c.answers, "alpha", "beta")
    assert (again.ci_low, again.ci_high) == (pair["ci_low"], pair["ci_high"])


def test_shared_task_bootstrap_matches_an_independent_one(project):
    """Sources, their difference and a category slice against a loop-by-loop paired bootstrap written here:
    tasks resampled within each category, each statistic averaged over the drawn tasks it has a value for."""
    rng = np.random.default_rng(5)
    cats = np.array(["A"] * 30 + ["B"] * 45)
    a_vals = rng.uniform(0, 1, cats.size).round(2)
    b_vals = np.clip(a_vals - 0.1 + rng.normal(0, 0.1, cats.size), 0, 1).round(2)
    a_vals[rng.choice(cats.size, 8, replace=False)] = np.nan          # unscored answers
    b_vals[rng.choice(cats.size, 12, replace=False)] = np.nan
    tasks = [add_task(project, f"9.9.{i:04d}", "x", category=c) for i, c in enumerate(cats)]
    for name, vals in (("a", a_vals), ("b", b_vals)):
        run = add_run(project, name, {t: "x" for t in tasks})
        _score(project, run, {t: None if np.isnan(v) else float(v) for t, v in zip(tasks, vals)})
    c = cmp.build_comparison(project, SCORER)
    ind = np.random.default_rng(99)
    n_rep = 20_000
    strata = [np.flatnonzero(cats == k) for k in ("A", "B")]

    def nanmean_rows(x: np.ndarray) -> np.ndarray:
        ok = ~np.isnan(x)
        return np.where(ok, x, 0).sum(axis=1) / ok.sum(axis=1)

    draws = np.concatenate([idx[ind.integers(0, idx.size, size=(n_rep, idx.size))] for idx in strata], axis=1)
    rep_a, rep_b = nanmean_rows(a_vals[draws]), nanmean_rows(b_vals[draws])
    rep_d = nanmean_rows((a_vals - b_vals)[draws])
    in_a = draws[:, :30]                                             # category A's part of every replicate
    rep_a_cat = nanmean_rows(a_vals[in_a])
    for got, reps, estimate in ((c.summary.loc["a"], rep_a, np.nanmean(a_vals)),
                                (c.summary.loc["b"], rep_b, np.nanmean(b_vals)),
                                (c.by_category.loc[("a", "A")], rep_a_cat, np.nanmean(a_vals[:30]))):
        lo, hi = np.percentile(reps, [2.5, 97.5])
        assert got["mean"] == pytest.approx(estimate)
        assert (got["ci_low"], got["ci_high"]) == (pytest.approx(lo, abs=0.01), pytest.approx(hi, abs=0.01))
    pair = c.pairs.iloc[0]
    lo, hi = np.percentile(rep_d, [2.5, 97.5])
    assert pair["difference"] == pytest.approx(np.nanmean(a_vals - b_vals))
    assert (pair["ci_low"], pair["ci_high"]) == (pytest.approx(lo, abs=0.01), pytest.approx(hi, abs=0.01))
    assert pair["n_shared"] == int((~np.isnan(a_vals - b_vals)).sum())


def test_constant_gap_is_distinguishable(project):
    tasks = [add_task(project, f"1.1.{i:04d}", "x", category="A") for i in range(10)]
    a = add_run(project, "a", {t: "x" for t in tasks})
    b = add_run(project, "b", {t: "x" for t in tasks})
    _score(project, a, {t: 0.9 for t in tasks})
    _score(project, b, {t: 0.6 for t in tasks})
    d = summaries.paired(answer_table.load_answers(project, SCORER), "a", "b")
    assert d.difference == pytest.approx(0.3)
    assert (d.ci_low, d.ci_high) == (pytest.approx(0.3), pytest.approx(0.3))
    assert d.distinguishable


def test_cost_tokens_and_cost_per_correct(two_sources):
    project, *_ = two_sources
    s = cmp.build_comparison(project, SCORER).summary
    assert s.loc["alpha", "cost_usd"] == pytest.approx(0.01 + 0.02 + 0.03 + 0.04 + 0.05)
    assert s.loc["alpha", "cost_status"] == "complete"
    assert s.loc["alpha", "prompt_tokens"] == 500 and s.loc["alpha", "completion_tokens"] == 50
    assert s.loc["alpha", "cost_per_correct_usd"] == pytest.approx(0.15 / 3)
    assert s.loc["beta", "cost_status"] == "partial" and s.loc["beta", "cost_usd"] == pytest.approx(0.08)
    assert np.isnan(s.loc["beta", "cost_per_correct_usd"])           # never from a partial sum
    assert s.loc["beta", "tokens_unknown"] == 5


def test_override_changes_the_tables_and_judge_agreement(project):
    t1 = add_task(project, "1.1.0001", "x", category="A")
    t2 = add_task(project, "1.1.0002", "x", category="A")
    run = add_run(project, "m", {t1: "x", t2: "y"})
    _score(project, run, {t1: 1.0, t2: 0.0}, judge={"model": "j", "raw": "correct"})
    ids = current_scores(project, SCORER).set_index("task_id")["score_id"]
    override_score(project, ids[t1], 1.0, "judge was right", "ana")       # agrees
    override_score(project, ids[t2], 1.0, "judge missed it", "ana")       # disagrees
    c = cmp.build_comparison(project, SCORER)
    assert c.summary.loc["m", "mean"] == 1.0 and c.summary.loc["m", "overridden"] == 2
    assert (c.judge_agreement.n, c.judge_agreement.agree, c.judge_agreement.rate) == (2, 1, 0.5)


def test_rater_agreement_hook_runs_only_with_ratings(two_sources):
    project, *_ = two_sources
    calls = []

    def hook(answers, ratings):
        calls.append(len(ratings))
        return {"alpha": 0.75}

    c = cmp.build_comparison(project, SCORER, agreement=hook)
    assert calls == [] and c.summary["rater_agreement"].isna().all()
    with project.write() as s:
        rs = RatingSet(name="tape photos")
        s.add(rs)
        s.flush()
        item = RatingItem(rating_set_id=rs.id, position=0)
        s.add(item)
        s.flush()
        s.add_all([Rating(item_id=item.id, rater="ana", verdict="accept"),
                   Rating(item_id=item.id, rater="bo", verdict="reject")])
    c = cmp.build_comparison(project, SCORER, agreement=hook)
    assert calls == [2]
    assert c.summary.loc["alpha", "rater_agreement"] == 0.75 and np.isnan(c.summary.loc["beta", "rater_agreement"])
    assert sorted(c.ratings["verdict"]) == ["accept", "reject"]


def test_grid_and_filters(two_sources):
    project, tasks, *_ = two_sources
    c = cmp.build_comparison(project, SCORER)
    grid = c.grid()
    assert grid.shape == (5, 5)                                            # external_id, category, gt + 2 sources
    assert grid.loc[tasks[1], "beta"] == 0.6 and np.isnan(grid.loc[tasks[2], "beta"])
    assert c.grid("answer").loc[tasks[0], "alpha"] == "a0"
    only_b = answer_table.filter_answers(c.answers, category="B")
    assert set(only_b["task_id"]) == set(tasks[3:])
    # verdicts: task 3 both wrong (0.5 is not > 0.5); task 4 alpha wrong, beta right; the rest both right
    disagree = answer_table.filter_answers(c.answers, disagree=True)
    assert set(disagree["task_id"]) == {tasks[4]} and len(disagree) == 2
    wrong = answer_table.filter_answers(c.answers, wrong_only=True)
    assert set(wrong["task_id"]) == set(tasks[3:])
    assert set(answer_table.filter_answers(c.answers, category="A", wrong_only=True)["task_id"]) == set()


def test_same_run_names_stay_apart_and_no_scores_still_lists_answers(project):
    t = add_task(project, "1.1.0001", "x", category="A")
    r1 = add_run(project, "same", {t: "x"})
    r2 = add_run(project, "same", {t: "y"})
    c = cmp.build_comparison(project)
    assert c.scorer is None and c.scorer_label == "no scores yet"
    assert sorted(c.summary.index) == sorted([f"same ({r1[:6]})", f"same ({r2[:6]})"])
    assert (c.summary["n"] == 0).all() and (c.summary["unscored"] == 1).all()
    assert isinstance(c.answers, pd.DataFrame) and len(c.answers) == 2
    # no verdict anywhere: no task is wrong or disagrees (it raised KeyError 'task_id' for wrong_only)
    assert answer_table.filter_answers(c.answers, wrong_only=True).empty
    assert answer_table.filter_answers(c.answers, disagree=True).empty


def test_ratings_frame_leaves_out_machine_raters(project):
    """A scorer's or a model's verdict filed as a rating (rater 'scorer:...' / 'model:...') is no rater."""
    with project.write() as s:
        rs = RatingSet(name="tape photos")
        s.add(rs)
        s.flush()
        item = RatingItem(rating_set_id=rs.id, position=0)
        s.add(item)
        s.flush()
        s.add_all([Rating(item_id=item.id, rater="ana", verdict="accept"),
                   Rating(item_id=item.id, rater="scorer:acceptability", verdict="reject"),
                   Rating(item_id=item.id, rater="model:gpt-4o", verdict="reject")])
    assert list(answer_table.ratings_frame(project)["rater"]) == ["ana"]
    assert sorted(answer_table.ratings_frame(project, include_machine=True)["rater"]) == ["ana", "model:gpt-4o",
                                                                                 "scorer:acceptability"]
    assert list(cmp.build_comparison(project, None).ratings["rater"]) == ["ana"]


def test_judge_agreement_kappa_by_hand(project):
    """Judge pass/fail against the people's: 3 pass-pass, 1 pass-fail, 1 fail-pass, 1 fail-fail.
    p_o = 4/6; judge passes 4/6, people pass 4/6: p_e = (4/6)^2 + (2/6)^2 = 20/36; kappa = (24/36 - 20/36) /
    (16/36) = 0.25."""
    tasks = [add_task(project, f"1.1.000{i}", "x", category="A") for i in range(6)]
    run = add_run(project, "m", {t: "x" for t in tasks})
    judged = [1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    people = [1.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    _score(project, run, dict(zip(tasks, judged)), judge={"model": "j", "raw": "correct"})
    ids = current_scores(project, SCORER).set_index("task_id")["score_id"]
    for t, v in zip(tasks, people):
        override_score(project, ids[t], v, "checked the video", "ana")
    ja = cmp.judge_agreement(project, SCORER)
    assert (ja.n, ja.agree, ja.rate) == (6, 4, pytest.approx(4 / 6))
    assert ja.pass_fail.table == ((3, 1), (1, 1))
    assert ja.kappa == pytest.approx(0.25)


def test_same_tasks_in_another_project_give_the_same_intervals(tmp_path):
    """Task ids are random, so the bootstrap orders tasks by external id: the same tasks, answers and seed in
    two projects (added in opposite orders) give identical intervals."""
    from fieldstudio.store.project import Project

    got = []
    for name, order in (("one", range(30)), ("two", reversed(range(30)))):
        p = Project.create(tmp_path / f"{name}.fieldstudio")
        tasks = {i: add_task(p, f"1.1.{i:04d}", "x", category="A" if i < 12 else "B") for i in order}
        run = add_run(p, "m", {tasks[i]: "x" for i in range(30)})
        _score(p, run, {tasks[i]: round((i * 37 % 11) / 10, 1) for i in range(30)})
        row = cmp.build_comparison(p, SCORER).summary.loc["m"]
        got.append((row["ci_low"], row["ci_high"], row["accuracy_ci_low"], row["accuracy_ci_high"]))
        p.close()
    assert got[0] == got[1]


def test_missing_group_values_form_their_own_group_and_bad_tables_are_refused(two_sources):
    project, *_ = two_sources
    answers = cmp.build_comparison(project, SCORER).answers
    odd = answers.assign(answer_type=[None if i % 3 == 0 else "number" for i in range(len(answers))])
    table = summaries.group_summary(odd, "answer_type")
    assert table["answers"].sum() == len(answers)                # no answer dropped for a missing value
    assert set(table.index.get_level_values(1)) == {answer_table.NO_GROUP, "number"}
    with pytest.raises(ValueError, match="more than once"):
        summaries.source_summary(pd.concat([answers, answers.iloc[:1]]))
    with pytest.raises(ValueError, match="n_resamples"):
        summaries.source_summary(answers, n_resamples=0)


def test_most_scored_scorer_prefers_the_one_that_scored_answers(two_sources):
    """Two scorers with as many rows: the one whose rows hold values wins over one that left all unscored."""
    project, tasks, alpha, beta = two_sources
    with project.write() as s:
        for a in s.query(Answer).all():
            s.add(Score(answer_id=a.id, scorer="llm-match", **scored_now(s, a.id, "llm-match"), value=None,
                        explanation="needs a judge"))
        s.query(Score).filter(Score.scorer == SCORER, Score.value.is_(None)).delete()
    with project.read() as s:
        rows = {name: s.query(Score).filter(Score.scorer == name).count() for name in (SCORER, "llm-match")}
    assert rows == {SCORER: 9, "llm-match": 10}          # llm-match has more rows, but none scored
    assert answer_table.most_scored_scorer(project) == SCORER
