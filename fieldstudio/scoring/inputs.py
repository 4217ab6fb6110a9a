"""What one answer's score is computed from: the task and answer columns a scorer reads, read from the
project in bulk (``read_inputs``), the scorers' parameters, and ``score_one``, which maps them onto the
named scorer. See ``scoring.service`` for the rules on which fields are read.
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from fieldstudio.core import matchers
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.scoring.scorers import get as get_scorer
from fieldstudio.scoring.scorers import ScoreResult, acceptability, documentation, fwa_official
from fieldstudio.scoring.scorers import unscored
from fieldstudio.scoring.store import StoredScore, heads, in_list, raw_rows, score_rows
from fieldstudio.store.project import Project

__all__ = ["ScoringError", "TaskInputs", "AnswerInputs", "eval_func_of", "SCORER_PARAMS", "check_params",
           "score_one", "inputs_sha", "read_inputs", "json_or_none"]


class ScoringError(FieldstudioError):
    """Scoring cannot start or go on (unknown scorer, no such run, judge unusable); nothing half-written."""



class TaskInputs(NamedTuple):
    """The task columns a scorer reads."""

    id: str
    external_id: str | None
    source: str
    query: str
    answer_type: str
    ground_truth: str | None
    ground_truth_extra: dict | None
    eval_func: str | None
    tolerances: dict | None
    extra: dict | None


class AnswerInputs(NamedTuple):
    """The answer columns a scorer reads."""

    id: str
    run_id: str
    task_id: str
    raw_text: str | None
    parsed: dict | None
    error: str | None


_TYPE_EVAL = {"json_report": "json_match", "distance": "numerical_match", "time": "numerical_match",
              "time_range": "numerical_match", "count": "numerical_match"}


def eval_func_of(task: TaskInputs) -> str:
    """The task's FieldWorkArena ``eval_func``, or one derived from its answer type (fuzzy_match otherwise)."""
    if task.eval_func in fwa_official.EVAL_FUNCS:
        return task.eval_func
    return _TYPE_EVAL.get(task.answer_type, "fuzzy_match")


def _fwa_paper_params(task: TaskInputs, params: Mapping[str, Any]) -> dict[str, float]:
    tol = task.tolerances or {}
    out = {"alpha": tol.get("alpha", 0.5), "r_th": tol.get("r_th", 0.5), "t_th": tol.get("T_th", tol.get("t_th", 60.0)),
           "partial_credit": tol.get("partial_credit", 0.5)}
    for key in ("alpha", "r_th", "partial_credit"):
        if key in params:
            out[key] = params[key]
    if "T_th" in params or "t_th" in params:
        out["t_th"] = params.get("T_th", params.get("t_th"))
    return {k: float(v) for k, v in out.items()}


SCORER_PARAMS: dict[str, dict[str, tuple[float, float, bool]]] = {
    "fwa-paper": {"alpha": (0.0, 1.0, True), "partial_credit": (0.0, 1.0, True), "r_th": (0.0, math.inf, False),
                  "T_th": (0.0, math.inf, False), "t_th": (0.0, math.inf, False)},
    "llm-match": {"truncate": (0.0, 1.0, True)},
    "llm-match+fs-prompt": {"truncate": (0.0, 1.0, True)},
}
"""Parameters each scorer takes: name -> (low, high, low included); a value must lie in the range."""


def check_params(scorer: str, params: Mapping[str, Any] | None) -> dict[str, float]:
    """The scorer parameters as floats, checked against ``SCORER_PARAMS``.

    Raises ScoringError naming the parameter for a name the scorer does not take, a value that is not a
    finite number, or one outside its range (fwa-paper: alpha and partial_credit in [0, 1], r_th and
    T_th above 0, which the distance and time terms divide by; benchmarks.md §1.5).
    """
    known = SCORER_PARAMS.get(scorer, {})
    out: dict[str, float] = {}
    for name, value in (params or {}).items():
        if name not in known:
            takes = ", ".join(known) if known else "no parameters"
            raise ScoringError(f"{scorer} has no parameter {name!r}; it takes {takes}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ScoringError(f"{scorer} parameter {name}={value!r} is not a number") from None
        low, high, low_ok = known[name]
        if not math.isfinite(number) or number > high or number < low or (number == low and not low_ok):
            bound = f"in {'[' if low_ok else '('}{low:g}, {high:g}]" if math.isfinite(high) else f"above {low:g}"
            raise ScoringError(f"{scorer} parameter {name}={value!r} must be a number {bound}")
        out[name] = number
    return out


def _verdict_of(answer: AnswerInputs) -> Any:
    parsed = answer.parsed or {}
    if parsed.get("verdict") is not None:
        return parsed["verdict"]
    text = (answer.raw_text or "").strip()
    if acceptability.normalise_verdict(text) is not None:
        return text
    first = re.match(r"\W*([A-Za-z]+)", text)                       # "Accept. The tape is visible ..."
    return first.group(1) if first else None


def _documentation_fields(task: TaskInputs, answer: AnswerInputs) -> dict[str, tuple[str, Any, Any]] | str:
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
                                          name if name in documentation.TOLERANCES else "text")
        out[name] = (kind, pred.get(name), value)
    return out


def score_one(scorer: str, task: TaskInputs, answer: AnswerInputs, *, judge: Callable[[str], str] | None = None,
              params: Mapping[str, Any] | None = None, source: Any = None) -> ScoreResult:
    """Score one answer of one task with the named scorer (no database access).

    Args:
        scorer: a name in ``REGISTRY``.
        task, answer: the columns the scorers read (``scoring.service``'s docstring says which fields are used).
        judge: ``ask(prompt) -> reply`` or None for the deterministic matchers only.
        params: scorer parameters (fwa-paper: alpha, r_th, T_th, partial_credit; llm-match: truncate).
        source: the benchmark's own judge files (``scoring.official.source.OfficialSource``) for the
            official scorers; None otherwise.
    Returns:
        The scorer's ScoreResult (value None when it cannot decide, with the reason).
    Raises:
        KeyError for an unknown scorer name.
    """
    info = get_scorer(scorer)
    params = params or {}
    if answer.error and not (answer.raw_text or "").strip():
        return unscored(info.name, info.version, f"no answer: the model call failed ({answer.error})", failed=True)
    reference = task.ground_truth
    text = answer.raw_text
    parsed = answer.parsed or {}
    gt_extra = task.ground_truth_extra or {}
    family = info.family
    if family == "fwa":
        if reference is None:
            return unscored(info.name, info.version, "the task has no ground truth")
        kwargs = _fwa_paper_params(task, params) if scorer == "fwa-paper" else {}
        return info.function(reference, text, eval_func_of(task), question=task.query, judge=judge, source=source,
                             **kwargs)
    if family == "openeqa":
        if reference is None:
            return unscored(info.name, info.version, "the task has no ground truth")
        return info.function(task.query, reference, text, gt_extra.get("extra_answers"), judge=judge,
                             truncate=bool(params.get("truncate", True)), source=source)
    if family == "eqa-direct":
        if reference is None:
            return unscored(info.name, info.version, "the task has no ground truth")
        return info.function(task.query, reference, parsed.get("direct_answer") or text or "",
                             reasoning_answer=gt_extra.get("reasoning_answer") or "",
                             generated_reasoning_answer=parsed.get("reasoning_answer") or "", judge=judge,
                             source=source)
    if family == "eqa-reasoning":
        if reference is None or gt_extra.get("reasoning_answer") is None:
            return unscored(info.name, info.version, "the task has no reference reasoning answer")
        status = (task.extra or {}).get("reasoning_status")
        return info.function(task.query, reference, gt_extra["reasoning_answer"],
                             parsed.get("direct_answer") or text or "", parsed.get("reasoning_answer") or "",
                             "" if status is None else str(status), judge=judge, source=source)
    if family == "acceptability":
        return info.function(_verdict_of(answer), gt_extra.get("verdict", reference))
    if family == "documentation":
        fields = _documentation_fields(task, answer)
        if isinstance(fields, str):
            return unscored(info.name, info.version, fields)
        return info.function(fields)
    return unscored(info.name, info.version, f"scorer {scorer!r} has no input mapping in the scoring service")


def inputs_sha(scorer: str, task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any],
               source_sha: str | None = None) -> str:
    """SHA-256 of what a judged score depends on (kept in ``Score.judge["inputs_sha256"]``); ``source_sha``
    is the official source's fingerprint for the official scorers (None leaves the hash as before)."""
    payload = [scorer, task.query, task.ground_truth, task.ground_truth_extra, task.eval_func, task.answer_type,
               task.tolerances, answer.raw_text, answer.parsed, dict(params)]
    if source_sha is not None:
        payload.append(source_sha)
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode("utf-8")).hexdigest()



def read_inputs(project: Project, ids: Sequence[str] | None, scorer: str
                ) -> tuple[list[tuple], dict[str, TaskInputs], dict[str, StoredScore]]:
    """(answers, tasks, in_force): the answers as raw tuples (id, run_id, task_id, raw_text, parsed JSON
    text, error) sorted by answer id, every task's inputs by id, and the score row in force per answer
    id. Raw SQL without joins: on 100,000 answers the ORM's row processing and the joins' random lookups
    cost more than the scoring. Answer-id order makes each batch of score rows a narrow range of the
    ``score.answer_id`` index and of the answer table's key (the foreign key check), so a batch's commit
    writes few pages; runs are mixed across batches (a cancelled scoring leaves part of every run)."""
    clause, params = in_list("run_id", ids)
    with project.read() as s:
        answers = raw_rows(s, "SELECT id, run_id, task_id, raw_text, parsed, error FROM answer WHERE 1" + clause,
                           params)
        answers.sort(key=operator.itemgetter(0))            # by answer id: see read_inputs' docstring
        tasks = {}
        for r in raw_rows(s, "SELECT id, external_id, source, query, answer_type, ground_truth, "
                             "ground_truth_extra, eval_func, tolerances, extra FROM task"):
            tasks[r[0]] = TaskInputs(*r[:6], json_or_none(r[6]), r[7], json_or_none(r[8]), json_or_none(r[9]))
        rows = score_rows(s, scorer, None, with_answers=False)
    if ids is not None and rows:
        wanted = {a[0] for a in answers}
        rows = [r for r in rows if r.answer_id in wanted]
    return answers, tasks, {k[0]: v for k, v in heads(rows).items()}


def json_or_none(text: str | None) -> Any:
    """A JSON column's text decoded (None stays None)."""
    return None if text is None else json.loads(text)

