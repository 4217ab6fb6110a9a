"""Statistics: mean, accuracy, seeded stratified bootstrap, paired differences and cost per correct answer."""

from __future__ import annotations

import time

import numpy as np
import pytest

from fieldstudio.core import statistics as st


def test_mean_and_accuracy():
    scores = [1.0, 0.5, 0.6, 0.0, None]
    assert st.mean(scores) == pytest.approx(2.1 / 4)
    assert st.accuracy(scores) == pytest.approx(2 / 4)        # 0.5 is not correct
    assert st.mean([]) is None and st.accuracy([None]) is None


def test_bootstrap_is_reproducible_with_a_seed():
    x = np.random.default_rng(7).random(300)
    a = st.bootstrap_ci(x, seed=123)
    b = st.bootstrap_ci(x, seed=123)
    c = st.bootstrap_ci(x, seed=124)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert (a.ci_low, a.ci_high) != (c.ci_low, c.ci_high)
    assert a.n_resamples == 2000 and a.ci_low < a.estimate < a.ci_high


def test_bootstrap_interval_close_to_hand_computation():
    # 400 Bernoulli outcomes, 240 correct: p = 0.6, standard error sqrt(0.6*0.4/400) = 0.0245;
    # the normal approximation gives 0.6 +/- 1.96*0.0245 = [0.552, 0.648].
    x = np.array([1.0] * 240 + [0.0] * 160)
    ci = st.bootstrap_ci(x, statistic="accuracy", n_resamples=4000, seed=1)
    assert ci.estimate == 0.6
    assert ci.ci_low == pytest.approx(0.552, abs=0.008)
    assert ci.ci_high == pytest.approx(0.648, abs=0.008)


def test_stratified_bootstrap_keeps_stratum_sizes():
    # Two strata each constant: resampling within strata can never change the mean, so the interval is a point.
    x = np.array([1.0] * 30 + [0.0] * 70)
    strata = ["a"] * 30 + ["b"] * 70
    ci = st.bootstrap_ci(x, strata, seed=0)
    assert ci.ci_low == ci.ci_high == pytest.approx(0.3)
    assert st.bootstrap_ci(x, seed=0).ci_high > 0.35           # unstratified it varies


def test_bootstrap_leaves_out_unscored():
    ci = st.bootstrap_ci([1.0, None, 0.0, float("nan")], seed=0)
    assert ci.n == 2 and ci.unscored == 2 and ci.estimate == 0.5


def test_paired_difference():
    rng = np.random.default_rng(3)
    tasks = [f"t{i}" for i in range(200)]
    a = {t: float(v) for t, v in zip(tasks, rng.random(200))}
    better = {t: min(1.0, v + 0.2) for t, v in a.items()}
    same = dict(a)
    d = st.paired_difference(better, a, seed=0)
    assert d.difference > 0.1 and d.ci_low > 0 and d.distinguishable
    s = st.paired_difference(same, a, seed=0)
    assert s.difference == 0 and not s.distinguishable
    noisy = {t: float(v) for t, v in zip(tasks, rng.random(200))}
    n = st.paired_difference(noisy, a, seed=0)
    assert n.ci_low < 0 < n.ci_high and not n.distinguishable
    partial = st.paired_difference({"t0": 1.0, "x": 1.0}, {"t0": 0.0, "y": None}, seed=0)
    assert (partial.n_shared, partial.only_a, partial.only_b) == (1, 1, 0)


def test_paired_difference_by_hand_for_a_constant_difference():
    a = {f"t{i}": 1.0 for i in range(10)}
    b = {f"t{i}": (1.0 if i < 7 else 0.0) for i in range(10)}
    cats = {f"t{i}": ("x" if i < 5 else "y") for i in range(10)}
    d = st.paired_difference(a, b, cats, statistic="accuracy", seed=0)
    assert d.difference == pytest.approx(0.3)
    # stratum x has no differences; stratum y has 3 of 5: the difference can only range over 0..0.5
    assert 0.0 <= d.ci_low <= 0.3 <= d.ci_high <= 0.5


def test_cost_per_correct():
    c = st.cost_per_correct([0.01, 0.02, 0.03, 0.04], [1.0, 0.0, 0.6, 0.5])
    assert c.correct == 2 and c.value == pytest.approx(0.10 / 2) and not c.partial
    unknown = st.cost_per_correct([0.01, None, 0.03], [1.0, 1.0, 1.0])
    assert unknown.value is None and unknown.unknown_cost == 1
    partial = st.cost_per_correct([0.01, None, 0.03], [1.0, 1.0, 1.0], allow_partial=True)
    assert partial.value == pytest.approx(0.04 / 3) and partial.partial
    assert st.cost_per_correct([0.01], [0.0]).value is None


def test_hundred_thousand_scores_are_fast():
    rng = np.random.default_rng(0)
    x = rng.random(100_000)
    strata = rng.integers(0, 10, 100_000)
    t0 = time.perf_counter()
    ci = st.bootstrap_ci(x, strata, seed=0)
    elapsed = time.perf_counter() - t0
    assert elapsed < 15
    assert ci.ci_low < ci.estimate < ci.ci_high and ci.ci_high - ci.ci_low < 0.01


def test_cohen_kappa_by_hand():
    """The 2x2 example of Cohen's kappa: 20 both yes, 5 a-yes/b-no, 10 a-no/b-yes, 15 both no (50 pairs).
    p_o = 35/50 = 0.7; a says yes 25/50, b 30/50: p_e = 0.5 x 0.6 + 0.5 x 0.4 = 0.5; kappa = 0.2/0.5 = 0.4."""
    a = [True] * 20 + [True] * 5 + [False] * 10 + [False] * 15
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    k = st.cohen_kappa(a, b)
    assert k.table == ((20, 5), (10, 15))
    assert (k.n, k.percent, k.expected, k.kappa) == (50, pytest.approx(0.7), pytest.approx(0.5), pytest.approx(0.4))
    same = st.cohen_kappa([True, True], [True, True])            # one label only: kappa undefined
    assert same.percent == 1.0 and same.kappa is None
    assert st.cohen_kappa([], []).kappa is None
    with pytest.raises(ValueError):
        st.cohen_kappa([True], [])


def test_bootstrap_columns_equal_separate_calls():
    """One set of draws for several columns gives each column's bootstrap_ci with the same seed."""
    rng = np.random.default_rng(5)
    x = rng.random(40)
    y = (x > 0.5).astype(float)
    strata = np.array(["a", "b", "c", "d"] * 10)
    both = st.bootstrap_columns(np.column_stack([x, y]), strata, n_resamples=500, seed=3)
    for col, got in zip((x, y), both):
        ref = st.bootstrap_ci(col, list(strata), n_resamples=500, seed=3)
        assert (got.estimate, got.ci_low, got.ci_high, got.n) == (
            pytest.approx(ref.estimate), pytest.approx(ref.ci_low), pytest.approx(ref.ci_high), ref.n)
