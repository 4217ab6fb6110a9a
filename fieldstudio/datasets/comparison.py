"""Tasks x answer sources side by side, with per-source and per-category statistics, pairs and cost.

``build_comparison(project, scorer)`` reads every answer of the chosen runs with its task, its score in
force (``scoring.current_scores``: a person's override wins) and its tokens and cost, and returns a
:class:`Comparison`:

* ``answers``: the long table, one row per answer (task columns, the answer, the score, tokens, cost);
* ``summary``: one row per source: answers, n scored, unscored, mean score with its 95 % bootstrap interval
  (stratified by category, seeded, 2,000 resamples by default), accuracy (share ``correct``, FWA's
  score > 0.5) with its interval, tokens, cost (complete / partial / unknown), cost per correct answer,
  judge cost, and ``rater_agreement`` filled by an optional hook;
* ``by_category``: the same per (source, category); ``group_summary`` gives it for sub-category,
  scenario or answer type;
* ``pairs``: paired differences of mean score for every pair of sources over their shared scored tasks,
  "distinguishable" only when the 95 % interval excludes 0.

Statistics come from ``fieldstudio.core.statistics`` (sources there: benchmarks.md §1.6, §4.3, §4.5).
A source is a run; its label is the run's name (with the id's first characters when two runs share it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import func, select

from fieldstudio.core import statistics
from fieldstudio.datasets.scoring import current_scores, resolve_runs, scorer_description
from fieldstudio.store.models import Answer, Rating, RatingItem, RatingSet, Run, Score, Task
from fieldstudio.store.project import Project

__all__ = ["Comparison", "JudgeAgreement", "AgreementHook", "build_comparison", "load_answers", "source_summary",
           "group_summary", "pivot_summary", "pair_table", "paired", "task_grid", "filter_answers", "ratings_frame",
           "judge_agreement", "default_scorer", "NO_GROUP"]

NO_GROUP = "(none)"
"""Label of answers whose task has no category (sub-category, scenario)."""

AgreementHook = Callable[[pd.DataFrame, pd.DataFrame], Mapping[str, float] | pd.Series]
"""``hook(answers, ratings) -> {source: agreement}``: how each source agrees with the raters (e.g. share of
items where the scorer's verdict equals the rater majority, ties excluded, benchmarks.md §4.4). Called only
when the project holds ratings; its values fill ``summary["rater_agreement"]``."""

_TASK_COLS = ["task_id", "external_id", "category", "sub_category", "scenario", "answer_type", "query",
              "ground_truth"]


# ---------------------------------------------------------------- reading
def load_answers(project: Project, scorer: str | None, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """The long table: one row per answer of the chosen runs (all when None), with its score under ``scorer``.

    Columns: task_id, external_id, category, sub_category, scenario, answer_type, query, ground_truth
    (category, sub_category and scenario are ``NO_GROUP`` when unset), run_id, source, answer_id, answer
    (raw text), error, prompt_tokens, completion_tokens, reasoning_tokens, cost_usd, latency_s (floats,
    NaN when unknown), score_id, scorer, scorer_version, value (NaN when unscored), correct (True/False/None),
    correct_value (1.0 / 0.0 / NaN), explanation, overridden, author, reason, judge_raw, judge_cost_usd.
    Sorted by source, then task.
    """
    ids = resolve_runs(project, run_ids)
    q = (select(Answer.task_id, Task.external_id, Task.category, Task.sub_category, Task.scenario, Task.answer_type,
                Task.query, Task.ground_truth, Answer.run_id, Run.name, Answer.id, Answer.raw_text, Answer.error,
                Answer.prompt_tokens, Answer.completion_tokens, Answer.reasoning_tokens, Answer.cost_usd,
                Answer.latency_s)
         .join(Task, Task.id == Answer.task_id).join(Run, Run.id == Answer.run_id))
    if ids is not None:
        q = q.where(Answer.run_id.in_(ids))
    with project.read() as s:
        rows = s.execute(q).all()
    cols = _TASK_COLS + ["run_id", "run_name", "answer_id", "answer", "error", "prompt_tokens", "completion_tokens",
                         "reasoning_tokens", "cost_usd", "latency_s"]
    df = pd.DataFrame.from_records(rows, columns=cols)
    for c in ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cost_usd", "latency_s"):
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    for c in ("category", "sub_category", "scenario"):
        df[c] = df[c].fillna(NO_GROUP).replace("", NO_GROUP)
    df["external_id"] = df["external_id"].fillna(df["task_id"])
    names = df.drop_duplicates("run_id").groupby("run_name")["run_id"].nunique()
    dup = set(names[names > 1].index)
    df["source"] = [f"{n} ({r[:6]})" if n in dup else n for n, r in zip(df["run_name"], df["run_id"])]
    df = df.drop(columns="run_name")
    score_cols = ["answer_id", "score_id", "scorer", "scorer_version", "value", "correct", "explanation",
                  "overridden", "author", "reason", "judge_raw", "judge_cost_usd"]
    scores = current_scores(project, scorer, ids) if scorer else pd.DataFrame(columns=score_cols)
    df = df.merge(scores[score_cols], on="answer_id", how="left")
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    df["judge_cost_usd"] = pd.to_numeric(df["judge_cost_usd"], errors="coerce").astype(float)
    df["correct"] = [None if c is None or (isinstance(c, float) and np.isnan(c)) else bool(c) for c in df["correct"]]
    df["correct"] = df["correct"].astype(object)
    df["correct_value"] = np.array([np.nan if c is None else float(c) for c in df["correct"]], dtype=float)
    df["overridden"] = df["overridden"].fillna(False).astype(bool)
    df["scorer"] = df["scorer"].fillna(scorer or "")
    return df.sort_values(["source", "external_id"], kind="stable").reset_index(drop=True)


def default_scorer(project: Project, run_ids: Sequence[str] | None = None) -> str | None:
    """The scorer with the most score rows over the chosen runs, or None when nothing is scored."""
    ids = resolve_runs(project, run_ids)
    q = select(Score.scorer, func.count()).join(Answer, Answer.id == Score.answer_id).group_by(Score.scorer)
    if ids is not None:
        q = q.where(Answer.run_id.in_(ids))
    with project.read() as s:
        counts = s.execute(q).all()
    return max(counts, key=lambda r: (r[1], r[0]))[0] if counts else None


def ratings_frame(project: Project) -> pd.DataFrame:
    """Every rating: rating_id, rating_set, item_id, media_id, frame_index, rater, verdict, reasons, fields,
    item_ground_truth. Empty (same columns) when the project holds none."""
    q = (select(Rating.id, RatingSet.name, Rating.item_id, RatingItem.media_id, RatingItem.frame_index, Rating.rater,
                Rating.verdict, Rating.reasons, Rating.fields, RatingItem.ground_truth)
         .join(RatingItem, RatingItem.id == Rating.item_id).join(RatingSet, RatingSet.id == RatingItem.rating_set_id))
    with project.read() as s:
        rows = s.execute(q).all()
    return pd.DataFrame.from_records(rows, columns=["rating_id", "rating_set", "item_id", "media_id", "frame_index",
                                                    "rater", "verdict", "reasons", "fields", "item_ground_truth"])


# ---------------------------------------------------------------- statistics
def _correct_as_float(correct: pd.Series) -> np.ndarray:
    return np.array([np.nan if c is None else float(c) for c in correct], dtype=float)


def _stats(df: pd.DataFrame, strata: str | None, n_resamples: int, seed: int | None) -> dict[str, Any]:
    values = df["value"].to_numpy(dtype=float)
    st = None if strata is None else df[strata].astype(str).to_numpy()
    mean = statistics.bootstrap_ci(values, st, n_resamples=n_resamples, seed=seed)
    corr = df["correct_value"].to_numpy(dtype=float) if "correct_value" in df else _correct_as_float(df["correct"])
    acc = statistics.bootstrap_ci(corr, st, n_resamples=n_resamples, seed=seed)
    costs = df["cost_usd"].to_numpy(dtype=float)
    unknown = int(np.isnan(costs).sum())
    known_cost = float(np.nansum(costs))
    status = "complete" if unknown == 0 else ("unknown" if unknown == len(costs) else "partial")
    n_correct = int(np.nansum(corr))
    per_correct = known_cost / n_correct if n_correct and status == "complete" else np.nan
    return {
        "answers": len(df), "n": mean.n, "unscored": len(df) - mean.n,
        "mean": _f(mean.estimate), "ci_low": _f(mean.ci_low), "ci_high": _f(mean.ci_high),
        "n_correct_known": acc.n, "accuracy": _f(acc.estimate), "accuracy_ci_low": _f(acc.ci_low),
        "accuracy_ci_high": _f(acc.ci_high),
        "prompt_tokens": _sum_known(df["prompt_tokens"]), "completion_tokens": _sum_known(df["completion_tokens"]),
        "reasoning_tokens": _sum_known(df["reasoning_tokens"]),
        "tokens_unknown": int((df["prompt_tokens"].isna() | df["completion_tokens"].isna()).sum()),
        "cost_usd": known_cost if status != "unknown" else np.nan, "cost_unknown": unknown, "cost_status": status,
        "cost_per_correct_usd": per_correct,
        "judge_cost_usd": _sum_known(df["judge_cost_usd"]),
        "overridden": int(df["overridden"].sum()),
    }


def _f(x: float | None) -> float:
    return np.nan if x is None else float(x)


def _sum_known(col: pd.Series) -> float:
    return float(col.sum()) if col.notna().any() else np.nan


def source_summary(answers: pd.DataFrame, *, strata: str | None = "category", n_resamples: int = 2000,
                   seed: int | None = 0) -> pd.DataFrame:
    """One row per source (index ``source``) from the long table; see the module docstring for the columns.

    Intervals are percentile bootstrap intervals (``statistics.bootstrap_ci``) resampled within each
    ``strata`` group (None: one group). ``cost_usd`` sums the known costs; ``cost_status`` says whether any
    was unknown; ``cost_per_correct_usd`` is NaN unless every cost is known and one answer is correct.
    """
    rows = {src: _stats(g, strata, n_resamples, seed) for src, g in answers.groupby("source", sort=True)}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "source"
    if out.empty:
        out = pd.DataFrame(columns=list(_stats(answers.iloc[:0], None, 1, 0)))
        out.index.name = "source"
    out["rater_agreement"] = np.nan
    return out


def group_summary(answers: pd.DataFrame, by: str = "category", *, n_resamples: int = 2000,
                  seed: int | None = 0) -> pd.DataFrame:
    """One row per (source, group) with the columns of ``source_summary`` (no strata inside a group).

    ``by``: category, sub_category, scenario or answer_type. Index: (source, by).
    """
    rows = {key: _stats(g, None, n_resamples, seed) for key, g in answers.groupby(["source", by], sort=True)}
    out = pd.DataFrame.from_dict(rows, orient="index")
    if out.empty:
        return pd.DataFrame(columns=list(_stats(answers.iloc[:0], None, 1, 0)))
    out.index = pd.MultiIndex.from_tuples(out.index, names=["source", by])
    return out


def pivot_summary(by_group: pd.DataFrame, summary: pd.DataFrame | None = None, value: str = "mean") -> pd.DataFrame:
    """The seeds' table shape: rows = groups (categories), columns = sources, cells = ``value``; with
    ``summary`` a last row "all" holds the per-source figure over every task."""
    if by_group.empty:
        return pd.DataFrame()
    table = by_group[value].unstack(level=0)
    table.columns.name = None
    if summary is not None and not summary.empty:
        table.loc["all"] = summary[value].reindex(table.columns)
    return table


def _matrix(answers: pd.DataFrame, statistic: str) -> pd.DataFrame:
    """Tasks x sources of the per-answer statistic (value, or correct as 1/0); NaN where unscored or missing."""
    column = "correct_value" if statistic == "accuracy" else "value"
    if column not in answers:
        answers = answers.assign(correct_value=_correct_as_float(answers["correct"]))
    return answers.pivot(index="task_id", columns="source", values=column)


def paired(answers: pd.DataFrame, source_a: str, source_b: str, *, statistic: str = "mean",
           strata: str | None = "category", n_resamples: int = 2000, seed: int | None = 0,
           matrix: pd.DataFrame | None = None) -> statistics.PairedDifference:
    """Mean score (or ``statistic="accuracy"``) of ``source_a`` minus ``source_b`` over the tasks both scored,
    with its paired, stratified bootstrap interval (``statistics.paired_difference``). ``matrix``: the
    tasks x sources table of ``_matrix`` when already built (pair_table reuses it)."""
    m = _matrix(answers, statistic) if matrix is None else matrix
    tasks = m.index.tolist()
    st = None
    if strata is not None:
        groups = answers.drop_duplicates("task_id").set_index("task_id")[strata]
        st = dict(zip(tasks, groups.reindex(m.index).astype(str).tolist()))
    # accuracy is 0/1 here already: the mean of the 0/1 differences is the accuracy difference
    return statistics.paired_difference(dict(zip(tasks, m[source_a].tolist())), dict(zip(tasks, m[source_b].tolist())),
                                        st, statistic="mean", n_resamples=n_resamples, seed=seed)


def pair_table(answers: pd.DataFrame, *, statistic: str = "mean", n_resamples: int = 2000,
               seed: int | None = 0) -> pd.DataFrame:
    """Every pair of sources (a before b in name order): difference, ci_low, ci_high, distinguishable,
    n_shared, only_a, only_b."""
    sources = sorted(answers["source"].unique())
    matrix = _matrix(answers, statistic) if len(sources) > 1 else None
    rows = []
    for i, a in enumerate(sources):
        for b in sources[i + 1:]:
            d = paired(answers, a, b, statistic=statistic, n_resamples=n_resamples, seed=seed, matrix=matrix)
            rows.append({"source_a": a, "source_b": b, "difference": _f(d.difference), "ci_low": _f(d.ci_low),
                         "ci_high": _f(d.ci_high), "distinguishable": d.distinguishable, "n_shared": d.n_shared,
                         "only_a": d.only_a, "only_b": d.only_b})
    return pd.DataFrame(rows, columns=["source_a", "source_b", "difference", "ci_low", "ci_high", "distinguishable",
                                       "n_shared", "only_a", "only_b"])


@dataclass(frozen=True)
class JudgeAgreement:
    """How often a person who overrode a judged score kept the judge's verdict: ``n`` judged scores a person
    reviewed, ``agree`` of them with the same verdict (``correct``, else the same value), ``rate`` = agree / n
    (None when n is 0)."""

    n: int
    agree: int

    @property
    def rate(self) -> float | None:
        return self.agree / self.n if self.n else None


def judge_agreement(project: Project, scorer: str) -> JudgeAgreement:
    """Agreement of the LLM judge with the scores people set: each judged machine row directly overridden
    by a person is one pair."""
    cols = (Score.id, Score.value, Score.correct, Score.judge, Score.author, Score.overrides_id)
    with project.read() as s:
        rows = s.execute(select(*cols).where(Score.scorer == scorer, Score.author.is_not(None))).all()
        parents = {r.overrides_id for r in rows if r.overrides_id}
        by_id = {r.id: r for r in s.execute(select(*cols).where(Score.id.in_(parents))).all()} if parents else {}
    n = agree = 0
    for r in rows:
        old = by_id.get(r.overrides_id) if r.overrides_id else None
        if r.author is None or old is None or old.author is not None or not old.judge:
            continue
        n += 1
        if old.correct is not None and r.correct is not None:
            agree += old.correct == r.correct
        else:
            agree += old.value == r.value
    return JudgeAgreement(n, agree)


# ---------------------------------------------------------------- the grid
def task_grid(answers: pd.DataFrame, column: str = "value") -> pd.DataFrame:
    """Tasks x sources: index task_id; columns external_id, category, ground_truth, then one column per
    source holding ``column`` (value, answer, correct, explanation, cost_usd ...). Missing answers are NaN."""
    if answers.empty:
        return pd.DataFrame(columns=["external_id", "category", "ground_truth"])
    tasks = answers.drop_duplicates("task_id").set_index("task_id")[["external_id", "category", "ground_truth"]]
    wide = answers.pivot(index="task_id", columns="source", values=column)
    wide.columns.name = None
    return tasks.join(wide).sort_values("external_id", kind="stable")


def filter_answers(answers: pd.DataFrame, *, category: str | None = None, scenario: str | None = None,
                   answer_type: str | None = None, disagree: bool = False, wrong_only: bool = False) -> pd.DataFrame:
    """The long table restricted to tasks matching every filter.

    ``disagree``: tasks whose scored sources do not all have the same verdict (``correct``, else value);
    ``wrong_only``: tasks where at least one source is not correct (correct False, or value < 1 when the
    scorer has no verdict). Filters select whole tasks, so a task's row stays complete across sources.
    """
    df = answers
    for col, want in (("category", category), ("scenario", scenario), ("answer_type", answer_type)):
        if want is not None:
            df = df[df[col] == want]
    if disagree or wrong_only:
        verdict = [c if c is not None else (None if np.isnan(v) else v) for c, v in zip(df["correct"], df["value"])]
        keyed = pd.DataFrame({"task_id": df["task_id"].to_numpy(), "verdict": verdict})
        keyed = keyed[keyed["verdict"].notna()]
        keep = set(df["task_id"])
        if disagree:
            counts = keyed.groupby("task_id")["verdict"].agg(lambda s: len(set(s)))
            keep &= set(counts[counts > 1].index)
        if wrong_only:
            wrong = keyed[[v is False or (not isinstance(v, bool) and v < 1) for v in keyed["verdict"]]]
            keep &= set(wrong["task_id"])
        df = df[df["task_id"].isin(keep)]
    return df


# ---------------------------------------------------------------- everything at once
@dataclass
class Comparison:
    """Everything the comparison view and the report show for one scorer over some runs (see module doc)."""

    scorer: str | None
    scorer_label: str
    answers: pd.DataFrame
    summary: pd.DataFrame
    by_category: pd.DataFrame
    pairs: pd.DataFrame
    judge_agreement: JudgeAgreement
    ratings: pd.DataFrame
    n_resamples: int
    seed: int | None
    extra_groups: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def sources(self) -> list[str]:
        """Source labels in table order."""
        return list(self.summary.index)

    def category_table(self, value: str = "mean") -> pd.DataFrame:
        """Rows = categories (+ "all"), columns = sources, cells = ``value`` (see ``pivot_summary``)."""
        return pivot_summary(self.by_category, self.summary, value)

    def grid(self, column: str = "value") -> pd.DataFrame:
        """Tasks x sources (see ``task_grid``)."""
        return task_grid(self.answers, column)


def build_comparison(project: Project, scorer: str | None = None, run_ids: Sequence[str] | None = None, *,
                     n_resamples: int = 2000, seed: int | None = 0, agreement: AgreementHook | None = None,
                     groups: Sequence[str] = ()) -> Comparison:
    """Read and summarise one scorer's results over the chosen runs (all when None).

    Args:
        scorer: a scorer name; None picks the one with the most scores (``default_scorer``); with no
            score at all the tables still list answers, tokens and cost, with NaN scores.
        run_ids: ids, names or id prefixes of runs.
        n_resamples, seed: bootstrap replicates and seed (reproducible).
        agreement: optional ``AgreementHook`` filling ``summary["rater_agreement"]`` when ratings exist.
        groups: further groupings to summarise into ``extra_groups`` (sub_category, scenario, answer_type).
    Raises:
        NotFound / ScoringError from ``resolve_runs`` for an unknown or ambiguous run.
    """
    scorer = scorer or default_scorer(project, run_ids)
    answers = load_answers(project, scorer, run_ids)
    summary = source_summary(answers, n_resamples=n_resamples, seed=seed)
    by_category = group_summary(answers, "category", n_resamples=n_resamples, seed=seed)
    pairs = pair_table(answers, n_resamples=n_resamples, seed=seed)
    ratings = ratings_frame(project)
    if agreement is not None and not ratings.empty and not summary.empty:
        values = pd.Series(agreement(answers, ratings), dtype=float)
        summary["rater_agreement"] = values.reindex(summary.index)
    extra = {g: group_summary(answers, g, n_resamples=n_resamples, seed=seed) for g in groups}
    return Comparison(scorer, scorer_description(scorer) if scorer else "no scores yet", answers, summary, by_category,
                      pairs, judge_agreement(project, scorer) if scorer else JudgeAgreement(0, 0), ratings,
                      n_resamples, seed, extra)
