"""Summary statistics over scores: mean, accuracy, stratified bootstrap intervals, paired differences, cost.

Sources: accuracy as FieldWorkArena's evaluator counts a task correct (score > 0.5, benchmarks.md §1.6);
stratified bootstrap, percentile intervals and "a difference is marked only when its 95 % interval
excludes zero" from RealityBench's description (benchmarks.md §4.3, unverified; the strata here are the
task categories and the replicate count defaults to 2000); cost rules from §4.5 (an unknown cost is never
silently counted as zero).

All functions take array-likes of scores (None or NaN = unscored, left out and counted) and are
vectorised with numpy: a bootstrap of 100,000 scores x 2000 replicates runs in chunks of bounded memory.
``TaskBootstrap`` resamples tasks once for many columns (sources, their differences, category slices) as
per-replicate draw counts, so every column's replicate means are one matrix product.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CORRECT_THRESHOLD", "Agreement", "cohen_kappa", "pass_fail_agreement", "mean", "accuracy", "Interval",
           "bootstrap_ci", "TaskBootstrap", "PairedDifference", "paired_difference", "CostPerCorrect",
           "cost_per_correct"]

CORRECT_THRESHOLD = 0.5
_CHUNK_CELLS = 4_000_000        # resample indices drawn per chunk (32 MB of int64)
_COUNT_ROWS = 250               # replicates whose drawn values are counted at once (replicate_means)


def _as_float(values: Any) -> np.ndarray:
    """1-D float array with None -> NaN."""
    arr = np.asarray([np.nan if v is None else v for v in values] if not isinstance(values, np.ndarray) else values,
                     dtype=float)
    return arr.reshape(-1)


def mean(scores: Any) -> float | None:
    """Mean of the scored values (NaN/None left out); None when nothing is scored."""
    a = _as_float(scores)
    a = a[~np.isnan(a)]
    return float(a.mean()) if a.size else None


def accuracy(scores: Any, threshold: float = CORRECT_THRESHOLD) -> float | None:
    """Share of scored values strictly above ``threshold`` (FWA: correct when score > 0.5); None when empty."""
    a = _as_float(scores)
    a = a[~np.isnan(a)]
    return float((a > threshold).mean()) if a.size else None


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap interval: ``estimate``, ``ci_low``, ``ci_high`` (None when
    there are no values), ``n`` values used, ``unscored`` left out, ``n_resamples``, ``confidence``, ``seed``."""

    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    unscored: int
    n_resamples: int
    confidence: float
    seed: int | None


def _bootstrap_means(values: np.ndarray, strata: np.ndarray | None, n_resamples: int,
                     rng: np.random.Generator) -> np.ndarray:
    """(n_resamples,) means of stratified resamples of the (n,) ``values``: within each stratum, draw its
    size with replacement."""
    n = values.shape[0]
    totals = np.zeros(n_resamples)
    groups = [np.arange(n)] if strata is None else [np.flatnonzero(strata == s) for s in np.unique(strata)]
    for idx in groups:
        v = values[idx]
        k = v.shape[0]
        rows = max(1, _CHUNK_CELLS // k)
        for start in range(0, n_resamples, rows):
            stop = min(n_resamples, start + rows)
            draw = rng.integers(0, k, size=(stop - start, k), dtype=np.int32)
            totals[start:stop] += v[draw].sum(axis=1)
    return totals / n


def _check_resamples(n_resamples: int) -> None:
    if int(n_resamples) < 1:
        raise ValueError(f"n_resamples must be at least 1, not {n_resamples}")


class TaskBootstrap:
    """One stratified bootstrap over ``n`` items (tasks), shared by every column measured on them.

    Each replicate draws, within every stratum, as many items as the stratum holds, with replacement (the
    resampling of ``bootstrap_ci``), and every column is averaged over the items drawn where it has a
    value. All columns measured on the same tasks (the sources of a comparison, their per-task
    differences, one category's slice of them) therefore see the same replicates: the paired bootstrap
    resampling of Koehn 2004 ("Statistical significance tests for machine translation evaluation", EMNLP,
    §4), under which the difference of two sources' replicate means is the replicate mean of their per-task
    differences, and one set of draws serves every statistic of a report. A column with missing values
    (unscored answers) is averaged over the values drawn, so its count varies between replicates; a
    replicate that draws none of a column's values has no mean for it and is left out of that column's
    percentiles. Where a column has every value, its replicates are distributed exactly as
    ``bootstrap_ci``'s (not the same numbers: the draws differ); where it has few, its count per replicate
    varies, so its interval depends a little on the other columns' items (a source that answered 20 of
    400 tasks gets an interval about 5 % wider than from its 20 tasks alone).

    Args:
        n: items (rows of every values array given to ``replicate_means``).
        strata: (n,) stratum labels (any sortable type) or None (one stratum).
        n_resamples: replicates; seed: for ``numpy.random.default_rng``: the same arguments give the same
            replicates, draw by draw.
    Raises:
        ValueError when ``strata`` does not hold n labels or ``n_resamples`` is below 1.
    """

    def __init__(self, n: int, strata: Any = None, *, n_resamples: int = 2000, seed: int | None = 0) -> None:
        _check_resamples(n_resamples)
        self.n, self.n_resamples, self.seed = int(n), int(n_resamples), seed
        if strata is None:
            self._strata = [np.arange(self.n)]
        else:
            codes = np.unique(np.asarray(strata), return_inverse=True)[1].reshape(-1)
            if codes.size != self.n:
                raise ValueError(f"{codes.size} strata for {self.n} items")
            order = np.argsort(codes, kind="stable")
            self._strata = np.split(order, np.flatnonzero(np.diff(codes[order])) + 1)

    def _counts(self) -> Iterator[tuple[int, np.ndarray]]:
        """(first replicate, (rows, n) float counts of how often each item is drawn), chunk by chunk."""
        rng = np.random.default_rng(self.seed)
        rows_per_chunk = max(1, _CHUNK_CELLS // max(1, self.n))
        for start in range(0, self.n_resamples, rows_per_chunk):
            rows = min(self.n_resamples, start + rows_per_chunk) - start
            counts = np.zeros((rows, self.n))
            for idx in self._strata:
                # counted one stratum at a time (the same draws, in the same order, as drawing every stratum
                # into one (rows, n) index array first): the int64 index arrays of the whole chunk held at once
                # were most of a comparison's memory at 100 sources
                drawn = rng.integers(0, idx.size, size=(rows, idx.size))
                drawn += (np.arange(rows, dtype=np.int64) * idx.size)[:, None]
                counts[:, idx] = np.bincount(drawn.reshape(-1), minlength=rows * idx.size).reshape(rows, idx.size)
                del drawn
            yield start, counts

    def replicate_means(self, blocks: Sequence[tuple[np.ndarray | None, np.ndarray]]) -> list[np.ndarray]:
        """Replicate means of several blocks of columns from one set of draws.

        Args:
            blocks: (rows, values) pairs: ``rows`` an index array into the n items (None: all of them),
                ``values`` a (len(rows), m) float array, NaN where a column has no value.
        Returns:
            One (n_resamples, m) array per block: each column's mean over the items a replicate drew among
            ``rows`` where the column has a value; NaN where it drew none.
        """
        prepared = []
        for rows, values in blocks:
            v = np.asarray(values, dtype=float)
            if v.ndim != 2 or v.shape[0] != (self.n if rows is None else len(rows)):
                raise ValueError(f"values of shape {v.shape} for {self.n if rows is None else len(rows)} rows")
            has = ~np.isnan(v)
            prepared.append((rows, np.where(has, v, 0.0), has.astype(float)))
        out = [np.empty((self.n_resamples, p[1].shape[1])) for p in prepared]
        for start, counts in self._counts():
            for (rows, v, has), res in zip(prepared, out):
                c = counts if rows is None else counts[:, rows]
                part = res[start:start + counts.shape[0]]      # written in place: no (replicates, m) temporaries
                np.matmul(c, v, out=part)
                # the values drawn, counted _COUNT_ROWS replicates at a time: whole numbers, so exact in any
                # order, and no (replicates, m) temporary (7 MB at 2,000 x 111 sources x 4 columns)
                for k in range(0, part.shape[0], _COUNT_ROWS):
                    with np.errstate(invalid="ignore", divide="ignore"):
                        np.divide(part[k:k + _COUNT_ROWS], c[k:k + _COUNT_ROWS] @ has, out=part[k:k + _COUNT_ROWS])
        return out

    def intervals(self, blocks: Sequence[tuple[np.ndarray | None, np.ndarray]], confidence: float = 0.95
                  ) -> list[tuple[np.ndarray, np.ndarray]]:
        """(ci_low, ci_high) arrays of shape (m,) per block of ``replicate_means``: the (1-c)/2 and (1+c)/2
        percentiles (numpy "linear") of each column's replicates; NaN for a column with no value. Blocks
        are taken in batches of about ``_CHUNK_CELLS`` replicate values, so memory stays bounded however
        many groups there are."""
        q = [50 * (1 - confidence), 50 * (1 + confidence)]
        out = []
        batch: list = []
        width = 0
        for i, block in enumerate(blocks):        # batches of bounded replicate memory: each batch draws the
            batch.append(block)                   # same replicates again from the seed
            width += np.shape(block[1])[1] if np.ndim(block[1]) == 2 else 1
            if width * self.n_resamples >= _CHUNK_CELLS or i == len(blocks) - 1:
                out += self._percentiles(self.replicate_means(batch), q)
                batch, width = [], 0
        return out

    @staticmethod
    def _percentiles(replicates: list[np.ndarray], q: list[float]) -> list[tuple[np.ndarray, np.ndarray]]:
        out = []
        for reps in replicates:
            if reps.shape[1] == 0:
                out.append((np.empty(0), np.empty(0)))
                continue
            if np.isnan(reps).any():
                lo, hi = np.full(reps.shape[1], np.nan), np.full(reps.shape[1], np.nan)
                some = ~np.isnan(reps).all(axis=0)
                if some.any():
                    lo[some], hi[some] = np.nanpercentile(reps[:, some], q, axis=0)
            else:
                lo, hi = np.percentile(reps, q, axis=0)
            out.append((lo, hi))
        return out


def _prepare(values: Any, strata: Any) -> tuple[np.ndarray, np.ndarray | None, int]:
    a = _as_float(values)
    keep = ~np.isnan(a)
    s = None
    if strata is not None:
        s = np.asarray([str(x) for x in strata], dtype=object)
        if s.size != a.size:
            raise ValueError(f"{s.size} strata for {a.size} values")
        s = s[keep]
    return a[keep], s, int((~keep).sum())


def bootstrap_ci(scores: Any, strata: Sequence[Any] | None = None, *, statistic: str = "mean",
                 n_resamples: int = 2000, confidence: float = 0.95, seed: int | None = 0) -> Interval:
    """Stratified percentile bootstrap interval of the mean score or the accuracy.

    Args:
        scores: (n,) scores; None/NaN are left out and counted in ``unscored``.
        strata: (n,) stratum labels (e.g. task categories); each replicate resamples within every
            stratum with replacement, keeping stratum sizes. None = one stratum.
        statistic: "mean" or "accuracy" (score > 0.5).
        n_resamples: replicates (default 2000); seed: for ``numpy.random.default_rng`` (reproducible).
    Returns:
        Interval whose bounds are the (1-c)/2 and (1+c)/2 percentiles (numpy "linear") of the replicates.
    """
    _check_resamples(n_resamples)
    a, s, left_out = _prepare(scores, strata)
    if statistic == "accuracy":
        a = (a > CORRECT_THRESHOLD).astype(float)
    elif statistic != "mean":
        raise ValueError(f"unknown statistic {statistic!r}: use 'mean' or 'accuracy'")
    if a.size == 0:
        return Interval(None, None, None, 0, left_out, n_resamples, confidence, seed)
    reps = _bootstrap_means(a, s, n_resamples, np.random.default_rng(seed))
    lo, hi = np.percentile(reps, [50 * (1 - confidence), 50 * (1 + confidence)])
    return Interval(float(a.mean()), float(lo), float(hi), int(a.size), left_out, n_resamples, confidence, seed)


@dataclass(frozen=True)
class PairedDifference:
    """Source A minus source B over their shared scored tasks: ``difference`` with ``ci_low``/``ci_high``;
    ``distinguishable`` only when the interval excludes 0; ``n_shared`` tasks used, ``only_a``/``only_b``
    tasks scored by one source only (left out)."""

    difference: float | None
    ci_low: float | None
    ci_high: float | None
    distinguishable: bool
    n_shared: int
    only_a: int
    only_b: int
    n_resamples: int
    seed: int | None


def paired_difference(scores_a: Mapping[str, float | None], scores_b: Mapping[str, float | None],
                      strata: Mapping[str, Any] | None = None, *, statistic: str = "mean", n_resamples: int = 2000,
                      confidence: float = 0.95, seed: int | None = 0) -> PairedDifference:
    """Paired bootstrap of statistic(A) - statistic(B) over the tasks both sources scored.

    Both sources are resampled on the same tasks in every replicate (so the difference of means equals
    the mean of per-task differences). ``strata`` maps task id -> stratum (category).
    """
    def scored(m: Mapping[str, float | None]) -> set[str]:
        return {k for k, v in m.items() if v is not None and not np.isnan(v)}

    sa, sb = scored(scores_a), scored(scores_b)
    shared = sorted(sa & sb)
    if not shared:
        return PairedDifference(None, None, None, False, 0, len(sa - sb), len(sb - sa), n_resamples, seed)
    a = np.array([scores_a[k] for k in shared], dtype=float)
    b = np.array([scores_b[k] for k in shared], dtype=float)
    if statistic == "accuracy":
        a, b = (a > CORRECT_THRESHOLD).astype(float), (b > CORRECT_THRESHOLD).astype(float)
    elif statistic != "mean":
        raise ValueError(f"unknown statistic {statistic!r}: use 'mean' or 'accuracy'")
    st = None if strata is None else np.asarray([str(strata.get(k)) for k in shared], dtype=object)
    d = a - b
    reps = _bootstrap_means(d, st, n_resamples, np.random.default_rng(seed))
    lo, hi = (float(x) for x in np.percentile(reps, [50 * (1 - confidence), 50 * (1 + confidence)]))
    return PairedDifference(float(d.mean()), lo, hi, bool(lo > 0 or hi < 0), len(shared), len(sa - sb),
                            len(sb - sa), n_resamples, seed)


@dataclass(frozen=True)
class CostPerCorrect:
    """``total_cost`` (currency of the price table) over the answers with known cost, ``correct`` answers
    (score > 0.5), ``value`` = cost / correct, ``unknown_cost`` answers whose cost is unknown. With any
    unknown cost ``value`` is None unless partial results were asked for, and then ``partial`` is True."""

    total_cost: float
    correct: int
    value: float | None
    unknown_cost: int
    partial: bool


def cost_per_correct(costs: Any, scores: Any, *, allow_partial: bool = False) -> CostPerCorrect:
    """Cost per correct answer from (n,) costs (None/NaN = unknown) and (n,) scores.

    Returns value None when no answer is correct, or when a cost is unknown and ``allow_partial`` is
    False (benchmarks.md §4.5: never a silent under-count).
    """
    c, s = _as_float(costs), _as_float(scores)
    if c.size != s.size:
        raise ValueError(f"{c.size} costs for {s.size} scores")
    unknown = int(np.isnan(c).sum())
    total = float(np.nansum(c))
    correct = int((s > CORRECT_THRESHOLD).sum())
    value = None if correct == 0 or (unknown and not allow_partial) else total / correct
    return CostPerCorrect(total, correct, value, unknown, bool(unknown) and value is not None)


@dataclass(frozen=True)
class Agreement:
    """Agreement of two raters on paired binary labels (pass/fail).

    ``n`` pairs; ``table`` the 2x2 counts [[both pass, a pass / b fail], [a fail / b pass, both fail]];
    ``percent`` observed agreement p_o = (both pass + both fail) / n; ``expected`` chance agreement
    p_e = P_a(pass) P_b(pass) + P_a(fail) P_b(fail); ``kappa`` Cohen's kappa (p_o - p_e) / (1 - p_e)
    (Cohen 1960, "A coefficient of agreement for nominal scales", Educ. Psychol. Meas. 20(1):37-46).
    All three are None when n is 0; kappa is None when p_e is 1 (both raters used one label only: kappa
    is undefined, the percent agreement still says how often they matched)."""

    n: int
    table: tuple[tuple[int, int], tuple[int, int]]
    percent: float | None
    expected: float | None
    kappa: float | None


def _observed_expected(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[float, float] | None:
    """Observed agreement p_o and chance agreement p_e = sum over labels of P_a(label) P_b(label) of two
    raters' labels, pair by pair; None when there are no pairs. Raises ValueError when the lengths differ."""
    if len(a) != len(b):
        raise ValueError(f"{len(a)} labels against {len(b)}: cohen_kappa needs pairs")
    n = len(a)
    if n == 0:
        return None
    count_a, count_b = Counter(a), Counter(b)
    p_o = sum(x == y for x, y in zip(a, b)) / n
    p_e = sum(count_a[label] * count_b[label] for label in count_a) / (n * n)
    return p_o, p_e


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters' labels on the same items, pair by pair; labels of any kind (pass/fail
    booleans, accept/reject verdicts). kappa = (p_o - p_e) / (1 - p_e), p_o the observed agreement, p_e the
    chance agreement sum over labels of P_a(label) P_b(label) (Cohen 1960, "A coefficient of agreement for
    nominal scales", Educ. Psychol. Meas. 20(1):37-46). None when there are no pairs or p_e is 1 (both
    raters used one label only: kappa is undefined). Raises ValueError when the lengths differ."""
    rates = _observed_expected(a, b)
    return None if rates is None else _kappa(*rates)


def _kappa(p_o: float, p_e: float) -> float | None:
    return None if math.isclose(p_e, 1.0) else (p_o - p_e) / (1 - p_e)


def pass_fail_agreement(a: Sequence[bool], b: Sequence[bool]) -> Agreement:
    """Cohen's kappa (:func:`cohen_kappa`), percent agreement and the 2x2 table of two equally long
    sequences of pass (True) / fail (False) labels, pair by pair. Raises ValueError when the lengths differ."""
    x = np.asarray(a, dtype=bool)
    y = np.asarray(b, dtype=bool)
    rates = _observed_expected(x.tolist(), y.tolist())
    tp, tn = int((x & y).sum()), int((~x & ~y).sum())
    pf, fp = int((x & ~y).sum()), int((~x & y).sum())
    table = ((tp, pf), (fp, tn))
    if rates is None:
        return Agreement(0, table, None, None, None)
    p_o, p_e = rates
    return Agreement(int(x.size), table, p_o, p_e, _kappa(p_o, p_e))
