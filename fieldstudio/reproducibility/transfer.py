"""Move a run between projects: ``runs export`` writes its record (``record.write_record``), ``runs import`` reads it.

An import keeps the run's, answers' and scores' ids (UUIDs), so importing the same record again adds nothing, and a
record holding answers the project lacks adds only those. It matches each task of the record to the project's task
with the same id, else the same source and external id (a benchmark's task imported into both projects), and each
media file by its SHA-256; the frames each answer was sent are renamed to the project's media ids. When the project
lacks a task or a media file the import is refused, naming them, and nothing is written. A task whose content differs
from the record's is matched all the same and named: its scores then read as stale (``scoring.staleness``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.core.wording import plural
from fieldstudio.inference.runs.run_context import RECORD_KEY
from fieldstudio.inference.runs.run_records import insert_transferred_run
from fieldstudio.reproducibility.record import ANSWER_COLUMNS, SCORE_COLUMNS, RunRecord, read_record, task_lines
from fieldstudio.scoring.store import insert_transferred_scores
from fieldstudio.store.models import Answer, Media, Run, Score, Task, utcnow
from fieldstudio.store.portable import in_chunks
from fieldstudio.store.project import Project


class ImportRefused(FieldstudioError):
    """The target project lacks tasks or media files the run needs; nothing was written."""


@dataclass
class RunImport:
    """What ``import_run`` did: the run's id and name, rows added by kind, and notes (tasks that differ)."""

    run_id: str
    run_name: str
    added: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def nothing_added(self) -> bool:
        return not any(self.added.values())

    def describe(self) -> str:
        """'imported run X: 1 run, 12 answers, 12 scores' or 'run X is already in the project: nothing added'."""
        if self.nothing_added:
            return f"run {self.run_name!r} ({self.run_id[:8]}) is already in the project: nothing added"
        return f"imported run {self.run_name!r} ({self.run_id[:8]}): " + ", ".join(
            plural(n, kind) for kind, n in self.added.items())


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def match_tasks(project: Project, record: RunRecord) -> tuple[dict[str, str], list[str], list[str], dict[str, str]]:
    """(record task id -> project task id, labels of tasks the project lacks, notes on matched tasks that differ,
    record task id -> the project task's ground-truth hash as scores carry it, for the tasks that are the same)."""
    recorded = record.of("task")
    with project.read() as s:
        ids = {i for chunk in in_chunks([t["id"] for t in recorded])
               for i in s.scalars(select(Task.id).where(Task.id.in_(chunk)))}
        by_ext: dict[tuple, list[str]] = {}
        for chunk in in_chunks({t["external_id"] for t in recorded if t.get("external_id")}):
            for t in s.scalars(select(Task).where(Task.external_id.in_(chunk))):
                by_ext.setdefault((t.source, t.external_id), []).append(t.id)
    candidates = {t["id"]: [t["id"]] if t["id"] in ids else by_ext.get((t.get("source"), t.get("external_id")), [])
                  for t in recorded}
    lines = {t["id"]: t for t in task_lines(project, sorted({c for cs in candidates.values() for c in cs}))}
    now = {task_id: line["sha256"] for task_id, line in lines.items()}
    mapping, missing, notes, truths = {}, [], [], {}
    for t in recorded:
        label = t.get("external_id") or t["id"][:8]
        found = candidates[t["id"]]
        if not found:
            missing.append(label)
            continue
        same = [c for c in found if now.get(c) == t.get("sha256")]
        mapping[t["id"]] = (same or found)[0]
        if same:
            truths[t["id"]] = lines[same[0]]["truth_sha256"]
        else:
            notes.append(f"task {label} differs from the record's (its scores will read as stale)")
    return mapping, missing, notes, truths


def match_media(project: Project, record: RunRecord) -> tuple[dict[str, str], list[str]]:
    """(record media id -> project media id, by SHA-256; 'name (SHA-256 …)' of media the project lacks)."""
    wanted = record.of("media")
    shas = [m["sha256"] for m in wanted if m.get("sha256")]
    with project.read() as s:
        here = {m.sha256: m.id for chunk in in_chunks(set(shas))
                for m in s.scalars(select(Media).where(Media.sha256.in_(chunk)))}
    mapping, missing = {}, []
    for m in wanted:
        if m.get("sha256") in here:
            mapping[m["id"]] = here[m["sha256"]]
        else:
            missing.append(f"{m.get('file_name')} (SHA-256 {str(m.get('sha256'))[:12]}…)")
    return mapping, missing


def ids_held_elsewhere(project: Project, record: RunRecord) -> str:
    """'' when the record's answer and score ids are free in ``project`` or belong to the same run and answer there;
    else 'N answers (id …)' / 'N scores (id …)' naming the first few ids the project uses for another run's answer
    or another answer's score (fieldstudio writes fresh ids, so only an edited or hand-made record collides)."""
    run_id = record.run["id"]
    answer_of = {sc["id"]: sc["answer_id"] for sc in record.of("score")}
    clashes = []
    with project.read() as s:
        answers = [a_id for chunk in in_chunks([a["id"] for a in record.of("answer")])
                   for a_id, owner in s.execute(select(Answer.id, Answer.run_id).where(Answer.id.in_(chunk)))
                   if owner != run_id]
        scores = [sc_id for chunk in in_chunks(list(answer_of))
                  for sc_id, owner in s.execute(select(Score.id, Score.answer_id).where(Score.id.in_(chunk)))
                  if owner != answer_of[sc_id]]
    for ids, kind in ((answers, "answer"), (scores, "score")):
        if ids:
            clashes.append(f"{plural(len(ids), kind)} of the record ({', '.join(i[:8] for i in ids[:5])}"
                           f"{' …' if len(ids) > 5 else ''})")
    return " and ".join(clashes)


def _carry_truth_hashes(record: RunRecord, scores: list[dict[str, Any]], truths: dict[str, str]) -> None:
    """A score that stood in the record's project (it judged the ground truth its task had then) judged the same
    ground truth here when the task is the same (equal ``task_sha``): it takes this project's hash of it, which
    differs only by the ids a linked ground truth names, so it does not read as stale for them."""
    task_of = {a["id"]: a["task_id"] for a in record.of("answer")}
    recorded = {t["id"]: t.get("truth_sha256") for t in record.of("task")}
    for score in scores:
        task = task_of.get(score["answer_id"])
        if task in truths and score.get("truth_sha256") is not None and score["truth_sha256"] == recorded.get(task):
            score["truth_sha256"] = truths[task]


def import_run(project: Project, record: RunRecord | Path, *, progress: Progress = lambda done, total: None,
               cancelled: Cancelled = lambda: False) -> RunImport:
    """Add the record's run, answers (with their frames) and scores to ``project``; what is there already is skipped.

    ``record`` is a record read back, or the path of a record file (read here). One write transaction;
    ``progress(1, 1)`` after it (``cancelled`` is not consulted: the import is one transaction).
    Raises RecordError for a file that is not a complete record, ImportRefused (nothing written) when the project
    lacks tasks or media the run needs, ProjectReadOnly.
    """
    if not isinstance(record, RunRecord):
        record = read_record(Path(record))
    run = record.run
    outcome = RunImport(run["id"], str(run.get("name")))
    tasks, missing_tasks, outcome.notes, truths = match_tasks(project, record)
    media, missing_media = match_media(project, record)
    if missing_tasks or missing_media:
        parts = []
        if missing_tasks:
            parts.append(f"{plural(len(missing_tasks), 'task')} of the run ({', '.join(missing_tasks[:10])}"
                         f"{' …' if len(missing_tasks) > 10 else ''}): import the task set first")
        if missing_media:
            parts.append(f"{plural(len(missing_media), 'media file')} ({', '.join(missing_media[:10])}"
                         f"{' …' if len(missing_media) > 10 else ''}): add the files first")
        raise ImportRefused(f"{project.name} lacks " + "; and ".join(parts) + ". Nothing was imported.")
    taken = ids_held_elsewhere(project, record)
    if taken:
        raise ImportRefused(f"{project.name} already holds {taken} under another run or answer (a record edited or "
                            "made by hand?). Nothing was imported.")
    with project.write() as s:
        run_there = s.get(Run, run["id"]) is not None
        answers_there = set(s.scalars(select(Answer.id).where(Answer.run_id == run["id"])))
        score_ids = [sc["id"] for sc in record.of("score")]
        scores_there = {i for chunk in in_chunks(score_ids) for i in s.scalars(select(Score.id).where(Score.id.in_(chunk)))}
        run_row = None
        if not run_there:
            params = dict(run.get("params") or {})
            params[RECORD_KEY] = {"sessions": [{k: v for k, v in line.items() if k not in ("type", "index")}
                                               for line in record.of("session")],
                                  "scorings": [{k: v for k, v in line.items() if k != "type"}
                                               for line in record.of("scoring")]}
            params["imported_from"] = {"project": record.header.get("project"), "at": utcnow().isoformat()}
            run_row = {"id": run["id"], "name": run.get("name") or run["id"][:8], "kind": run.get("kind") or "model",
                       "profile_id": None, "strategy": run.get("strategy"), "strategy_version": run.get("strategy_version"),
                       "params": params, "status": run.get("status") or "done",
                       "started_at": _when(run.get("started_at")) or utcnow(), "finished_at": _when(run.get("finished_at"))}
        answers = []
        for a in record.of("answer"):
            if a["id"] in answers_there:
                continue
            frames = [{**{k: v for k, v in f.items() if k not in ("type", "answer_id", "session", "media_sha256")},
                       "media_id": media.get(f.get("media_id"), f.get("media_id"))}
                      for f in record.of("frame") if f.get("answer_id") == a["id"]]
            answers.append({"id": a["id"], "run_id": run["id"], "task_id": tasks[a["task_id"]],
                            **{c: a.get(c) for c in ANSWER_COLUMNS}, "frames": frames or None,
                            "created_at": _when(a.get("created_at")) or utcnow()})
        profile = record.header.get("profile") if run_row is not None else None
        insert_transferred_run(s, run_row, profile, answers)
        scores = [{"id": sc["id"], "answer_id": sc["answer_id"], **{c: sc.get(c) for c in SCORE_COLUMNS},
                   "created_at": _when(sc.get("created_at")) or utcnow()}
                  for sc in record.of("score") if sc["id"] not in scores_there]
        _carry_truth_hashes(record, scores, truths)
        insert_transferred_scores(s, scores)
    outcome.added = {"run": 0 if run_row is None else 1, "answer": len(answers), "score": len(scores)}
    progress(1, 1)
    return outcome


__all__ = ["ImportRefused", "RunImport", "match_tasks", "match_media", "ids_held_elsewhere", "import_run"]
