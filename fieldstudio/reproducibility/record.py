"""A run's reproducibility record: one self-contained JSON-lines file saying what was asked, with what, and what came back.

The record is assembled from what the project keeps: the run and its model profile (without credentials), the
sessions and scorings kept on the run (``inference.runs.run_context``), the tasks with their SHA-256, the media with
the SHA-256 of their files, each answer with the frames it was sent (``Answer.frames``), and the scores. Its schema
(``docs/run_record.md``, ``SCHEMA`` / ``SCHEMA_VERSION``): one JSON object per line, each with a ``type``, in this
order: ``header``, ``session``\\*, ``task_set``, ``task``\\*, ``media``\\*, ``answer``\\*, ``frame``\\*,
``scoring``\\*, ``score``\\*, ``end``. The ``end`` line counts the lines before it and holds the SHA-256 of their
bytes, so a cut or edited file is told apart from a record that differs from the project.

The same file is what ``runs export`` writes and ``runs import`` reads: it carries every column of the run's
answers and scores, so a run moves between projects with it (``reproducibility.transfer``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio import __version__
from fieldstudio.core.atomic import ReplacesDatabase, atomic_write_bytes, refuse_database_target
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.core.json_limits import MAX_JSON_BYTES, JsonLimitError, load_json
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.inference.runs.run_context import RECORD_KEY, record_entries
from fieldstudio.reproducibility.record_shape import check_shape
from fieldstudio.scoring.scorers.scorer_info import TaskInputs
from fieldstudio.scoring.staleness import answer_sha, truth_sha
from fieldstudio.store.models import Answer, Media, Run, Score, Task, TaskInput, utcnow
from fieldstudio.store.models import ModelProfile as ProfileRow
from fieldstudio.store.portable import in_chunks
from fieldstudio.store.project import Project

SCHEMA = "fieldstudio.run-record"
SCHEMA_VERSION = 1
LINE_TYPES = ("header", "session", "task_set", "task", "media", "answer", "frame", "scoring", "score", "end")
"""Every line type, in the order they appear."""

ANSWER_COLUMNS = ("raw_text", "parsed", "prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens",
                  "latency_s", "cost_usd", "error", "retries", "from_cache", "trace")
SCORE_COLUMNS = ("scorer", "scorer_version", "value", "correct", "explanation", "judge", "author", "reason",
                 "overrides_id", "answer_sha256", "truth_sha256", "scorer_sha256", "judged_truth")
FRAME_KEYS = ("request", "media_id", "frame_index", "pts", "pts_s", "width", "height", "quality", "bytes",
              "max_side", "sha256")


class RecordError(FieldstudioError):
    """A record file that cannot be read: not JSON lines, not a fieldstudio run record, cut or edited."""


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")


def portable_extra(extra: dict[str, Any] | None) -> dict[str, Any] | None:
    """A task's extra ground-truth fields without the ids that only mean something in one project: the keys ending
    in ``_id`` of its ``annotation_link`` (the annotation, media and label a linked ground truth is derived from).
    What the link gives is in the task's ``ground_truth`` itself, which stays in the hash."""
    if not isinstance(extra, dict) or not isinstance(extra.get("annotation_link"), dict):
        return extra
    link = {k: v for k, v in extra["annotation_link"].items() if not str(k).endswith("_id")}
    return {**extra, "annotation_link": link}


def task_sha(task: dict[str, Any]) -> str:
    """SHA-256 (hex) of a task as a run depends on it: source, external id, query, answer type, ground truth and its
    extra fields (``portable_extra``), eval_func, tolerances, and each input's name with its media's file SHA-256, in
    input order. ``task`` is a ``task`` line of a record (or the same keys). Ids local to a project (fieldstudio's
    task id, an annotation link's ids) are left out, so the same task in two projects has the same hash."""
    return hashlib.sha256(_canonical([
        task.get("source"), task.get("external_id"), task.get("query"), task.get("answer_type"),
        task.get("ground_truth"), portable_extra(task.get("ground_truth_extra")), task.get("eval_func"),
        task.get("tolerances"),
        [[i.get("name"), i.get("media_sha256")] for i in task.get("inputs") or []]])).hexdigest()


def task_set_sha(task_hashes: list[str]) -> str:
    """SHA-256 (hex) of a set of tasks: of their hashes sorted and joined by newlines (order-free, id-free)."""
    return hashlib.sha256("\n".join(sorted(task_hashes)).encode("ascii")).hexdigest()


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _session_of(created: str | None, sessions: list[dict[str, Any]]) -> int | None:
    """The index of the last session that started at or before ``created`` (ISO times), or None."""
    found = None
    for i, session in enumerate(sessions):
        if created is not None and str(session.get("time") or "") <= created:
            found = i
    return found


def task_lines(project: Project, task_ids: list[str]) -> list[dict[str, Any]]:
    """The ``task`` lines of these tasks (in the given order), each with its inputs and ``sha256``."""
    with project.read() as s:
        tasks, inputs = {}, {}
        for chunk in in_chunks(task_ids):
            tasks.update({t.id: t for t in s.scalars(select(Task).where(Task.id.in_(chunk)))})
            for ti, sha in s.execute(select(TaskInput, Media.sha256).outerjoin(Media, TaskInput.media_id == Media.id)
                                     .where(TaskInput.task_id.in_(chunk)).order_by(TaskInput.position)):
                inputs.setdefault(ti.task_id, []).append(
                    {"position": ti.position, "name": ti.name, "media_id": ti.media_id, "media_sha256": sha,
                     "start_s": ti.start_s, "end_s": ti.end_s})
    out = []
    for task_id in task_ids:
        t = tasks.get(task_id)
        if t is None:
            continue
        line = {"type": "task", "id": t.id, "external_id": t.external_id, "source": t.source, "query": t.query,
                "answer_type": t.answer_type, "ground_truth": t.ground_truth,
                "ground_truth_extra": t.ground_truth_extra, "eval_func": t.eval_func, "tolerances": t.tolerances,
                "category": t.category, "inputs": inputs.get(t.id, [])}
        line["sha256"] = task_sha(line)
        # the ground truth's hash as this project's scores carry it, so moved scores stay current (transfer.py)
        line["truth_sha256"] = truth_sha(TaskInputs(t.id, t.external_id, t.source, t.query, t.answer_type,
                                                    t.ground_truth, t.ground_truth_extra, t.eval_func, t.tolerances,
                                                    t.extra))
        out.append(line)
    return out


def media_line(media: Media) -> dict[str, Any]:
    """The ``media`` line of one media row: id, kind, file name, stored path and root, file SHA-256 and size."""
    return {"type": "media", "id": media.id, "kind": media.kind, "file_name": media.file_name, "path": media.path,
            "media_root": media.media_root, "sha256": media.sha256, "size_bytes": media.size_bytes,
            "frame_count": media.frame_count}


def record_lines(project: Project, run_id: str) -> Iterator[dict[str, Any]]:
    """The lines of the run's record, ``end`` excluded (``write_record`` adds it). Raises NotFound."""
    with project.read() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NotFound(f"no run {run_id!r} in {project.path.name}")
        profile = s.get(ProfileRow, run.profile_id) if run.profile_id else None
        answers = list(s.scalars(select(Answer).where(Answer.run_id == run_id).order_by(Answer.id)))
        scores = list(s.scalars(select(Score).join(Answer, Score.answer_id == Answer.id)
                                .where(Answer.run_id == run_id).order_by(Score.created_at, Score.id)))
    kept = record_entries(run.params)
    params = {k: v for k, v in (run.params or {}).items() if k != RECORD_KEY}
    yield {"type": "header", "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "written_at": utcnow().isoformat(),
           "fieldstudio_version": __version__, "project": project.name, "project_path": project.location,
           "run": {"id": run.id, "name": run.name, "kind": run.kind, "status": run.status,
                   "strategy": run.strategy, "strategy_version": run.strategy_version, "params": params,
                   "started_at": _iso(run.started_at), "finished_at": _iso(run.finished_at)},
           "profile": None if profile is None else {"id": profile.id, "name": profile.name, "model": profile.model,
                                                    "base_url": profile.base_url, "params": profile.params}}
    for i, session in enumerate(kept["sessions"]):
        yield {"type": "session", "index": i, **session}
    tasks = task_lines(project, list(dict.fromkeys(a.task_id for a in answers)))
    yield {"type": "task_set", "count": len(tasks), "sha256": task_set_sha([t["sha256"] for t in tasks])}
    yield from tasks
    media_ids = {i["media_id"] for t in tasks for i in t["inputs"] if i["media_id"]}
    media_ids |= {f.get("media_id") for a in answers for f in a.frames or [] if f.get("media_id")}
    with project.read() as s:
        media = {m.id: m for chunk in in_chunks(sorted(media_ids))
                 for m in s.scalars(select(Media).where(Media.id.in_(chunk)))}
    for media_id in sorted(media):
        yield media_line(media[media_id])
    frames = []
    for a in answers:
        created = _iso(a.created_at)
        session = _session_of(created, kept["sessions"])
        yield {"type": "answer", "id": a.id, "task_id": a.task_id, "created_at": created, "session": session,
               "answer_sha256": answer_sha(a.raw_text, a.parsed, a.error),
               **{c: getattr(a, c) for c in ANSWER_COLUMNS}}
        for f in a.frames or []:
            m = media.get(f.get("media_id"))
            frames.append({"type": "frame", "answer_id": a.id, "session": session,
                           "media_sha256": m.sha256 if m is not None else None,
                           "file_name": f.get("file_name") or (m.file_name if m is not None else None),
                           **{k: f.get(k) for k in FRAME_KEYS},
                           **({"redaction": f["redaction"]} if f.get("redaction") else {})})
    yield from frames
    for scoring in kept["scorings"]:
        yield {"type": "scoring", **scoring}
    for sc in scores:
        yield {"type": "score", "id": sc.id, "answer_id": sc.answer_id, "created_at": _iso(sc.created_at),
               **{c: getattr(sc, c) for c in SCORE_COLUMNS}}


def record_bytes(project: Project, run_id: str) -> bytes:
    """The whole record as UTF-8 JSON lines, ``end`` line included. Raises NotFound."""
    body = b"".join(_canonical(line) + b"\n" for line in record_lines(project, run_id))
    count = body.count(b"\n")
    return body + _canonical({"type": "end", "lines": count, "sha256": hashlib.sha256(body).hexdigest()}) + b"\n"


def refuse_target(path: Path) -> None:
    """Raise RecordError when writing a record to ``path`` would replace a folder or a database (a project file:
    ``runs export P RUN -o P`` would otherwise leave P a JSON-lines file and its work gone)."""
    if path.is_dir():
        raise RecordError(f"{path} is a folder: give the record a file name (run.jsonl)")
    try:
        refuse_database_target(path)
    except ReplacesDatabase:
        raise RecordError(f"{path} is a database (a fieldstudio project?): a record is not written over it; "
                          "choose another file (run.jsonl)") from None


def write_record(project: Project, run_id: str, path: Path, *,
                 progress: Progress = lambda done, total: None, cancelled: Cancelled = lambda: False) -> int:
    """Write the run's record to ``path`` (a temporary file moved into place); returns the number of lines.

    ``progress(1, 1)`` once written (the record is read in a few queries; ``cancelled`` is not consulted).
    Raises NotFound for an unknown run, RecordError when ``path`` is a folder or a database (the project's own file
    included: a record written there would replace the project), OSError when the file cannot be written."""
    refuse_target(Path(path))
    data = record_bytes(project, run_id)
    atomic_write_bytes(Path(path), data)
    progress(1, 1)
    return data.count(b"\n")


@dataclass
class RunRecord:
    """A record read back: its lines by type (``lines["answer"]`` is the list of answer lines), in file order."""

    path: Path | None
    lines: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def of(self, kind: str) -> list[dict[str, Any]]:
        """The lines of one type (an empty list when there is none)."""
        return self.lines.get(kind, [])

    @property
    def header(self) -> dict[str, Any]:
        return self.of("header")[0]

    @property
    def run(self) -> dict[str, Any]:
        return self.header["run"]

    def describe(self) -> str:
        """'run <name> (<id prefix>): N answers, N frames, N scores'."""
        return (f"run {self.run.get('name')!r} ({str(self.run.get('id'))[:8]}): {len(self.of('answer'))} answers, "
                f"{len(self.of('frame'))} frames sent, {len(self.of('score'))} scores")


def parse_record(data: bytes, path: Path | None = None) -> RunRecord:
    """Read a record's bytes. Raises RecordError (naming the line) when they are not a complete, unchanged
    fieldstudio run record of a schema version this fieldstudio reads."""
    where = str(path) if path is not None else "the record"
    body, _, last = data.rstrip(b"\n").rpartition(b"\n")
    if not data.strip():
        raise RecordError(f"{where} is empty")
    body = body + b"\n" if body else b""
    try:
        end = load_json(last)
    except ValueError:
        raise RecordError(f"{where}: the last line is not JSON (a cut file?)") from None
    if not isinstance(end, dict) or end.get("type") != "end":
        raise RecordError(f"{where}: no 'end' line (a cut file, or not a fieldstudio run record)")
    if end.get("lines") != body.count(b"\n") or end.get("sha256") != hashlib.sha256(body).hexdigest():
        raise RecordError(f"{where}: the lines do not match the 'end' line's count and SHA-256 (the file was cut or "
                          "edited)")
    record = RunRecord(path)
    numbers: dict[int, int] = {}
    for number, raw in enumerate(body.splitlines(), 1):
        try:
            line = load_json(raw)
        except JsonLimitError as exc:
            raise RecordError(f"{where}, line {number} {exc}") from None
        except ValueError:
            raise RecordError(f"{where}, line {number}: not JSON") from None
        kind = line.get("type") if isinstance(line, dict) else None
        if kind not in LINE_TYPES or kind == "end":
            raise RecordError(f"{where}, line {number}: unknown line type {kind!r}")
        record.lines.setdefault(kind, []).append(line)
        numbers[id(line)] = number
    heads = record.of("header")
    if len(heads) != 1 or heads[0].get("schema") != SCHEMA:
        raise RecordError(f"{where} is not a fieldstudio run record (schema {SCHEMA!r})")
    if heads[0].get("schema_version") != SCHEMA_VERSION:
        raise RecordError(f"{where}: schema version {heads[0].get('schema_version')!r}; this fieldstudio reads "
                          f"version {SCHEMA_VERSION}")
    problem = check_shape(record.lines)
    if problem is not None:
        line, reason = problem
        raise RecordError(f"{where}, line {numbers[id(line)]} ({line.get('type')}): {reason}")
    return record


def read_record(path: Path) -> RunRecord:
    """Read a record file. Raises RecordError when it cannot be read or is not a complete run record."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_JSON_BYTES:
            raise RecordError(f"{path}: {size:,} bytes, larger than the {MAX_JSON_BYTES:,} a record may hold; not read")
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RecordError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return parse_record(data, Path(path))


__all__ = ["SCHEMA", "SCHEMA_VERSION", "LINE_TYPES", "RecordError", "RunRecord", "portable_extra", "task_sha", "task_set_sha",
           "task_lines", "media_line", "record_lines", "record_bytes", "refuse_target", "write_record", "parse_record", "read_record"]
