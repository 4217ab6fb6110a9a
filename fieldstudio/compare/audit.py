"""Checking the judge: a person's marks on a sample of judged answers, and the matchers beside the judge.

Two audits of a judged scorer (issue 18 §3 and §5):

* **The judge audit.** A person marks a sample of judged answers correct or incorrect
  (``audit_sample``, ``MarkJudged``: an undoable ``store.edits.Edit``, one mark per score and person in
  the ``judge_audit`` table). ``audit_agreement`` gives the judge's agreement with the person per scorer
  and judge model (accuracy with its Wilson interval, Cohen's kappa with its interval,
  ``core.agreement.judge_audit``), ``false_accepts`` the answers the judge passed and the person failed.
  Several people may mark the same answers (blind, in the window's rater mode: the judge's verdict hidden until
  their mark is made); ``people_agreement`` gives their agreement with each other (Krippendorff's alpha, Cohen's
  kappa per pair, with intervals), shown beside the judge's.
  The judge's verdict is copied into the mark when it is made, so scoring again later does not change
  what was audited.
* **The matcher audit.** With a judge, fieldstudio's deterministic matchers run beside it
  (``matcher_audit``): where a matcher decides an answer and its verdict differs from the judge's, the
  Compare grid flags the cell for a person. The matchers are those of the judge-free scorer
  (``MATCHER_SCORER``), called through ``scoring.inputs.score_one`` without a judge.

A judged answer is a score row in force with a judge record (``Score.judge``), a value, and no author (a
person's override is not a judge verdict). Its pass/fail verdict is ``correct``, or for a scorer without
one, value above half its scale (``judge_passed``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import select

from fieldstudio.compare.answer_table import load_answers
from fieldstudio.core.agreement import alpha_with_ci, judge_audit
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.scoring.inputs import AnswerInputs, json_or_none, read_inputs, score_one
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.scoring.store import score_rows, stale_reasons
from fieldstudio.store.edits import Edit
from fieldstudio.store.models import Answer, JudgeAuditMark, Score, Task
from fieldstudio.store.project import Project

__all__ = ["MATCHER_SCORER", "DEFAULT_SAMPLE", "judged_answers", "audit_sample", "MarkJudged", "audit_marks",
           "audit_agreement", "people_agreement", "false_accepts", "matcher_audit", "judge_passed"]

MATCHER_SCORER = "fs-match" if "fs-match" in REGISTRY else "fwa-official"
"""The scorer whose judge-free path is fieldstudio's deterministic matchers (``fs-match``; before it is its own
scorer, ``fwa-official`` without a judge)."""
DEFAULT_SAMPLE = 30
"""Judged answers in an audit sample unless asked otherwise."""
_UNIT = {"fwa-official", "fwa-paper", "acceptability", "documentation", "fs-match"}


def judge_passed(correct: Any, value: Any, scorer: str | None) -> bool | None:
    """A judged score as pass/fail: ``correct`` when the scorer sets it, else value above half the scale
    (1 for the 0-1 scorers, 100 for llm-match and eqa-*); None without either."""
    if correct is not None and not (isinstance(correct, float) and math.isnan(correct)):
        return bool(correct)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value) > (0.5 if scorer in _UNIT else 50.0)


def judged_answers(project: Project, scorer: str, run_ids: Sequence[str] | None = None, *,
                   answers: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every judged answer of ``scorer`` (see the module doc): the long table's rows (``load_answers``, or
    ``answers`` when the caller has read them) with ``judge_model`` and ``judge_pass`` (bool), sorted by
    score id."""
    answers = load_answers(project, scorer, run_ids) if answers is None else answers
    if answers.empty:
        return answers.assign(judge_pass=pd.Series(dtype=bool))
    judged = answers[answers["judge_model"].notna() & ~answers["overridden"] & answers["value"].notna()].copy()
    judged["judge_pass"] = [judge_passed(c, v, scorer) for c, v in zip(judged["correct"], judged["value"])]
    return judged.sort_values("score_id", kind="stable").reset_index(drop=True)


def audit_sample(project: Project, scorer: str, *, size: int = DEFAULT_SAMPLE, seed: int = 0,
                 auditor: str | None = None, run_ids: Sequence[str] | None = None,
                 first: Sequence[str] = (), answers: pd.DataFrame | None = None) -> pd.DataFrame:
    """A reproducible sample of ``size`` judged answers of ``scorer`` for a person to mark.

    The judged answers (``judged_answers``) in score-id order are shuffled with ``numpy.random.default_rng
    (seed)``; answers named in ``first`` (answer ids, e.g. the cells the matcher audit flags) come first.
    Columns: those of ``judged_answers`` plus ``mark`` (True/False: the ``auditor``'s mark, None when not
    marked yet; every person's marks when ``auditor`` is None, the latest one shown). ``answers``: the long
    table when the caller has read it (else ``load_answers``)."""
    judged = judged_answers(project, scorer, run_ids, answers=answers)
    if judged.empty:
        return judged.assign(mark=pd.Series(dtype=object))
    order = np.random.default_rng(seed).permutation(len(judged))
    shuffled = judged.iloc[order]
    wanted = set(first)
    front = shuffled[shuffled["answer_id"].isin(wanted)]
    sample = pd.concat([front, shuffled[~shuffled["answer_id"].isin(wanted)]]).head(max(0, int(size)))
    marks = audit_marks(project, scorer)
    if auditor is not None:
        marks = marks[marks["auditor"] == auditor]
    latest = marks.sort_values("created_at").drop_duplicates("score_id", keep="last").set_index("score_id")
    sample = sample.reset_index(drop=True)
    sample["mark"] = pd.Series([None if sid not in latest.index else bool(latest.at[sid, "person_correct"])
                                for sid in sample["score_id"]], index=sample.index, dtype=object)
    return sample


class MarkJudged(Edit):
    """A person marks a judged answer correct (True) or incorrect (False); None removes the mark.

    ``do()`` writes the ``auditor``'s mark on ``score_id`` (replacing their earlier one) with the judge's
    verdict and model copied from the score; ``undo()`` puts back what was there. Raises NotFound for an
    unknown score and FieldstudioError for a score without a judge verdict or an empty auditor name.
    ``where`` (e.g. "task / source") names the answer in the Edit menu."""

    def __init__(self, project: Project, score_id: str, correct: bool | None, auditor: str, where: str = ""):
        self.project, self.score_id, self.correct = project, score_id, correct
        self.auditor = (auditor or "").strip()
        verdict = "correct" if correct else "incorrect" if correct is not None else "unmarked"
        # the Edit menu says which answer: "Mark 1.2.0001 / model-a incorrect"
        self.text = f"Mark {where} {verdict}" if where else f"Mark the judged answer {verdict}"
        self._before: dict[str, Any] | None = None
        self._saved = False

    def _write(self, state: dict[str, Any] | None) -> None:
        with self.project.write() as s:
            row = s.execute(select(JudgeAuditMark).where(JudgeAuditMark.score_id == self.score_id,
                                                         JudgeAuditMark.auditor == self.auditor)).scalar_one_or_none()
            if state is None:
                if row is not None:
                    s.delete(row)
                return
            if row is None:
                s.add(JudgeAuditMark(**state))
            else:
                for k, v in state.items():
                    setattr(row, k, v)

    def do(self) -> None:
        if not self.auditor:
            raise FieldstudioError("a judge audit mark needs the name of the person who marks")
        with self.project.read() as s:
            score = s.get(Score, self.score_id)
            if score is None:
                raise NotFound(f"no score {self.score_id!r} in {self.project.path.name}")
            if not score.judge or score.author is not None:
                raise FieldstudioError(f"score {self.score_id} is not a judge's verdict: only judged answers are "
                                       "audited")
            judge_pass = judge_passed(score.correct, score.value, score.scorer)
            if judge_pass is None:
                raise FieldstudioError(f"score {self.score_id} has no judge verdict (the judge call failed)")
            row = s.execute(select(JudgeAuditMark).where(JudgeAuditMark.score_id == self.score_id,
                                                         JudgeAuditMark.auditor == self.auditor)).scalar_one_or_none()
            if not self._saved:
                self._before = None if row is None else {
                    "id": row.id, "score_id": row.score_id, "answer_id": row.answer_id, "scorer": row.scorer,
                    "judge_model": row.judge_model, "judge_correct": row.judge_correct,
                    "person_correct": row.person_correct, "auditor": row.auditor, "created_at": row.created_at}
                self._saved = True
            state = None if self.correct is None else {
                "score_id": score.id, "answer_id": score.answer_id, "scorer": score.scorer,
                "judge_model": (score.judge or {}).get("model"), "judge_correct": judge_pass,
                "person_correct": bool(self.correct), "auditor": self.auditor}
        self._write(state)

    def undo(self) -> None:
        self._write(self._before)


def audit_marks(project: Project, scorer: str | None = None) -> pd.DataFrame:
    """Every judge audit mark (of ``scorer``, or all): mark_id, score_id, answer_id, scorer, judge_model,
    judge_correct, person_correct, auditor, created_at, with the task's external_id, query and
    ground_truth and the answer's text (answer), and stale_reason: why the judged score no longer stands
    (``scoring.store.stale_reasons``; None when it stands). The agreement figures leave stale marks out: the
    verdict a person marked was on another answer, ground truth or scorer than the ones now shown."""
    q = (select(JudgeAuditMark.id, JudgeAuditMark.score_id, JudgeAuditMark.answer_id, JudgeAuditMark.scorer,
                JudgeAuditMark.judge_model, JudgeAuditMark.judge_correct, JudgeAuditMark.person_correct,
                JudgeAuditMark.auditor, JudgeAuditMark.created_at, Task.external_id, Task.query, Task.ground_truth,
                Answer.raw_text)
         .join(Answer, Answer.id == JudgeAuditMark.answer_id).join(Task, Task.id == Answer.task_id))
    if scorer is not None:
        q = q.where(JudgeAuditMark.scorer == scorer)
    with project.read() as s:
        rows = s.execute(q.order_by(JudgeAuditMark.created_at)).all()
        marked = {r[1] for r in rows}
        stale = stale_reasons(s, [r for r in score_rows(s, scorer, None) if r.id in marked]) if marked else {}
    frame = pd.DataFrame.from_records(rows, columns=["mark_id", "score_id", "answer_id", "scorer", "judge_model",
                                                     "judge_correct", "person_correct", "auditor", "created_at",
                                                     "external_id", "query", "ground_truth", "answer"])
    frame["stale_reason"] = [stale.get(i) for i in frame["score_id"]]
    return frame


def _current_marks(project: Project, scorer: str | None) -> pd.DataFrame:
    marks = audit_marks(project, scorer)
    return marks[marks["stale_reason"].isna()].reset_index(drop=True)


_AGREEMENT_COLUMNS = ["scorer", "judge_model", "n", "agree", "accuracy", "accuracy_ci_low", "accuracy_ci_high",
                      "kappa", "kappa_ci_low", "kappa_ci_high", "false_accepts", "false_rejects"]


def audit_agreement(project: Project, scorer: str | None = None) -> pd.DataFrame:
    """The judge's agreement with the people who marked its verdicts, one row per (scorer, judge model):
    n marks, agree, accuracy with its 95 % Wilson interval, Cohen's kappa with its 95 % interval (None where
    undefined), false_accepts (judge pass, person fail), false_rejects (``core.agreement.judge_audit``).
    Every mark of a score that still stands counts (two people marking one answer are two pairs)."""
    marks = _current_marks(project, scorer)
    rows = []
    for (name, model), group in marks.groupby(["scorer", marks["judge_model"].fillna("(unknown model)")], sort=True):
        a = judge_audit(group["judge_correct"].astype(bool).tolist(), group["person_correct"].astype(bool).tolist())
        rows.append([name, model, a.n, a.agree, a.accuracy, *a.accuracy_ci, a.kappa, *a.kappa_ci, a.false_accepts,
                     a.false_rejects])
    return pd.DataFrame(rows, columns=_AGREEMENT_COLUMNS)


_PEOPLE_COLUMNS = ["scorer", "measure", "people", "n", "estimate", "ci_low", "ci_high"]


def people_agreement(project: Project, scorer: str | None = None, *, n_resamples: int = 1000,
                     seed: int = 0) -> pd.DataFrame:
    """How the people who marked the same judged answers agree with each other, beside the judge's agreement
    with them (``audit_agreement``). Per scorer: Krippendorff's alpha (nominal) over the answers two or more
    people marked, with its seeded percentile bootstrap interval over answers (``core.agreement.alpha_with_ci``),
    and per pair of people Cohen's kappa over the answers both marked, with the Cohen 1960 interval
    (``core.agreement.judge_audit`` with one person in the judge's place). Columns: scorer, measure
    ("Krippendorff's alpha" or "Cohen's kappa"), people ("a, b, c" or "a / b"), n answers, estimate, ci_low,
    ci_high (None where undefined). Empty when no answer has marks by two people. Stale marks are left out."""
    marks = _current_marks(project, scorer)
    rows = []
    for name, group in marks.groupby("scorer", sort=True):
        table: dict[str, dict[str, str]] = {}
        for r in group.itertuples(index=False):
            table.setdefault(str(r.score_id), {})[str(r.auditor)] = "accept" if r.person_correct else "reject"
        shared = {k: v for k, v in table.items() if len(v) >= 2}
        if not shared:
            continue
        people = sorted({p for v in shared.values() for p in v})
        alpha = alpha_with_ci(shared, n_resamples=n_resamples, seed=seed)
        rows.append([name, "Krippendorff's alpha", ", ".join(people), alpha.n, alpha.estimate, alpha.ci_low,
                     alpha.ci_high])
        for i, a in enumerate(people):
            for b in people[i + 1:]:
                both = [(v[a] == "accept", v[b] == "accept") for v in shared.values() if a in v and b in v]
                if not both:
                    continue
                k = judge_audit([x for x, _ in both], [y for _, y in both])
                rows.append([name, "Cohen's kappa", f"{a} / {b}", k.n, k.kappa, *k.kappa_ci])
    return pd.DataFrame(rows, columns=_PEOPLE_COLUMNS)


def false_accepts(project: Project, scorer: str | None = None) -> pd.DataFrame:
    """The marks where the judge passed an answer the person failed (the columns of ``audit_marks``), of scores
    that still stand."""
    marks = _current_marks(project, scorer)
    return marks[marks["judge_correct"].astype(bool) & ~marks["person_correct"].astype(bool)].reset_index(drop=True)


def matcher_audit(project: Project, answers: pd.DataFrame, scorer: str | None) -> pd.DataFrame:
    """The deterministic matchers beside the judge: for each judged row of the long table ``answers``
    (``judge_model`` set, not overridden, with a value), the matchers' verdict on the same answer.

    Returns one row per judged answer: answer_id, matcher_correct (True/False, None when no matcher
    decides), matcher_explanation, judge_pass, flag (True where a matcher decided and differs from the
    judge: a person should look). Empty (same columns) when nothing is judged."""
    cols = ["answer_id", "matcher_correct", "matcher_explanation", "judge_pass", "flag"]
    if answers.empty or "judge_model" not in answers:
        return pd.DataFrame(columns=cols)
    judged = answers[answers["judge_model"].notna() & ~answers["overridden"] & answers["value"].notna()]
    if judged.empty:
        return pd.DataFrame(columns=cols)
    wanted = set(judged["answer_id"])
    rows, tasks, _ = read_inputs(project, sorted(set(judged["run_id"])), MATCHER_SCORER)
    by_id = {r[0]: r for r in rows if r[0] in wanted}
    out = []
    memo: dict[tuple, Any] = {}          # the matchers read the task and the answer's text only
    for aid, correct, value in zip(judged["answer_id"], judged["correct"], judged["value"]):
        raw = by_id.get(aid)
        if raw is None:
            continue
        key = (raw[2], raw[3], raw[4], raw[5])
        result = memo.get(key)
        if result is None:
            answer = AnswerInputs(raw[0], raw[1], raw[2], raw[3], json_or_none(raw[4]), raw[5])
            result = memo[key] = score_one(MATCHER_SCORER, tasks[answer.task_id], answer)
        matcher = None if result.value is None or result.correct is None else bool(result.correct)
        judge = judge_passed(correct, value, scorer)
        out.append((aid, matcher, result.explanation, judge, matcher is not None and judge is not None
                    and matcher != judge))
    return pd.DataFrame(out, columns=cols)
