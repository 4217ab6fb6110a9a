"""Cost per correct answer per source (and per category) with its bootstrap interval, and the cost-accuracy frontier.

Cost per correct = the known cost of a source's answers / the number its scorer judged correct (an unscored answer
is paid for and not correct). It is stated only when every answer's cost is known (a token-priced profile with
usage reported, a batch at a known discount, or a local model with a stated cost per hour: ``client.cost``); else
it is "unknown (k of n answers priced)", never a number that leaves unknown costs out, and never $0.

Its interval is a percentile bootstrap of the ratio: tasks resampled with replacement (within each category, as
the Summary's intervals are), the ratio of the resampled sums in each replicate. A replicate with no correct answer
has no finite ratio, so the upper bound is then "no bound" (infinity). As elsewhere, no interval is shown below
``coverage.MIN_INTERVAL_N`` scored answers.

The frontier: sources with a known total cost and an accuracy; a source is on it when no other source is at most as
costly and at least as accurate, and better on one of the two (the Pareto frontier).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fieldstudio.compare.coverage import MIN_INTERVAL_N, N_TOO_SMALL
from fieldstudio.core import costs

__all__ = ["COLUMNS", "NOTE", "CostTables", "cost_per_correct_table", "cost_tables", "cost_text", "pareto_frontier"]

COLUMNS = ["answers", "priced", "scored", "judged", "correct", "cost_usd", "cost_status", "accuracy", "cost_per_correct_usd",
           "ci_low", "ci_high", "cost_per_correct"]
"""The columns of `cost_per_correct_table` (its index: source, or (source, group))."""


@dataclass(frozen=True)
class _Ratio:
    value: float
    low: float
    high: float


def _ratio_interval(cost: np.ndarray, correct: np.ndarray, strata: np.ndarray, n_resamples: int, seed: int | None
                    ) -> _Ratio:
    """Percentile interval (95 %) of sum(cost) / sum(correct) under a stratified bootstrap of the rows."""
    rng = np.random.default_rng(seed)
    cost_sum = np.zeros(n_resamples)
    correct_sum = np.zeros(n_resamples)
    for label in np.unique(strata):
        rows = np.flatnonzero(strata == label)
        draws = rng.integers(0, rows.size, size=(n_resamples, rows.size))
        # correct is 0/1: the correct count of a replicate is how many of its draws fall on a correct row
        cost_sum += cost[rows][draws].sum(axis=1)
        correct_sum += np.count_nonzero(correct[rows].astype(bool)[draws], axis=1)
    # a replicate without a correct answer has no ratio: it stands above every finite one ("no bound")
    big = np.finfo(float).max / 4
    ratios = np.where(correct_sum > 0, cost_sum / np.where(correct_sum > 0, correct_sum, 1), big)
    low, high = (math.inf if v >= big / 2 else float(v) for v in np.percentile(ratios, [2.5, 97.5]))
    return _Ratio(float(cost.sum() / correct.sum()), low, high)


def cost_text(row: pd.Series | dict, digits: int = 4) -> str:
    """What a person reads for one row: ``$0.0123 [0.0100, 0.0150]``, ``$0.0123 [n too small]``, ``$0.0123 [0.0100,
    no bound]``, ``no correct answer ($0.0400 spent)``, ``unknown (3 of 10 answers priced)``."""
    status = row["cost_status"]
    if status != "complete":        # a partial sum would under-count: the ratio is unknown
        return f"unknown ({int(row['priced'])} of {int(row['answers'])} answers priced)"
    if not row["correct"]:
        return f"no correct answer ({costs.usd_text(row['cost_usd'], digits)} spent)"
    value = costs.usd_text(row["cost_per_correct_usd"], digits)
    if row["scored"] < MIN_INTERVAL_N or math.isnan(row["ci_low"]):
        return f"{value} [{N_TOO_SMALL}]"
    high = "no bound" if math.isinf(row["ci_high"]) else costs.usd_text(row["ci_high"], digits)[1:]
    return f"{value} [{costs.usd_text(row['ci_low'], digits)[1:]}, {high}]"


def _row(group: pd.DataFrame, n_resamples: int, seed: int | None, strata: str | None) -> dict:
    cost = group["cost_usd"].to_numpy(dtype=float)
    correct_value = group["correct_value"].to_numpy(dtype=float)
    answers, priced = len(group), int(np.isfinite(cost).sum())
    correct = np.nan_to_num(correct_value, nan=0.0)                # unscored: paid for, not correct
    status = costs.cost_status(priced, answers - priced)
    out = {"answers": answers, "priced": priced, "scored": int(np.isfinite(group["value"].to_numpy(dtype=float)).sum()),
           "judged": int(np.isfinite(correct_value).sum()), "correct": int(correct.sum()), "cost_usd": float(np.nansum(cost)) if priced else math.nan,
           "cost_status": status,
           "accuracy": float(correct_value[np.isfinite(correct_value)].mean()) if np.isfinite(correct_value).any()
           else math.nan, "cost_per_correct_usd": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    if status == "complete" and correct.sum() > 0 and out["scored"] >= MIN_INTERVAL_N:
        labels = (group[strata].astype(str).to_numpy() if strata and strata in group else np.zeros(answers, dtype=int))
        r = _ratio_interval(cost, correct, labels, n_resamples, seed)
        out.update(cost_per_correct_usd=r.value, ci_low=r.low, ci_high=r.high)
    elif status == "complete" and correct.sum() > 0:          # too few scored for an interval (the Summary's rule)
        out["cost_per_correct_usd"] = float(cost.sum() / correct.sum())
    out["cost_per_correct"] = cost_text(out)
    return out


def cost_per_correct_table(answers: pd.DataFrame, by: str | None = None, *, n_resamples: int = 2000,
                           seed: int | None = 0, strata: str | None = "category") -> pd.DataFrame:
    """Cost per correct answer of each source (``by`` None) or each (source, ``by`` group), from the long table
    (``answer_table.load_answers``: source, cost_usd, value, correct_value and the task columns).

    Columns (`COLUMNS`): answers, priced (answers with a known cost), scored, judged (answers the scorer judged
    correct or not), correct (the scorer's verdicts),
    cost_usd (sum of the known costs, NaN when none is known), cost_status (complete / partial / unknown),
    accuracy (correct share of the judged answers), cost_per_correct_usd with ci_low / ci_high (NaN unless every
    cost is known and one answer is correct; ci_high is infinity when a replicate had no correct answer), and
    cost_per_correct (the text, `cost_text`)."""
    if answers.empty:
        return pd.DataFrame(columns=COLUMNS)
    keys = ["source"] if by is None else ["source", by]
    rows = {key: _row(group, n_resamples, seed, strata) for key, group in answers.groupby(keys, sort=True)}
    table = pd.DataFrame.from_dict(rows, orient="index")[COLUMNS]
    if by is None:
        table.index = [k[0] if isinstance(k, tuple) else k for k in table.index]
        table.index.name = "source"
    else:
        table.index = pd.MultiIndex.from_tuples(table.index, names=keys)
    return table


def pareto_frontier(points: Sequence[tuple[str, float, float]]) -> list[str]:
    """The names on the cost-accuracy frontier of ``points`` (name, total cost, accuracy), cheapest first. Points
    with a NaN cost or accuracy are left out (an unknown cost is not cheap)."""
    known = [(n, c, a) for n, c, a in points if not (math.isnan(c) or math.isnan(a))]
    frontier = [(n, c, a) for n, c, a in known
                if not any(c2 <= c and a2 >= a and (c2 < c or a2 > a) for _, c2, a2 in known)]
    return [n for n, _, _ in sorted(frontier, key=lambda p: (p[1], -p[2]))]


@dataclass(frozen=True)
class CostTables:
    """Cost per correct answer ``by_source`` and ``by_category`` (index (source, category)), of one comparison."""

    by_source: pd.DataFrame
    by_category: pd.DataFrame

    def display(self) -> pd.DataFrame:
        """One row per source, then per (source, category): source, category ("all" for the source's row), answers,
        correct, accuracy, cost (text), cost per correct (text), as the report and the Summary show it."""
        rows = []
        for src, r in self.by_source.iterrows():
            rows.append(_display_row(str(src), "all", r))
            if not self.by_category.empty and src in self.by_category.index.get_level_values(0):
                rows += [_display_row(str(src), str(cat), cr) for cat, cr in self.by_category.loc[src].iterrows()]
        return pd.DataFrame(rows, columns=["source", "category", "answers", "correct", "accuracy", "cost",
                                           "cost per correct [95 % interval]"])

    def to_json(self) -> dict:
        """{source: {"all": {...}, "categories": {category: {...}}}} with every `COLUMNS` value (NaN: null,
        infinity: "no bound")."""
        def clean(row: pd.Series) -> dict:
            out = {}
            for k, v in row.items():
                if isinstance(v, (float, np.floating)):
                    v = None if math.isnan(v) else ("no bound" if math.isinf(v) else float(v))
                elif isinstance(v, np.integer):
                    v = int(v)
                out[k] = v
            return out

        result = {}
        for src, r in self.by_source.iterrows():
            cats = ({} if self.by_category.empty or src not in self.by_category.index.get_level_values(0) else
                    {str(c): clean(cr) for c, cr in self.by_category.loc[src].iterrows()})
            result[str(src)] = {"all": clean(r), "categories": cats}
        return result


def _display_row(source: str, category: str, r: pd.Series) -> list:
    cost = "unknown" if r["cost_status"] == "unknown" else (
        costs.usd_text(r["cost_usd"]) if r["cost_status"] == "complete" else f"≥ {costs.usd_text(r['cost_usd'])}")
    # the accuracy's denominator is the judged answers, not the answers column: say how many it covers
    accuracy = ("—" if math.isnan(r["accuracy"])
                else f"{r['accuracy']:.1%} ({int(r['correct'])} of {int(r['judged'])} judged)")
    return [source, category, int(r["answers"]), int(r["correct"]), accuracy, cost, r["cost_per_correct"]]


def cost_tables(answers: pd.DataFrame, *, n_resamples: int = 2000, seed: int | None = 0) -> CostTables:
    """`cost_per_correct_table` by source and by category of a comparison's long table."""
    by_category = (cost_per_correct_table(answers, "category", n_resamples=n_resamples, seed=seed, strata=None)
                   if "category" in answers else pd.DataFrame(columns=COLUMNS))
    return CostTables(cost_per_correct_table(answers, n_resamples=n_resamples, seed=seed), by_category)


NOTE = ("Cost per correct answer: the known cost of a source's answers divided by the answers its scorer judged "
        "correct (an unscored answer is paid for and not correct); stated only when every answer's cost is known "
        "(token prices with usage reported, a batch at a known discount, or a profile's cost per hour for a local "
        "model), else \"unknown\", never $0. Interval: 95 % percentile bootstrap of the ratio over tasks resampled "
        "within each category; \"no bound\" when some resample has no correct answer; none below "
        f"{MIN_INTERVAL_N} scored answers ({N_TOO_SMALL}). The frontier: sources no other source beats on both "
        "cost and accuracy.")
"""The one paragraph the report and the Summary print beside the table."""
