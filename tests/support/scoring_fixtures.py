"""Helpers for the scoring, comparison and report tests: tasks, runs and answers written straight into a project."""

from __future__ import annotations

from typing import Any

from fieldstudio.store.models import Answer, Run, Task


def add_task(project, external_id: str, ground_truth: str | None, *, eval_func: str | None = None,
             category: str | None = None, query: str = "question?", source: str = "fieldworkarena",
             answer_type: str = "free_text", **extra_columns: Any) -> str:
    """Add one task; returns its id."""
    with project.write() as s:
        t = Task(external_id=external_id, source=source, query=query, ground_truth=ground_truth, eval_func=eval_func,
                 category=category if category is not None else external_id[:-5] or None, answer_type=answer_type,
                 **extra_columns)
        s.add(t)
        s.flush()
        return t.id


def add_run(project, name: str, answers: dict[str, Any], **run_columns: Any) -> str:
    """Add a run with answers {task_id: text | dict of Answer columns}; returns the run id."""
    with project.write() as s:
        run = Run(name=name, kind=run_columns.pop("kind", "model"), status="done", **run_columns)
        s.add(run)
        s.flush()
        for task_id, spec in answers.items():
            cols = spec if isinstance(spec, dict) else {"raw_text": spec}
            s.add(Answer(run_id=run.id, task_id=task_id, **cols))
        return run.id


def scored_now(session, answer_id: str, scorer: str) -> dict[str, Any]:
    """The columns that make a score row written straight into a test project current: the scorer's registered
    version and the hashes of the answer and ground truth as they are now (``scoring.store.hashes_now``). A row
    without them reads as stale, "judged before hashes were kept" (``scoring.staleness``)."""
    from fieldstudio.scoring.scorers import REGISTRY
    from fieldstudio.scoring.store import hashes_now

    info = REGISTRY.get(scorer)
    return {"scorer_version": "1.0" if info is None else info.version, **hashes_now(session, answer_id)}
