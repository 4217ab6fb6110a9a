"""Runs in a project: choosing tasks, creating runs with their pending answers, summaries, deleting.

A run is one model profile over a set of tasks with one prompt strategy (`create_run`; `create_runs` makes
one run per profile for tasks x profiles). It keeps a copy of the profile's parameters without credentials,
the strategy's version and template hashes and the prices with their date. Answers start pending (both
``raw_text`` and ``error`` NULL) and are filled by `fieldstudio.inference.runs.queue.execute_run`; a failed
answer keeps ``error = "<kind>: <message>"`` (`split_error`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, or_, select

from fieldstudio.core import costs
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.strategies import GENERAL_STRATEGY, get_strategy
from fieldstudio.store.models import Answer, ProviderBatch, Run, Task
from fieldstudio.store.models import ModelProfile as ProfileRow
from fieldstudio.store.project import Project


def split_error(error: str | None) -> tuple[str | None, str | None]:
    """``"timeout: no answer within..."`` -> (``"timeout"``, ``"no answer within..."``); (None, None) for None."""
    if not error:
        return None, None
    kind, sep, message = error.partition(": ")
    if sep and re.fullmatch(r"[a-z_]+", kind):
        return kind, message
    return "error", error


# -- selecting tasks and creating runs -----------------------------------------------------------


def select_tasks(project: Project, *, ids: Sequence[str] | None = None, category: str | None = None,
                 scenario: str | None = None, answer_type: str | None = None, source: str | None = None,
                 unanswered_by: str | None = None, limit: int | None = None) -> list[str]:
    """Ids of the tasks matching every given filter, in (source, external id) order.

    Args:
        ids: task ids, id prefixes of 6+ characters or benchmark ids (``2.1.0001``); NotFound for one that
            names no task.
        category, scenario, answer_type, source: exact values (a category also matches its sub-categories
            by prefix, ``2`` matching ``2.1``).
        unanswered_by: a profile name: only tasks with no finished answer from a run of that profile.
        limit: at most this many tasks.
    """
    with project.read() as s:
        q = select(Task.id, Task.external_id)
        if ids is not None:
            wanted = [str(i).strip() for i in ids if str(i).strip()]
            found: list[str] = []
            for ref in wanted:
                rows = s.execute(select(Task.id).where(or_(Task.id == ref, Task.external_id == ref))).scalars().all()
                if not rows and len(ref) >= 6:
                    rows = s.execute(select(Task.id).where(Task.id.startswith(ref.lower()))).scalars().all()
                if not rows:
                    raise NotFound(f"no task {ref!r} in {project.path.name}")
                found += [r for r in rows if r not in found]
            q = q.where(Task.id.in_(found))
        if category:
            q = q.where(or_(Task.category == category, Task.category.startswith(category + ".")))
        if scenario:
            q = q.where(Task.scenario == scenario)
        if answer_type:
            q = q.where(Task.answer_type == answer_type)
        if source:
            q = q.where(Task.source == source)
        if unanswered_by:
            answered = (select(Answer.task_id).join(Run, Answer.run_id == Run.id)
                        .join(ProfileRow, Run.profile_id == ProfileRow.id)
                        .where(ProfileRow.name == unanswered_by, Answer.raw_text.is_not(None), Answer.error.is_(None)))
            q = q.where(Task.id.not_in(answered))
        q = q.order_by(Task.source, Task.external_id, Task.created_at)
        if limit:
            q = q.limit(limit)
        return [row[0] for row in s.execute(q)]


def create_run(project: Project, profile: ModelProfile, task_ids: Sequence[str], strategy: str = GENERAL_STRATEGY, *,
               params: dict[str, Any] | None = None, name: str | None = None,
               vision_profile: ModelProfile | None = None, group: str | None = None,
               sweep: dict[str, Any] | None = None) -> str:
    """Store a run of `profile` over `task_ids` with `strategy`, and one pending answer per task.

    ``sweep`` (``inference.runs.sweep``) marks the run as one arm of a sampling sweep: its id, the arm's label
    and position, kept in the run's params.

    The run keeps a copy of the profile's parameters without credentials (`params_without_key`), the
    strategy's name, version and template hashes, its parameters, the prices with their date, and the
    vision profile's copy for agent mode. Returns the run id. Raises StrategyError for an unknown strategy,
    FieldstudioError when no task is given, ProjectReadOnly when the project cannot be written.
    """
    chosen = get_strategy(strategy)
    task_ids = list(dict.fromkeys(task_ids))
    if not task_ids:
        raise FieldstudioError("no task selected: nothing to run")
    run_params: dict[str, Any] = {
        "profile_name": profile.name,
        "strategy": chosen.fingerprint(),
        "strategy_params": dict(params or {}),
        "prices": {"input_per_mtok": profile.price_input_per_mtok, "output_per_mtok": profile.price_output_per_mtok,
                   "cached_per_mtok": profile.price_cached_per_mtok,
                   "reasoning_per_mtok": profile.price_reasoning_per_mtok, "date": profile.prices_date,
                   "per_hour": profile.cost_per_hour_usd},
        "task_count": len(task_ids),
    }
    if vision_profile is not None:
        run_params["vision_profile"] = vision_profile.params_without_key()
        run_params["vision_profile_name"] = vision_profile.name
    if group:
        run_params["group"] = group
    if sweep:
        run_params["sweep"] = dict(sweep)
    with project.write() as s:
        row = ProfileRow(name=profile.name, base_url=profile.shown_url, model=profile.model,
                         params=profile.params_without_key())
        s.add(row)
        s.flush()
        run = Run(name=name or f"{profile.name} · {chosen.name}", kind="model", profile_id=row.id,
                  strategy=chosen.name, strategy_version=chosen.version, params=run_params, status="pending")
        s.add(run)
        s.flush()
        s.add_all([Answer(run_id=run.id, task_id=t) for t in task_ids])
        return run.id


def create_runs(project: Project, profiles: Sequence[ModelProfile], task_ids: Sequence[str],
                strategy: str = GENERAL_STRATEGY, **kw: Any) -> list[str]:
    """One run per profile over the same tasks (tasks x profiles), sharing a group id; returns the run ids."""
    from fieldstudio.store.models import new_id

    group = new_id()
    return [create_run(project, p, task_ids, strategy, group=group, **kw) for p in profiles]


def find_resumable_run(project: Project, profile_name: str, strategy: str,
                       task_ids: Sequence[str] | None = None) -> str | None:
    """The newest model run of this profile and strategy that still has pending answers, or None.

    With ``task_ids``: that run only when it is over exactly these tasks (a run over other tasks is not resumed;
    the caller starts a new one)."""
    with project.read() as s:
        rows = s.execute(select(Run.id).join(ProfileRow, Run.profile_id == ProfileRow.id)
                         .where(Run.kind == "model", ProfileRow.name == profile_name, Run.strategy == strategy)
                         .order_by(Run.started_at.desc())).scalars().all()
        for run_id in rows:
            pending = s.scalar(select(func.count()).select_from(Answer).where(
                Answer.run_id == run_id, Answer.raw_text.is_(None), Answer.error.is_(None)))
            if pending:
                if task_ids is not None and set(s.scalars(select(Answer.task_id).where(Answer.run_id == run_id))) \
                        != set(task_ids):
                    return None
                return run_id
    return None


def find_run(project: Project, ref: str) -> str:
    """The id of the run ``ref`` names: its whole id, or its first 6 or more characters (any case).

    Raises FieldstudioError when no run or several runs match."""
    with project.read() as s:
        ids = list(s.scalars(select(Run.id)))
    matches = [i for i in ids if i == ref or (len(ref) >= 6 and i.startswith(ref.lower()))]
    if len(matches) != 1:
        raise FieldstudioError(f"no run {ref!r} in {project.path.name}" if not matches else f"{ref!r} names several runs")
    return matches[0]


def count_runs(project: Project) -> int:
    """Number of runs in the project (model runs and imported answer sources)."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Run)) or 0


def count_answers(project: Project) -> int:
    """Number of answers in the project, pending and failed ones included."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Answer)) or 0


def open_batch_answer_ids(project: Project, run_id: str) -> set[str]:
    """Ids of the run's answers whose requests are in a provider batch not yet imported (never sent again)."""
    with project.read() as s:
        rows = s.scalars(select(ProviderBatch.answer_ids).where(ProviderBatch.run_id == run_id,
                                                                ProviderBatch.imported_at.is_(None))).all()
    return {answer_id for ids in rows for answer_id in ids or []}


# -- summaries -----------------------------------------------------------------------------------


@dataclass
class RunSummary:
    """Where a run stands.

    Attributes:
        total: answers in the run; answered: finished without error; failed: finished with an error;
        pending: not finished; from_cache: finished answers served entirely from the cache.
        prompt_tokens, completion_tokens, reasoning_tokens: sums over answers that reported them.
        cost_usd: sum of known costs (USD); cost_complete: False when some finished answer's cost is
        unknown (the sum is then a lower bound, "partial"); cost_unknown: how many finished answers have no
        known cost.
        errors: count per error kind. status: the run's status. stopped: why the run stopped early, if it did.
        in_batch: pending answers whose requests wait in an open provider batch.
    """

    run_id: str
    total: int = 0
    answered: int = 0
    failed: int = 0
    pending: int = 0
    from_cache: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0
    cost_unknown: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    status: str = "pending"
    stopped: str | None = None
    elapsed_s: float = 0.0
    in_batch: int = 0

    @property
    def cost_complete(self) -> bool:
        """False when some finished answer's cost is unknown (``cost_usd`` is then a lower bound)."""
        return self.cost_unknown == 0

    @property
    def cost_priced(self) -> int:
        """Finished answers with a known cost."""
        return self.answered + self.failed - self.cost_unknown

    @property
    def cost_status(self) -> str:
        """``complete``; ``partial`` (some costs unknown, ``cost_usd`` a lower bound); ``unknown`` when no
        finished answer has a known cost (``core.costs.cost_status``)."""
        return costs.cost_status(self.cost_priced, self.cost_unknown)

    @property
    def cost_text(self) -> str:
        """The cost as the Runs tab and the report say it (``core.costs.cost_text``)."""
        return costs.cost_text(self.cost_usd, self.cost_priced, self.cost_unknown)


def run_summary(project: Project, run_id: str) -> RunSummary:
    """Counts, tokens, cost and error kinds of a run, from its stored answers. Raises NotFound."""
    with project.read() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NotFound(f"no run {run_id!r} in {project.path.name}")
        rows = s.execute(select(Answer.id, Answer.raw_text.is_not(None), Answer.error, Answer.from_cache,
                                Answer.prompt_tokens,
                                Answer.completion_tokens, Answer.reasoning_tokens, Answer.cost_usd)
                         .where(Answer.run_id == run_id)).all()
    summary = RunSummary(run_id, total=len(rows), status=run.status)
    kinds: Counter[str] = Counter()
    pending_ids = []
    for answer_id, has_text, error, from_cache, p, c, r, usd in rows:
        if error is not None:
            summary.failed += 1
            kinds[split_error(error)[0] or "error"] += 1
        elif has_text:
            summary.answered += 1
        else:
            summary.pending += 1
            pending_ids.append(answer_id)
            continue
        summary.from_cache += bool(from_cache)
        summary.prompt_tokens += p or 0
        summary.completion_tokens += c or 0
        summary.reasoning_tokens += r or 0
        if usd is None:
            summary.cost_unknown += 1
        else:
            summary.cost_usd += usd
    summary.errors = dict(kinds)
    if summary.pending:
        in_batch = open_batch_answer_ids(project, run_id)
        summary.in_batch = sum(1 for answer_id in pending_ids if answer_id in in_batch)
    return summary


def insert_transferred_run(session: Any, run: dict[str, Any] | None, profile: dict[str, Any] | None,
                           answers: Sequence[dict[str, Any]]) -> None:
    """In the caller's write session, add a run moved from another project (``reproducibility.transfer``): its
    model profile row (kept by id, added when absent), the run row (None: the run is here already) and its answers
    (column dicts with their ids). Raises SQLAlchemy's errors on a duplicate id; the transaction then rolls back."""
    from fieldstudio.store.bulk_insert import insert_rows

    if run is not None:
        if profile and profile.get("id"):
            if session.get(ProfileRow, profile["id"]) is None:
                insert_rows(session, ProfileRow, [{"id": profile["id"], "name": profile.get("name") or "",
                                                   "base_url": profile.get("base_url"), "model": profile.get("model"),
                                                   "params": profile.get("params")}])
            run = {**run, "profile_id": profile["id"]}
        insert_rows(session, Run, [run])
    insert_rows(session, Answer, list(answers))


def delete_run(project: Project, run_id: str) -> None:
    """Delete a run with its answers and scores (its profile copy too). Raises NotFound."""
    with project.write() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NotFound(f"no run {run_id!r} in {project.path.name}")
        profile_id = run.profile_id
        s.delete(run)
        s.flush()
        if profile_id and not s.scalar(select(func.count()).select_from(Run).where(Run.profile_id == profile_id)):
            row = s.get(ProfileRow, profile_id)
            if row is not None:
                s.delete(row)


__all__ = ["RunSummary", "split_error", "select_tasks", "create_run", "create_runs", "find_resumable_run", "find_run",
           "count_runs", "count_answers", "open_batch_answer_ids", "run_summary", "delete_run",
           "insert_transferred_run"]
