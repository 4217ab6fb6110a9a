"""Batches as files for ``vllm run-batch``: the same lines written to a JSONL file, and the file it writes imported.

``write_file`` records a ``file`` batch as ``provider_batch.submit`` records an API batch: it stays open
(its answers sent by nothing else) until its output is imported (``import_file``) or ``provider_batch.cancel``
abandons it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fieldstudio.core.atomic import atomic_writer
from fieldstudio.core.progress import Progress
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs.run_context import add_record_entry, session_entry
from fieldstudio.inference.runs.provider_batch_lines import iter_requests, pending_answers
from fieldstudio.inference.runs.provider_batch_records import (BatchError, drop_batch, load_run, open_batches,
                                                               record_batch, update_run_status)
from fieldstudio.inference.runs.provider_batch_replies import ImportReport, import_lines, parse_jsonl
from fieldstudio.inference.runs.queue import profile_for_run
from fieldstudio.store.project import Project


def write_file(project: Project, run_id: str, path: Path, *, profile: ModelProfile | None = None,
               use_cache: bool = True, retry_failed: bool = False,
               progress: Progress = lambda done, total: None) -> tuple[str | None, int]:
    """Write the run's unsent requests as Batch JSONL to `path` (for ``vllm run-batch -i``) and record the batch.

    Returns (the batch row id, or None when nothing needed sending; the number of lines). The file is
    written atomically. Raises BatchError when `path` cannot be written (the batch is then not recorded).
    """
    path = Path(path)
    run, profile, todo = pending_answers(project, run_id, profile, retry_failed)
    requests = iter_requests(project, run, profile, todo, use_cache=use_cache, progress=progress,
                             cancelled=lambda: False)
    traces: dict[str, dict[str, Any]] = {}
    try:
        with atomic_writer(path, "wb") as fh:
            for item in requests:
                if item is not None:
                    fh.write(item[1])
                    traces[item[0]] = item[2]
            if not traces:
                raise _NothingToWrite
            ids = list(traces)
            row_id, recorded = record_batch(project, run_id, traces, ids, kind="file", status="written",
                                            path=str(path))
            if len(recorded) != len(ids):
                if row_id is not None:
                    drop_batch(project, row_id)
                raise BatchError(f"{path}: another process sent {len(ids) - len(recorded)} of these requests "
                                 "meanwhile; nothing was written, write the file again")
    except _NothingToWrite:
        update_run_status(project, run_id)
        return None, 0
    except OSError as exc:
        raise BatchError(f"{path}: cannot write the batch file ({exc.strerror or exc})") from None
    # the server that will answer this file is not known yet: the record keeps the versions, not what it serves
    add_record_entry(project, run_id, "sessions", session_entry(
        profile, ask_server=False, batch=f"vllm run-batch file {path.name}", use_cache=use_cache,
        retry_failed=retry_failed))
    return row_id, len(recorded)


class _NothingToWrite(Exception):
    """Every request was settled without a line: no file is written."""


def import_file(project: Project, run_id: str, path: Path, *, profile: ModelProfile | None = None) -> ImportReport:
    """Import an output file of ``vllm run-batch`` (or a batch output/error file downloaded by hand) into a run.

    Each line goes to the run's open batch holding its ``custom_id``; a batch that received lines is then
    imported and closed (its answers without a line fail as ``batch_missing``). Raises BatchError for an
    unreadable file or one whose lines match no open batch of the run.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BatchError(f"{path}: cannot read the batch output ({exc.strerror or exc})") from None
    lines = parse_jsonl(data, str(path))
    run = load_run(project, run_id)
    profile = profile_for_run(project, run, profile)
    report = ImportReport()
    by_batch: dict[str, list[dict[str, Any]]] = {}
    owners = {a: row.id for row in open_batches(project, run_id) for a in row.answer_ids}
    for line in lines:
        owner = owners.get(str(line.get("custom_id")))
        if owner is None:
            report.unknown += 1
        else:
            by_batch.setdefault(owner, []).append(line)
    if not by_batch:
        raise BatchError(f"{path}: none of its {len(lines)} line(s) belongs to an open batch of run {run_id[:8]} "
                         "(written with `fieldstudio run ... --batch-out`)")
    for row_id, batch_lines in by_batch.items():
        part = import_lines(project, row_id, batch_lines, profile=profile)
        report.answered += part.answered
        report.failed += part.failed
        report.missing += part.missing
        report.duplicates += part.duplicates
    return report
