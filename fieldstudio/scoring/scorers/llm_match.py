"""1-5 judge marks: OpenEQA LLM-Match and IndustryEQA's direct and reasoning scores.

Official scorers ("llm-match", "eqa-direct", "eqa-reasoning") send the benchmarks' own prompts, read at
run time from the user's copy (``scoring.official``), with their settings; the "+fs-prompt" scorers send
fieldstudio's own 1-5 prompt (``resources/prompts/judge_marks_1_5.txt``) and are not comparable with
published tables. Sources (read, not copied; benchmarks.md §2.4, §2.5, §3.1, §3.2, §3.4):

* OpenEQA ``facebookresearch/open-eqa@cfa3fce``: ``openeqa/evaluation/llm_match.py`` (``prediction is
  None`` gives 0; prompt "mmbench", or "mmbench-extra" when ``extra_answers`` is not None; ``parse_score``:
  an all-digit reply is the mark, else the integer after the FIRST "Your mark:" up to the end of its
  line, the tag may stand inside a line; anything else raises) and ``evaluate-predictions.py`` (the
  prediction is cut after its last period when one is found before its end; final = mean(100 *
  (clip(s, 1, 5) - 1) / 4)). A reply the official parser refuses leaves the item unscored, marked "judge
  failed" (the official run stops there), and is asked again by the next scoring.
* IndustryEQA ``JackYFL/IndustryEQA@90418b6``: ``industryeqa/evaluation/direct_match.py``: two replies
  per item, each a fenced ```json block (else a brace object holding ``"direct_score":`` or
  ``"reasoning_score":``) parsed as JSON, so marks may be decimals; an item whose direct or reasoning
  reply fails (call error, no JSON, bad JSON) is dropped from the score file: both official scorers ask
  both prompts and leave such an item unscored ("judge failed", asked again). A parsed reply without the
  score key counts 0, as ``.get(key, 0)`` does. ``score2.py`` at ``ad3ab29``: pct = (s - 1) / 4 * 100 with
  no clip; reasoning averaged over ``reasoning_status == "1"`` only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fieldstudio.benchmarks.industryeqa import SMALL_MAX_ID
from fieldstudio.core.parameters import Parameter
from fieldstudio.scoring.scorers.judge import Ask, ask_mark
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

__all__ = ["NAME", "VERSION", "DESCRIPTION", "DIRECT_NAME", "REASONING_NAME", "EQA_VERSION", "DIRECT_DESCRIPTION",
           "REASONING_DESCRIPTION", "FS_NAME", "FS_DIRECT_NAME", "FS_REASONING_NAME", "FS_VERSION",
           "FS_DESCRIPTION", "FS_DIRECT_DESCRIPTION", "FS_REASONING_DESCRIPTION", "openeqa_percent",
           "industryeqa_percent", "openeqa_truncate", "openeqa_mark", "industryeqa_reply", "score",
           "score_eqa_direct", "score_eqa_reasoning", "score_fs_prompt", "score_eqa_direct_fs_prompt",
           "score_eqa_reasoning_fs_prompt", "openeqa_final", "EqaItemScore", "EqaSummary", "scale_of",
           "human_presence_of", "aggregate_industryeqa", "TRUNCATE", "openeqa_arguments", "direct_arguments",
           "reasoning_arguments", "SCORERS"]

NAME = "llm-match"
VERSION = "2.0"
DESCRIPTION = ("OpenEQA LLM-Match with its own prompt and settings read from the located open-eqa files: mark "
               "1-5, clipped, 100*(s-1)/4; prediction cut after its last period")
DIRECT_NAME = "eqa-direct"
REASONING_NAME = "eqa-reasoning"
EQA_VERSION = "2.0"
DIRECT_DESCRIPTION = ("IndustryEQA direct score with its own prompts read from the located IndustryEQA files: "
                      "100*(s-1)/4 without clipping; items whose direct or reasoning reply fails are dropped")
REASONING_DESCRIPTION = ("IndustryEQA reasoning score with its own prompts: 100*(s-1)/4 without clipping; only "
                         "items with reasoning_status \"1\"; items whose direct or reasoning reply fails are dropped")
FS_NAME = "llm-match+fs-prompt"
FS_DIRECT_NAME = "eqa-direct+fs-prompt"
FS_REASONING_NAME = "eqa-reasoning+fs-prompt"
FS_VERSION = "1.0"
FS_DESCRIPTION = ("OpenEQA's mark rule (clip, 100*(s-1)/4) over fieldstudio's own 1-5 judge prompt (not comparable "
                  "with published tables)")
FS_DIRECT_DESCRIPTION = ("IndustryEQA's direct percentage over fieldstudio's own 1-5 judge prompt (not comparable "
                         "with published tables)")
FS_REASONING_DESCRIPTION = ("IndustryEQA's reasoning percentage over fieldstudio's own 1-5 judge prompt, "
                            "reasoning_status \"1\" only (not comparable with published tables)")


def openeqa_percent(mark: float) -> float:
    """OpenEQA: 100 * (clip(mark, 1, 5) - 1) / 4. 5 -> 100, 3 -> 50, 0 -> 0, 6 -> 100."""
    return 100.0 * (min(5.0, max(1.0, float(mark))) - 1.0) / 4.0


def industryeqa_percent(mark: float) -> float:
    """IndustryEQA: 100 * (mark - 1) / 4 without clipping. 0 -> -25, 6 -> 125, 3.5 -> 62.5."""
    return 100.0 * (float(mark) - 1.0) / 4.0


def openeqa_truncate(prediction: str) -> tuple[str, bool]:
    """(text judged, whether a period was found): everything up to and including the last "." (the
    evaluation script cuts only when the period is found and is not already the last character, which
    gives the same text); a prediction without a period is judged whole."""
    i = prediction.rfind(".")
    return (prediction[: i + 1], True) if i >= 0 else (prediction, False)


def openeqa_mark(output: str, tag: str = "Your mark:") -> int | None:
    """The mark as OpenEQA's ``parse_score`` reads it, or None where it raises.

    An all-digit reply (``str.isdigit`` on the reply as it is, so " 4" is not) is the mark; otherwise the
    text from the first ``tag`` to the end of that line, with the tag removed and stripped, must be an
    integer ("Sure. Your mark: 4" -> 4, "Your mark: 4\\nYour mark: 2" -> 4, "Your mark: 4/5" -> None)."""
    text = str(output)
    try:
        if text.isdigit():
            return int(text)
        start = text.find(tag)
        if start == -1:
            return None
        end = text.find("\n", start)
        segment = text[start:] if end == -1 else text[start:end]
        return int(segment.replace(tag, "").strip())
    except ValueError:
        return None


_FENCED = re.compile(r"```json\s*(\{.*?\})\s*```", re.DOTALL)


def industryeqa_reply(text: str, kind: str) -> dict[str, Any]:
    """A reply parsed as ``direct_match.py`` parses it: the first fenced ```json {...}``` block, else the
    first brace object (without nested braces) holding ``"<kind>_score":``; {"error": ...} when neither
    is found or the JSON does not decode. ``kind`` is "direct" or "reasoning"."""
    m = _FENCED.search(str(text))
    if m:
        body = m.group(1)
    else:
        m = re.search(r"\{[^{]*" + re.escape(f'"{kind}_score"') + r":[^}]*\}", str(text), re.DOTALL)
        if not m:
            return {"error": "no JSON with the score in the reply"}
        body = m.group(0)
    try:
        parsed = json.loads(body)
    except ValueError:
        return {"error": "the reply's JSON does not decode"}
    return parsed if isinstance(parsed, dict) else {"error": "the reply's JSON is not an object"}


def _judge_failed(name: str, version: str, why: str, raw: str | None = None, **details: Any) -> ScoreResult:
    return ScoreResult(name, version, None, None, f"judge failed: {why}; asked again by the next score",
                       judge_raw=raw, details={"judge_failed": True, **details})


# ---------------------------------------------------------------- OpenEQA
def score(question: str, answer: str, prediction: str | None, extra_answers: Sequence[str] | None = None, *,
          judge: Ask | None = None, truncate: bool = True, source: Any = None) -> ScoreResult:
    """OpenEQA LLM-Match for one item with OpenEQA's own prompt: value in percent (0-100), correct None.

    ``prediction`` None scores 0 % as the original (no call). ``truncate`` applies the period cut; the
    text judged is in details["judged_prediction"]. ``source`` is the located OpenEQA source (its
    prompts and mark tag). A reply the official parser refuses, or a failed call, is unscored and marked
    "judge failed"."""
    if prediction is None:
        return ScoreResult(NAME, VERSION, openeqa_percent(0), None, "no prediction: mark 0 as in OpenEQA",
                           details={"mark": 0})
    judged, had_period = openeqa_truncate(prediction) if truncate else (prediction, True)
    if judge is None or source is None:
        return unscored(NAME, VERSION, "llm-match needs a judge and OpenEQA's own files (fieldstudio benchmarks "
                        "locate openeqa DIR)", judged_prediction=judged)
    kind = "mmbench" if extra_answers is None else "mmbench-extra"
    prompt = source.render(kind, question=question, answer=answer, prediction=judged,
                           extra_answers=None if extra_answers is None else list(extra_answers))
    details = {"judged_prediction": judged, "truncated": truncate and had_period, "no_period": not had_period,
               "prompt": kind}
    try:
        raw = judge(prompt)
    except Exception as exc:
        return _judge_failed(NAME, VERSION, f"the judge call failed ({exc})", **details)
    mark = openeqa_mark(raw, source.mark_tag or "Your mark:")
    if mark is None:
        return _judge_failed(NAME, VERSION, "OpenEQA's parse_score refuses the reply (neither all digits nor an "
                             f"integer after {source.mark_tag!r})", raw, **details)
    value = openeqa_percent(mark)
    return ScoreResult(NAME, VERSION, value, None, f"mark {mark} -> {value:g} %", judge_raw=raw,
                       details={**details, "mark": mark})


def openeqa_final(marks: Iterable[float]) -> float | None:
    """OpenEQA's final number: mean of the clipped percentages (None for no marks)."""
    pct = [openeqa_percent(m) for m in marks]
    return sum(pct) / len(pct) if pct else None


# ---------------------------------------------------------------- IndustryEQA
def _industryeqa_marks(question: str, direct_answer: str, reasoning_answer: str, generated_direct: str,
                       generated_reasoning: str, judge: Ask, source: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both replies of one item, as direct_match.py asks them: ({"direct": parsed, ...}, raw texts)."""
    prompts = {
        "direct": source.render("direct", question=question, ground_direct_answer=direct_answer,
                                generated_direct_answer=generated_direct),
        "reasoning": source.render("reasoning", question=question, ground_direct_answer=direct_answer,
                                   generated_direct_answer=generated_direct, ground_reasoning_answer=reasoning_answer,
                                   generated_reasoning_answer=generated_reasoning)}
    parsed: dict[str, Any] = {}
    raws: dict[str, Any] = {}
    for kind, prompt in prompts.items():
        try:
            raws[kind] = judge(prompt)
        except Exception as exc:
            raws[kind] = None
            parsed[kind] = {"error": f"the judge call failed ({exc})"}
            continue
        parsed[kind] = industryeqa_reply(raws[kind], kind)
    return parsed, raws


def _industryeqa_result(name: str, kind: str, parsed: dict[str, Any], raws: dict[str, Any]) -> ScoreResult:
    raw = raws.get(kind)
    details = {"direct_raw": raws.get("direct"), "reasoning_raw": raws.get("reasoning")}
    failed = [k for k in ("direct", "reasoning") if "error" in parsed[k]]
    if failed:
        why = "; ".join(f"the {k} reply: {parsed[k]['error']}" for k in failed)
        return _judge_failed(name, EQA_VERSION, f"{why}; direct_match.py drops the item", raw, **details)
    mark = parsed[kind].get(f"{kind}_score", 0)
    if isinstance(mark, bool) or not isinstance(mark, (int, float)):
        return ScoreResult(name, EQA_VERSION, None, None, f"the {kind}_score {mark!r} is not a number",
                           judge_raw=raw, details=details)
    value = industryeqa_percent(mark)
    return ScoreResult(name, EQA_VERSION, value, None, f"{kind}_score {mark:g} -> {value:g} %", judge_raw=raw,
                       details={**details, "mark": mark})


def score_eqa_direct(question: str, direct_answer: str, generated_direct_answer: str, *, reasoning_answer: str = "",
                     generated_reasoning_answer: str = "", judge: Ask | None = None, source: Any = None) -> ScoreResult:
    """IndustryEQA direct score for one item with its own prompts, in percent (unclipped).

    Both the direct and the reasoning prompt are asked, as direct_match.py does, because the item is
    dropped when either reply fails; unscored without a judge or the located source."""
    if judge is None or source is None:
        return unscored(DIRECT_NAME, EQA_VERSION, "eqa-direct needs a judge and IndustryEQA's own files "
                        "(fieldstudio benchmarks locate industryeqa DIR)")
    parsed, raws = _industryeqa_marks(question, direct_answer, reasoning_answer, generated_direct_answer,
                                      generated_reasoning_answer, judge, source)
    return _industryeqa_result(DIRECT_NAME, "direct", parsed, raws)


def score_eqa_reasoning(question: str, direct_answer: str, reasoning_answer: str, generated_direct_answer: str,
                        generated_reasoning_answer: str, reasoning_status: str, *, judge: Ask | None = None,
                        source: Any = None) -> ScoreResult:
    """IndustryEQA reasoning score for one item with its own prompts, in percent (unclipped).

    Only items with ``reasoning_status == "1"`` (compared as text, so an int 1 counts, §5 pitfall 17)
    are scored; the others are unscored with that reason and not asked."""
    if str(reasoning_status).strip() != "1":
        return unscored(REASONING_NAME, EQA_VERSION,
                        f"not in the reasoning subset (reasoning_status {reasoning_status!r})")
    if judge is None or source is None:
        return unscored(REASONING_NAME, EQA_VERSION, "eqa-reasoning needs a judge and IndustryEQA's own files "
                        "(fieldstudio benchmarks locate industryeqa DIR)")
    parsed, raws = _industryeqa_marks(question, direct_answer, reasoning_answer, generated_direct_answer,
                                      generated_reasoning_answer, judge, source)
    return _industryeqa_result(REASONING_NAME, "reasoning", parsed, raws)


# ---------------------------------------------------------------- fieldstudio's own prompt
def score_fs_prompt(question: str, answer: str, prediction: str | None, extra_answers: Sequence[str] | None = None,
                    *, judge: Ask | None = None, truncate: bool = True, source: Any = None) -> ScoreResult:
    """OpenEQA's mark rule over fieldstudio's own 1-5 prompt ("llm-match+fs-prompt"), in percent."""
    if prediction is None:
        return ScoreResult(FS_NAME, FS_VERSION, openeqa_percent(0), None, "no prediction: mark 0 as in OpenEQA",
                           details={"mark": 0})
    judged, had_period = openeqa_truncate(prediction) if truncate else (prediction, True)
    if judge is None:
        return unscored(FS_NAME, FS_VERSION, "needs a judge", judged_prediction=judged)
    details = {"judged_prediction": judged, "truncated": truncate and had_period, "no_period": not had_period}
    try:
        reply = ask_mark(judge, question, answer, judged, extra_answers)
    except Exception as exc:
        return _judge_failed(FS_NAME, FS_VERSION, f"the judge call failed ({exc})", **details)
    details["mark"] = reply.verdict
    if reply.verdict is None:
        return ScoreResult(FS_NAME, FS_VERSION, None, None, f"judge reply not parsed: {reply.problem}",
                           judge_raw=reply.raw, details=details)
    value = openeqa_percent(reply.verdict)
    return ScoreResult(FS_NAME, FS_VERSION, value, None, f"mark {reply.verdict} -> {value:g} %", judge_raw=reply.raw,
                       details=details)


def _mark_result(name: str, reply, details: dict) -> ScoreResult:  # noqa: ANN001 - JudgeReply
    details = {**details, "mark": reply.verdict}
    if reply.verdict is None:
        return ScoreResult(name, FS_VERSION, None, None, f"judge reply not parsed: {reply.problem}",
                           judge_raw=reply.raw, details=details)
    value = industryeqa_percent(reply.verdict)
    return ScoreResult(name, FS_VERSION, value, None, f"mark {reply.verdict} -> {value:g} %",
                       judge_raw=reply.raw, details=details)


def score_eqa_direct_fs_prompt(question: str, direct_answer: str, generated_direct_answer: str, *,
                               reasoning_answer: str = "", generated_reasoning_answer: str = "",
                               judge: Ask | None = None, source: Any = None) -> ScoreResult:
    """IndustryEQA's direct percentage over fieldstudio's own 1-5 prompt; unscored without a judge."""
    if judge is None:
        return unscored(FS_DIRECT_NAME, FS_VERSION, "needs a judge")
    try:
        reply = ask_mark(judge, question, direct_answer, generated_direct_answer)
    except Exception as exc:
        return _judge_failed(FS_DIRECT_NAME, FS_VERSION, f"the judge call failed ({exc})")
    return _mark_result(FS_DIRECT_NAME, reply, {})


def score_eqa_reasoning_fs_prompt(question: str, direct_answer: str, reasoning_answer: str,
                                  generated_direct_answer: str, generated_reasoning_answer: str,
                                  reasoning_status: str, *, judge: Ask | None = None,
                                  source: Any = None) -> ScoreResult:
    """IndustryEQA's reasoning percentage over fieldstudio's own 1-5 prompt (both direct answers and
    both reasoning answers shown); only ``reasoning_status == "1"`` items are scored."""
    if str(reasoning_status).strip() != "1":
        return unscored(FS_REASONING_NAME, FS_VERSION,
                        f"not in the reasoning subset (reasoning_status {reasoning_status!r})")
    if judge is None:
        return unscored(FS_REASONING_NAME, FS_VERSION, "needs a judge")
    reference = f"Direct answer: {direct_answer}\nReasoning: {reasoning_answer}"
    prediction = f"Direct answer: {generated_direct_answer}\nReasoning: {generated_reasoning_answer}"
    q = (f"{question}\n(Rate the reasoning. If the assistant's direct answer contradicts the reference direct "
         "answer, the mark must be 1, or 2 at most.)")
    try:
        reply = ask_mark(judge, q, reference, prediction)
    except Exception as exc:
        return _judge_failed(FS_REASONING_NAME, FS_VERSION, f"the judge call failed ({exc})")
    return _mark_result(FS_REASONING_NAME, reply, {})


# ---------------------------------------------------------------- IndustryEQA aggregation
@dataclass(frozen=True)
class EqaItemScore:
    """One IndustryEQA item: ids and attributes from the annotation, and the two judge marks (1-5;
    None when the judge failed or the item was not scored)."""

    question_id: int
    type: str
    path: str
    reasoning_status: str
    direct_mark: float | None
    reasoning_mark: float | None = None


@dataclass(frozen=True)
class EqaSummary:
    """Mean percentages (None when empty) and coverage: ``direct_scored`` / ``items`` and
    ``reasoning_scored`` / ``reasoning_items`` (items with reasoning_status "1")."""

    avg_direct: float | None
    avg_reasoning: float | None
    items: int
    direct_scored: int
    reasoning_items: int
    reasoning_scored: int


def scale_of(question_id: int) -> str:
    """"small" for ids 1-971, "large" for 972-1344 (fieldstudio's rule, §2.1 and §2.5)."""
    return "small" if int(question_id) <= SMALL_MAX_ID else "large"


def human_presence_of(path: str) -> str:
    """"no_human" if the path contains "no_human", else "human" if it contains "human", else "unknown"."""
    return "no_human" if "no_human" in path else ("human" if "human" in path else "unknown")


def _summary(items: list[EqaItemScore]) -> EqaSummary:
    direct = [industryeqa_percent(i.direct_mark) for i in items if i.direct_mark is not None]
    subset = [i for i in items if str(i.reasoning_status).strip() == "1"]
    reasoning = [industryeqa_percent(i.reasoning_mark) for i in subset if i.reasoning_mark is not None]
    return EqaSummary(sum(direct) / len(direct) if direct else None,
                      sum(reasoning) / len(reasoning) if reasoning else None,
                      len(items), len(direct), len(subset), len(reasoning))


def aggregate_industryeqa(items: Iterable[EqaItemScore]) -> dict[str, dict[str, EqaSummary]]:
    """score2.py's tables: {"all": {"all": ...}, "type": {...}, "human": {...}, "scale": {...}}.

    avg_direct is over every scored item of the group; avg_reasoning only over its reasoning-subset
    items (reasoning_status == "1"). Unscored items count in ``items`` but not in the means (coverage).
    """
    items = list(items)
    out: dict[str, dict[str, EqaSummary]] = {"all": {"all": _summary(items)}}
    for key, fn in (("type", lambda i: i.type), ("human", lambda i: human_presence_of(i.path)),
                    ("scale", lambda i: scale_of(i.question_id))):
        groups: dict[str, list[EqaItemScore]] = {}
        for i in items:
            groups.setdefault(fn(i), []).append(i)
        out[key] = {g: _summary(v) for g, v in sorted(groups.items())}
    return out


# ---------------------------------------------------------------- what they read, and their declarations
TRUNCATE = Parameter("truncate", float, 1.0, 0.0, 1.0,
                     help="1: judge the prediction cut after its last period, as OpenEQA's script does; 0: whole")
"""OpenEQA's period cut, on (1) or off (0)."""
_NO_GROUND_TRUTH = "the task has no ground truth"


def openeqa_arguments(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    """LLM-Match's inputs: question, reference, prediction, the extra references (``ground_truth_extra``)."""
    if task.ground_truth is None:
        return _NO_GROUND_TRUTH
    extra = (task.ground_truth_extra or {}).get("extra_answers")
    return Arguments((task.query, task.ground_truth, answer.raw_text, extra),
                     {"truncate": bool(params.get("truncate", True))})


def direct_arguments(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    """IndustryEQA direct score's inputs: the parsed direct answer (else the reply's text) and, as
    direct_match.py also asks the reasoning prompt, both reasoning answers."""
    if task.ground_truth is None:
        return _NO_GROUND_TRUTH
    parsed = answer.parsed or {}
    return Arguments((task.query, task.ground_truth, parsed.get("direct_answer") or answer.raw_text or ""),
                     {"reasoning_answer": (task.ground_truth_extra or {}).get("reasoning_answer") or "",
                      "generated_reasoning_answer": parsed.get("reasoning_answer") or ""})


def reasoning_arguments(task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any]) -> Arguments | str:
    """IndustryEQA reasoning score's inputs: both direct and both reasoning answers and the task's
    ``reasoning_status`` (``extra``); a task without a reference reasoning answer is not scored."""
    reasoning = (task.ground_truth_extra or {}).get("reasoning_answer")
    if task.ground_truth is None or reasoning is None:
        return "the task has no reference reasoning answer"
    parsed = answer.parsed or {}
    status = (task.extra or {}).get("reasoning_status")
    return Arguments((task.query, task.ground_truth, reasoning, parsed.get("direct_answer") or answer.raw_text or "",
                      parsed.get("reasoning_answer") or "", "" if status is None else str(status)))


SCORERS = (
    ScorerInfo(name=NAME, version=VERSION, description=DESCRIPTION, function=score, inputs=openeqa_arguments,
               needs_judge=True, benchmark="openeqa", scale=100.0, parameters=(TRUNCATE,)),
    ScorerInfo(name=FS_NAME, version=FS_VERSION, description=FS_DESCRIPTION, function=score_fs_prompt,
               inputs=openeqa_arguments, needs_judge=True, scale=100.0, parameters=(TRUNCATE,)),
    ScorerInfo(name=DIRECT_NAME, version=EQA_VERSION, description=DIRECT_DESCRIPTION, function=score_eqa_direct,
               inputs=direct_arguments, needs_judge=True, benchmark="industryeqa", scale=100.0),
    ScorerInfo(name=FS_DIRECT_NAME, version=FS_VERSION, description=FS_DIRECT_DESCRIPTION,
               function=score_eqa_direct_fs_prompt, inputs=direct_arguments, needs_judge=True, scale=100.0),
    ScorerInfo(name=REASONING_NAME, version=EQA_VERSION, description=REASONING_DESCRIPTION,
               function=score_eqa_reasoning, inputs=reasoning_arguments, needs_judge=True, benchmark="industryeqa",
               scale=100.0),
    ScorerInfo(name=FS_REASONING_NAME, version=FS_VERSION, description=FS_REASONING_DESCRIPTION,
               function=score_eqa_reasoning_fs_prompt, inputs=reasoning_arguments, needs_judge=True, scale=100.0),
)
"""OpenEQA's LLM-Match and IndustryEQA's direct and reasoning scores, each official and over fieldstudio's prompts."""
