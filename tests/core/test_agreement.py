"""Agreement statistics against published examples and values computed by hand."""

from __future__ import annotations

import math

import pytest

from fieldstudio.core import agreement as ag
from fieldstudio.core.statistics import cohen_kappa

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers, 12 units,
# values 1..5, "*" = missing. Published: nominal alpha = 0.743, interval alpha = 0.849.
K_ROWS = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def krippendorff_table() -> dict[str, dict[str, int]]:
    return {f"u{u + 1}": {r: vals[u] for r, vals in K_ROWS.items() if vals[u] is not None} for u in range(12)}


def test_krippendorff_worked_example_nominal_and_interval():
    table = krippendorff_table()
    assert ag.krippendorff_alpha(table, level="nominal") == pytest.approx(0.743, abs=5e-4)
    assert ag.krippendorff_alpha(table, level="interval") == pytest.approx(0.849, abs=5e-4)


def test_alpha_of_a_small_table_by_hand():
    # 2 raters, 4 items: (a,a) (a,r) (r,r) (r,r). Coincidences: o_aa = 2, o_ar = o_ra = 1, o_rr = 4;
    # n_a = 3, n_r = 5, n = 8. alpha = 1 - (n - 1) * (o_ar + o_ra) / (2 n_a n_r) = 1 - 7*2/30 = 8/15.
    table = {"1": {"x": "accept", "y": "accept"}, "2": {"x": "accept", "y": "reject"},
             "3": {"x": "reject", "y": "reject"}, "4": {"x": "reject", "y": "reject"}}
    assert ag.krippendorff_alpha(table) == pytest.approx(8 / 15)
    # unsure is excluded: adding a third rater who is unsure everywhere changes nothing
    with_unsure = {k: {**v, "z": "unsure"} for k, v in table.items()}
    assert ag.krippendorff_alpha(with_unsure) == pytest.approx(8 / 15)
    interval = ag.alpha_with_ci(with_unsure, n_resamples=200, seed=1)
    assert interval.unscored == 4 and interval.n == 4


def test_alpha_undefined_when_everyone_gives_one_verdict():
    table = {"1": {"x": "accept", "y": "accept"}, "2": {"x": "accept", "y": "accept"}}
    assert ag.krippendorff_alpha(table) is None
    assert ag.krippendorff_alpha({"1": {"x": "accept"}}) is None


def test_alpha_interval_brackets_the_estimate_and_is_seeded():
    table = krippendorff_table()
    a = ag.alpha_with_ci(table, level="nominal", n_resamples=500, seed=7)
    b = ag.alpha_with_ci(table, level="nominal", n_resamples=500, seed=7)
    assert a == b
    assert a.ci_low <= a.estimate <= a.ci_high <= 1.0
    assert a.n == 11                         # unit 12 has a single value: not pairable


def test_cohen_kappa_textbook_example():
    # 50 items: both yes 20, A yes B no 5, A no B yes 10, both no 15.
    # p_o = 35/50 = 0.7; p_yes = 25/50 * 30/50 = 0.3, p_no = 25/50 * 20/50 = 0.2, p_e = 0.5; kappa = 0.4.
    a = ["accept"] * 20 + ["accept"] * 5 + ["reject"] * 10 + ["reject"] * 15
    b = ["accept"] * 20 + ["reject"] * 5 + ["accept"] * 10 + ["reject"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(["accept", "accept"], ["accept", "accept"]) is None   # p_e = 1
    with pytest.raises(ValueError):
        cohen_kappa(["accept"], [])
    # pairwise_agreement leaves out the items either rater was unsure of, then takes the same kappa
    table = {str(i): {"A": x, "B": y} for i, (x, y) in enumerate(zip(a + ["unsure"], b + ["accept"]))}
    (pair,) = ag.pairwise_agreement(table)
    assert (pair.n, pair.agree, pair.kappa) == (50, 35, pytest.approx(0.4))


def test_majority_with_ties_and_unsure():
    assert ag.majority(["accept", "accept", "reject"]) == ("accept", "majority")
    assert ag.majority(["accept", "reject"]) == (None, "tie")
    assert ag.majority(["accept", "reject", "unsure"]) == (None, "tie")
    assert ag.majority(["reject", "unsure", "unsure"]) == ("reject", "majority")
    assert ag.majority(["unsure", None]) == (None, "none")
    assert ag.majority([]) == (None, "none")


TABLE = {
    # item: votes of a, b, c
    "i1": {"a": "accept", "b": "accept", "c": "accept"},
    "i2": {"a": "accept", "b": "reject", "c": "reject"},
    "i3": {"a": "reject", "b": "reject", "c": "accept"},
    "i4": {"a": "unsure", "b": "accept", "c": "reject"},
    "i5": {"a": "accept", "b": "accept"},
}


def test_each_rater_against_the_majority_of_the_others():
    res = ag.rater_vs_majority(TABLE, n_resamples=200, seed=0)
    # a: i1 others (a,a) -> accept, a agrees; i2 others (r,r) -> reject, a disagrees; i3 others (r,a) tie;
    #    i4 a unsure (others tie too, the tie is counted first); i5 others (b) accept -> agrees.
    a = res["a"]
    assert (a.n, a.agree, a.ties, a.unsure) == (3, 2, 2, 0)
    assert a.agreement.estimate == pytest.approx(2 / 3)
    # c: i1 (a,a) agree; i2 (a,r) tie; i3 (r,r) vs accept: disagree; i4 others (unsure, accept) -> accept, c rejects
    c = res["c"]
    assert (c.n, c.agree, c.ties) == (3, 1, 1)
    # b: i1 agree; i2 (a,r) tie; i3 (r,a) tie; i4 others (unsure, reject) -> reject vs accept: disagree; i5 agree
    b = res["b"]
    assert (b.n, b.agree, b.ties) == (3, 2, 2)


def test_source_against_the_majority_counts_ties_and_unsure():
    # majorities: i1 accept, i2 reject, i3 reject, i4 tie (a unsure, b accept, c reject), i5 accept
    scorer = {"i1": "accept", "i2": "accept", "i3": "reject", "i4": "accept", "i5": "unsure"}
    v = ag.source_vs_majority("scorer:x", scorer, TABLE, n_resamples=200)
    assert (v.n, v.agree, v.ties, v.unsure) == (3, 2, 1, 1)
    m = v.metrics
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (1, 1, 0, 1)
    assert m["precision"] == pytest.approx(0.5) and m["recall"] == pytest.approx(1.0)
    assert m["false_accept_rate"] == pytest.approx(0.5)


def test_pairwise_agreement_and_acceptance_rates():
    pairs = {(p.rater_a, p.rater_b): p for p in ag.pairwise_agreement(TABLE)}
    # a-b decided on i1, i2, i3, i5: equal on i1, i3, i5 -> 3/4
    assert (pairs[("a", "b")].n, pairs[("a", "b")].agree) == (4, 3)
    # b-c on i1..i4: equal on i1, i2 -> 2/4
    assert pairs[("b", "c")].rate == pytest.approx(0.5)
    rates = ag.acceptance_rates(TABLE)
    assert rates["a"] == {"rated": 5, "accept": 3, "reject": 1, "unsure": 1, "acceptance_rate": 0.75}


def test_verdict_metrics_by_hand():
    # TP 3, FP 1, FN 2, TN 4, plus 2 pairs left out (unsure prediction, unsure reference)
    pairs = ([("accept", "accept")] * 3 + [("accept", "reject")] + [("reject", "accept")] * 2
             + [("reject", "reject")] * 4 + [("unsure", "accept"), ("accept", None)])
    m = ag.verdict_metrics_with_ci(pairs, n_resamples=400, seed=3)
    assert m["agreement"].estimate == pytest.approx(0.7)
    assert m["precision"].estimate == pytest.approx(0.75)
    assert m["recall"].estimate == pytest.approx(0.6)
    assert m["f1"].estimate == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert m["false_accept_rate"].estimate == pytest.approx(0.2)
    assert m["miss_rate"].estimate == pytest.approx(0.4)
    assert m["agreement"].unscored == 2 and m["agreement"].n == 10
    for iv in m.values():
        assert 0.0 <= iv.ci_low <= iv.estimate <= iv.ci_high <= 1.0
    assert ag.verdict_metrics_with_ci(pairs, n_resamples=400, seed=3) == m


def test_summary_puts_it_together():
    s = ag.agreement_summary(TABLE, sources={"scorer:x": {"i1": "accept"}},
                             numeric_fields={"tape": {"i1": {"a": 3.0, "b": 3.0}, "i2": {"a": 2.0, "b": 2.5}}},
                             n_resamples=100)
    d = s.to_dict()
    assert (d["n_items"], d["n_raters"], d["n_ratings"], d["n_unsure"], d["majority_ties"]) == (5, 3, 14, 1, 1)
    assert d["alpha"] == pytest.approx(ag.krippendorff_alpha(TABLE))
    assert "tape" in d["field_alpha"] and d["sources_vs_majority"]["scorer:x"]["n"] == 1
    assert not math.isnan(d["alpha"])


# ---------------------------------------------------------------- a judge against a person (issue 18 §5)
def test_judge_audit_against_a_hand_computation():
    from fieldstudio.core.agreement import judge_audit, wilson_interval

    # 20 answers: judge pass & person pass 9, judge pass & person fail 3 (false accepts),
    # judge fail & person pass 1, both fail 7
    judge = [True] * 9 + [True] * 3 + [False] * 1 + [False] * 7
    person = [True] * 9 + [False] * 3 + [True] * 1 + [False] * 7
    a = judge_audit(judge, person)
    # p_o = 16/20 = 0.8; judge passes 12/20 = 0.6, person 10/20 = 0.5;
    # p_e = 0.6*0.5 + 0.4*0.5 = 0.5; kappa = (0.8 - 0.5) / 0.5 = 0.6
    assert (a.n, a.agree, a.false_accepts, a.false_rejects) == (20, 16, 3, 1)
    assert a.accuracy == pytest.approx(0.8) and a.kappa == pytest.approx(0.6)
    # SE = sqrt(0.8 * 0.2 / (20 * 0.5^2)) = sqrt(0.032) = 0.178885; 1.959964 * SE = 0.350609
    assert a.kappa_ci == (pytest.approx(0.6 - 0.350609, abs=1e-6), pytest.approx(0.6 + 0.350609, abs=1e-6))
    # Wilson, z = 1.959964, n = 20, p = 0.8: z²/n = 0.192073; centre (0.8 + 0.096036) / 1.192073 = 0.751662;
    # half = 1.959964 * sqrt(0.008 + 0.002401) / 1.192073 = 1.959964 * 0.101985 / 1.192073 = 0.167680
    assert a.accuracy_ci == (pytest.approx(0.583982, abs=1e-5), pytest.approx(0.919342, abs=1e-5))
    assert wilson_interval(0, 0) == (None, None)
    lo, hi = wilson_interval(10, 10)                       # p = 1: the interval is not empty
    assert hi == pytest.approx(1.0) and lo == pytest.approx(10 / (10 + 1.959964 ** 2), abs=1e-6)   # n/(n+z²)
    # one label only from both: kappa undefined, accuracy still 1
    same = judge_audit([True] * 5, [True] * 5)
    assert same.kappa is None and same.kappa_ci == (None, None) and same.accuracy == 1.0
    assert judge_audit([], []).accuracy is None
    with pytest.raises(ValueError):
        judge_audit([True], [])
