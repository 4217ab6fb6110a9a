"""What a scorer declares about itself, and the one signature every scorer is called with.

Each scorer module declares its :class:`ScorerInfo` (name, version, description, its pure function, what
it needs) with an ``inputs`` adapter that reads a task's and an answer's columns (:class:`TaskInputs`,
:class:`AnswerInputs`) into that function's arguments; :meth:`ScorerInfo.score` is then the same call for
every scorer (``scoring.inputs.score_one``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from fieldstudio.core.parameters import Parameter
from fieldstudio.scoring.scorers.judge import MARK_PROMPTS
from fieldstudio.scoring.scorers.result import ScoreResult, unscored

__all__ = ["ScorerInfo", "TaskInputs", "AnswerInputs", "Arguments", "Inputs"]


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
    context: Mapping[str, Any] | None = None
    """Facts read from the project for the scorers that declare ``needs_context`` (``scoring.task_context``:
    the frame times of the task's video, what a linked ground truth was derived from); None for the others."""

    def unrounded(self, key: str) -> Any:
        """The linked value's unrounded number ``context[key]`` ("derived_m", "derived_m2") while the task's ground
        truth is the value the annotations give now, else None: a pending change (the text not yet accepted) is
        judged by the text as stored, never by the annotations' newer value."""
        context = self.context or {}
        current = context.get("derived_value") is not None and context.get("derived_value") == self.ground_truth
        return context.get(key) if current else None


class AnswerInputs(NamedTuple):
    """The answer columns a scorer reads."""

    id: str
    run_id: str
    task_id: str
    raw_text: str | None
    parsed: dict | None
    error: str | None


@dataclass(frozen=True)
class Arguments:
    """A scorer function's arguments for one answer: ``function(*args, **kwargs)`` (the judge and the
    benchmark's files are added by ``ScorerInfo.score``)."""

    args: tuple[Any, ...]
    kwargs: Mapping[str, Any] = field(default_factory=dict)


Inputs = Callable[[TaskInputs, AnswerInputs, Mapping[str, Any]], "Arguments | str"]
"""``inputs(task, answer, params)``: the function's Arguments, or why the answer cannot be scored (a
sentence, e.g. "the task has no ground truth")."""


@dataclass(frozen=True)
class ScorerInfo:
    """One scorer, as its module declares it.

    Attributes:
        name, version: stored with every score; a change of rules bumps the version.
        description: one line for lists and reports.
        function: the pure scoring function, ``function(*args, judge=..., source=..., **kwargs) -> ScoreResult``.
        inputs: the adapter from a task's and an answer's columns (and the scoring parameters) to its arguments.
        needs_judge: scoring refuses to start without a judge.
        judge_optional: without ``needs_judge``, a judge is asked when one is given (the deterministic
            matchers decide without one). The judge and the benchmark's files are passed to ``function``
            only when one of the two is set.
        benchmark: the benchmark whose own judge files it reads (``scoring.official``); None for
            fieldstudio's prompts or no judge.
        threshold: correct means value > threshold (None: no threshold).
        scale: the top of its scale (1.0, or 100.0 for percentages), which a person's override is checked against.
        parameters: the parameters it takes, with their ranges (``scoring.inputs.check_params``).
        judge_prompts: fieldstudio's own judge templates recorded with a verdict when no benchmark file is read.
        answer_types: the task answer types it applies to (empty: every task). Another task is "not applicable":
            unscored with that reason (``details["not_applicable"]``), and left out of the scorer's summaries
            (``compare.summaries``), never counted as a wrong answer.
        needs_context: the scoring service fills ``TaskInputs.context`` for it (``scoring.task_context``).
    """

    name: str
    version: str
    description: str
    function: Callable[..., ScoreResult]
    inputs: Inputs
    needs_judge: bool = False
    judge_optional: bool = False
    benchmark: str | None = None
    threshold: float | None = None
    scale: float = 1.0
    parameters: tuple[Parameter, ...] = ()
    judge_prompts: tuple[str, ...] = MARK_PROMPTS
    answer_types: tuple[str, ...] = ()
    needs_context: bool = False

    def applies_to(self, answer_type: str | None) -> bool:
        """Whether it scores a task of ``answer_type`` (see ``answer_types``)."""
        return not self.answer_types or answer_type in self.answer_types

    def score(self, task: TaskInputs, answer: AnswerInputs, params: Mapping[str, Any] | None = None, *,
              judge: Callable[[str], str] | None = None, source: Any = None) -> ScoreResult:
        """Score one answer of one task (no database access).

        Args:
            task, answer: the columns scorers read.
            params: the scoring parameters (checked beforehand by ``scoring.inputs.check_params``).
            judge: ``ask(prompt) -> reply``, or None for the deterministic matchers only.
            source: the benchmark's own judge files (``scoring.official.source.OfficialSource``) for an
                official scorer; None otherwise.
        Returns:
            The function's ScoreResult; unscored with the reason when the task is not of its
            ``answer_types``, when the model call failed without a reply, or when ``inputs`` finds nothing to score.
        """
        if not self.applies_to(task.answer_type):
            return unscored(self.name, self.version, f"not applicable: {self.name} scores "
                            f"{' / '.join(t.replace('_', '-') for t in self.answer_types)} tasks, this one's answer "
                            f"type is {task.answer_type!r}", not_applicable=True)
        if answer.error and not (answer.raw_text or "").strip():
            return unscored(self.name, self.version, f"no answer: the model call failed ({answer.error})", failed=True)
        call = self.inputs(task, answer, params or {})
        if isinstance(call, str):
            return unscored(self.name, self.version, call)
        kwargs = dict(call.kwargs)
        if self.needs_judge or self.judge_optional:
            kwargs.update(judge=judge, source=source)
        return self.function(*call.args, **kwargs)
