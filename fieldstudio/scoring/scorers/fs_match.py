"""fieldstudio's judge-free matcher over FieldWorkArena answers ("fs-match"): it decides only what it can prove.

This is not FieldWorkArena's evaluator, which always asks its judge: it is fieldstudio's own scorer, under its
own name. It reads the WHOLE answer through ``core.answer_grammar`` (normalised: casefold, white space, one
final period; no NFKC) and decides in three cases only:

1. the answer, or the answer inside one affirmative frame ("The answer is X.", "Answer: X"), IS the reference:
   1, correct;
2. the reference is one plain value (a count, a length, a time, a time range or a yes/no; see
   :func:`reference_kind`) and the answer, after at most one frame, is exactly one value of that kind in the
   grammar's strict forms ("12 m", "three", "00:01:20", "00:00:10 to 00:02:36", "yes"): the same value 1,
   another value 0 (never a half: fs-match credits the value, not FieldWorkArena's ladder; the explanation
   names the step the official ladder would give);
3. a ``json_match`` answer that is one JSON value in full (a ```json fence allowed) that the report
   comparison decides: a mismatch 0; a match 1 only when every field is equal after normalisation or as the
   same plain value, else unscored.

Everything else (another word, a sentence, another script, a symbol, a parenthesis, a homoglyph, a second
value) is unscored, "needs a judge: ...". There is no list of negations to get past.
"""

from __future__ import annotations

import functools
import json
import re
from fractions import Fraction
from typing import Any

from fieldstudio.core import answer_grammar as grammar
from fieldstudio.core import matchers
from fieldstudio.scoring.scorers.fwa_official import EVAL_FUNCS, distance_step, fwa_arguments, time_step
from fieldstudio.scoring.scorers.judge import THREE_LEVEL_PROMPTS
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import ScorerInfo

__all__ = ["NAME", "VERSION", "DESCRIPTION", "score", "reference_kind", "match_by_kind", "INFO"]

NAME = "fs-match"
VERSION = "2.1"  # 2.0: a whole-answer grammar (the reference, a frame, or one strict value); a wrong value is 0;
# 2.1: no NFKC (superscripts and "№" read as digits and "no"), no repeated JSON keys
DESCRIPTION = ("fieldstudio's judge-free matcher (not FieldWorkArena's evaluator): decides only an answer that is "
               "the reference, the reference in an affirmative frame, or one plain value of the reference's kind; "
               "everything else needs a judge")

_FILLER = set("the it is are was were its it's about approximately around roughly nearly from to and between at "
              "a an of there total answer distance time duration length height width count number in".split())
_KIND_WORDS = {"count": "a count", "length": "a length", "time": "a time", "range": "a time range",
               "yesno": "a yes or no"}
_KIND_EXAMPLES = {"count": "'3' or 'three'", "length": "'12 m' or '12 meters'", "time": "'80 s' or '00:01:20'",
                  "range": "'00:00:10 to 00:02:36'", "yesno": "'yes' or 'no'"}


def _residual_words(text: str) -> list[str]:
    """Words left in a reference once values, units and filler are removed: empty means a 'pure' value."""
    t = str(text).lower()
    for rx in (matchers._FT_IN_RE, matchers._LENGTH_RE, matchers._CLOCK_RE):
        t = rx.sub(" ", t)
    t = re.sub(r"\d+(?:\.\d+)?\s*(?:h|hrs?|hours?|min|mins|minutes?|s|secs?|seconds?)\b", " ", t)
    t = matchers._NUMBER_WORD_RE.sub(" ", t)
    words = re.findall(r"[a-z]+", t)
    return [w for w in words if w not in _FILLER and w not in matchers._YES and w not in matchers._NO]


@functools.lru_cache(maxsize=8192)
def reference_kind(reference: str) -> str | None:
    """'range', 'time', 'length', 'count' or 'yesno' when the reference (ground truth, trusted text) is one
    plain value of that kind with only filler words around it ("There were four.", "12 meters", "No");
    None otherwise. Cached per reference text."""
    if _residual_words(reference):
        return None
    if matchers.parse_time_range_s(reference):
        return "range"
    if matchers.parse_time_s(reference) is not None:
        return "time"
    if matchers.parse_length_m(reference) is not None:
        return "length"
    if matchers.parse_count(reference) is not None and not re.search(r"\d\.\d", reference):
        return "count"
    if matchers.parse_yes_no(reference) is not None and len(re.findall(r"[a-z]+", reference.lower())) == 1:
        return "yesno"
    return None


def match_by_kind(kind: str, reference: str, prediction: str) -> matchers.MatchResult:
    """The loose matcher of a reference kind applied to a prediction (fwa-paper's continuous terms read the
    value of an answer fs-match has already decided with it)."""
    return {"range": matchers.match_time_range, "time": matchers.match_time, "length": matchers.match_length,
            "count": matchers.match_count, "yesno": matchers.match_yes_no}[kind](prediction, reference)


def _reference_value(kind: str, reference: str) -> Any | None:
    """The reference's value in the grammar's units (its strict form first, else the loose matchers' reading)."""
    strict = grammar.parse_value(kind, grammar.normalise(reference))
    if strict is not None:
        return strict
    if kind == "range":
        r = matchers.parse_time_range_s(reference)
        return None if r is None else tuple(Fraction(str(x)) for x in r)
    if kind == "time":
        r = matchers.parse_time_s(reference)
        return None if r is None else Fraction(str(r))
    if kind == "length":
        return matchers.parse_length_m(reference)
    if kind == "count":
        return matchers.parse_count(reference)
    return matchers.parse_yes_no(reference)


def _official_step(kind: str, value: Any, reference: Any) -> float | None:
    """The step FieldWorkArena's ladder gives this value (shown, never scored), None where it has none."""
    if kind == "length" and reference:
        return distance_step(float(abs(value - reference) / reference))
    if kind == "time":
        return time_step(float(abs(value - reference)))
    if kind == "range":
        return (time_step(float(abs(value[0] - reference[0]))) + time_step(float(abs(value[1] - reference[1])))) / 2
    return None


def _decided(value: float, explanation: str, **details: Any) -> ScoreResult:
    return ScoreResult(NAME, VERSION, value, value > 0.5, explanation, details={"stage": "matcher", **details})


def score(reference: str, prediction: str | None, eval_func: str, *, question: str = "", judge=None,  # noqa: ANN001
          source=None) -> ScoreResult:  # noqa: ANN001
    """Score one FieldWorkArena answer with the whole-answer grammar only (``judge`` and ``source`` ignored).

    Returns a ScoreResult with value 1 or 0 when decided (see the module docstring), else value None and
    "needs a judge: <why>"."""
    if eval_func not in EVAL_FUNCS:
        return unscored(NAME, VERSION, f"unknown eval_func {eval_func!r}: no task in FieldWorkArena uses it")
    ref_text = grammar.normalise(reference)
    if not ref_text:
        return unscored(NAME, VERSION, "needs a judge: the reference is empty", stage="matcher")
    readings = grammar.unframed("" if prediction is None else prediction)
    for text, frame in readings:
        if text == ref_text:
            how = "the answer is the reference" + (f" in the frame '{frame} ...'" if frame else "")
            return _decided(1.0, how + " (after normalising case and white space)", matcher="reference",
                            frame=frame)
    if eval_func == "json_match":
        return _score_report(reference, "" if prediction is None else str(prediction))
    kind = reference_kind(reference)
    ref_value = None if kind is None else _reference_value(kind, reference)
    if ref_value is None:
        return unscored(NAME, VERSION, "needs a judge: the answer is not the reference, and the reference is not one "
                        "plain value fs-match can compare", stage="matcher")
    for text, frame in readings:
        value = grammar.parse_value(kind, text)
        if value is not None:
            break
    else:
        return unscored(NAME, VERSION, f"needs a judge: the answer is not the reference, nor {_KIND_WORDS[kind]} "
                        f"alone in a form fs-match reads (e.g. {_KIND_EXAMPLES[kind]})", stage="matcher", matcher=kind)
    said, ref_said = grammar.describe_value(kind, value), grammar.describe_value(kind, ref_value)
    if value == ref_value:
        return _decided(1.0, f"the answer is {said}, the reference's value", matcher=kind, frame=frame)
    step = _official_step(kind, value, ref_value)
    ladder = "" if step is None else (f" (FieldWorkArena's {'distance' if kind == 'length' else 'time'} step would "
                                      f"give {step:g}; fs-match credits only the same value)")
    return _decided(0.0, f"the answer is {said}, the reference {ref_said}: a different value{ladder}", matcher=kind,
                    frame=frame, official_step=step)


_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL | re.IGNORECASE)


def _canonical_field(value: Any) -> Any:
    """A report field as fs-match compares it strictly: its plain length or time if it is one, else its text."""
    text = grammar.normalise(value)
    for kind in ("length", "time"):
        parsed = grammar.parse_value(kind, text)
        if parsed is not None:
            return kind, parsed
    return "text", text


def _canonical_report(obj: Any) -> list[tuple]:
    """The report's incidents as sorted, strictly comparable tuples (keys normalised, IDs as numbers)."""
    items, total = matchers.report_items(obj)
    incidents = []
    for item in items:
        fields = []
        for key, value in item.items():
            k = " ".join(re.sub(r"[\s_]+", " ", str(key)).split()).lower()
            fields.append((k, ("id", matchers.normalise_id(value)) if k == "id" else _canonical_field(value)))
        incidents.append(tuple(sorted(fields, key=repr)))
    return [("total", total), *sorted(incidents, key=repr)]


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different; a repeated key (the answer says two things) raises ValueError."""
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key is repeated")
    return dict(pairs)


def _score_report(reference: str, prediction: str) -> ScoreResult:
    """A json_match answer that is one JSON value in full (a ```json fence allowed), compared as a report."""
    text = prediction.strip()
    fence = _FENCE_RE.fullmatch(text)
    try:
        answer = json.loads(fence.group(1) if fence else text, object_pairs_hook=_no_repeated_keys)
    except ValueError:
        return unscored(NAME, VERSION, "needs a judge: the answer is not one JSON value alone (a ```json fence "
                        "allowed)", stage="matcher", matcher="json_report")
    m = matchers.match_json_report(answer, reference)
    if m.matched is None:
        return unscored(NAME, VERSION, f"needs a judge: {m.explanation}", stage="matcher", matcher="json_report")
    if not m.matched:
        return _decided(0.0, m.explanation, matcher="json_report")
    if _canonical_report(answer) != _canonical_report(m.reference):
        return unscored(NAME, VERSION, "needs a judge: the report's fields match only loosely (a field is not the "
                        "reference's text or its plain value)", stage="matcher", matcher="json_report")
    return _decided(1.0, m.explanation, matcher="json_report")


INFO = ScorerInfo(name=NAME, version=VERSION, description=DESCRIPTION, function=score, inputs=fwa_arguments,
                  threshold=0.5, judge_prompts=THREE_LEVEL_PROMPTS)
"""fs-match: fieldstudio's judge-free matcher over FieldWorkArena's questions."""
