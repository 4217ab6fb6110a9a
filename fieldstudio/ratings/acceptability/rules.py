"""A programmatic acceptability scorer: a conjunction of named terms over the image measures, with a gray
band around each threshold, tuned on the raters' majority and checked on held-out items.

Source: RealityBench (arXiv 2610.14397; benchmarks.md §4, unverified): the scorer is the conjunction of
terms about the scene (target framed, unoccluded, close enough) and the image (sharp, contrasted,
exposed), tuned on 60 % of the human ratings and measured on the other 40 %; items in a gray zone are
excluded from scoring. fieldstudio's choices, stated in the UI and exports:

* A term is ``measure op threshold`` with op one of >=, >, <=, < (numbers) or a bare measure name
  (``box_in_frame``: must be true; ``not box_in_frame``: must be false). Measures are the keys of
  ``ratings.acceptability.measures.MEASURE_KEYS`` (units in their docstrings).
* Gray band: a term with ``gray = g > 0`` is *undecided* when |value - threshold| <= g (measure units).
  An unknown measure (None) is undecided too.
* Verdict: reject when any term fails outright (a conjunction fails on one false term); otherwise
  unsure when any term is undecided; otherwise accept. Failing terms are listed, with the reason of
  the raters' checklist each one corresponds to (blurry, target out of frame, occluded, too far, poor light).
* Tuning: items with a rater majority (ties excluded and counted) are split 60/40 with
  ``numpy.random.default_rng(seed).permutation`` over the item ids sorted; thresholds are chosen by
  best-improvement coordinate search to maximise the number of training items whose verdict equals
  the majority, an unsure verdict counting as a disagreement (so a gray band can never raise the
  objective). Each step tries, for every numeric term with the others fixed, every midpoint between
  consecutive measured values of the training items, each value moved just past its gray band on
  either side, and one value below and one above them all,
  and applies the single move that raises the objective most (a conjunction trapped by first-improvement
  search, e.g. a sharpness term rejecting everything before the exposure term is tuned, is avoided
  this way). Ties between candidate thresholds go to the one nearest the current threshold, ties
  between terms to the first. Search stops when no move improves (at most ``max_rounds`` x terms steps).
* Held-out report: agreement, precision, recall, F1 (accept positive), false-accept and miss rates
  over the test items the rules decide (unsure left out and counted), with bootstrap intervals
  (``core.agreement.verdict_metrics_with_ci``), next to each rater's agreement with the majority of
  the others on the same items.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from fieldstudio.core import agreement
from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.ratings.acceptability.measures import MEASURE_KEYS

__all__ = ["NAME", "VERSION", "OPS", "REASON_OF_MEASURE", "Term", "Rules", "RuleVerdict", "RulesError", "parse_term",
           "DEFAULT_RULES", "evaluate", "split_items", "TuneReport", "tune", "heldout_report", "save_rules",
           "load_rules"]

NAME = "acceptability-rules"
VERSION = "1.0"
OPS = (">=", ">", "<=", "<", "true", "false")
REASON_OF_MEASURE = {
    "sharpness_lap_var": "blurry", "sharpness_norm": "blurry",
    "box_in_frame": "target out of frame", "box_edge_distance_px": "target out of frame",
    "box_area_share": "too far", "occluded_fraction": "occluded",
    "shadows_clipped": "poor light", "highlights_clipped": "poor light", "mean_luma": "poor light",
    "rms_contrast": "poor light", "michelson_contrast": "poor light",
}
"""The raters' checklist reason (store.ratings.REASONS) a failing term of each measure corresponds to."""


class RulesError(FieldstudioError):
    """A rule cannot be read: unknown measure or operator, bad threshold, or a malformed rules file."""


@dataclass(frozen=True)
class Term:
    """One condition of the conjunction: ``measure op threshold`` with a gray band of half-width ``gray``.

    ``op`` is >=, >, <=, < (``threshold`` in the measure's units) or "true" / "false" for a yes/no
    measure (threshold None, no band). ``reason`` is the checklist reason reported when it fails.
    """

    measure: str
    op: str
    threshold: float | None = None
    gray: float = 0.0
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.measure not in MEASURE_KEYS:
            raise RulesError(f"unknown measure {self.measure!r}; measures: {', '.join(MEASURE_KEYS)}")
        if self.op not in OPS:
            raise RulesError(f"term on {self.measure}: operator {self.op!r} is not one of {', '.join(OPS)}")
        if self.op in ("true", "false"):
            if self.threshold is not None:
                raise RulesError(f"term {self.measure}: a yes/no term takes no threshold")
        elif self.threshold is None or not math.isfinite(self.threshold):
            raise RulesError(f"term {self.measure} {self.op}: needs a finite threshold")
        if not math.isfinite(self.gray) or self.gray < 0:
            raise RulesError(f"term on {self.measure}: the gray band must be >= 0")

    @property
    def name(self) -> str:
        """The term as written: ``sharpness_norm >= 50``, ``box_in_frame``, ``not box_in_frame``."""
        if self.op == "true":
            return self.measure
        if self.op == "false":
            return f"not {self.measure}"
        return f"{self.measure} {self.op} {self.threshold:g}"

    @property
    def checklist_reason(self) -> str:
        """The reason given when this term fails (``reason``, or the measure's usual one, or "other")."""
        return self.reason or REASON_OF_MEASURE.get(self.measure, "other")

    def status(self, value: Any) -> str:
        """"pass", "fail" or "gray" for one measured value (None or NaN -> "gray": undecided)."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "gray"
        if self.op in ("true", "false"):
            return "pass" if bool(value) == (self.op == "true") else "fail"
        v = float(value)
        if self.gray > 0 and abs(v - self.threshold) <= self.gray:
            return "gray"
        ok = {">=": v >= self.threshold, ">": v > self.threshold,
              "<=": v <= self.threshold, "<": v < self.threshold}[self.op]
        return "pass" if ok else "fail"


_TERM_RE = re.compile(r"^\s*(not\s+)?([a-z_]+)\s*"
                      r"(?:(>=|<=|>|<)\s*([-+0-9.eE]+)\s*(?:(?:±|\+-|\+/-)\s*([0-9.eE]+))?)?\s*$")


def parse_term(text: str, *, reason: str | None = None) -> Term:
    """A term from its written form: ``sharpness_norm >= 50``, ``highlights_clipped <= 0.02 ± 0.005``
    (gray band after ``±`` or ``+-``), ``box_in_frame``, ``not box_in_frame``. Raises RulesError."""
    m = _TERM_RE.match(text or "")
    if not m:
        raise RulesError(f"cannot read the term {text!r}; write e.g. 'sharpness_norm >= 50 ± 5' or 'box_in_frame'")
    negated, measure, op, threshold, gray = m.groups()
    if op is None:
        return Term(measure, "false" if negated else "true", reason=reason)
    if negated:
        raise RulesError(f"{text!r}: 'not' goes only with a yes/no measure")
    try:
        return Term(measure, op, float(threshold), float(gray) if gray else 0.0, reason)
    except ValueError:
        raise RulesError(f"{text!r}: the threshold or gray band is not a number") from None


@dataclass(frozen=True)
class Rules:
    """A conjunction of terms, and how it was tuned (``tuned``: seed, date, split sizes, objective)."""

    terms: tuple[Term, ...]
    tuned: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"scorer", "version", "terms": [...], "tuned": {...}}``."""
        return {"scorer": NAME, "version": VERSION, "terms": [asdict(t) for t in self.terms], "tuned": self.tuned}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Rules:
        """Rules from :meth:`to_dict`'s form; terms may also be written strings. Raises RulesError."""
        if not isinstance(d, Mapping) or not isinstance(d.get("terms"), list):
            raise RulesError("rules need a list of 'terms'")
        terms = []
        for t in d["terms"]:
            if isinstance(t, str):
                terms.append(parse_term(t))
            elif isinstance(t, Mapping):
                try:
                    terms.append(Term(t["measure"], t["op"], t.get("threshold"), float(t.get("gray") or 0.0),
                                      t.get("reason")))
                except (KeyError, TypeError, ValueError) as exc:
                    raise RulesError(f"term {t!r} cannot be read ({exc})") from None
            else:
                raise RulesError(f"term {t!r} cannot be read")
        return cls(tuple(terms), d.get("tuned"))


DEFAULT_RULES = Rules(tuple(parse_term(t) for t in (
    "sharpness_norm >= 50 ± 10", "box_in_frame", "box_area_share >= 0.05 ± 0.01",
    "occluded_fraction <= 0.25 ± 0.05", "highlights_clipped <= 0.05 ± 0.01", "shadows_clipped <= 0.05 ± 0.01")))
"""Untuned starting rules (sharpness_norm is in (luma levels / reference px^2)^2: real sharp photos of
the sample data read 100..1700, a strong blur below 20)."""


@dataclass(frozen=True)
class RuleVerdict:
    """The rules' verdict on one item: ``verdict`` accept / reject / unsure, the ``failing`` and
    ``undecided`` term names, the checklist ``reasons`` of the failing terms, and an ``explanation``."""

    verdict: str
    failing: list[str]
    undecided: list[str]
    reasons: list[str]
    explanation: str


def evaluate(rules: Rules, measures: Mapping[str, Any]) -> RuleVerdict:
    """Apply the rules to one item's measures (``{measure: value}``, as ``measure_all`` returns them)."""
    failing, undecided, reasons, parts = [], [], [], []
    for term in rules.terms:
        value = measures.get(term.measure)
        status = term.status(value)
        shown = "unknown" if value is None else (str(bool(value)).lower() if isinstance(value, bool)
                                                 else f"{float(value):.4g}")
        parts.append(f"{term.name}: {shown} {status}")
        if status == "fail":
            failing.append(term.name)
            if term.checklist_reason not in reasons:
                reasons.append(term.checklist_reason)
        elif status == "gray":
            undecided.append(term.name)
    verdict = "reject" if failing else "unsure" if undecided else "accept"
    return RuleVerdict(verdict, failing, undecided, reasons, f"{verdict}: " + "; ".join(parts))


# --------------------------------------------------------------------------- tuning


def split_items(item_ids: Sequence[str], *, seed: int = 0, train_share: float = 0.6) -> tuple[list[str], list[str]]:
    """Seeded split: the ids sorted, permuted by ``default_rng(seed)``; the first round(share * n) train."""
    if not 0 < train_share < 1:
        raise ValueError(f"train_share must be between 0 and 1, got {train_share}")
    ids = sorted(item_ids)
    order = np.random.default_rng(seed).permutation(len(ids))
    n_train = int(round(train_share * len(ids)))
    return sorted(ids[i] for i in order[:n_train]), sorted(ids[i] for i in order[n_train:])


_CODE = {"pass": 0, "gray": 1, "fail": 2}


def _status_matrix(rules: Rules, measures: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """(terms, items) status codes 0 pass, 1 gray, 2 fail."""
    return np.array([[_CODE[t.status(m.get(t.measure))] for m in measures] for t in rules.terms],
                     dtype=np.int8).reshape(len(rules.terms), len(measures))


def _verdict_codes(worst: np.ndarray) -> np.ndarray:
    """Worst term status per item -> 1 accept, 0 unsure, -1 reject."""
    return np.where(worst == 2, -1, np.where(worst == 1, 0, 1))


def _candidates(values: np.ndarray, gray: float) -> np.ndarray:
    """Midpoints between consecutive distinct values, and with a gray band of half-width g also each
    value +- (g + eps), so a threshold can clear a value's band; plus one beyond each end."""
    u = np.unique(values[np.isfinite(values)])
    if u.size == 0:
        return u
    eps = 1e-6 * max(1.0, float(np.abs(u).max()))
    span = max(eps, float(u[-1] - u[0]))
    parts = [(u[:-1] + u[1:]) / 2, [u[0] - gray - 0.01 * span - eps, u[-1] + gray + 0.01 * span + eps]]
    if gray > 0:
        parts += [u - gray - eps, u + gray + eps]
    return np.unique(np.concatenate(parts))


def _tune_term(term: Term, values: np.ndarray, others_worst: np.ndarray, target: np.ndarray) -> tuple[float, int]:
    """Best threshold for one numeric term given the others; returns (threshold, agreeing items)."""
    cands = _candidates(values, term.gray)
    if cands.size == 0:
        return term.threshold, -1
    known = np.isfinite(values)
    v = np.where(known, values, 0.0)[None, :]
    c = cands[:, None]
    ok = {">=": v >= c, ">": v > c, "<=": v <= c, "<": v < c}[term.op]
    status = np.where(ok, 0, 2)
    if term.gray > 0:
        status = np.where(np.abs(v - c) <= term.gray, 1, status)
    status = np.where(known[None, :], status, 1)
    verdicts = _verdict_codes(np.maximum(status, others_worst[None, :]))
    scores = (verdicts == target[None, :]).sum(axis=1)
    best = scores.max()
    ties = cands[scores == best]
    choice = ties[np.argmin(np.abs(ties - term.threshold))]
    return float(choice), int(best)


def _fit(rules: Rules, measures: Sequence[Mapping[str, Any]], target: np.ndarray, max_rounds: int) -> tuple[Rules, int]:
    terms = list(rules.terms)
    numeric = [k for k, t in enumerate(terms) if t.op not in ("true", "false")]
    columns = {k: np.array([np.nan if m.get(terms[k].measure) is None else float(m[terms[k].measure])
                            for m in measures]) for k in numeric}
    current = Rules(tuple(terms))
    best_score = int((_verdict_codes(_status_matrix(current, measures).max(axis=0, initial=0)) == target).sum())
    for _ in range(max_rounds * max(1, len(numeric))):
        status = _status_matrix(Rules(tuple(terms)), measures)
        moves = []
        for k in numeric:
            others = np.delete(status, k, axis=0).max(axis=0, initial=0)
            moves.append((k, *_tune_term(terms[k], columns[k], others, target)))
        if not moves:
            break
        k, threshold, score = max(moves, key=lambda m: m[2])      # first term wins a tie
        if score <= best_score:
            break
        terms[k] = replace(terms[k], threshold=threshold)
        best_score = score
    return Rules(tuple(terms)), best_score


@dataclass(frozen=True)
class TuneReport:
    """What tuning produced and how the tuned rules do on the held-out items.

    ``rules``: the tuned rules (``tuned`` filled). ``train_ids``/``test_ids``: the split; ``ties``:
    items left out because the raters tied; ``no_majority``: items nobody decided; ``no_measures``:
    items without measures. ``train_agreement``: share of training items where the verdict equals the
    majority (unsure counted as disagreement). ``test``: metric name -> Interval over the decided test
    items; ``test_unsure``: test items the rules left undecided; ``raters``: each rater against the
    majority of the others on the test items.
    """

    rules: Rules
    train_ids: list[str]
    test_ids: list[str]
    ties: int
    no_majority: int
    no_measures: int
    train_agreement: float | None
    test: dict[str, Any]
    test_unsure: int
    raters: dict[str, agreement.VersusMajority] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``fieldstudio acceptability tune --json``)."""
        def iv(i: Any) -> dict[str, Any]:
            return {"estimate": i.estimate, "ci_low": i.ci_low, "ci_high": i.ci_high, "n": i.n}
        return {"rules": self.rules.to_dict(), "n_train": len(self.train_ids), "n_test": len(self.test_ids),
                "ties": self.ties, "no_majority": self.no_majority, "no_measures": self.no_measures,
                "train_agreement": self.train_agreement, "test": {k: iv(v) for k, v in self.test.items()},
                "test_unsure": self.test_unsure,
                "raters_vs_majority": {k: v.to_dict() for k, v in self.raters.items()}}


def _majorities(table: agreement.VerdictTable) -> tuple[dict[str, str], int, int]:
    out, ties, none = {}, 0, 0
    for item, votes in table.items():
        verdict, status = agreement.majority(votes.values())
        if status == "tie":
            ties += 1
        elif status == "none":
            none += 1
        else:
            out[item] = verdict
    return out, ties, none


def heldout_report(rules: Rules, measures: Mapping[str, Mapping[str, Any]], table: agreement.VerdictTable,
                   item_ids: Sequence[str], *, n_resamples: int = agreement.DEFAULT_RESAMPLES,
                   seed: int | None = 0) -> tuple[dict[str, Any], int, dict[str, agreement.VersusMajority]]:
    """The rules on ``item_ids`` against the raters' majority.

    Returns (metrics, unsure, raters): metric name -> Interval (agreement, precision, recall, f1,
    false_accept_rate, miss_rate) over the items the rules decide and the raters' majority decides;
    the count of items the rules left unsure; each rater against the majority of the others there.
    """
    majority, _, _ = _majorities({i: table.get(i, {}) for i in item_ids})
    pairs, unsure = [], 0
    for item in item_ids:
        if item not in majority or item not in measures:
            continue
        verdict = evaluate(rules, measures[item]).verdict
        if verdict == "unsure":
            unsure += 1
            continue
        pairs.append((verdict, majority[item]))
    metrics = agreement.verdict_metrics_with_ci(pairs, n_resamples=n_resamples, seed=seed)
    raters = agreement.rater_vs_majority({i: table.get(i, {}) for i in item_ids}, n_resamples=n_resamples, seed=seed)
    return metrics, unsure, raters


def tune(rules: Rules, measures: Mapping[str, Mapping[str, Any]], table: agreement.VerdictTable, *, seed: int = 0,
         train_share: float = 0.6, max_rounds: int = 10, n_resamples: int = agreement.DEFAULT_RESAMPLES,
         now: datetime | None = None) -> TuneReport:
    """Tune the numeric thresholds of ``rules`` on a seeded split and report on the held-out items.

    Args:
        measures: ``{item_id: {measure: value}}``; items without measures are left out (counted).
        table: human verdicts ``{item_id: {rater: verdict}}``; the target is their majority.
        seed: split seed (also the bootstrap seed); train_share: 0.6 as RealityBench.
    Raises:
        RulesError when fewer than 2 items have both a majority and measures.
    """
    majority, ties, none = _majorities(table)
    usable = sorted(i for i in majority if i in measures)
    no_measures = len(majority) - len(usable)
    if len(usable) < 2:
        raise RulesError(f"tuning needs at least 2 items with a rater majority and measures; {len(usable)} have "
                         f"both ({ties} tied, {none} without a decided rating, {no_measures} without measures)")
    train, test = split_items(usable, seed=seed, train_share=train_share)
    target = np.array([1 if majority[i] == "accept" else -1 for i in train])
    fitted, score = _fit(rules, [measures[i] for i in train], target, max_rounds)
    stamp = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    tuned = Rules(fitted.terms, {"seed": seed, "date": stamp, "train_share": train_share, "n_train": len(train),
                                 "n_test": len(test), "train_agreement": score / len(train),
                                 "objective": "agreement with the rater majority, unsure = disagreement"})
    metrics, unsure, raters = heldout_report(tuned, measures, table, test, n_resamples=n_resamples, seed=seed)
    return TuneReport(tuned, train, test, ties, none, no_measures, score / len(train), metrics, unsure, raters)


# --------------------------------------------------------------------------- files


def save_rules(rules: Rules, path: Path) -> None:
    """Write rules as JSON, atomically."""
    atomic_write_text(Path(path), json.dumps(rules.to_dict(), indent=2) + "\n")


def load_rules(path: Path) -> Rules:
    """Read rules written by :func:`save_rules` (or by hand). Raises RulesError naming the file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RulesError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise RulesError(f"{path}: is not JSON ({exc})") from None
    try:
        return Rules.from_dict(data)
    except RulesError as exc:
        raise RulesError(f"{path}: {exc}") from None
