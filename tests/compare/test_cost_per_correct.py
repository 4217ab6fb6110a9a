"""Cost per correct answer and the cost-accuracy frontier (fieldstudio.compare.cost_per_correct), on long tables
written here, with every figure computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fieldstudio.compare import plots
from fieldstudio.compare.cost_per_correct import cost_per_correct_table, cost_tables, pareto_frontier


def _answers(source: str, costs: list, correct: list, category: str = "c") -> pd.DataFrame:
    value = [np.nan if c is None else float(c) for c in correct]
    return pd.DataFrame({"source": source, "category": category,
                         "cost_usd": [np.nan if c is None else c for c in costs], "value": value,
                         "correct_value": value})


def test_known_unknown_and_no_correct_are_told_apart():
    answers = pd.concat([
        _answers("known", [0.01] * 4, [1, 1, 0, None]),          # $0.04 for 2 correct; the unscored one is paid for
        _answers("partial", [0.01, None, 0.01, 0.01], [1, 1, 1, 1]),
        _answers("never", [0.01] * 4, [0, 0, 0, 0]),
        _answers("free-local", [0.0] * 2, [1, 0]),                 # a stated $0 (cost per hour 0) is a cost
    ])
    table = cost_per_correct_table(answers, n_resamples=200)
    assert table.loc["known", "cost_per_correct_usd"] == pytest.approx(0.02)
    assert (table.loc["known", "scored"], table.loc["known", "correct"]) == (3, 2)
    assert table.loc["known", "cost_per_correct"] == "$0.0200 [n too small]"
    assert math.isnan(table.loc["partial", "cost_per_correct_usd"])
    assert table.loc["partial", "cost_per_correct"] == "unknown (3 of 4 answers priced)"
    assert table.loc["never", "cost_per_correct"] == "no correct answer ($0.0400 spent)"
    assert table.loc["free-local", "cost_per_correct"] == "$0.0000 [n too small]"
    assert table.loc["known", "accuracy"] == pytest.approx(2 / 3)


def test_the_interval_is_the_bootstrap_of_the_ratio():
    """20 answers at $0.01, 10 correct: $0.02 per correct. With a constant cost, a resample's ratio is 0.2 / k where
    k ~ Binomial(20, 0.5); its 2.5 % and 97.5 % quantiles are 6 and 14 (P(X <= 5) = 0.021, P(X <= 6) = 0.058,
    P(X <= 13) = 0.942, P(X <= 14) = 0.979), so the interval is about [0.2 / 14, 0.2 / 6] (interpolation may reach
    a neighbouring k)."""
    binom = [math.comb(20, k) / 2 ** 20 for k in range(21)]
    assert sum(binom[:6]) == pytest.approx(0.0207, abs=1e-4) and sum(binom[:15]) == pytest.approx(0.9793, abs=1e-4)
    table = cost_per_correct_table(_answers("m", [0.01] * 20, [1, 0] * 10), n_resamples=4000, seed=1)
    row = table.loc["m"]
    assert row["cost_per_correct_usd"] == pytest.approx(0.02)
    assert 0.2 / 15 <= row["ci_low"] <= 0.2 / 14 + 1e-12
    assert 0.2 / 6 - 1e-12 <= row["ci_high"] <= 0.2 / 5
    assert row["cost_per_correct"] == f"$0.0200 [{row['ci_low']:.4f}, {row['ci_high']:.4f}]"


def test_no_bound_when_a_resample_can_have_no_correct_answer():
    """1 correct of 12: a resample has no correct answer with probability (11/12)^12 = 0.35, above 2.5 %."""
    row = cost_per_correct_table(_answers("m", [0.01] * 12, [1] + [0] * 11), n_resamples=500).loc["m"]
    assert row["cost_per_correct_usd"] == pytest.approx(0.12) and math.isinf(row["ci_high"])
    assert row["cost_per_correct"].endswith(", no bound]")


def test_per_category_and_the_json_and_display_forms():
    answers = pd.concat([_answers("m", [0.01] * 2, [1, 1], "a"), _answers("m", [0.03] * 2, [1, 0], "b")])
    tables = cost_tables(answers, n_resamples=100)
    assert tables.by_source.loc["m", "cost_per_correct_usd"] == pytest.approx(0.08 / 3)
    assert tables.by_category.loc[("m", "a"), "cost_per_correct_usd"] == pytest.approx(0.01)
    assert tables.by_category.loc[("m", "b"), "cost_per_correct_usd"] == pytest.approx(0.06)
    shown = tables.display()
    assert shown[["source", "category"]].values.tolist() == [["m", "all"], ["m", "a"], ["m", "b"]]
    assert shown.loc[2, "cost per correct [95 % interval]"] == "$0.0600 [n too small]"
    as_json = tables.to_json()
    assert as_json["m"]["categories"]["b"]["cost_per_correct_usd"] == pytest.approx(0.06)
    assert as_json["m"]["all"]["ci_low"] is None


def test_the_pareto_frontier():
    points = [("a", 1.0, 0.5), ("b", 2.0, 0.7), ("c", 3.0, 0.6), ("d", 0.5, 0.4), ("e", math.nan, 0.9),
              ("f", 2.0, 0.65)]
    # c costs more than b and is less accurate; f costs as much as b and is less accurate; e's cost is unknown
    assert pareto_frontier(points) == ["d", "a", "b"]


def test_the_frontier_plot_leaves_unknown_costs_out_and_names_them(tmp_path):
    answers = pd.concat([_answers("cheap", [0.01] * 4, [1, 0, 0, 0]), _answers("good", [0.05] * 4, [1, 1, 1, 0]),
                         _answers("local", [None] * 4, [1, 1, 1, 1])])
    fig = plots.cost_frontier(cost_per_correct_table(answers, n_resamples=50))
    assert "cost unknown (left out): local" in fig.axes[0].get_title()
    path = plots.save_figure(fig, tmp_path / "frontier.png")
    assert path.stat().st_size > 5000


def test_the_shown_accuracy_says_how_many_judged_answers_it_covers():
    """4 answers, 3 judged (one unscored), 2 correct: 66.7 % of 3 judged, not of the 4 answers listed beside it."""
    shown = cost_tables(_answers("known", [0.01] * 4, [1, 1, 0, None]), n_resamples=50).display()
    row = shown[shown["category"] == "all"].iloc[0]
    assert (row["answers"], row["correct"]) == (4, 2)
    assert row["accuracy"] == "66.7% (2 of 3 judged)"


def test_a_known_cost_below_the_last_decimal_is_not_shown_as_zero():
    """A local model at $0.50 an hour answering in 0.1 s: $0.5 * 0.1 / 3600 = $0.0000139 an answer; 2 answers, 1
    correct: $0.0000278 spent and per correct, shown with two significant digits rather than "$0.0000"."""
    per_answer = 0.5 * 0.1 / 3600
    shown = cost_tables(_answers("local", [per_answer] * 2, [1, 0]), n_resamples=50).display()
    row = shown[shown["category"] == "all"].iloc[0]
    assert row["cost"] == "$0.000028"
    assert row["cost per correct [95 % interval]"] == "$0.000028 [n too small]"
    never = cost_per_correct_table(_answers("never", [per_answer] * 2, [0, 0]), n_resamples=50)
    assert never.loc["never", "cost_per_correct"] == "no correct answer ($0.000028 spent)"
