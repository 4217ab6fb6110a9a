"""FieldWorkArena as the paper's formula defines it ("fwa-paper").

Source: the FieldWorkArena paper's scoring section as summarised in benchmarks.md §1.5 (the formula
itself is marked unverified there):

    S = alpha * S_c + (1 - alpha) * S_n,     alpha = 0.5
    distance: S_n = 1 - r_d / r_th,  r_d = |pred - ref| / ref,  r_th = 0.5
    time:     S_n = 1 - T_d / T_th,  T_d = |pred - ref| in seconds, T_th = 60 s
    number:   S_n = 1 when equal, else 0

Deviations and choices, stated here and in the scorer description:

* The paper prints the time term as T_d / T_th; we read it as the misprint it appears to be and use
  1 - T_d / T_th (benchmarks.md §1.5).
* S_n is clipped to [0, 1] once the error exceeds the threshold.
* Arithmetic is exact: values are converted with ``Fraction(str(x))`` so 2.8 vs 3.5 gives r = 0.2 exactly
  (S_n = 0.6), not the float 0.20000000000000004.
* S_c: correct 1, incorrect 0, partially correct ``partial_credit`` (default 0.5; the paper's rule is
  unverified). Tasks with no numerical values (fuzzy_match, json_match, or a numbers reply with an empty
  ``numerical_values``) score S = S_c. Correct means S > 0.5, as in the official evaluator.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

from fieldstudio.core.parameters import Parameter
from fieldstudio.scoring.scorers import fs_match, fwa_official
from fieldstudio.scoring.scorers.judge import THREE_LEVEL_PROMPTS, Ask, ask_numbers, ask_three_level
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

__all__ = ["NAME", "VERSION", "DESCRIPTION", "score", "distance_term", "time_term", "number_term",
           "numerical_term", "combine", "PARAMETERS", "paper_params", "INFO"]

NAME = "fwa-paper"
VERSION = "1.1"
DESCRIPTION = ("FieldWorkArena paper formula S = alpha*S_c + (1-alpha)*S_n with continuous distance "
               "(1 - r_d/r_th) and time (1 - T_d/T_th) terms; exact arithmetic, clipped at 0")


def _exact(x: Any) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x).strip())


def _clip01(x: Fraction) -> Fraction:
    return min(Fraction(1), max(Fraction(0), x))


def distance_term(pred_m: Any, ref_m: Any, r_th: float = 0.5) -> float:
    """S_n = clip(1 - r_d / r_th) with r_d = |pred - ref| / ref (lengths in the same unit).
    Raises ZeroDivisionError for a reference of 0 and ValueError for a non-number."""
    p, r = _exact(pred_m), _exact(ref_m)
    return float(_clip01(1 - (abs(p - r) / r) / _exact(r_th)))


def time_term(pred_s: Any, ref_s: Any, t_th: float = 60.0) -> float:
    """S_n = clip(1 - T_d / T_th) with T_d = |pred - ref| in seconds (the printed T_d/T_th read as a misprint)."""
    return float(_clip01(1 - abs(_exact(pred_s) - _exact(ref_s)) / _exact(t_th)))


def number_term(pred: Any, ref: Any) -> float:
    """1.0 when the two numbers are equal (5 equals "5.0"), else 0.0."""
    return 1.0 if _exact(pred) == _exact(ref) else 0.0


def _entry_term(entry: Mapping[str, Any], r_th: float, t_th: float) -> float:
    kind, teacher, student = entry.get("type"), entry.get("teacher"), entry.get("student")
    try:
        if kind == "number":
            return number_term(student, teacher)
        if kind == "time":
            return time_term(fwa_official.official_time_seconds(student),
                             fwa_official.official_time_seconds(teacher), t_th)
        if kind == "length":
            return distance_term(student, teacher, r_th)
    except (ValueError, TypeError, ZeroDivisionError):
        return 0.0
    return 0.0


def numerical_term(values: Mapping[str, Mapping[str, Any]], *, r_th: float = 0.5, t_th: float = 60.0) -> float | None:
    """Mean S_n over the judge's numerical_values entries (N/A entries count as 0); None when empty."""
    terms = [_entry_term(v, r_th, t_th) for v in values.values() if isinstance(v, Mapping)]
    return sum(terms) / len(terms) if terms else None


def combine(s_c: float, s_n: float | None, alpha: float = 0.5) -> float:
    """S = alpha * S_c + (1 - alpha) * S_n, or S_c when there is no numerical term."""
    return float(s_c) if s_n is None else alpha * s_c + (1 - alpha) * s_n


def _s_c(verdict: str | None, partial_credit: float) -> float | None:
    return {"correct": 1.0, "partially correct": partial_credit, "incorrect": 0.0}.get(verdict or "")


def score(reference: str, prediction: str | None, eval_func: str, *, question: str = "", judge: Ask | None = None,
          alpha: float = 0.5, r_th: float = 0.5, t_th: float = 60.0, partial_credit: float = 0.5,
          source: Any = None) -> ScoreResult:
    """Score one FieldWorkArena answer with the paper's formula.

    Args:
        reference, prediction, eval_func, question, judge: as :func:`fwa_official.score` (the judge is asked
            with fieldstudio's own prompts; without one, ``fs_match`` decides what it can).
        alpha: weight of S_c; r_th: distance ratio at which S_n reaches 0; t_th: time error in seconds
            at which S_n reaches 0; partial_credit: S_c for "partially correct".
    Returns:
        ScoreResult with S in [0, 1] or None; an unparsed judge verdict leaves the answer unscored
        (fieldstudio's strict parser, not the code's substring rule).
    """
    prediction = "" if prediction is None else str(prediction)
    params = {"alpha": alpha, "r_th": r_th, "t_th": t_th, "partial_credit": partial_credit}
    if judge is None:
        return _without_judge(reference, prediction, eval_func, params)
    try:
        if eval_func == "numerical_match":
            reply = ask_numbers(judge, question, reference, prediction)
        else:
            reply = ask_three_level(judge, question, reference, prediction, json_report=eval_func == "json_match")
    except Exception as exc:
        return unscored(NAME, VERSION, f"judge call failed: {exc}", stage="judge", **params)
    s_c = _s_c(reply.verdict, partial_credit)
    if s_c is None:
        r = unscored(NAME, VERSION, f"judge reply not parsed: {reply.problem}", stage="judge", **params)
        return ScoreResult(r.scorer, r.version, None, None, r.explanation, judge_raw=reply.raw, details=r.details)
    s_n = numerical_term(reply.numerical_values or {}, r_th=r_th, t_th=t_th) if eval_func == "numerical_match" else None
    value = combine(s_c, s_n, alpha)
    return ScoreResult(NAME, VERSION, value, value > 0.5, f"S_c = {s_c:g}, S_n = {s_n if s_n is None else round(s_n, 4)}"
                       f" -> S = {value:.4g}", judge_raw=reply.raw,
                       details={"stage": "judge", "s_c": s_c, "s_n": s_n, **params})


def _without_judge(reference: str, prediction: str, eval_func: str, params: dict[str, float]) -> ScoreResult:
    """Deterministic path: the decisions of fs-match (ambiguous answers unscored), with the paper's
    continuous S_n where fs-match applies the official ladder."""
    alpha, r_th, t_th = params["alpha"], params["r_th"], params["t_th"]
    base = fs_match.score(reference, prediction, eval_func)
    kind = fs_match.reference_kind(reference) if eval_func == "numerical_match" else None
    if base.value is None or kind is None or kind == "yesno" or base.details.get("matcher") == "yes_no":
        return ScoreResult(NAME, VERSION, base.value, base.correct, base.explanation,
                           details={**base.details, **params})
    m = fs_match.match_by_kind(kind, reference, prediction)
    if m.matched is None:
        return unscored(NAME, VERSION, f"needs a judge: {m.explanation}", stage="matcher", matcher=kind, **params)
    if kind == "range":
        terms = [time_term(m.value[i], m.reference[i], t_th) for i in (0, 1)]
    elif kind == "time":
        terms = [time_term(m.value, m.reference, t_th)]
    elif kind == "length":
        terms = [distance_term(m.value, m.reference, r_th)] if m.reference else [0.0]
    else:
        terms = [number_term(m.value, m.reference)]
    s_n = sum(terms) / len(terms)
    value = combine(1.0, s_n, alpha)
    return ScoreResult(NAME, VERSION, value, value > 0.5,
                       f"{m.explanation}; S_c = 1 (the reference has no non-numerical part), S_n = {s_n:.4g}",
                       details={"stage": "matcher", "matcher": kind, "s_c": 1.0, "s_n": s_n, **params})


# ---------------------------------------------------------------- what it reads, and its declaration
PARAMETERS = (
    Parameter("alpha", float, 0.5, 0.0, 1.0, help="weight of the verdict S_c against the numbers S_n"),
    Parameter("partial_credit", float, 0.5, 0.0, 1.0, help="S_c of a \"partially correct\" verdict"),
    Parameter("r_th", float, 0.5, 0.0, math.inf, low_included=False,
              help="distance error ratio at which the distance term reaches 0"),
    Parameter("T_th", float, 60.0, 0.0, math.inf, low_included=False,
              help="time error in seconds at which the time term reaches 0"),
    Parameter("t_th", float, 60.0, 0.0, math.inf, low_included=False, help="another spelling of T_th"),
)
"""The formula's parameters (benchmarks.md §1.5); a task's ``tolerances`` set them, a scoring's ``params`` win.
r_th and T_th are divided by, so they stay above 0."""


def paper_params(task: TaskInputs, params: Mapping[str, Any]) -> dict[str, float]:
    """alpha, r_th, t_th and partial_credit for one task: the task's ``tolerances`` (``T_th`` or ``t_th``),
    else the defaults, overridden by the scoring's ``params``."""
    tol = task.tolerances or {}
    out = {"alpha": tol.get("alpha", 0.5), "r_th": tol.get("r_th", 0.5), "t_th": tol.get("T_th", tol.get("t_th", 60.0)),
           "partial_credit": tol.get("partial_credit", 0.5)}
    for key in ("alpha", "r_th", "partial_credit"):
        if key in params:
            out[key] = params[key]
    if "T_th" in params or "t_th" in params:
        out["t_th"] = params.get("T_th", params.get("t_th"))
    return {k: float(v) for k, v in out.items()}


def paper_arguments(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    """FieldWorkArena's inputs (``fwa_official.fwa_arguments``) with the formula's parameters for the task."""
    call = fwa_official.fwa_arguments(task, answer, params)
    if isinstance(call, str):
        return call
    return Arguments(call.args, {**call.kwargs, **paper_params(task, params)})


INFO = ScorerInfo(name=NAME, version=VERSION, description=DESCRIPTION, function=score, inputs=paper_arguments,
                  judge_optional=True, threshold=0.5, parameters=PARAMETERS, judge_prompts=THREE_LEVEL_PROMPTS)
"""fwa-paper: the paper's formula, with a judge when one is given."""
