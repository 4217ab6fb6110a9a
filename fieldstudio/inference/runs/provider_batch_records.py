"""The ``provider_batch`` rows of a project: one per batch sent (or file written) for a run, with its answers.

A batch is recorded before anything is sent, with each answer's frames and request trace (``record_batch``);
while it is open (``imported_at`` NULL) its answers are sent by nothing else, neither a batch nor a normal
run. Here are the rows' bookkeeping (record, update, drop, a run's open batches), the run's status that
follows from its answers (``update_run_status``) and the states a list shows (``batch_states``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.inference.runs.run_records import run_summary
from fieldstudio.store.models import Answer, ProviderBatch, Run, utcnow
from fieldstudio.store.project import Project


class BatchError(FieldstudioError):
    """A run cannot be sent or imported as a batch; the message says why and what to do."""


def load_run(project: Project, run_id: str) -> Run:
    """The run to send as a batch. Raises NotFound, BatchError for a run of imported answers."""
    with project.read() as s:
        run = s.get(Run, run_id)
    if run is None:
        raise NotFound(f"no run {run_id!r} in {project.path.name}")
    if run.kind != "model":
        raise BatchError(f"run {run.name!r} holds imported answers; there is nothing to send")
    return run


def record_batch(project: Project, run_id: str, traces: Mapping[str, dict[str, Any]], answer_ids: list[str],
                 **values: Any) -> tuple[str | None, list[str]]:
    """Store a batch row with its answers' frames and request traces (`traces`: per answer id, as in
    `BatchRequests.traces`).

    Answers another process finished or put in an open batch since the lines were built are left out
    (the write transaction makes the check and the record one step), so no request is sent twice.
    Returns (the row id, the answer ids recorded); (None, []) when none was left.
    """
    with project.write() as s:
        taken = {a for ids in s.scalars(select(ProviderBatch.answer_ids).where(
            ProviderBatch.run_id == run_id, ProviderBatch.imported_at.is_(None))) for a in ids or []}
        pending = set(s.scalars(select(Answer.id).where(Answer.run_id == run_id, Answer.raw_text.is_(None),
                                                        Answer.error.is_(None))))
        answer_ids = [a for a in answer_ids if a in pending and a not in taken]
        if not answer_ids:
            return None, []
        # one row with every request's record: 10,000 answer updates would cost seconds
        row = ProviderBatch(run_id=run_id, answer_ids=list(answer_ids),
                            requests={a: traces[a] for a in answer_ids}, **values)
        s.add(row)
        s.get(Run, run_id).status = "batch"
        return row.id, answer_ids


def drop_batch(project: Project, row_id: str) -> None:
    """Delete a batch row (nothing of it exists at the provider; its answers are unsent again)."""
    with project.write() as s:
        row = s.get(ProviderBatch, row_id)
        if row is not None:
            s.delete(row)


def update_batch(project: Project, row_id: str, **values: Any) -> None:
    """Set columns of a batch row (``provider_batch_id``, ``status``, ...) in one transaction."""
    with project.write() as s:
        row = s.get(ProviderBatch, row_id)
        for name, value in values.items():
            setattr(row, name, value)


def run_batches(project: Project, run_id: str) -> list[ProviderBatch]:
    """Every batch row of a run, oldest first."""
    with project.read() as s:
        return list(s.scalars(select(ProviderBatch).where(ProviderBatch.run_id == run_id)
                              .order_by(ProviderBatch.created_at)))


def open_batches(project: Project, run_id: str, kind: str | None = None) -> list[ProviderBatch]:
    """The run's batches not imported yet (``kind``: only ``api`` or ``file`` ones), oldest first."""
    return [b for b in run_batches(project, run_id) if b.imported_at is None and (kind is None or b.kind == kind)]


def update_run_status(project: Project, run_id: str) -> None:
    """Set the run's status from its answers: done, batch (answers wait in an open batch) or pending."""
    summary = run_summary(project, run_id)
    with project.write() as s:
        run = s.get(Run, run_id)
        if summary.pending == 0:
            run.status, run.finished_at = "done", utcnow()
        elif summary.in_batch:
            run.status = "batch"
        elif run.status == "batch":
            run.status = "pending"


@dataclass
class BatchState:
    """One batch of a run as a list shows it.

    Attributes: the row id, ``kind`` (api / file), the provider's batch id (api) or the file (file), the
    status, the provider's request counts (total, completed, failed; None before it reported them), the
    requests in it, the times it was created and imported, and the provider's errors.
    """

    id: str
    run_id: str
    kind: str
    provider_batch_id: str | None
    path: str | None
    status: str
    total: int | None
    completed: int | None
    failed: int | None
    requests: int
    created_at: datetime | None
    imported_at: datetime | None
    error: str | None

    @property
    def open(self) -> bool:
        return self.imported_at is None


def batch_states(project: Project, run_id: str | None = None) -> list[BatchState]:
    """Every batch of the project (or of one run), oldest first."""
    with project.read() as s:
        q = select(ProviderBatch).order_by(ProviderBatch.created_at)
        if run_id is not None:
            q = q.where(ProviderBatch.run_id == run_id)
        rows = list(s.scalars(q))
    out = []
    for r in rows:
        counts = r.request_counts or {}
        out.append(BatchState(r.id, r.run_id, r.kind, r.provider_batch_id, r.path, r.status, counts.get("total"),
                              counts.get("completed"), counts.get("failed"), len(r.answer_ids or []), r.created_at,
                              r.imported_at, r.error))
    return out
