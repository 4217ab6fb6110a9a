"""fieldstudio's deterministic matchers over FieldWorkArena answers ("fs-match"), without any judge.

This is not FieldWorkArena's evaluator, which always asks its judge: it is fieldstudio's own judge-free
scorer, under its own name. An answer that is the reference word for word (case, white space, quotes and a
final period aside) scores 1. Otherwise a verdict is given only when the answer is unambiguous
(``core.matchers.ambiguity``: no negation of the value, no hedge or question, no approximation where the
rule is exact, no range or second value) and the reference is a plain value a matcher can compare (a
pure yes/no, count, length, time or time range; a JSON report). Everything else is unscored with the
reason ("needs a judge: ..."). The ambiguity check runs first on every path, the yes/no contradiction
included, so "Yes? I'm not sure" against a "No, ..." reference stays unscored instead of scoring 0.

Values follow FieldWorkArena's rules where they apply: a numerical_match answer decided by a matcher
scores 0.5 + 0.5 x S_n with the official ladders (the reference has no non-numerical part, so the gate is
open); yes/no, counts and reports score 1 or 0; correct means value > 0.5.
"""

from __future__ import annotations

import functools
import json
import re

from fieldstudio.core import matchers
from fieldstudio.scoring.scorers.fwa_official import EVAL_FUNCS, distance_step, fwa_arguments, time_step
from fieldstudio.scoring.scorers.judge import THREE_LEVEL_PROMPTS
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import ScorerInfo

__all__ = ["NAME", "VERSION", "DESCRIPTION", "score", "reference_kind", "polarity_conflict", "match_by_kind",
           "numerical_steps", "INFO"]

NAME = "fs-match"
VERSION = "1.4"  # 1.4: a time of day with AM/PM ("12:30 PM") is no time from the video's start: defers
DESCRIPTION = ("fieldstudio deterministic matchers (no judge; not FieldWorkArena's evaluator): plain yes/no, count, "
               "length, time and JSON-report answers only, ambiguous answers unscored")

_FILLER = set("the it is are was were its it's about approximately around roughly nearly from to and between at "
              "a an of there total answer distance time duration length height width count number in".split())


def _residual_words(text: str) -> list[str]:
    """Words left in ``text`` once values, units and filler are removed: empty means a 'pure' value answer."""
    t = str(text).lower()
    for rx in (matchers._FT_IN_RE, matchers._LENGTH_RE, matchers._CLOCK_RE):
        t = rx.sub(" ", t)
    t = re.sub(r"\d+(?:\.\d+)?\s*(?:h|hrs?|hours?|min|mins|minutes?|s|secs?|seconds?)\b", " ", t)
    t = matchers._NUMBER_WORD_RE.sub(" ", t)
    words = re.findall(r"[a-z]+", t)
    return [w for w in words if w not in _FILLER and w not in matchers._YES and w not in matchers._NO]


@functools.lru_cache(maxsize=8192)
def reference_kind(reference: str) -> str | None:
    """'range', 'time', 'length', 'count' or 'yesno' when the reference is nothing but such a value.

    A reference that starts with "No" before a noun ("No person.") holds a word besides the value and is
    not a yes/no reference. Cached per reference text: scoring many answers to one task parses it once."""
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


@functools.lru_cache(maxsize=8192)
def _reference_polarity(reference: str) -> bool | None:
    """The yes/no of a reference that starts with a yes or no answer ("No, ...", "Yes."); None otherwise,
    also for "No" before a word ("No person.", "No 12 meters"): only a yes or no followed by punctuation or
    the end of the text is an answer."""
    if not re.match(r"\W*(yes|no)\s*(?:[,.!;:\-]|$)", reference, re.I):
        return None
    return matchers.parse_yes_no(reference)


def polarity_conflict(reference: str, prediction: str) -> bool:
    """True when a reference starting with yes/no and the prediction answer yes/no the other way round.
    Callers check ``matchers.ambiguity`` first: a hedged yes/no is no answer."""
    ref = _reference_polarity(reference)
    if ref is None:
        return False
    pred = matchers.parse_yes_no(prediction)
    return pred is not None and ref != pred


def match_by_kind(kind: str, reference: str, prediction: str) -> matchers.MatchResult:
    """The matcher of a reference kind (see :func:`reference_kind`) applied to the prediction."""
    return {"range": matchers.match_time_range, "time": matchers.match_time, "length": matchers.match_length,
            "count": matchers.match_count, "yesno": matchers.match_yes_no}[kind](prediction, reference)


def numerical_steps(kind: str, m: matchers.MatchResult) -> list[float]:
    """Official per-entry steps computed from deterministically parsed values (time in s, length in m)."""
    if kind == "range":
        return [time_step(abs(m.value[0] - m.reference[0])), time_step(abs(m.value[1] - m.reference[1]))]
    if kind == "time":
        return [time_step(abs(m.value - m.reference))]
    if kind == "length":
        ref = float(m.reference)
        return [distance_step(abs(float(m.value) - ref) / ref)] if ref else [0.0]
    return [1.0 if m.value == m.reference else 0.0]


def _json_values(text: str) -> tuple[list, str]:
    """(the top-level JSON objects and arrays in ``text``, the text around them with ``` fences removed)."""
    decoder = json.JSONDecoder()
    values, outside, i = [], [], 0
    s = str(text)
    while i < len(s):
        if s[i] in "[{":
            try:
                value, end = decoder.raw_decode(s, i)
            except ValueError:
                outside.append(s[i])
                i += 1
                continue
            values.append(value)
            outside.append(" ")
            i = end
        else:
            outside.append(s[i])
            i += 1
    return values, re.sub(r"```(?:json)?", " ", "".join(outside))


_QUALIFIED = re.compile(r"\b(?:not|never|no longer|but|however|although|though|except|unless|partly|partially|"
                        r"sometimes|mostly|only if)\b|n't\b", re.IGNORECASE)


def _is_yes_no(reference: str, prediction: str) -> bool:
    """The reference and the answer both open with a yes or a no."""
    opens = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)
    return bool(opens.match(str(reference))) and bool(opens.match(prediction))


def _after_yes_no(prediction: str) -> str:
    """What follows the answer's leading yes or no ("Yes, but not always" -> ", but not always"); after a no,
    the words that only repeat it ("No, never.", "No, not at all") are left out."""
    rest = re.sub(r"^\W*(?:yes|no)\b", "", prediction.strip(), count=1, flags=re.IGNORECASE)
    if re.match(r"^\W*no\b", prediction, re.IGNORECASE) and re.fullmatch(r"\W*(?:never|not at all)?\W*", rest,
                                                                           re.IGNORECASE):
        return ""
    return rest


def _verbatim(text: str) -> str:
    """``text`` casefolded, with runs of white space as one space and no surrounding quotes or final period."""
    return " ".join(str(text).casefold().split()).strip(" \"'.")


def score(reference: str, prediction: str | None, eval_func: str, *, question: str = "", judge=None,  # noqa: ANN001
          source=None) -> ScoreResult:  # noqa: ANN001
    """Score one FieldWorkArena answer with the deterministic matchers only (``judge`` and ``source`` ignored).

    Returns a ScoreResult with value 0-1 when a matcher decides, else value None and "needs a judge: <why>".
    """
    if eval_func not in EVAL_FUNCS:
        return unscored(NAME, VERSION, f"unknown eval_func {eval_func!r}: no task in FieldWorkArena uses it")
    prediction = "" if prediction is None else str(prediction)
    if _verbatim(prediction) and _verbatim(prediction) == _verbatim(reference):
        # A copy of the reference is right whatever it says (a "not" or a range in it is the reference's own).
        return ScoreResult(NAME, VERSION, 1.0, True, "the answer is the reference, word for word",
                           details={"stage": "matcher", "matcher": "verbatim"})
    if eval_func == "json_match":
        reports, outside = _json_values(prediction)
        if len(reports) > 1:
            return unscored(NAME, VERSION, f"needs a judge: the answer holds {len(reports)} JSON values, a second "
                            "report", stage="matcher")
        why = matchers.ambiguity(outside, yes_no=False) or ("a second value" if re.search(r"\d", outside) else None)
        if why is not None:
            return unscored(NAME, VERSION, f"needs a judge: the words around the report are {why}", stage="matcher")
        m = matchers.match_json_report(prediction, reference)
        if m.matched is None:
            return unscored(NAME, VERSION, f"needs a judge: {m.explanation}", stage="matcher")
        value = 1.0 if m.matched else 0.0
        return ScoreResult(NAME, VERSION, value, value > 0.5, m.explanation,
                           details={"stage": "matcher", "matcher": "json_report"})
    kind = reference_kind(reference)
    why = matchers.ambiguity(prediction, exact=kind in ("count", "yesno", None) or eval_func != "numerical_match",
                             allow_range=kind == "range",
                             yes_no=kind == "yesno" or _reference_polarity(reference) is not None)
    if why is not None:            # before any verdict, the yes/no contradiction included
        return unscored(NAME, VERSION, f"needs a judge: the answer is {why}", stage="matcher", matcher=kind)
    if _is_yes_no(reference, prediction) and _QUALIFIED.search(_after_yes_no(prediction)):
        return unscored(NAME, VERSION, "needs a judge: the yes or no is qualified by what follows it (a 'not', "
                        "'but' or 'sometimes' after it)", stage="matcher", matcher=kind)
    if polarity_conflict(reference, prediction):
        return ScoreResult(NAME, VERSION, 0.0, False, "the prediction answers yes/no the other way round",
                           details={"stage": "matcher", "matcher": "yes_no"})
    if kind == "yesno" and re.search(r"\d", prediction):
        return unscored(NAME, VERSION, "needs a judge: the answer holds a number besides its yes or no (only a "
                        "contradiction is decided)", stage="matcher", matcher=kind)
    if kind is None:
        return unscored(NAME, VERSION, "needs a judge: the reference is not a plain value a matcher can compare",
                        stage="matcher")
    m = match_by_kind(kind, reference, prediction)
    if m.matched is None:
        return unscored(NAME, VERSION, f"needs a judge: {m.explanation}", stage="matcher", matcher=kind)
    if eval_func == "numerical_match" and kind != "yesno":
        steps = numerical_steps(kind, m)
        s_n = sum(steps) / len(steps)
        value = 0.5 + 0.5 * s_n
        return ScoreResult(NAME, VERSION, value, value > 0.5,
                           f"{m.explanation}; score 0.5 + 0.5 x S_n = {value:g} with S_n = {s_n:g} from the "
                           "official ladder (FieldWorkArena's numerical_match; its gate is open: the reference has "
                           "no non-numerical part)",
                           details={"stage": "matcher", "matcher": kind, "s_n": s_n, "steps": steps})
    value = 1.0 if m.matched else 0.0
    return ScoreResult(NAME, VERSION, value, value > 0.5, m.explanation, details={"stage": "matcher", "matcher": kind})


INFO = ScorerInfo(name=NAME, version=VERSION, description=DESCRIPTION, function=score, inputs=fwa_arguments,
                  threshold=0.5, judge_prompts=THREE_LEVEL_PROMPTS)
"""fs-match: fieldstudio's judge-free matchers over FieldWorkArena's questions."""
