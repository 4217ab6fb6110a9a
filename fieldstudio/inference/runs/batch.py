"""Several model profiles over the same tasks in one go (tasks x profiles), resuming unfinished runs.

The GUI's Run panel and scripts call these three steps:

1. `plan_batch`: for each profile, an unfinished run of the same profile, strategy and task set to resume
   (as ``fieldstudio run`` does), or a new one to create, with the tasks still to answer;
2. `create_batch`: create the new runs (one short write each, sharing a group id) and return every run id;
3. `execute_batch`: answer the pending tasks run after run with `run_queue.execute_run` (each profile with its
   own concurrency), reporting progress over the whole batch and stopping at the next request when cancelled.

Finished answers are never asked again: a cancelled batch is continued by planning it again (or by
`execute_batch` on the same run ids), and the response cache answers any request already paid for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from fieldstudio.core import costs
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.inference.runs.run_records import RunSummary, create_run, find_resumable_run
from fieldstudio.store.models import Answer, new_id
from fieldstudio.store.project import Project
from fieldstudio.core.progress import Cancelled, Progress


@dataclass
class BatchItem:
    """One profile's part of a batch: the run to resume (None: a new run) and the tasks still to answer."""

    profile: ModelProfile
    run_id: str | None
    pending_task_ids: list[str]
    total_tasks: int


@dataclass
class BatchResult:
    """What `execute_batch` did: one RunSummary per run (in order) and whether it was cancelled."""

    summaries: list[RunSummary] = field(default_factory=list)
    cancelled: bool = False

    @property
    def stopped(self) -> list[tuple[str, str]]:
        """(run id, reason) of each run an error stopped early (wrong URL, bad key, server unreachable)."""
        return [(s.run_id, s.stopped) for s in self.summaries if s.stopped]

    def outcome_lines(self) -> list[str]:
        """What a person reads when the batch ends: why it stopped (if it did) and what to do next, then one
        line of totals (answered, failed, pending, cost with how many answers are priced)."""
        answered = sum(s.answered for s in self.summaries)
        failed = sum(s.failed for s in self.summaries)
        pending = sum(s.pending for s in self.summaries)
        cost = costs.cost_text(sum(s.cost_usd for s in self.summaries), sum(s.cost_priced for s in self.summaries),
                               sum(s.cost_unknown for s in self.summaries))
        lines = [f"Stopped early: {reason}. Fix the model profile (Model profiles… → Test connection), then Resume: "
                 "nothing finished is asked again." for _run_id, reason in self.stopped]
        in_batch = sum(s.in_batch for s in self.summaries)
        if in_batch:
            lines.append(f"Stopped waiting: {in_batch} request(s) still in the provider's batch; Resume collects "
                         "them by the batch id stored in the project (nothing is sent again).")
        elif self.cancelled:
            lines.append(f"Stopped: {pending} answer(s) still pending; Resume continues without paying again for "
                         "the finished ones.")
        return lines + [f"{answered} answered, {failed} failed, {pending} pending; cost {cost}"]


def _run_tasks(project: Project, run_id: str) -> tuple[set[str], list[str]]:
    with project.read() as s:
        rows = s.execute(select(Answer.task_id, Answer.raw_text.is_(None) & Answer.error.is_(None))
                         .where(Answer.run_id == run_id)).all()
    return {t for t, _ in rows}, [t for t, pending in rows if pending]


def plan_batch(project: Project, profiles: Sequence[ModelProfile], task_ids: Sequence[str], strategy: str, *,
               new: bool = False) -> list[BatchItem]:
    """For each profile: resume its newest unfinished run of `strategy` over exactly these tasks, else plan a new run.

    With `new`, every profile gets a new run. Raises FieldstudioError when no task is given.
    """
    from fieldstudio.core.errors import FieldstudioError

    wanted = list(dict.fromkeys(task_ids))
    if not wanted:
        raise FieldstudioError("no task selected: nothing to run")
    if not profiles:
        raise FieldstudioError("no model profile selected: nothing to run")
    out = []
    for profile in profiles:
        run_id = None if new else find_resumable_run(project, profile.name, strategy)
        if run_id is not None:
            tasks, pending = _run_tasks(project, run_id)
            if tasks == set(wanted):
                out.append(BatchItem(profile, run_id, pending, len(wanted)))
                continue
        out.append(BatchItem(profile, None, list(wanted), len(wanted)))
    return out


def create_batch(project: Project, plan: Sequence[BatchItem], strategy: str, *, params: dict[str, Any] | None = None,
                 vision_profile: ModelProfile | None = None) -> list[str]:
    """Create the new runs of `plan` (sharing one group id) and return every item's run id, in order.

    Items are updated in place with their new run id. Raises StrategyError / FieldstudioError as `create_run`.
    """
    group = new_id()
    ids = []
    for item in plan:
        if item.run_id is None:
            item.run_id = create_run(project, item.profile, item.pending_task_ids, strategy, params=params,
                                     vision_profile=vision_profile, group=group)
        ids.append(item.run_id)
    return ids


def execute_batch(project: Project, run_ids: Sequence[str], profiles: Sequence[ModelProfile | None], *,
                  progress: Progress = lambda done, total: None, cancelled: Cancelled = lambda: False,
                  vision_profile: ModelProfile | None = None, concurrency: int | None = None,
                  use_cache: bool = True) -> BatchResult:
    """Execute each run with its profile (`run_ids[i]` with `profiles[i]`), one after the other.

    A profile of None resumes with the user's stored profile named in the run, which must not have changed its
    model or base URL since the run started (`run_queue.execute_run`).

    Args:
        progress: (finished answers, answers in all runs) after each answer, over the whole batch.
        cancelled: checked before every request; answers in flight finish and are stored, the rest stay
            pending for a later `execute_batch` or `plan_batch`.
        concurrency: requests in flight (default: each profile's own concurrency).
    Returns:
        A BatchResult with each run's summary; a run stopped by an error that would fail every task
        (see `run_queue.FATAL_KINDS`) does not stop the next profile's run.
    Raises:
        NotFound, ProfileError, ProjectReadOnly as `run_queue.execute_run`.
    """
    if len(run_ids) != len(profiles):
        raise ValueError("one profile per run is needed")
    with project.read() as s:
        sizes = dict(s.execute(select(Answer.run_id, func.count()).where(Answer.run_id.in_(list(run_ids)))
                               .group_by(Answer.run_id)).all())
    grand_total = sum(sizes.get(r, 0) for r in run_ids)
    result = BatchResult()
    offset = 0
    for run_id, profile in zip(run_ids, profiles):
        if cancelled():
            result.cancelled = True
            break

        def report(done: int, _total: int, base: int = offset) -> None:
            progress(base + done, grand_total)

        summary = run_queue.execute_run(project, run_id, progress=report, cancelled=cancelled, profile=profile,
                                        vision_profile=vision_profile, concurrency=concurrency, use_cache=use_cache)
        result.summaries.append(summary)
        offset += sizes.get(run_id, 0)
        if summary.status == "cancelled":
            result.cancelled = True
            break
    return result


def resume_with_retry(project: Project, run_id: str, *, progress: Progress | None = None,
                      cancelled: Callable[[], bool] | None = None, concurrency: int | None = None,
                      use_cache: bool = True) -> BatchResult:
    """Resume one run, first making its failed answers pending again (``fieldstudio run --retry-failed``).
    Returns a one-run BatchResult; errors as `run_queue.execute_run`."""
    summary = run_queue.execute_run(project, run_id, progress=progress, cancelled=cancelled, concurrency=concurrency,
                                    use_cache=use_cache, retry_failed=True)
    return BatchResult([summary], cancelled=summary.status == "cancelled")


__all__ = ["BatchItem", "BatchResult", "plan_batch", "create_batch", "execute_batch", "resume_with_retry"]
