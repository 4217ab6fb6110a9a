"""Read-only views of runs for a user interface: task filters, the run list, a run's answers, live totals.

Each function is one or two queries (no per-run loop), so the GUI can refresh them while a run is writing.
Costs are USD; token counts are sums of what endpoints reported (unknown counts are left out, and
``cost_complete`` says when a cost is a lower bound).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Integer, case, func, select

from fieldstudio.core import costs
from fieldstudio.core.errors import NotFound
from fieldstudio.inference.runs.run_records import split_error
from fieldstudio.store.models import Answer, ProviderBatch, Run, Task
from fieldstudio.store.models import ModelProfile as ProfileRow
from fieldstudio.store.project import Project


@dataclass
class TaskFacets:
    """The values tasks can be filtered by, each with its task count, sorted by value."""

    total: int = 0
    categories: list[tuple[str, int]] = field(default_factory=list)
    scenarios: list[tuple[str, int]] = field(default_factory=list)
    answer_types: list[tuple[str, int]] = field(default_factory=list)
    sources: list[tuple[str, int]] = field(default_factory=list)


def task_facets(project: Project) -> TaskFacets:
    """Counts of the project's tasks per category, scenario, answer type and source (None values left out)."""
    out = TaskFacets()
    with project.read() as s:
        out.total = s.scalar(select(func.count()).select_from(Task)) or 0
        for name, column in (("categories", Task.category), ("scenarios", Task.scenario),
                             ("answer_types", Task.answer_type), ("sources", Task.source)):
            rows = s.execute(select(column, func.count()).where(column.is_not(None)).group_by(column)
                             .order_by(column)).all()
            setattr(out, name, [(str(v), int(n)) for v, n in rows])
    return out


@dataclass
class RunRow:
    """One run as the run list shows it.

    ``answered`` finished without error, ``failed`` with one, ``pending`` not finished; tokens and
    ``cost_usd`` are sums over finished answers; ``cost_complete`` is False when some finished answer's
    cost is unknown, ``cost_unknown`` how many are; ``cost_text`` says it for a person; ``duration_s`` is from the run's creation to its last stop (None while it runs; a resumed
    run's includes the pause); ``batch`` is where its provider batches stand (`batch_label`), None for a run
    never sent as a batch.
    """

    id: str
    name: str
    kind: str
    profile_name: str | None
    model: str | None
    strategy: str | None
    status: str
    total: int
    answered: int
    failed: int
    pending: int
    from_cache: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cost_complete: bool
    started_at: datetime | None
    finished_at: datetime | None
    batch: str | None = None
    cost_unknown: int = 0

    @property
    def cost_priced(self) -> int:
        """Finished answers with a known cost."""
        return self.answered + self.failed - self.cost_unknown

    @property
    def cost_status(self) -> str:
        """``complete``, ``partial`` or ``unknown`` over the finished answers (``core.costs.cost_status``)."""
        return costs.cost_status(self.cost_priced, self.cost_unknown)

    @property
    def cost_text(self) -> str:
        """The cost as the Runs tab and the report say it (``core.costs.cost_text``): a run of a server with
        no price set is "unknown (0 of 42 answers priced)", never "$0"."""
        return costs.cost_text(self.cost_usd, self.cost_priced, self.cost_unknown)

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return max(0.0, (self.finished_at - self.started_at).total_seconds())


def _aggregate(run_ids: Sequence[str] | None):  # noqa: ANN202 - a select
    finished = Answer.raw_text.is_not(None) | Answer.error.is_not(None)
    counted = (Answer.error.is_(None)) & Answer.raw_text.is_not(None)
    q = select(Answer.run_id,
               func.count(Answer.id),
               func.sum(case((counted, 1), else_=0)),
               func.sum(case((Answer.error.is_not(None), 1), else_=0)),
               func.sum(case((finished & Answer.from_cache.is_(True), 1), else_=0)),
               func.sum(case((finished, Answer.prompt_tokens), else_=0)),
               func.sum(case((finished, Answer.completion_tokens), else_=0)),
               func.sum(case((finished, Answer.cost_usd), else_=0.0)),
               func.sum(case((finished & Answer.cost_usd.is_(None), 1), else_=0)).cast(Integer),
               ).group_by(Answer.run_id)
    if run_ids is not None:
        q = q.where(Answer.run_id.in_(list(run_ids)))
    return q


def batch_label(batches: Sequence[ProviderBatch]) -> str | None:
    """Where a run's provider batches stand, oldest first in `batches`: the newest one's status with its
    finished / total request counts while it is open (``in_progress 120/200``; ``written`` for a file for
    vllm run-batch), then ``, N earlier`` when there were others. None without batches."""
    if not batches:
        return None
    last = batches[-1]
    text = "imported" if last.kind == "file" and last.imported_at is not None else last.status
    counts = last.request_counts or {}
    if last.imported_at is None and counts.get("total"):
        text += f" {int(counts.get('completed') or 0) + int(counts.get('failed') or 0)}/{counts['total']}"
    elif last.imported_at is None:
        text += f" ({len(last.answer_ids or [])} requests)"
    if len(batches) > 1:
        text += f", {len(batches) - 1} earlier"
    return text


def list_runs(project: Project, run_ids: Sequence[str] | None = None, *, oldest_first: bool = False) -> list[RunRow]:
    """Every run (or those in `run_ids`), newest first (oldest first with ``oldest_first``), with counts, tokens,
    cost and times."""
    with project.read() as s:
        q = (select(Run, ProfileRow.name, ProfileRow.model).outerjoin(ProfileRow, Run.profile_id == ProfileRow.id)
             .order_by(Run.started_at if oldest_first else Run.started_at.desc()))
        if run_ids is not None:
            q = q.where(Run.id.in_(list(run_ids)))
        runs = s.execute(q).all()
        sums = {r[0]: r[1:] for r in s.execute(_aggregate(run_ids)).all()}
        last = dict(s.execute(select(Answer.run_id, func.max(Answer.created_at)).where(
            Answer.raw_text.is_not(None) | Answer.error.is_not(None)).group_by(Answer.run_id)).all())
        batch_rows = select(ProviderBatch).order_by(ProviderBatch.created_at)
        if run_ids is not None:
            batch_rows = batch_rows.where(ProviderBatch.run_id.in_(list(run_ids)))
        batches: dict[str, list[ProviderBatch]] = {}
        for b in s.scalars(batch_rows):
            batches.setdefault(b.run_id, []).append(b)
    out = []
    for run, profile_name, model in runs:
        total, answered, failed, cached, p, c, usd, unknown_cost = sums.get(run.id, (0, 0, 0, 0, 0, 0, 0.0, 0))
        answered, failed = int(answered or 0), int(failed or 0)
        finished_at = run.finished_at if run.status != "running" else None
        if run.kind != "model" and finished_at is None:
            finished_at = last.get(run.id)      # imported answers: the last one stored
        out.append(RunRow(run.id, run.name, run.kind, profile_name, model, run.strategy, run.status, int(total or 0),
                          answered, failed, int(total or 0) - answered - failed, int(cached or 0), int(p or 0),
                          int(c or 0), float(usd or 0.0), not unknown_cost, run.started_at, finished_at,
                          batch_label(batches.get(run.id, [])), int(unknown_cost or 0)))
    return out


@dataclass
class AnswerRow:
    """One answer of a run: the task, its state (answered / failed / pending), the answer or the error, usage.

    ``answer`` is what the Runs tab shows (the strategy's parsed answer, direct answer or verdict, else the raw
    text); ``reply`` what ``fieldstudio answers`` prints (the parsed ``answer``, else the raw text)."""

    id: str
    task_id: str
    task_label: str
    query: str
    state: str
    answer: str | None
    error_kind: str | None
    error: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    latency_s: float | None
    from_cache: bool
    retries: int
    frames: int
    reasoning_tokens: int | None = None
    reply: str | None = None


def _answer_text(parsed, raw_text: str | None) -> str | None:  # noqa: ANN001 - JSON value
    if isinstance(parsed, dict):
        for key in ("answer", "direct_answer", "verdict"):
            if parsed.get(key) is not None:
                return str(parsed[key])
    return raw_text


def list_answers(project: Project, run_id: str) -> list[AnswerRow]:
    """The answers of a run in task order (source, benchmark id). Raises NotFound for an unknown run."""
    with project.read() as s:
        if s.get(Run, run_id) is None:
            raise NotFound(f"no run {run_id!r} in {project.path.name}")
        rows = s.execute(select(Answer.id, Task.id, Task.external_id, Task.query, Answer.raw_text, Answer.parsed,
                                Answer.error, Answer.prompt_tokens, Answer.completion_tokens, Answer.cost_usd,
                                Answer.latency_s, Answer.from_cache, Answer.retries, Answer.frames,
                                Answer.reasoning_tokens)
                         .join(Task, Answer.task_id == Task.id).where(Answer.run_id == run_id)
                         .order_by(Task.source, Task.external_id, Task.created_at)).all()
    out = []
    for aid, tid, ext, query, raw, parsed, error, p, c, usd, lat, cached, retries, frames, reasoning in rows:
        kind, message = split_error(error)
        state = "failed" if error else ("answered" if raw is not None else "pending")
        reply = (parsed or {}).get("answer") if isinstance(parsed, dict) else None
        out.append(AnswerRow(aid, tid, ext or tid[:8], query, state, _answer_text(parsed, raw), kind, message, p, c,
                             usd, lat, bool(cached), int(retries or 0), len(frames or []), reasoning,
                             reply if reply is not None else raw))
    return out


def answer_detail(project: Project, answer_id: str) -> dict:
    """Everything stored about one answer (raw text, parsed, error, usage, frames, trace) as plain values.

    Raises NotFound.
    """
    with project.read() as s:
        a = s.get(Answer, answer_id)
        if a is None:
            raise NotFound(f"no answer {answer_id!r} in {project.path.name}")
        return {"raw_text": a.raw_text, "parsed": a.parsed, "error": a.error, "prompt_tokens": a.prompt_tokens,
                "completion_tokens": a.completion_tokens, "reasoning_tokens": a.reasoning_tokens,
                "cost_usd": a.cost_usd, "latency_s": a.latency_s, "retries": a.retries, "from_cache": a.from_cache,
                "frames": list(a.frames or []), "trace": list(a.trace or [])}


@dataclass
class LiveTotals:
    """Where a set of runs stands, for a progress display.

    Attributes:
        finished, total: answers finished (answered or failed) and in all runs.
        answered, failed, from_cache: counts of finished answers.
        prompt_tokens, completion_tokens, cost_usd, cost_complete, cost_unknown: as in RunRow, summed;
        ``cost_text`` says the cost for a person (``fieldstudio.core.costs``).
        last_task: the benchmark id (or id prefix) of the most recently finished answer, and its profile.
        errors: (task label, profile name, error kind, message) of every failed answer, newest first.
    """

    finished: int = 0
    total: int = 0
    answered: int = 0
    failed: int = 0
    from_cache: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_complete: bool = True
    cost_unknown: int = 0
    last_task: tuple[str, str | None] | None = None
    errors: list[tuple[str, str | None, str | None, str | None]] = field(default_factory=list)

    @property
    def cost_text(self) -> str:
        """``$0.0123``, ``≥ $0.0028 (1 of 3 answers priced)`` or ``unknown (0 of 42 answers priced)``."""
        return costs.cost_text(self.cost_usd, self.finished - self.cost_unknown, self.cost_unknown)


def live_totals(project: Project, run_ids: Sequence[str], *, max_errors: int = 500) -> LiveTotals:
    """Totals over `run_ids` now, the task answered last and the failed answers (at most `max_errors`)."""
    out = LiveTotals()
    for row in list_runs(project, run_ids):
        out.total += row.total
        out.answered += row.answered
        out.failed += row.failed
        out.from_cache += row.from_cache
        out.prompt_tokens += row.prompt_tokens
        out.completion_tokens += row.completion_tokens
        out.cost_usd += row.cost_usd
        out.cost_complete &= row.cost_complete
        out.cost_unknown += row.cost_unknown
    out.finished = out.answered + out.failed
    finished = Answer.raw_text.is_not(None) | Answer.error.is_not(None)
    with project.read() as s:
        base = (select(Task.external_id, Task.id, ProfileRow.name, Answer.error)
                .join(Task, Answer.task_id == Task.id).join(Run, Answer.run_id == Run.id)
                .outerjoin(ProfileRow, Run.profile_id == ProfileRow.id).where(Answer.run_id.in_(list(run_ids))))
        last = s.execute(base.where(finished).order_by(Answer.created_at.desc()).limit(1)).first()
        errors = s.execute(base.where(Answer.error.is_not(None)).order_by(Answer.created_at.desc())
                           .limit(max_errors)).all()
    if last is not None:
        out.last_task = (last[0] or last[1][:8], last[2])
    for ext, tid, profile_name, error in errors:
        kind, message = split_error(error)
        out.errors.append((ext or tid[:8], profile_name, kind, message))
    return out


__all__ = ["TaskFacets", "task_facets", "RunRow", "batch_label", "list_runs", "AnswerRow", "list_answers", "answer_detail",
           "LiveTotals", "live_totals"]
