"""What a score judged, by hash, and whether it still stands: a score is *stale* when the answer, the ground
truth or the scorer it judged has changed since (issue 31 item 2).

Every score row keeps three SHA-256 hashes (``Score.answer_sha256``, ``truth_sha256``, ``scorer_sha256``)
and the reference text it judged (``Score.judged_truth``):

* the answer: its raw text, its parsed answer (the stored JSON) and its error (``answer_sha``);
* the ground truth: everything of the task a scorer reads besides the answer (the query, the reference, the
  answer type, the eval_func, the tolerances, the extra ground-truth fields, among them the annotation link a
  linked ground truth is derived from, and the reasoning status) (``truth_sha``). A linked ground truth's value
  is the reference text itself, so the annotation values it was derived from enter the hash through it;
* the scorer: its name, version, the scoring parameters and, for an official scorer, the fingerprint of the
  benchmark's judge files it read (``scorer_sha``).

``stale_reason`` compares a stored row with the task and answer as they are now and says why the row no longer
stands ("the ground truth changed: 1 → 2", "the answer changed", "scorer fs-match 1.4 → 2.0", or "judged
before hashes were kept" for rows from before the hashes, whose inputs are not knowable); None when it stands.
Readers (the comparison, the reports, the CLI) show a stale row's verdict as stale, never as current, and the
scoring service scores exactly the stale and unscored answers again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from fieldstudio.scoring.scorers.scorer_info import TaskInputs
from fieldstudio.store.content_hashes import answer_content_sha, task_truth_sha

__all__ = ["Judged", "answer_sha", "truth_sha", "scorer_sha", "stale_reason", "BEFORE_HASHES", "short_text",
           "ScoreCheck"]

BEFORE_HASHES = "judged before hashes were kept"
FAILED_CALL = "no answer: the model call failed"
"""How the explanation of an answer whose model call failed begins (``ScorerInfo.score``)."""
"""The stale reason of a score written before fieldstudio kept hashes (schema ``0007_score_hashes``)."""


class Judged(NamedTuple):
    """What one score row judged: the three hashes and the reference text (all None on rows from before the
    hashes)."""

    answer_sha256: str | None
    truth_sha256: str | None
    scorer_sha256: str | None
    judged_truth: str | None


def _sha(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str, ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


answer_sha = answer_content_sha
"""SHA-256 (hex) of an answer as a scorer reads it (``store.content_hashes.answer_content_sha``: its text, its
parsed answer as the stored JSON text, its error); what ``answer.content_sha256`` holds."""


def truth_sha(task: TaskInputs) -> str:
    """SHA-256 (hex) of what a score of ``task`` depends on besides the answer (see the module docstring); what
    ``task.truth_sha256`` holds (``store.content_hashes.task_truth_sha``)."""
    return task_truth_sha(task.query, task.answer_type, task.ground_truth, task.ground_truth_extra, task.eval_func,
                          task.tolerances, task.extra)


def scorer_sha(name: str, version: str, params: Mapping[str, Any] | None = None, source_sha: str | None = None) -> str:
    """SHA-256 (hex) of the scorer a score comes from: name, version, parameters, official source fingerprint."""
    return _sha([name, version, dict(params or {}), source_sha])


def short_text(text: str | None, limit: int = 40) -> str:
    """A reference as a stale reason quotes it: '—' for none, cut to ``limit`` characters with '…'."""
    if text is None:
        return "—"
    one_line = " ".join(str(text).split())
    return one_line if len(one_line) <= limit else one_line[:limit - 1] + "…"


def stale_reason(judged: Judged, *, answer_now: str, truth_now: str, reference_now: str | None,
                 scorer: str, version: str, version_now: str | None, by_person: bool = False,
                 scorer_now: str | None = None) -> str | None:
    """Why a score row no longer stands, or None when it does.

    Args:
        judged: the row's hashes and judged reference.
        answer_now, truth_now: ``answer_sha`` and ``truth_sha`` of the answer and task as they are now.
        reference_now: the task's reference text now (quoted in the reason).
        scorer, version: the row's scorer name and version; ``version_now`` the registered version (None: a
            scorer this fieldstudio does not know, whose version cannot have changed).
        by_person: a person's verdict, which judged the answer against the ground truth, not a scorer's rules:
            a new scorer version leaves it standing.
        scorer_now: ``scorer_sha`` of the scoring about to run (parameters and official source included); the
            scoring service passes it, readers that cannot know the parameters leave it None.
    Returns:
        One sentence, the reasons joined by "; ".
    """
    if judged.answer_sha256 is None or judged.truth_sha256 is None:
        return BEFORE_HASHES
    reasons = []
    if judged.truth_sha256 != truth_now:
        if (judged.judged_truth or None) != (reference_now or None):
            reasons.append(f"the ground truth changed: {short_text(judged.judged_truth)} → {short_text(reference_now)}")
        else:
            reasons.append("the task's scoring fields changed (answer type, eval_func, tolerances or link)")
    if judged.answer_sha256 != answer_now:
        reasons.append("the answer changed")
    if not by_person:
        if version_now is not None and version != version_now:
            reasons.append(f"scorer {scorer} {version} → {version_now}")
        elif scorer_now is not None and judged.scorer_sha256 != scorer_now:
            reasons.append(f"scored with other {scorer} parameters or judge files")
    return "; ".join(reasons) or None


class ScoreCheck:
    """What one scoring compares every stored row with: the scorer as it is about to run (name, version and
    ``scorer_sha``) and the tasks' truth hashes (computed once per task).

    ``judged``: the scoring has a judge, so a current row without a value (the deterministic matchers could
    not decide) or with a failed judge call is scored again; without a judge it would only come out the same.
    """

    def __init__(self, scorer: str, version: str, scorer_now: str, *, judged: bool) -> None:
        self.scorer, self.version, self.scorer_now, self.judged = scorer, version, scorer_now, judged
        self._truths: dict[str, tuple[str, str | None]] = {}

    def truth(self, task: TaskInputs) -> tuple[str, str | None]:
        """(truth_sha, reference text) of ``task``."""
        out = self._truths.get(task.id)
        if out is None:
            out = self._truths[task.id] = (truth_sha(task), task.ground_truth)
        return out

    def reason(self, row: Any, answer_now: str, task: TaskInputs) -> str | None:
        """``stale_reason`` of a stored row (``scoring.store.StoredScore``) against the answer hash and task now."""
        t_sha, reference = self.truth(task)
        return stale_reason(row.judged, answer_now=answer_now, truth_now=t_sha, reference_now=reference,
                            scorer=row.scorer, version=row.scorer_version, version_now=self.version,
                            by_person=row.author is not None, scorer_now=self.scorer_now)

    def stands(self, row: Any, answer_now: str, task: TaskInputs) -> bool:
        """True when the stored row need not be scored again: current, and (with a judge) not an undecided
        or judge-failed machine row."""
        if self.reason(row, answer_now, task) is not None:
            return False
        if row.author is not None or not self.judged:
            return True
        if row.value is None:                    # a failed model call stays unscorable, whoever judges it
            return (row.explanation or "").startswith(FAILED_CALL)
        return not (row.judge or {}).get("judge_failed")
