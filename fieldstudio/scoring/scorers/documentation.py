"""Documentation fields read from proof-of-work photos ("documentation").

Source: RealityBench (arXiv 2610.14397) as described in benchmarks.md §4.2 — unverified. Rules:

* numeric fields are correct when |pred - truth| <= tolerance, the boundary taken as **inclusive**:
  tape-measure length 1/8 in, gap 1/4 in, gauge angle 0.2 degrees; fractional inches (``3 5/8"``) are
  parsed to exact fractions so the boundary is not blurred by float rounding;
* other fields are correct when equal after normalisation (case, whitespace, trailing punctuation);
* table fields (breaker directory): predicted rows are matched to reference rows one to one, in any
  order; extra predicted rows are not penalised; score = matched reference rows / reference rows
  (interpretation). A row matches when every reference cell matches the predicted cell of the same
  column (per-row criterion: interpretation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from fieldstudio.core import matchers
from fieldstudio.core.matchers import MatchResult, normalise_text
from fieldstudio.core.readings import parse_degrees, parse_inches
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

__all__ = ["NAME", "VERSION", "DESCRIPTION", "TOLERANCES", "parse_inches", "parse_degrees", "match_field",
           "match_table", "score", "documentation_fields", "fields_arguments", "INFO"]

NAME = "documentation"
VERSION = "1.0"
DESCRIPTION = ("Documentation fields: numbers within tolerance (tape 1/8 in, gap 1/4 in, gauge 0.2 deg, "
               "inclusive), text equal after normalisation, table rows matched in any order")

TOLERANCES: dict[str, tuple[Fraction, str]] = {
    "tape": (Fraction(1, 8), "in"),
    "gap": (Fraction(1, 4), "in"),
    "gauge": (Fraction(1, 5), "deg"),
}
"""Field kind -> (tolerance, unit)."""

def match_field(kind: str, prediction: Any, reference: Any) -> MatchResult:
    """One documentation field. ``kind`` is "tape", "gap", "gauge" (numeric, tolerance from
    :data:`TOLERANCES`, inclusive) or anything else (text equal after normalisation).
    Undecided (None) when a numeric value cannot be parsed from the reference."""
    if kind in TOLERANCES:
        tol, unit = TOLERANCES[kind]
        parse = parse_degrees if unit == "deg" else parse_inches
        p, r = parse(prediction), parse(reference)
        if r is None:
            return MatchResult(None, p, r, f"reference {reference!r} is not a {unit} value")
        if p is None:
            return MatchResult(False, p, r, f"no {unit} value in {prediction!r}")
        diff = abs(p - r)
        return MatchResult(diff <= tol, p, r, f"{float(p):g} vs {float(r):g} {unit}: off by {float(diff):g}, "
                                              f"tolerance {float(tol):g}")
    ok = normalise_text(prediction) == normalise_text(reference)
    return MatchResult(ok, prediction, reference, "text equal" if ok else "text differs")


def _row_matches(pred: Mapping[str, Any], ref: Mapping[str, Any], kinds: Mapping[str, str]) -> bool:
    pk = {normalise_text(k): v for k, v in pred.items()}
    for k, v in ref.items():
        key = normalise_text(k)
        if key not in pk or match_field(kinds.get(k, kinds.get(key, "text")), pk[key], v).matched is not True:
            return False
    return True


def match_table(predicted_rows: Sequence[Mapping[str, Any]], reference_rows: Sequence[Mapping[str, Any]],
                kinds: Mapping[str, str] | None = None) -> tuple[float | None, list[tuple[int, int]]]:
    """(matched reference rows / reference rows, [(reference index, predicted index), ...]).

    Maximum one-to-one matching (augmenting paths) so that the order of rows never matters; extra
    predicted rows are ignored. ``kinds`` gives a column's field kind (default text). None for an empty
    reference table.
    """
    kinds = kinds or {}
    if not reference_rows:
        return None, []
    ok = [[_row_matches(p, r, kinds) for p in predicted_rows] for r in reference_rows]
    owner: dict[int, int] = {}                       # predicted index -> reference index

    def augment(ri: int, seen: set[int]) -> bool:
        for pi, good in enumerate(ok[ri]):
            if good and pi not in seen:
                seen.add(pi)
                if pi not in owner or augment(owner[pi], seen):
                    owner[pi] = ri
                    return True
        return False

    matched = sum(1 for ri in range(len(reference_rows)) if augment(ri, set()))
    return matched / len(reference_rows), sorted((ri, pi) for pi, ri in owner.items())


def score(fields: Mapping[str, tuple[str, Any, Any]]) -> ScoreResult:
    """Share of documentation fields correct, from {field name: (kind, prediction, reference)}.

    ``kind`` "table" takes lists of row dicts and contributes its row score (0-1); other kinds count 1
    or 0 (see :func:`match_field`). Fields whose reference cannot be parsed are left out and listed.
    """
    parts: dict[str, float] = {}
    skipped: list[str] = []
    for name, (kind, prediction, reference) in fields.items():
        if kind == "table":
            value, _ = match_table(prediction or [], reference or [])
            if value is None:
                skipped.append(name)
            else:
                parts[name] = value
            continue
        m = match_field(kind, prediction, reference)
        if m.matched is None:
            skipped.append(name)
        else:
            parts[name] = 1.0 if m.matched else 0.0
    if not parts:
        return unscored(NAME, VERSION, "no field could be scored", skipped=skipped)
    value = sum(parts.values()) / len(parts)
    return ScoreResult(NAME, VERSION, value, None, f"{sum(parts.values()):g} of {len(parts)} fields correct",
                       details={"fields": parts, "skipped": skipped})


def documentation_fields(task: TaskInputs, answer: AnswerInputs) -> dict[str, tuple[str, Any, Any]] | str:
    """{field name: (kind, prediction, reference)} from the task's ``ground_truth_extra["fields"]`` (a value,
    or {"value", "kind"}; kinds also from ``ground_truth_extra["kinds"]``, else "table" for a list, the
    field's name when it is a tolerance kind, else "text") and the answer's parsed ``fields`` (else a JSON
    object in its text); or why there is nothing to compare."""
    ref = (task.ground_truth_extra or {}).get("fields")
    if not isinstance(ref, Mapping) or not ref:
        return "the task has no documentation fields (ground_truth_extra['fields'])"
    pred = (answer.parsed or {}).get("fields")
    if not isinstance(pred, Mapping):
        obj = matchers.extractjson_or_none(answer.raw_text or "")
        pred = obj.get("fields", obj) if isinstance(obj, Mapping) else None
    if not isinstance(pred, Mapping):
        return "no documentation fields found in the answer (a JSON object of field: value)"
    kinds = (task.ground_truth_extra or {}).get("kinds") or {}
    out: dict[str, tuple[str, Any, Any]] = {}
    for name, spec in ref.items():
        value, kind = (spec.get("value"), spec.get("kind")) if isinstance(spec, Mapping) else (spec, None)
        kind = kind or kinds.get(name) or ("table" if isinstance(value, list) else
                                          name if name in TOLERANCES else "text")
        out[name] = (kind, pred.get(name), value)
    return out


def fields_arguments(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    """The fields to compare (``documentation_fields``) as ``score``'s one argument."""
    fields = documentation_fields(task, answer)
    return fields if isinstance(fields, str) else Arguments((fields,))


INFO = ScorerInfo(name=NAME, version=VERSION, description=DESCRIPTION, function=score, inputs=fields_arguments)
"""documentation: the fields read from a proof-of-work photo against the reference fields."""
