"""Per-source and per-group summaries of the long table, and the paired differences of sources, from one set of draws.

``summarise`` gives at once ``source_summary`` (one row per source), ``group_summary`` (one row per source and
category, sub-category, scenario or answer type) and the paired difference of every pair of sources
(``pair_table``, ``paired``). A summary row: total (tasks of the scope), answers, n scored, unscored, missing,
coverage (n / total), the headline mean and accuracy, which count unscored and missing answers as the
benchmark's evaluator does (``coverage.unscored_rule``: 0 for FieldWorkArena), with their intervals,
``interval_note`` ("n too small": no interval below 10 scored), then the mean over the scored answers with its
95 % bootstrap interval (stratified by category, seeded, 2,000 resamples by default), accuracy (share
``correct``, FWA's score > 0.5) with its interval, tokens, cost (complete / partial / unknown), cost per
correct answer, judge cost, and ``rater_agreement`` (filled by ``comparison.build_comparison``'s hook). A
pair is "distinguishable" only when the 95 % interval of its difference excludes 0.

Every interval comes from one stratified task bootstrap (``statistics.TaskBootstrap``, Koehn's paired
bootstrap): each replicate resamples the tasks within each category, and every source, every pair and
every category is averaged over the tasks that replicate drew, so one set of draws serves the whole
comparison and a pair's interval is consistent with its two sources'.

Statistics come from ``fieldstudio.core.statistics`` (sources there: benchmarks.md §1.6, §4.3, §4.5).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fieldstudio.compare import coverage, official
from fieldstudio.compare.answer_table import NO_GROUP
from fieldstudio.core import costs as core_costs
from fieldstudio.core import statistics

__all__ = ["summarise", "applicable", "source_summary", "group_summary", "pivot_summary", "paired", "pair_table", "pair_frame",
           "summary_cost_text"]


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
        self.stale = (df["stale_reason"].notna().to_numpy(dtype=bool) if "stale_reason" in df
                      else np.zeros(len(df), dtype=bool))


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


_STAT_COLUMNS = ["total", "answers", "n", "unscored", "stale", "missing", "coverage", "headline", "headline_ci_low",
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
        "stale": int(cols.stale[idx].sum()),
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


def applicable(frame: pd.DataFrame, scorer: str | None) -> pd.DataFrame:
    """The rows of ``frame`` (the long table or a scope, with ``answer_type``) whose task ``scorer`` applies to
    (``ScorerInfo.answer_types``): a time-range scorer's figures never count a text task as a wrong answer."""
    from fieldstudio.scoring.scorers import REGISTRY

    info = REGISTRY.get(scorer or "")
    if info is None or not info.answer_types or "answer_type" not in frame:
        return frame
    return frame[frame["answer_type"].isin(info.answer_types)].reset_index(drop=True)


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
    scored tasks. Tasks ``scorer`` does not apply to (:func:`applicable`) are left out of every figure.

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
    answers, tasks = applicable(answers, scorer), None if tasks is None else applicable(tasks, scorer)
    if answers.empty:
        return summarise(answers, strata=strata, groups=groups, scorer=scorer)
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
    summary = official.with_official(summary, answers, scorer)    # the benchmark's own figure, beside the headline
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
    return pair_frame(pairs)


def pair_frame(pairs: Sequence[tuple[str, str, statistics.PairedDifference]]) -> pd.DataFrame:
    """The pairs ``summarise`` returns as ``pair_table``'s table (one row per pair, NaN for a missing bound)."""
    rows = [{"source_a": a, "source_b": b, "difference": _f(d.difference), "ci_low": _f(d.ci_low),
             "ci_high": _f(d.ci_high), "distinguishable": d.distinguishable, "n_shared": d.n_shared,
             "only_a": d.only_a, "only_b": d.only_b} for a, b, d in pairs]
    return pd.DataFrame(rows, columns=["source_a", "source_b", "difference", "ci_low", "ci_high", "distinguishable",
                                       "n_shared", "only_a", "only_b"])


def _f(x: float | None) -> float:
    return np.nan if x is None else float(x)
