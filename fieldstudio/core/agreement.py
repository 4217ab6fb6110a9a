"""Agreement between raters, and between a scorer or a model and the raters' majority.

Pure functions over a *verdict table*: ``{item_id: {rater: verdict}}`` where a verdict is "accept",
"reject", "unsure" or None. Unsure (and None) verdicts are excluded from every statistic and counted.
Numeric documentation fields use the same shape with float values (None = not filled).

Sources and choices (stated in the UI and exports):

* Krippendorff's alpha, alpha = 1 - D_o / D_e, with the ``krippendorff`` package (Castro, 2017) on the
  items' value counts; nominal for verdicts, interval for numbers. K. Krippendorff, "Computing
  Krippendorff's Alpha-Reliability", 2011: the worked example (4 observers, 12 units, missing values)
  gives nominal 0.743 and interval 0.849 (tests/core/test_agreement.py).
* Pairwise raw agreement: over the items both raters decided, the share where they gave the same verdict.
* Cohen's kappa (J. Cohen, 1960): kappa = (p_o - p_e) / (1 - p_e), p_e from each rater's own marginals.
* Majority: the verdict given by more than half of the decided votes; an equal split is a *tie*; ties
  are excluded from every "against the majority" statistic and counted (RealityBench, benchmarks.md
  §4.4). A rater is compared with the majority of the *other* raters only.
* A judge against a person (``judge_audit``): accuracy with the Wilson score interval (Wilson 1927), Cohen's
  kappa with the normal-approximation interval of Cohen 1960 (SE = sqrt(p_o (1 - p_o) / (n (1 - p_e)^2))).
* Confidence intervals: percentile bootstrap over items (2.5th and 97.5th percentiles of the
  replicates, numpy "linear"), seeded (``numpy.random.default_rng(seed)``) so a report is reproducible.
  Alpha's interval resamples items (units) with their value counts; that is fieldstudio's choice, not
  Krippendorff's own bootstrap of coincidences.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import krippendorff
import numpy as np

from fieldstudio.core.statistics import Interval, cohen_kappa, pass_fail_agreement
from fieldstudio.core.verdicts import acceptability_metrics

__all__ = ["VERDICTS", "normalise", "krippendorff_alpha", "alpha_with_ci", "pairwise_agreement",
           "majority", "acceptance_rates", "rater_vs_majority", "source_vs_majority", "verdict_metrics_with_ci",
           "agreement_summary", "PairAgreement", "VersusMajority", "AgreementSummary", "DEFAULT_RESAMPLES",
           "JudgeAudit", "judge_audit", "wilson_interval"]

VERDICTS = ("accept", "reject")
DEFAULT_RESAMPLES = 1000
VerdictTable = Mapping[str, Mapping[str, Any]]


def normalise(verdict: Any) -> str | None:
    """"accept", "reject", or None for "unsure", None or anything else (a / r / u accepted as shorthands)."""
    if verdict is None:
        return None
    v = str(verdict).strip().lower()
    v = {"a": "accept", "r": "reject"}.get(v, v)
    return v if v in VERDICTS else None


def _interval(estimate: float | None, reps: np.ndarray | None, n: int, unscored: int, n_resamples: int,
              confidence: float, seed: int | None) -> Interval:
    if estimate is None or reps is None:
        return Interval(estimate, None, None, n, unscored, n_resamples, confidence, seed)
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return Interval(estimate, None, None, n, unscored, n_resamples, confidence, seed)
    lo, hi = np.percentile(reps, [50 * (1 - confidence), 50 * (1 + confidence)])
    return Interval(estimate, float(lo), float(hi), n, unscored, n_resamples, confidence, seed)


def _mean_ci(agree: np.ndarray, unscored: int, n_resamples: int, confidence: float, seed: int | None) -> Interval:
    """Bootstrap interval of the mean of a 0/1 vector (items resampled with replacement)."""
    n = agree.size
    if n == 0:
        return Interval(None, None, None, 0, unscored, n_resamples, confidence, seed)
    rng = np.random.default_rng(seed)
    reps = agree[rng.integers(0, n, size=(n_resamples, n))].mean(axis=1)
    return _interval(float(agree.mean()), reps, n, unscored, n_resamples, confidence, seed)


# --------------------------------------------------------------------------- Krippendorff's alpha


def _value_counts(table: VerdictTable, level: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(units, values) count matrix of the items with at least one value, the value domain, and the
    number of excluded (unsure / unparsable) ratings."""
    excluded = 0
    units: list[list[Any]] = []
    for votes in table.values():
        values = []
        for v in votes.values():
            if level == "nominal":
                nv = normalise(v) if isinstance(v, str) or v is None else v
                if nv is None:
                    excluded += v is not None
                    continue
                values.append(nv)
            else:
                if v is None:
                    continue
                try:
                    f = float(v)
                except (TypeError, ValueError):
                    excluded += 1
                    continue
                if not math.isfinite(f):
                    excluded += 1
                    continue
                values.append(f)
        if values:
            units.append(values)
    domain = sorted({v for u in units for v in u}, key=lambda x: (str(type(x)), x))
    index = {v: i for i, v in enumerate(domain)}
    counts = np.zeros((len(units), len(domain)))
    for i, u in enumerate(units):
        for v in u:
            counts[i, index[v]] += 1
    return counts, np.asarray(domain, dtype=object), excluded


def _alpha_from_counts(counts: np.ndarray, domain: np.ndarray, level: str) -> float | None:
    pairable = counts[counts.sum(axis=1) >= 2]
    if len(domain) < 2 or pairable.size == 0 or pairable.sum() < 2:
        return None
    codes = np.arange(len(domain), dtype=float) if level == "nominal" else domain.astype(float)
    try:
        with np.errstate(invalid="ignore", divide="ignore"):
            value = krippendorff.alpha(value_counts=pairable, value_domain=codes, level_of_measurement=level)
    except (ValueError, ZeroDivisionError):
        return None
    return float(value) if math.isfinite(value) else None


def krippendorff_alpha(table: VerdictTable, *, level: str = "nominal") -> float | None:
    """Krippendorff's alpha of a table ``{item: {rater: value}}``.

    Args:
        level: "nominal" (verdicts or any hashable category; "unsure" and None left out) or "interval"
            (numbers; None, NaN and text left out).
    Returns:
        alpha in [-1, 1] (1 = perfect agreement, 0 = chance), or None when it is undefined: fewer than
        two pairable values, or a single value observed (D_e = 0).
    Source: Krippendorff (2011), computed by ``krippendorff.alpha`` on value counts.
    """
    if level not in ("nominal", "interval", "ordinal", "ratio"):
        raise ValueError(f"unknown level of measurement {level!r}")
    counts, domain, _ = _value_counts(table, level)
    return _alpha_from_counts(counts, domain, level)


def alpha_with_ci(table: VerdictTable, *, level: str = "nominal", n_resamples: int = DEFAULT_RESAMPLES,
                  confidence: float = 0.95, seed: int | None = 0) -> Interval:
    """Alpha with a percentile bootstrap interval over items (units resampled with replacement).

    ``n`` is the number of pairable items (two or more values); ``unscored`` the excluded ratings
    (unsure, unparsable). Replicates where alpha is undefined are dropped from the percentiles.
    """
    counts, domain, excluded = _value_counts(table, level)
    pairable = counts[counts.sum(axis=1) >= 2]
    estimate = _alpha_from_counts(pairable, domain, level)
    if estimate is None or n_resamples <= 0:
        return Interval(estimate, None, None, len(pairable), excluded, n_resamples, confidence, seed)
    rng = np.random.default_rng(seed)
    n = len(pairable)
    reps = np.array([_alpha_from_counts(pairable[rng.integers(0, n, n)], domain, level) or np.nan
                     for _ in range(n_resamples)], dtype=float)
    return _interval(estimate, reps, n, excluded, n_resamples, confidence, seed)


# --------------------------------------------------------------------------- pairs of raters


@dataclass(frozen=True)
class PairAgreement:
    """Two raters over the items both decided: ``n`` items, ``agree`` equal verdicts, ``rate`` = agree / n
    (None when n = 0) and Cohen's ``kappa``."""

    rater_a: str
    rater_b: str
    n: int
    agree: int
    rate: float | None
    kappa: float | None


def pairwise_agreement(table: VerdictTable) -> list[PairAgreement]:
    """Raw agreement and Cohen's kappa of every pair of raters (sorted by name)."""
    raters = sorted({r for votes in table.values() for r in votes})
    out = []
    for ra, rb in itertools.combinations(raters, 2):
        both = [(normalise(v[ra]), normalise(v[rb])) for v in table.values() if ra in v and rb in v]
        both = [(x, y) for x, y in both if x is not None and y is not None]
        agree = sum(x == y for x, y in both)
        out.append(PairAgreement(ra, rb, len(both), agree, agree / len(both) if both else None,
                                 cohen_kappa([x for x, _ in both], [y for _, y in both])))
    return out


# --------------------------------------------------------------------------- majority


def majority(votes: Iterable[Any]) -> tuple[str | None, str]:
    """The majority verdict of some votes and why.

    Returns ("accept" | "reject", "majority") when more than half of the decided votes agree,
    (None, "tie") on an equal split, (None, "none") when no vote is decided (all unsure or empty).
    """
    decided = [v for v in (normalise(x) for x in votes) if v is not None]
    if not decided:
        return None, "none"
    accepts = decided.count("accept")
    rejects = len(decided) - accepts
    if accepts == rejects:
        return None, "tie"
    return ("accept" if accepts > rejects else "reject"), "majority"


def acceptance_rates(table: VerdictTable) -> dict[str, dict[str, Any]]:
    """Per rater: ``rated`` items, ``accept``, ``reject``, ``unsure`` counts and ``acceptance_rate`` =
    accept / (accept + reject) (None when the rater decided nothing)."""
    out: dict[str, dict[str, Any]] = {}
    for votes in table.values():
        for rater, v in votes.items():
            row = out.setdefault(rater, {"rated": 0, "accept": 0, "reject": 0, "unsure": 0})
            row["rated"] += 1
            row[normalise(v) or "unsure"] += 1
    for row in out.values():
        decided = row["accept"] + row["reject"]
        row["acceptance_rate"] = row["accept"] / decided if decided else None
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class VersusMajority:
    """One rater (or a scorer, or a model) against the majority of the raters.

    ``agreement`` is an Interval (estimate = agree / n, with its bootstrap bounds); ``n`` items compared,
    ``agree`` of them equal; items left out: ``ties`` (the majority was split), ``no_majority`` (nobody
    else decided it), ``unsure`` (this source gave no verdict). For a scorer or model ``metrics`` holds
    precision, recall, f1, false_accept_rate, miss_rate and the confusion counts (accept positive).
    """

    source: str
    n: int
    agree: int
    ties: int
    no_majority: int
    unsure: int
    agreement: Interval
    metrics: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the Interval flattened into estimate, ci_low, ci_high)."""
        d = asdict(self)
        d["agreement"] = {k: d["agreement"][k] for k in ("estimate", "ci_low", "ci_high")}
        return d


def _versus(source: str, pairs: list[tuple[Any, str | None, str]], n_resamples: int, confidence: float,
            seed: int | None, with_metrics: bool) -> VersusMajority:
    """pairs: (source verdict, majority verdict, majority status)."""
    ties = sum(status == "tie" for _, _, status in pairs)
    none = sum(status == "none" for _, _, status in pairs)
    decided = [(normalise(v), m) for v, m, status in pairs if status == "majority"]
    unsure = sum(v is None for v, _ in decided)
    used = [(v, m) for v, m in decided if v is not None]
    agree = np.array([v == m for v, m in used], dtype=float)
    interval = _mean_ci(agree, unsure, n_resamples, confidence, seed)
    metrics: dict[str, Any] = {}
    if with_metrics:
        m = acceptability_metrics(used)
        metrics = {"tp": m.tp, "fp": m.fp, "fn": m.fn, "tn": m.tn, "precision": m.precision, "recall": m.recall,
                   "f1": m.f1, "false_accept_rate": m.false_accept_rate, "miss_rate": m.miss_rate}
    return VersusMajority(source, len(used), int(agree.sum()), ties, none, unsure, interval, metrics)


def rater_vs_majority(table: VerdictTable, *, n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                      seed: int | None = 0) -> dict[str, VersusMajority]:
    """Each rater against the majority of the *other* raters, over the items that rater rated.

    An item where the others tie is left out (``ties``), as is one no other rater decided
    (``no_majority``) and one this rater marked unsure (``unsure``).
    """
    raters = sorted({r for votes in table.values() for r in votes})
    out = {}
    for rater in raters:
        pairs = []
        for votes in table.values():
            if rater not in votes:
                continue
            verdict, status = majority(v for r, v in votes.items() if r != rater)
            pairs.append((votes[rater], verdict, status))
        out[rater] = _versus(rater, pairs, n_resamples, confidence, seed, with_metrics=False)
    return out


def source_vs_majority(source: str, verdicts: Mapping[str, Any], table: VerdictTable, *,
                       n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                       seed: int | None = 0) -> VersusMajority:
    """A scorer's or a model's verdicts ``{item: verdict}`` against the majority of all raters in ``table``.

    Items the source did not judge are ignored; ties, items with no majority and the source's unsure
    verdicts are left out and counted. ``metrics`` takes the majority as ground truth (accept positive).
    """
    pairs = []
    for item, verdict in verdicts.items():
        majority_verdict, status = majority(table.get(item, {}).values())
        pairs.append((verdict, majority_verdict, status))
    return _versus(source, pairs, n_resamples, confidence, seed, with_metrics=True)


def verdict_metrics_with_ci(pairs: Sequence[tuple[Any, Any]], *, n_resamples: int = DEFAULT_RESAMPLES,
                            confidence: float = 0.95, seed: int | None = 0) -> dict[str, Interval]:
    """Agreement, precision, recall, F1, false-accept and miss rates of (predicted, reference) verdicts,
    each with a bootstrap interval (items resampled with replacement, the same draws for every metric).

    Pairs whose prediction or reference is not accept/reject are left out (``unscored``). A metric whose
    denominator is 0 is None; replicates where it is undefined are dropped from its percentiles.
    Formulas: benchmarks.md §4.1 (accept is the positive class).
    """
    decided = [(normalise(p), normalise(r)) for p, r in pairs]
    used = [(p, r) for p, r in decided if p is not None and r is not None]
    left_out = len(decided) - len(used)
    p = np.array([x == "accept" for x, _ in used], dtype=bool)
    r = np.array([y == "accept" for _, y in used], dtype=bool)
    rng = np.random.default_rng(seed)
    n = len(used)
    draws = rng.integers(0, n, size=(n_resamples, n)) if n else np.zeros((0, 0), dtype=int)
    full = np.arange(n)[None, :]

    def counts(idx: np.ndarray) -> tuple[np.ndarray, ...]:
        pp, rr = p[idx], r[idx]
        return ((pp & rr).sum(1), (pp & ~rr).sum(1), (~pp & rr).sum(1), (~pp & ~rr).sum(1))

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.maximum(den, 1), np.nan)

    def metrics(idx: np.ndarray) -> dict[str, np.ndarray]:
        tp, fp, fn, tn = (c.astype(float) for c in counts(idx))
        prec, rec = ratio(tp, tp + fp), ratio(tp, tp + fn)
        with np.errstate(invalid="ignore"):
            f1 = np.where(np.isnan(prec) | np.isnan(rec), np.nan,
                          np.where(prec + rec > 0, 2 * prec * rec / np.where(prec + rec > 0, prec + rec, 1), 0.0))
        return {"agreement": ratio(tp + tn, tp + fp + fn + tn), "precision": prec, "recall": rec, "f1": f1,
                "false_accept_rate": ratio(fp, fp + tn), "miss_rate": ratio(fn, tp + fn)}

    if n == 0:
        return {k: Interval(None, None, None, 0, left_out, n_resamples, confidence, seed)
                for k in ("agreement", "precision", "recall", "f1", "false_accept_rate", "miss_rate")}
    point, reps = metrics(full), metrics(draws)
    out = {}
    for name, value in point.items():
        est = None if np.isnan(value[0]) else float(value[0])
        out[name] = _interval(est, reps[name], n, left_out, n_resamples, confidence, seed)
    return out


# --------------------------------------------------------------------------- everything for a panel


def _interval_dict(i: Interval) -> dict[str, Any]:
    return {"estimate": i.estimate, "ci_low": i.ci_low, "ci_high": i.ci_high, "n": i.n}


@dataclass(frozen=True)
class AgreementSummary:
    """What the agreement panel and ``fieldstudio ratings agreement`` show for one rating set.

    ``n_items`` items with at least one human rating, ``n_raters`` human raters, ``n_ratings`` and
    ``n_unsure`` human ratings; ``alpha`` (nominal, verdicts) with its interval; ``field_alpha`` interval
    alpha per numeric documentation field; ``acceptance`` per rater; ``pairwise`` raw agreement and
    kappa; ``raters`` each against the majority of the others; ``sources`` scorers/models against the
    majority; ``majority_ties`` items whose raters split evenly.
    """

    n_items: int
    n_raters: int
    n_ratings: int
    n_unsure: int
    majority_ties: int
    alpha: Interval
    field_alpha: dict[str, Interval]
    acceptance: dict[str, dict[str, Any]]
    pairwise: list[PairAgreement]
    raters: dict[str, VersusMajority]
    sources: dict[str, VersusMajority]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the keys ``fieldstudio ratings agreement --json`` prints."""
        return {
            "n_items": self.n_items, "n_raters": self.n_raters, "n_ratings": self.n_ratings,
            "n_unsure": self.n_unsure, "majority_ties": self.majority_ties,
            "alpha": self.alpha.estimate, "alpha_ci": [self.alpha.ci_low, self.alpha.ci_high],
            "field_alpha": {k: _interval_dict(v) for k, v in self.field_alpha.items()},
            "acceptance": self.acceptance,
            "pairwise": [asdict(p) for p in self.pairwise],
            "raters_vs_majority": {k: v.to_dict() for k, v in self.raters.items()},
            "sources_vs_majority": {k: v.to_dict() for k, v in self.sources.items()},
        }


def agreement_summary(table: VerdictTable, *, sources: Mapping[str, Mapping[str, Any]] | None = None,
                      numeric_fields: Mapping[str, VerdictTable] | None = None,
                      n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                      seed: int | None = 0) -> AgreementSummary:
    """Every agreement statistic of one rating set.

    Args:
        table: human verdicts ``{item: {rater: verdict}}``.
        sources: scorer or model verdicts ``{source name: {item: verdict}}``, compared with the majority.
        numeric_fields: ``{field name: {item: {rater: number}}}`` for interval alpha.
    """
    kw = dict(n_resamples=n_resamples, confidence=confidence, seed=seed)
    rated = {item: votes for item, votes in table.items() if votes}
    votes_all = [v for votes in rated.values() for v in votes.values()]
    ties = sum(majority(votes.values())[1] == "tie" for votes in rated.values())
    return AgreementSummary(
        n_items=len(rated),
        n_raters=len({r for votes in rated.values() for r in votes}),
        n_ratings=len(votes_all),
        n_unsure=sum(normalise(v) is None for v in votes_all),
        majority_ties=ties,
        alpha=alpha_with_ci(rated, level="nominal", **kw),
        field_alpha={name: alpha_with_ci(t, level="interval", **kw) for name, t in (numeric_fields or {}).items()},
        acceptance=acceptance_rates(rated),
        pairwise=pairwise_agreement(rated),
        raters=rater_vs_majority(rated, **kw),
        sources={name: source_vs_majority(name, v, rated, **kw) for name, v in (sources or {}).items()},
    )


# --------------------------------------------------------------------------- a judge against a person
_Z95 = 1.959963984540054          # the standard normal's 97.5th percentile


def _z(confidence: float) -> float:
    from statistics import NormalDist

    return _Z95 if math.isclose(confidence, 0.95) else NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float | None, float | None]:
    """The Wilson score interval of a proportion ``successes / n`` (E. B. Wilson 1927, "Probable inference,
    the law of succession, and statistical inference", JASA 22:209-212): centre (p + z²/2n) / (1 + z²/n),
    half-width z sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n). It stays inside [0, 1] and is not empty at p = 0 or 1,
    where the normal interval is. (None, None) when n is 0."""
    if n <= 0:
        return None, None
    z = _z(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class JudgeAudit:
    """How an LLM judge's pass/fail verdicts agree with a person's on the same answers.

    ``n`` answers a person marked; ``agree`` of them with the judge's verdict; ``accuracy`` = agree / n
    (the person taken as right) with its Wilson interval; ``kappa`` Cohen's kappa of judge (rater a) and
    person (rater b) (``statistics.pass_fail_agreement``) with a normal-approximation interval kappa ±
    z·SE, SE = sqrt(p_o (1 - p_o) / (n (1 - p_e)²)) (Cohen 1960, eq. 9), clipped to [-1, 1]; None where
    kappa is undefined (one label only). ``false_accepts``: the judge passed an answer the person failed;
    ``false_rejects``: the other way round. All estimates are None when n is 0.
    """

    n: int
    agree: int
    accuracy: float | None
    accuracy_ci: tuple[float | None, float | None]
    kappa: float | None
    kappa_ci: tuple[float | None, float | None]
    false_accepts: int
    false_rejects: int
    confidence: float = 0.95


def judge_audit(judge: Sequence[bool], person: Sequence[bool], confidence: float = 0.95) -> JudgeAudit:
    """Agreement of a judge's verdicts with a person's, pair by pair (see ``JudgeAudit``).

    Raises ValueError when the two sequences differ in length."""
    if len(judge) != len(person):
        raise ValueError(f"{len(judge)} judge verdicts against {len(person)} marks: a judge audit needs pairs")
    n = len(judge)
    if n == 0:
        return JudgeAudit(0, 0, None, (None, None), None, (None, None), 0, 0, confidence)
    a = pass_fail_agreement([bool(x) for x in judge], [bool(y) for y in person])
    (both_pass, judge_only), (person_only, both_fail) = a.table
    agree = both_pass + both_fail
    kappa_ci: tuple[float | None, float | None] = (None, None)
    if a.kappa is not None:
        se = math.sqrt(a.percent * (1 - a.percent) / (n * (1 - a.expected) ** 2))
        z = _z(confidence)
        kappa_ci = (max(-1.0, a.kappa - z * se), min(1.0, a.kappa + z * se))
    return JudgeAudit(n, agree, agree / n, wilson_interval(agree, n, confidence), a.kappa, kappa_ci,
                      int(judge_only), int(person_only), confidence)
