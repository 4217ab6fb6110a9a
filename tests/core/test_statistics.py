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
    k = st.pass_fail_agreement(a, b)
    assert k.table == ((20, 5), (10, 15))
    assert (k.n, k.percent, k.expected, k.kappa) == (50, pytest.approx(0.7), pytest.approx(0.5), pytest.approx(0.4))
    same = st.pass_fail_agreement([True, True], [True, True])            # one label only: kappa undefined
    assert same.percent == 1.0 and same.kappa is None
    assert st.pass_fail_agreement([], []).kappa is None
    assert st.cohen_kappa(a, b) == pytest.approx(0.4) and st.cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        st.cohen_kappa([True], [])


def test_task_bootstrap_draws_every_stratum_at_its_size():
    """Within every replicate each stratum is drawn exactly as often as it holds items: a column that is 1 on
    stratum "a" and 0 elsewhere has the same replicate mean, 4/10, every time (also across several chunks)."""
    strata = np.array(["a"] * 4 + ["b"] * 6)
    indicator = (strata == "a").astype(float)[:, None]
    boot = st.TaskBootstrap(10, strata, n_resamples=3000, seed=1)
    (reps,) = boot.replicate_means([(None, indicator)])
    assert reps.shape == (3000, 1) and np.allclose(reps, 0.4)
    import fieldstudio.core.statistics as module
    chunked = st.TaskBootstrap(10, strata, n_resamples=3000, seed=1)
    old = module._CHUNK_CELLS
    module._CHUNK_CELLS = 70                               # 7 replicates per chunk
    try:
        (reps,) = chunked.replicate_means([(None, indicator)])
    finally:
        module._CHUNK_CELLS = old
    assert reps.shape == (3000, 1) and np.allclose(reps, 0.4)


def test_task_bootstrap_is_seeded_and_shared_by_columns_and_slices():
    rng = np.random.default_rng(5)
    x = rng.random((40, 3))
    strata = np.array(["a", "b", "c", "d"] * 10)
    boot = st.TaskBootstrap(40, strata, n_resamples=500, seed=3)
    whole, first, part = boot.replicate_means([(None, x), (None, x[:, :1]), (np.arange(0, 40, 4), x[::4])])
    again = st.TaskBootstrap(40, strata, n_resamples=500, seed=3).replicate_means([(None, x)])[0]
    assert np.array_equal(whole, again)
    assert np.allclose(whole[:, :1], first)               # a column alone sees the same replicates
    # paired: the difference of two columns' replicate means is the replicate mean of their differences
    (diff,) = boot.replicate_means([(None, (x[:, 0] - x[:, 1])[:, None])])
    assert np.allclose(diff[:, 0], whole[:, 0] - whole[:, 1])
    # stratum "a" (rows 0, 4, 8 ...) is drawn 10 times per replicate: its slice is a bootstrap of its own
    assert part.shape == (500, 3) and np.all((part >= x[::4].min(axis=0)) & (part <= x[::4].max(axis=0)))


def test_task_bootstrap_interval_matches_bootstrap_ci_without_missing_values():
    rng = np.random.default_rng(7)
    values = rng.uniform(0, 1, 50).round(3)
    strata = np.array(["A"] * 20 + ["B"] * 30)
    (lo, hi), = st.TaskBootstrap(50, strata, n_resamples=20_000, seed=2).intervals([(None, values[:, None])])
    ref = st.bootstrap_ci(values, list(strata), n_resamples=20_000, seed=8)     # other draws, same distribution
    assert (lo[0], hi[0]) == (pytest.approx(ref.ci_low, abs=0.01), pytest.approx(ref.ci_high, abs=0.01))


def test_task_bootstrap_leaves_out_replicates_without_a_value():
    """One value among 10 items: a replicate misses it with probability 0.9^10 = 0.349 and has no mean then;
    the others all give that value. A column without any value has no interval."""
    col = np.full((10, 2), np.nan)
    col[3, 0] = 0.7
    boot = st.TaskBootstrap(10, None, n_resamples=20_000, seed=4)
    (reps,) = boot.replicate_means([(None, col)])
    assert np.isnan(reps[:, 0]).mean() == pytest.approx(0.9 ** 10, abs=0.015)
    assert np.allclose(reps[~np.isnan(reps[:, 0]), 0], 0.7) and np.isnan(reps[:, 1]).all()
    (lo, hi), = boot.intervals([(None, col)])
    assert (lo[0], hi[0]) == (pytest.approx(0.7), pytest.approx(0.7)) and np.isnan(lo[1]) and np.isnan(hi[1])
    with pytest.raises(ValueError):
        boot.replicate_means([(None, col[:5])])
    with pytest.raises(ValueError):
        st.TaskBootstrap(10, ["a"] * 9)


def test_task_bootstrap_intervals_in_batches_equal_one_batch(monkeypatch):
    """Many blocks are taken in batches of bounded memory; every batch redraws the same replicates, so the
    intervals are the percentiles of the replicates of all blocks drawn at once (up to the last bit: BLAS
    sums a product of another width in another order)."""
    rng = np.random.default_rng(11)
    values = rng.random((60, 2))
    strata = np.repeat(["a", "b", "c"], 20)
    blocks = [(np.arange(k, 60, 6), values[k::6]) for k in range(6)] + [(None, values)]
    monkeypatch.setattr(st, "_CHUNK_CELLS", 700)                 # about one block per batch, 11 replicates/chunk
    boot = st.TaskBootstrap(60, strata, n_resamples=300, seed=9)
    batched = boot.intervals(blocks)
    at_once = boot.replicate_means(blocks)
    assert len(batched) == len(at_once) == 7
    for (lo, hi), reps in zip(batched, at_once):
        want_lo, want_hi = np.percentile(reps, [2.5, 97.5], axis=0)
        assert np.allclose(lo, want_lo, rtol=0, atol=1e-12) and np.allclose(hi, want_hi, rtol=0, atol=1e-12)


def test_resample_count_below_one_is_refused():
    with pytest.raises(ValueError, match="n_resamples"):
        st.TaskBootstrap(3, None, n_resamples=0)
    with pytest.raises(ValueError, match="n_resamples"):
        st.bootstrap_ci([0.1, 0.2], n_resamples=-1)


def test_bootstrap_counts_are_the_draws_of_every_stratum_at_once():
    """The counts, counted one stratum at a time, equal drawing every stratum's indices into one (replicates,
    items) array in stratum order and counting each item per replicate (the plain reading of the resampling)."""
    strata = np.array(list("cabbcacbbbcaa"))
    boot = st.TaskBootstrap(strata.size, strata, n_resamples=57, seed=4)
    (start, counts), = list(boot._counts())
    rng = np.random.default_rng(4)
    groups = [np.flatnonzero(strata == s) for s in ("a", "b", "c")]
    picked = np.hstack([g[rng.integers(0, g.size, size=(57, g.size))] for g in groups])
    expected = np.array([np.bincount(row, minlength=strata.size) for row in picked], dtype=float)
    assert start == 0 and counts.dtype == float and np.array_equal(counts, expected)
    for g in groups:                              # each replicate draws as many items as each stratum holds
        assert (counts[:, g].sum(axis=1) == g.size).all()
