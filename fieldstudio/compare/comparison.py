"""Tasks x answer sources side by side, with per-source and per-category statistics, pairs and cost.

``build_comparison(project, scorer)`` reads every answer of the chosen runs with its task, its score in
force (``scoring.current_scores``: a person's override wins) and its tokens and cost, and returns a
:class:`Comparison`:

* ``answers``: the long table, one row per answer (task columns, the answer, the score, tokens, cost);
* ``tasks``: the scope every total counts (``load_scope``): the project's tasks of each benchmark source
  (``Task.source``) some compared answer is for, answered or not, narrowed by the active filters
  (``filter_tasks``: category, scenario, answer type), so a task nobody answered counts as missing;
* ``summary``: one row per source: total (tasks of the scope), answers, n scored, unscored, missing,
  coverage (n / total), the headline mean and accuracy, which count unscored and missing answers as the
  benchmark's evaluator does (``coverage.unscored_rule``: 0 for FieldWorkArena), with their intervals,
  ``interval_note`` ("n too small": no interval below 10 scored), then the mean over the scored answers
  with its 95 % bootstrap interval
  (stratified by category, seeded, 2,000 resamples by default), accuracy (share ``correct``, FWA's
  score > 0.5) with its interval, tokens, cost (complete / partial / unknown), cost per correct answer,
  judge cost, and ``rater_agreement`` filled by an optional hook;
* ``by_category``: the same per (source, category); ``group_summary`` gives it for sub-category,
  scenario or answer type;
* ``pairs``: paired differences of mean score for every pair of sources over their shared scored tasks,
  "distinguishable" only when the 95 % interval excludes 0.

Every interval comes from one stratified task bootstrap (``statistics.TaskBootstrap``, Koehn's paired
bootstrap): each replicate resamples the tasks within each category, and every source, every pair and
every category is averaged over the tasks that replicate drew, so one set of draws serves the whole
comparison and a pair's interval is consistent with its two sources'.

Statistics come from ``fieldstudio.core.statistics`` (sources there: benchmarks.md §1.6, §4.3, §4.5).
A source is a run; its label is the run's name (with the id's first characters when two runs share it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import func, select

from fieldstudio.compare import coverage
from fieldstudio.core import costs as core_costs
from fieldstudio.core import statistics
from fieldstudio.ratings.rating_records import is_machine
from fieldstudio.scoring.service import resolve_runs, scorer_description
from fieldstudio.scoring.store import heads, in_list, raw_rows, score_rows
from fieldstudio.store.models import Answer, Rating, RatingItem, RatingSet, Score, Task
from fieldstudio.store.project import Project

__all__ = ["Comparison", "JudgeAgreement", "AgreementHook", "build_comparison", "load_answers", "source_summary",
           "group_summary", "pivot_summary", "pair_table", "paired", "task_grid", "filter_answers", "ratings_frame",
           "judge_agreement", "default_scorer", "summarise", "load_scope", "filter_tasks", "summary_cost_text",
           "NO_GROUP"]

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
    correct_value (1.0 / 0.0 / NaN), explanation, overridden, author, reason, judge_raw, judge_model (the
    judge's model id; None when no judge decided the row), judge_cost_usd.
    Sorted by source, then task.
    """
    ids = resolve_runs(project, run_ids)
    clause, params = in_list("a.run_id", ids)
    sql = ("SELECT a.task_id, t.external_id, t.category, t.sub_category, t.scenario, t.answer_type, t.query, "
           "t.ground_truth, a.run_id, r.name, a.id, a.raw_text, a.error, a.prompt_tokens, a.completion_tokens, "
           "a.reasoning_tokens, a.cost_usd, a.latency_s FROM answer a JOIN task t ON t.id = a.task_id "
           "JOIN run r ON r.id = a.run_id WHERE 1 = 1" + clause)
    with project.read() as s:
        rows = raw_rows(s, sql, params)
        in_force = ({k[0]: v for k, v in heads(score_rows(s, scorer, None, with_answers=False)).items()}
                    if scorer else {})
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
    df["source"] = [f"{n} ({r[:6]})" if n in dup else n for n, r in zip(df["run_name"], df["run_id"])] \
        if dup else df["run_name"]
    df = df.drop(columns="run_name")
    heads_now = [in_force.get(aid) for aid in df["answer_id"]]
    nan = float("nan")
    df["score_id"] = [None if h is None else h.id for h in heads_now]
    df["scorer"] = [(scorer or "") if h is None else h.scorer for h in heads_now]
    df["scorer_version"] = [None if h is None else h.scorer_version for h in heads_now]
    df["value"] = np.array([nan if h is None or h.value is None else h.value for h in heads_now], dtype=float)
    correct = [None if h is None else h.correct for h in heads_now]
    df["correct"] = pd.Series(correct, index=df.index, dtype=object)
    df["correct_value"] = np.array([nan if c is None else float(c) for c in correct], dtype=float)
    df["explanation"] = [None if h is None else h.explanation for h in heads_now]
    df["overridden"] = np.array([h is not None and h.author is not None for h in heads_now], dtype=bool)
    df["author"] = [None if h is None else h.author for h in heads_now]
    df["reason"] = [None if h is None else h.reason for h in heads_now]
    judges = [None if h is None else h.judge for h in heads_now]
    df["judge_raw"] = [None if j is None else j.get("raw") for j in judges]
    df["judge_model"] = [None if not j else j.get("model") for j in judges]
    df["judge_cost_usd"] = pd.to_numeric(pd.Series([None if j is None else j.get("cost_usd") for j in judges],
                                                   index=df.index, dtype=object), errors="coerce").astype(float)
    return df.sort_values(["source", "external_id"], kind="stable").reset_index(drop=True)


def load_scope(project: Project, answers: pd.DataFrame) -> pd.DataFrame:
    """The tasks a comparison's totals cover: every task of the project whose benchmark source
    (``Task.source``, e.g. ``fieldworkarena``) is the source of a task some answer of ``answers`` is for.

    A source answering 300 of 886 FieldWorkArena tasks is thus measured over 886, the 586 unanswered tasks
    count as missing (0 in a FieldWorkArena headline), while tasks of another benchmark held in the same
    project stay out. Columns: those of the long table's task part (task_id, external_id, category,
    sub_category, scenario, answer_type, query, ground_truth; groups ``NO_GROUP`` when unset), one row per
    task. Empty (same columns) when ``answers`` is empty. Narrow it with ``filter_tasks`` under the same
    filters as the answers."""
    if answers.empty:
        return pd.DataFrame(columns=_TASK_COLS)
    ids = [str(t) for t in answers["task_id"].drop_duplicates()]
    with project.read() as s:
        benches: set[str] = set()
        for k in range(0, len(ids), 500):           # SQLite's bound-parameter limit
            benches.update(b for (b,) in s.execute(select(Task.source).where(Task.id.in_(ids[k:k + 500]))))
        rows = s.execute(select(Task.id, Task.external_id, Task.category, Task.sub_category, Task.scenario,
                                Task.answer_type, Task.query, Task.ground_truth)
                         .where(Task.source.in_(sorted(benches)))).all()
    df = pd.DataFrame.from_records([tuple(r) for r in rows], columns=_TASK_COLS)
    for c in ("category", "sub_category", "scenario"):
        df[c] = df[c].fillna(NO_GROUP).replace("", NO_GROUP)
    df["external_id"] = df["external_id"].fillna(df["task_id"])
    return df


def default_scorer(project: Project, run_ids: Sequence[str] | None = None) -> str | None:
    """The scorer with the most scored answers (rows with a value) over the chosen runs, then the most
    rows, or None when there is no score row: a scoring without a judge that could decide nothing (all
    "needs a judge") is not picked over one that scored answers."""
    ids = resolve_runs(project, run_ids)
    q = (select(Score.scorer, func.count(Score.value), func.count()).join(Answer, Answer.id == Score.answer_id)
         .group_by(Score.scorer))
    if ids is not None:
        q = q.where(Answer.run_id.in_(ids))
    with project.read() as s:
        counts = s.execute(q).all()
    return max(counts, key=lambda r: (r[1], r[2], r[0]))[0] if counts else None


def ratings_frame(project: Project, *, include_machine: bool = False) -> pd.DataFrame:
    """Every rating by a person: rating_id, rating_set, item_id, media_id, frame_index, rater, verdict,
    reasons, fields, item_ground_truth. Verdicts a scorer or a model filed as ratings (raters named
    ``scorer:...`` or ``model:...``, ``ratings.records.is_machine``) are left out unless ``include_machine``:
    agreement with the raters must not count a machine as a rater. Empty (same columns) when none."""
    q = (select(Rating.id, RatingSet.name, Rating.item_id, RatingItem.media_id, RatingItem.frame_index, Rating.rater,
                Rating.verdict, Rating.reasons, Rating.fields, RatingItem.ground_truth)
         .join(RatingItem, RatingItem.id == Rating.item_id).join(RatingSet, RatingSet.id == RatingItem.rating_set_id))
    with project.read() as s:
        rows = s.execute(q).all()
    if not include_machine:
        rows = [r for r in rows if not is_machine(r.rater or "")]
    return pd.DataFrame.from_records(rows, columns=["rating_id", "rating_set", "item_id", "media_id", "frame_index",
                                                    "rater", "verdict", "reasons", "fields", "item_ground_truth"])


# ---------------------------------------------------------------- statistics
def _correct_as_float(correct: pd.Series) -> np.ndarray:
    return np.array([np.nan if c is None else float(c) for c in correct], dtype=float)


class _Columns:
    """The long table's numeric columns as numpy arrays, read once for every group's counts and costs."""

    def __init__(self, df: pd.DataFrame) -> None:
        self.values = df["value"].to_numpy(dtype=float)
        self.correct = (df["correct_value"].to_numpy(dtype=float) if "correct_value" in df
                        else _correct_as_float(df["correct"]))
        self.costs = df["cost_usd"].to_numpy(dtype=float)
        self.tokens = {c: df[c].to_numpy(dtype=float) for c in ("prompt_tokens", "completion_tokens",
                                                                 "reasoning_tokens")}
        self.judge_cost = df["judge_cost_usd"].to_numpy(dtype=float)
        self.overridden = df["overridden"].to_numpy(dtype=bool)


class _TaskGrid:
    """The long table's answers placed on a tasks x sources grid (one answer per run and task, the
    ``uq_answer_run_task`` constraint), with the stratified task bootstrap every interval of it shares
    (``statistics.TaskBootstrap``: all sources, pairs and groups see the same resampled task sets).

    Tasks are in (external id, task id) order and sources in sorted label order, so the same answers,
    strata, replicate count and seed give the same replicates to ``source_summary``, ``group_summary``,
    ``pair_table`` and ``paired``, also in another project holding the same tasks (task ids are random).

    Raises ValueError when a source has two answers to one task (a hand-built table)."""

    def __init__(self, answers: pd.DataFrame, strata: str | None, n_resamples: int, seed: int | None,
                 scope: pd.DataFrame | None = None) -> None:
        repeated = answers.duplicated(["task_id", "source"])
        if repeated.any():
            twice = answers[repeated].iloc[0]
            raise ValueError(f"source {twice['source']!r} answers task {twice['task_id']!r} more than once; "
                             "a comparison needs one answer per source and task")
        tasks = answers.drop_duplicates("task_id")
        if scope is not None and not scope.empty:     # unanswered tasks of the scope join as rows of NaN
            extra = scope[~scope["task_id"].isin(tasks["task_id"])]
            tasks = pd.concat([tasks, extra.reindex(columns=tasks.columns)], ignore_index=True)
        external = tasks["external_id"] if "external_id" in tasks else tasks["task_id"]
        order = tasks.assign(_ext=external.astype(str)).sort_values(["_ext", "task_id"], kind="stable")["task_id"]
        self.task_ids = pd.Index(order.to_numpy())
        self.task_codes = self.task_ids.get_indexer(answers["task_id"])
        self.source_codes, sources = pd.factorize(answers["source"], sort=True)
        self.sources = [str(s) for s in sources]
        self._tasks = tasks.set_index("task_id").reindex(self.task_ids)   # one row per task, in task order
        labels = None if strata is None else self.task_labels(strata)
        self.boot = statistics.TaskBootstrap(len(self.task_ids), labels, n_resamples=n_resamples, seed=seed)

    def task_labels(self, column: str) -> np.ndarray:
        """(tasks,) the task column ``column`` (category, scenario ...) as strings, in task order; a missing
        value is ``NO_GROUP``."""
        return _group_labels(self._tasks[column]).to_numpy()

    def grid(self, per_answer: np.ndarray) -> np.ndarray:
        """(tasks, sources) of a per-answer array; NaN where a source has no answer to a task."""
        out = np.full((len(self.task_ids), len(self.sources)), np.nan)
        out[self.task_codes, self.source_codes] = per_answer
        return out


def _group_labels(column: pd.Series) -> pd.Series:
    """A task column as the strings the tables group by: missing values (None, NaN) become ``NO_GROUP``."""
    return column.astype(object).where(column.notna(), NO_GROUP).astype(str)


_STAT_COLUMNS = ["total", "answers", "n", "unscored", "missing", "coverage", "headline", "headline_ci_low",
                 "headline_ci_high", "headline_accuracy", "headline_accuracy_ci_low", "headline_accuracy_ci_high",
                 "interval_note", "mean", "ci_low", "ci_high", "n_correct_known", "accuracy",
                 "accuracy_ci_low", "accuracy_ci_high", "prompt_tokens", "completion_tokens", "reasoning_tokens",
                 "tokens_unknown", "cost_usd", "cost_unknown", "cost_status", "cost_per_correct_usd", "judge_cost_usd",
                 "overridden"]


def summary_cost_text(row: Mapping[str, Any], *, digits: int = 4) -> str:
    """A summary row's cost as the Runs tab says a run's (``core.costs.cost_text``): the known costs of its
    ``answers`` summed, with how many of them are priced when not all are ("unknown (0 of 42 answers
    priced)" for a server with no price set)."""
    answers, unknown = int(row["answers"]), int(row["cost_unknown"])
    return core_costs.cost_text(row["cost_usd"], answers - unknown, unknown, digits=digits)


def _stats_of(cols: _Columns, idx: np.ndarray, values: np.ndarray, correct: np.ndarray,
              bounds: Sequence[float], rule: coverage.UnscoredRule) -> dict[str, Any]:
    """One summary row: counts, tokens and cost of the answers ``idx``; the mean and accuracy of the
    ``values`` / ``correct`` of every task of the group (NaN = unscored, no verdict or no answer; one per
    task) over the scored ones and as the headline counts them (``rule``), with ``bounds`` = (ci_low, ci_high,
    accuracy ci_low, accuracy ci_high, then the same four of the headline) from the shared bootstrap.
    Intervals are NaN, and ``interval_note`` says "n too small", below ``coverage.MIN_INTERVAL_N`` scored."""
    costs = cols.costs[idx]
    unknown = int(np.isnan(costs).sum())
    known_cost = float(np.nansum(costs))
    status = core_costs.cost_status(len(costs) - unknown, unknown)
    n_correct = int(np.nansum(cols.correct[idx]))
    per_correct = known_cost / n_correct if n_correct and status == "complete" else np.nan
    prompt, completion = cols.tokens["prompt_tokens"][idx], cols.tokens["completion_tokens"][idx]
    scored, judged = values[~np.isnan(values)], correct[~np.isnan(correct)]
    total = int(values.size)
    few, few_judged = scored.size < coverage.MIN_INTERVAL_N, judged.size < coverage.MIN_INTERVAL_N
    hidden = (few, few, few_judged, few_judged) * 2      # (mean, accuracy) intervals, scored then headline
    b = [np.nan if hide else float(v) for hide, v in zip(hidden, bounds)]
    # the benchmark's own aggregation (its declaration); nothing scored: no headline, not a 0
    headline = rule.headline_mean(float(scored.sum()), int(scored.size), total)
    headline = np.nan if headline is None else headline
    if rule.counts_as is None:               # the benchmark drops unscored items: headline = scored mean
        headline_acc = float(judged.mean()) if judged.size else np.nan
        b[4:8] = b[0:4]
    else:
        headline_acc = float(judged.sum()) / total if judged.size else np.nan
    return {
        "total": total, "answers": len(idx), "n": int(scored.size), "unscored": len(idx) - int(scored.size),
        "missing": total - len(idx), "coverage": scored.size / total if total else np.nan,
        "headline": headline, "headline_ci_low": b[4], "headline_ci_high": b[5],
        "headline_accuracy": headline_acc, "headline_accuracy_ci_low": b[6], "headline_accuracy_ci_high": b[7],
        "interval_note": coverage.N_TOO_SMALL if few else "",
        "mean": float(scored.mean()) if scored.size else np.nan, "ci_low": b[0], "ci_high": b[1],
        "n_correct_known": int(judged.size), "accuracy": float(judged.mean()) if judged.size else np.nan,
        "accuracy_ci_low": b[2], "accuracy_ci_high": b[3],
        "prompt_tokens": _sum_known(prompt), "completion_tokens": _sum_known(completion),
        "reasoning_tokens": _sum_known(cols.tokens["reasoning_tokens"][idx]),
        "tokens_unknown": int((np.isnan(prompt) | np.isnan(completion)).sum()),
        "cost_usd": known_cost if status != "unknown" else np.nan, "cost_unknown": unknown, "cost_status": status,
        "cost_per_correct_usd": per_correct,
        "judge_cost_usd": _sum_known(cols.judge_cost[idx]),
        "overridden": int(cols.overridden[idx].sum()),
    }


def _sum_known(col: Any) -> float:
    a = np.asarray(col, dtype=float)
    return float(np.nansum(a)) if (~np.isnan(a)).any() else np.nan


def summarise(answers: pd.DataFrame, *, strata: str | None = "category", n_resamples: int = 2000,
              seed: int | None = 0, groups: Sequence[str] = (), pairs: bool = False, statistic: str = "mean",
              scorer: str | None = None, tasks: pd.DataFrame | None = None
              ) -> tuple[pd.DataFrame, dict[str, pd.DataFrame], list[tuple[str, str, statistics.PairedDifference]]]:
    """``source_summary``, ``group_summary`` for each column of ``groups`` and, with ``pairs``, the paired
    difference (``statistic``: mean or accuracy) of every pair of sources (a before b in name order), all
    from one set of draws: (summary, {group column: group summary}, [(a, b, PairedDifference)]).

    Every row covers the tasks of the comparison, of the group (``total``): the tasks of ``tasks`` (the
    scope, ``load_scope``: the project's tasks of the benchmarks answered, under the same filters as
    ``answers``) together with any task answered; without ``tasks``, the tasks any source answered. The
    headline mean counts a task a source did not score or did not answer (``missing``) as
    ``coverage.unscored_rule(scorer)`` says (``scorer`` None: the long table's ``scorer`` column); ``mean``
    is over the scored answers only. A pair's
    interval is left out (None, not distinguishable) when it shares fewer than ``coverage.MIN_INTERVAL_N``
    scored tasks.

    Raises ValueError for another statistic or for two answers of one source to one task."""
    if statistic not in ("mean", "accuracy"):
        raise ValueError(f"unknown statistic {statistic!r}: use 'mean' or 'accuracy'")
    if answers.empty:
        empty = pd.DataFrame(columns=_STAT_COLUMNS + ["rater_agreement"])
        empty.index.name = "source"
        return empty, {by: pd.DataFrame(columns=_STAT_COLUMNS) for by in groups}, []
    if scorer is None and "scorer" in answers:
        named = [str(x) for x in answers["scorer"] if isinstance(x, str) and x]
        scorer = named[0] if named else None
    rule = coverage.unscored_rule(scorer)
    cols = _Columns(answers)
    scope = tasks
    tasks = _TaskGrid(answers, strata, n_resamples, seed, scope)
    values, correct = tasks.grid(cols.values), tasks.grid(cols.correct)
    if rule.counts_as is None:
        head_values, head_correct = values, correct
    else:
        head_values = np.where(np.isnan(values), rule.counts_as, values)
        head_correct = np.where(np.isnan(correct), 0.0, correct)
    both = np.hstack([values, correct, head_values, head_correct])
    n_src = len(tasks.sources)
    blocks: list[tuple[np.ndarray | None, np.ndarray]] = [(None, both)]
    members: dict[str, tuple[dict[str, int], list[np.ndarray], int]] = {}
    for by in groups:
        names, codes = np.unique(tasks.task_labels(by), return_inverse=True)
        rows = [np.flatnonzero(codes == k) for k in range(len(names))]
        members[by] = ({name: k for k, name in enumerate(names)}, rows, len(blocks))
        blocks += [(r, both[r]) for r in rows]
    pair_list = [(a, b) for a in range(n_src) for b in range(a + 1, n_src)] if pairs else []
    m = correct if statistic == "accuracy" else values     # accuracy is 0/1 here: its mean difference is the
    diffs = np.column_stack([m[:, a] - m[:, b] for a, b in pair_list]) if pair_list else None  # accuracy's
    if diffs is not None:
        blocks.append((None, diffs))
    bounds = tasks.boot.intervals(blocks)

    def row(idx: np.ndarray, task_rows: np.ndarray | slice, j: int, block: int) -> dict[str, Any]:
        lo, hi = bounds[block]
        return _stats_of(cols, idx, values[task_rows, j], correct[task_rows, j],
                         [x[k * n_src + j] for k in range(4) for x in (lo, hi)], rule)

    by_source = answers.groupby("source", sort=True).indices
    summary = pd.DataFrame.from_dict({src: row(by_source[src], slice(None), j, 0)
                                      for j, src in enumerate(tasks.sources)}, orient="index")
    summary.index.name = "source"
    summary["rater_agreement"] = np.nan
    source_at = {src: j for j, src in enumerate(tasks.sources)}
    tables = {}
    for by in groups:
        where, rows, first = members[by]
        cells = {}
        answered = answers.groupby([answers["source"], _group_labels(answers[by])], sort=True).indices
        none = np.zeros(0, dtype=np.int64)
        for src in tasks.sources:                  # a group no answer of src is in still has its tasks
            for group, k in where.items():
                idx = answered.get((src, group), none)
                if len(idx) or scope is not None:
                    cells[(src, group)] = row(idx, rows[k], source_at[src], first + k)
        table = pd.DataFrame.from_dict(cells, orient="index")
        table.index = pd.MultiIndex.from_tuples(table.index, names=["source", by])
        tables[by] = table
    differences = []
    for p, (a, b) in enumerate(pair_list):
        lo, hi = bounds[-1][0][p], bounds[-1][1][p]
        ok_a, ok_b = ~np.isnan(m[:, a]), ~np.isnan(m[:, b])
        d = diffs[:, p][ok_a & ok_b]
        only_a, only_b = int((ok_a & ~ok_b).sum()), int((ok_b & ~ok_a).sum())
        # NaN: no replicate drew a shared task; below MIN_INTERVAL_N shared tasks no interval is shown
        bounded = d.size >= coverage.MIN_INTERVAL_N and not (np.isnan(lo) or np.isnan(hi))
        differences.append((tasks.sources[a], tasks.sources[b], statistics.PairedDifference(
            float(d.mean()) if d.size else None, float(lo) if bounded else None, float(hi) if bounded else None,
            bounded and bool(lo > 0 or hi < 0), int(d.size), only_a, only_b, n_resamples, seed)))
    return summary, tables, differences


def source_summary(answers: pd.DataFrame, *, strata: str | None = "category", n_resamples: int = 2000,
                   seed: int | None = 0) -> pd.DataFrame:
    """One row per source (index ``source``) from the long table; see the module docstring for the columns.

    Intervals are 95 % percentile intervals of the stratified task bootstrap shared by every source
    (``statistics.TaskBootstrap``: tasks resampled within each ``strata`` group, None: one group; each
    source averaged over the tasks it scored in a replicate). ``cost_usd`` sums the known costs;
    ``cost_status`` says whether any was unknown; ``cost_per_correct_usd`` is NaN unless every cost is known
    and one answer is correct.
    """
    return summarise(answers, strata=strata, n_resamples=n_resamples, seed=seed)[0]


def group_summary(answers: pd.DataFrame, by: str = "category", *, strata: str | None = "category",
                  n_resamples: int = 2000, seed: int | None = 0) -> pd.DataFrame:
    """One row per (source, group) with the columns of ``source_summary``. Index: (source, by).

    ``by``: a task column: category, sub_category, scenario or answer_type. A group's intervals come from
    the replicates of ``source_summary`` (same ``strata``, replicates and seed) restricted to the group's
    tasks: grouped by the strata column, that is a plain bootstrap of each group's tasks.
    """
    return summarise(answers, strata=strata, n_resamples=n_resamples, seed=seed, groups=(by,))[1][by]


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


def paired(answers: pd.DataFrame, source_a: str, source_b: str, *, statistic: str = "mean",
           strata: str | None = "category", n_resamples: int = 2000, seed: int | None = 0) -> statistics.PairedDifference:
    """Mean score (or ``statistic="accuracy"``) of ``source_a`` minus ``source_b`` over the tasks both scored,
    with its 95 % interval from the stratified task bootstrap of ``source_summary`` (both sources on the
    same resampled tasks, the paired bootstrap; each replicate averages the differences of the tasks it
    drew that both scored); "distinguishable" only when the interval excludes 0. The same numbers as the
    pair's row of ``pair_table``.

    Raises KeyError for a source label not in ``answers``; ValueError for another statistic."""
    known = set(answers["source"]) if not answers.empty else set()
    for src in (source_a, source_b):
        if src not in known:
            raise KeyError(f"no source {src!r}; sources: {', '.join(sorted(map(str, known)))}")
    pairs = summarise(answers, strata=strata, n_resamples=n_resamples, seed=seed, pairs=True, statistic=statistic)[2]
    for a, b, d in pairs:
        if (a, b) == (source_a, source_b):
            return d
        if (a, b) == (source_b, source_a):          # the table holds a - b in name order: flip it
            return dataclasses.replace(d, difference=None if d.difference is None else -d.difference,
                                       ci_low=None if d.ci_high is None else -d.ci_high,
                                       ci_high=None if d.ci_low is None else -d.ci_low, only_a=d.only_b,
                                       only_b=d.only_a)
    raise KeyError(f"{source_a!r} and {source_b!r} are one source")


def pair_table(answers: pd.DataFrame, *, statistic: str = "mean", n_resamples: int = 2000,
               seed: int | None = 0, strata: str | None = "category") -> pd.DataFrame:
    """Every pair of sources (a before b in name order): difference, ci_low, ci_high, distinguishable,
    n_shared, only_a, only_b (see ``paired``; every pair from the same draws)."""
    pairs = summarise(answers, strata=strata, n_resamples=n_resamples, seed=seed, pairs=True, statistic=statistic)[2]
    return _pair_frame(pairs)


def _pair_frame(pairs: Sequence[tuple[str, str, statistics.PairedDifference]]) -> pd.DataFrame:
    rows = [{"source_a": a, "source_b": b, "difference": _f(d.difference), "ci_low": _f(d.ci_low),
             "ci_high": _f(d.ci_high), "distinguishable": d.distinguishable, "n_shared": d.n_shared,
             "only_a": d.only_a, "only_b": d.only_b} for a, b, d in pairs]
    return pd.DataFrame(rows, columns=["source_a", "source_b", "difference", "ci_low", "ci_high", "distinguishable",
                                       "n_shared", "only_a", "only_b"])


def _f(x: float | None) -> float:
    return np.nan if x is None else float(x)


@dataclass(frozen=True)
class JudgeAgreement:
    """How the LLM judge agrees with the scores people set. A pair is a judged machine row that a person
    overrode directly (the person's row has ``overrides_id`` = the judged row's id).

    ``n`` pairs, ``agree`` of them with the same verdict (``correct`` when both rows have one, else the
    same value), ``rate`` = agree / n (None when n is 0). ``pass_fail``: Cohen's kappa and percent
    agreement (``statistics.pass_fail_agreement``, Cohen 1960) over the pairs where both rows have a pass/fail
    verdict (``correct``), the judge as rater a and the person as rater b; None without such pairs.
    """

    n: int
    agree: int
    pass_fail: statistics.Agreement | None = None

    @property
    def rate(self) -> float | None:
        return self.agree / self.n if self.n else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa of the judge's and the people's pass/fail verdicts (None when undefined)."""
        return None if self.pass_fail is None else self.pass_fail.kappa


def judge_agreement(project: Project, scorer: str) -> JudgeAgreement:
    """Agreement of the LLM judge with the scores people set: each judged machine row directly overridden
    by a person is one pair (see ``JudgeAgreement``)."""
    cols = (Score.id, Score.value, Score.correct, Score.judge, Score.author, Score.overrides_id)
    with project.read() as s:
        rows = s.execute(select(*cols).where(Score.scorer == scorer, Score.author.is_not(None))).all()
        parents = {r.overrides_id for r in rows if r.overrides_id}
        by_id = {r.id: r for r in s.execute(select(*cols).where(Score.id.in_(parents))).all()} if parents else {}
    n = agree = 0
    judge_pass: list[bool] = []
    person_pass: list[bool] = []
    for r in rows:
        old = by_id.get(r.overrides_id) if r.overrides_id else None
        if r.author is None or old is None or old.author is not None or not old.judge:
            continue
        n += 1
        if old.correct is not None and r.correct is not None:
            agree += old.correct == r.correct
            judge_pass.append(bool(old.correct))
            person_pass.append(bool(r.correct))
        else:
            agree += old.value == r.value
    return JudgeAgreement(n, agree, statistics.pass_fail_agreement(judge_pass, person_pass) if judge_pass else None)


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


def filter_tasks(frame: pd.DataFrame, *, category: str | None = None, scenario: str | None = None,
                 answer_type: str | None = None) -> pd.DataFrame:
    """The rows of ``frame`` (the long table or a scope of ``load_scope``) whose task matches every
    column filter given (None: any); the scope of a filtered comparison is filtered with the same values."""
    df = frame
    for col, want in (("category", category), ("scenario", scenario), ("answer_type", answer_type)):
        if want is not None:
            df = df[df[col] == want]
    return df


def filter_answers(answers: pd.DataFrame, *, category: str | None = None, scenario: str | None = None,
                   answer_type: str | None = None, disagree: bool = False, wrong_only: bool = False) -> pd.DataFrame:
    """The long table restricted to tasks matching every filter.

    ``disagree``: tasks whose scored sources do not all have the same verdict (``correct``, else value);
    ``wrong_only``: tasks where at least one source is not correct (correct False, or value < 1 when the
    scorer has no verdict). Filters select whole tasks, so a task's row stays complete across sources.
    """
    df = filter_tasks(answers, category=category, scenario=scenario, answer_type=answer_type)
    if disagree or wrong_only:
        verdict = [c if c is not None else (None if np.isnan(v) else v) for c, v in zip(df["correct"], df["value"])]
        keyed = pd.DataFrame({"task_id": df["task_id"].to_numpy(), "verdict": verdict})
        keyed = keyed[keyed["verdict"].notna()]
        keep = set(df["task_id"])
        if disagree:
            counts = keyed.groupby("task_id")["verdict"].agg(lambda s: len(set(s)))
            keep &= set(counts[counts > 1].index)
        if wrong_only:
            # a boolean array, not a list: an empty list would select no columns (no answer scored yet)
            wrong = keyed[np.array([v is False or (not isinstance(v, bool) and v < 1) for v in keyed["verdict"]],
                                   dtype=bool)]
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
    tasks: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=_TASK_COLS))
    """The scope the totals cover (``load_scope``): the project's tasks of the benchmarks answered."""

    @property
    def sources(self) -> list[str]:
        """Source labels in table order."""
        return list(self.summary.index)

    @property
    def coverage_warnings(self) -> list[str]:
        """The coverage warning (at most one sentence) when two sources' coverages differ by more than 5
        points, with each source's n of total scored (``coverage.coverage_warnings``)."""
        return coverage.coverage_warnings(self.summary)

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
    scope = load_scope(project, answers)
    summary, tables, differences = summarise(answers, strata="category", n_resamples=n_resamples, seed=seed,
                                              groups=list(dict.fromkeys(["category", *groups])), pairs=True,
                                              scorer=scorer, tasks=scope)
    by_category, pairs = tables["category"], _pair_frame(differences)
    ratings = ratings_frame(project)
    if agreement is not None and not ratings.empty and not summary.empty:
        values = pd.Series(agreement(answers, ratings), dtype=float)
        summary["rater_agreement"] = values.reindex(summary.index)
    extra = {g: tables[g] for g in groups}
    return Comparison(scorer, scorer_description(scorer) if scorer else "no scores yet", answers, summary, by_category,
                      pairs, judge_agreement(project, scorer) if scorer else JudgeAgreement(0, 0), ratings,
                      n_resamples, seed, extra, scope)
