"""Runs sent through a provider's Batch API (OpenAI's): submitting, polling, collecting and cancelling batches.

Sending (`submit`): the run's request lines (``provider_batch_lines``) are recorded in the project
(``provider_batch`` row, status ``submitting``, with its answer ids; ``provider_batch_records``) before
anything is uploaded; then the file is uploaded (``POST /v1/files``, purpose ``batch``), the batch created
(``POST /v1/batches``, endpoint ``/v1/chat/completions``, window 24 h, metadata naming our row) and its id
stored. A submission interrupted after the batch was created is found again by that metadata (`refresh`
lists the provider's batches), so it is never created twice.

Polling (`refresh`, `wait`): ``GET /v1/batches/{id}`` until a final status; then the output and error
files are downloaded (``GET /v1/files/{id}/content``) and imported as the batch's answers
(``provider_batch_replies.import_lines``). While a batch is open (``imported_at`` NULL) its answers are never
sent again, by a batch or a normal run. The same lines can instead be written for ``vllm run-batch``
(``vllm_batch_files``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timezone
from typing import Any

from fieldstudio.core.errors import NotFound
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.inference.call_errors import ModelCallError, explain_error
from fieldstudio.inference.client import file_content, make_client
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs.run_context import add_record_entry, session_entry
from fieldstudio.inference.runs.batch import BatchResult
from fieldstudio.inference.runs.provider_batch_lines import ENDPOINT, group_requests, iter_requests, pending_answers
from fieldstudio.inference.runs.provider_batch_records import (BatchError, drop_batch, load_run, open_batches,
                                                               record_batch, run_batches, update_batch,
                                                               update_run_status)
from fieldstudio.inference.runs.provider_batch_replies import import_lines, parse_jsonl
from fieldstudio.inference.runs.queue import profile_for_run
from fieldstudio.inference.runs.run_records import run_summary
from fieldstudio.store.models import ProviderBatch, utcnow
from fieldstudio.store.project import Project


COMPLETION_WINDOW = "24h"
#: Provider statuses after which a batch changes no more.
FINAL_STATUSES = frozenset({"completed", "failed", "expired", "cancelled"})
#: How far back (seconds) `refresh` looks for a batch created by an interrupted submission.
_FIND_WINDOW_S = 3600.0


def _client(profile: ModelProfile):  # noqa: ANN202 - openai.OpenAI
    # GETs are safe to repeat (the SDK retries them twice); uploads and creations are made with retries off
    return make_client(profile, max_retries=2)


def _call(profile: ModelProfile, what: str, fn: Callable[[], Any]) -> Any:
    """`fn()`, its errors as ModelCallError saying `what` was being done (404: the server has no Batch API)."""
    try:
        return fn()
    except ModelCallError:
        raise
    except Exception as exc:
        error = explain_error(exc, profile)
        if error.status == 404:
            said = f" The server said: {error.detail}" if error.detail else ""
            raise ModelCallError("not_found", f"{what}: {profile.name} ({profile.shown_url}) answered 404: "
                                 "the server offers no Batch API there (/files, /batches), or the batch is not "
                                 "known to it. For a local vLLM, write the requests to a file for vllm run-batch "
                                 f"instead.{said}", status=404, detail=error.detail) from None
        raise ModelCallError(error.kind, f"{what}: {error}", status=error.status, detail=error.detail) from None


def submit(project: Project, run_id: str, *, profile: ModelProfile | None = None, client: Any = None,
           use_cache: bool = True, retry_failed: bool = False, progress: Progress = lambda done, total: None,
           cancelled: Cancelled = lambda: False) -> list[str]:
    """Send the run's unsent pending answers as batches; returns the ids of the batch rows made (maybe none).

    Args:
        profile: the profile to send with (default: the stored profile named in the run, unchanged since).
            It must allow the Batch API (``batch_api``).
        client: an `openai.OpenAI` client (default: one from `make_client`).
        use_cache, retry_failed: as in `build_requests`.
    Raises:
        BatchError (profile without a Batch API, strategy of several requests), ModelCallError (upload or
        creation refused: no key, bad key, unreachable...; the batch row is removed when nothing was created,
        kept as ``submitting`` when the outcome is unknown, for `refresh` to find), NotFound, ProfileError.
    """
    run = load_run(project, run_id)
    checked = profile_for_run(project, run, profile)
    if not checked.batch_api:
        raise BatchError(f"the profile {checked.name!r} does not offer a Batch API; add it again with "
                         f"`fieldstudio models add {checked.name} ... --batch-api --replace`, or write the requests "
                         "to a file for vllm run-batch")
    run, profile, todo = pending_answers(project, run_id, checked, retry_failed)
    made: list[str] = []
    once = None
    requests = iter_requests(project, run, profile, todo, use_cache=use_cache, progress=progress,
                             cancelled=cancelled)
    for part in group_requests(requests, limit=True):   # one input file in memory at a time
        if not part.encoded:
            continue
        row_id, answer_ids = record_batch(project, run_id, part.traces, list(part.encoded), kind="api",
                                          status="submitting")
        if row_id is None:
            continue
        made.append(row_id)
        data = b"".join(part.encoded[a] for a in answer_ids)
        if once is None:
            once = (client or _client(profile)).with_options(max_retries=0)
        try:
            uploaded = _call(profile, "uploading the batch file", lambda: once.files.create(
                file=(f"fieldstudio-{run_id[:8]}-{row_id[:8]}.jsonl", data, "application/jsonl"), purpose="batch"))
        except ModelCallError:
            drop_batch(project, row_id)     # nothing exists at the provider: the answers are simply unsent
            raise
        update_batch(project, row_id, input_file_id=uploaded.id)
        _create(project, profile, once, row_id, run_id, uploaded.id)
    if not made:
        update_run_status(project, run_id)
    else:  # what these requests were made with, for the run's reproducibility record (inference.runs.run_context)
        add_record_entry(project, run_id, "sessions", session_entry(
            profile, batch="provider Batch API", batches=len(made), use_cache=use_cache, retry_failed=retry_failed))
    return made


def _create(project: Project, profile: ModelProfile, client: Any, row_id: str, run_id: str, file_id: str) -> None:
    try:
        batch = _call(profile, "creating the batch", lambda: client.batches.create(
            input_file_id=file_id, endpoint=ENDPOINT, completion_window=COMPLETION_WINDOW,
            metadata={"fieldstudio_batch": row_id, "fieldstudio_run": run_id}))
    except ModelCallError as exc:
        if exc.status is not None and 400 <= exc.status < 500:
            drop_batch(project, row_id)  # refused: no batch was made
        raise
    _apply(project, row_id, batch)


def _apply(project: Project, row_id: str, batch: Any) -> None:
    """Store what the provider says of a batch (id, status, files, counts, errors)."""
    counts = getattr(batch, "request_counts", None)
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    update_batch(project, row_id, provider_batch_id=batch.id, status=str(batch.status),
                 output_file_id=getattr(batch, "output_file_id", None),
                 error_file_id=getattr(batch, "error_file_id", None),
                 request_counts=None if counts is None else {"total": counts.total, "completed": counts.completed,
                                                             "failed": counts.failed},
                 error="; ".join(f"{e.code or 'error'}"
                                 + (f" (line {e.line})" if e.line is not None else "") + f": {e.message or ''}"
                                 for e in errors) or None)


def _find_created(client: Any, row: ProviderBatch) -> Any:
    """The provider's batch whose metadata names `row` (made by a submission interrupted before it stored it)."""
    since = row.created_at.replace(tzinfo=row.created_at.tzinfo or timezone.utc).timestamp() - _FIND_WINDOW_S
    for batch in client.batches.list(limit=100):
        if (getattr(batch, "metadata", None) or {}).get("fieldstudio_batch") == row.id:
            return batch
        if batch.created_at < since:  # listed newest first
            return None
    return None


def refresh(project: Project, row_id: str, *, profile: ModelProfile | None = None, client: Any = None) -> str:
    """Ask the provider where a batch stands and store it; import its results once it is final.

    A batch left ``submitting`` by an interrupted submission is first found by its metadata (or, when it
    was never created, created now from its uploaded file; or dropped when not even the file was uploaded:
    its answers are then unsent and the next submission sends them). Returns the batch's status.
    Raises ModelCallError when the provider cannot be asked, NotFound for an unknown row.
    """
    with project.read() as s:
        row = s.get(ProviderBatch, row_id)
    if row is None:
        raise NotFound(f"no batch {row_id!r} in {project.path.name}")
    if row.imported_at is not None or row.kind != "api":
        return row.status
    run = load_run(project, row.run_id)
    profile = profile_for_run(project, run, profile)
    client = client or _client(profile)
    if row.provider_batch_id is None:
        found = _call(profile, "looking for the batch", lambda: _find_created(client, row))
        if found is not None:
            _apply(project, row_id, found)
        elif row.input_file_id:
            _create(project, profile, client.with_options(max_retries=0), row_id, row.run_id, row.input_file_id)
        else:
            drop_batch(project, row_id)
            return "abandoned"
    with project.read() as s:
        row = s.get(ProviderBatch, row_id)
    batch = _call(profile, f"asking for batch {row.provider_batch_id}",
                  lambda: client.batches.retrieve(row.provider_batch_id))
    _apply(project, row_id, batch)
    status = str(batch.status)
    if status in FINAL_STATUSES:
        lines: list[dict[str, Any]] = []
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                content = _call(profile, f"downloading file {file_id}",
                                lambda: file_content(profile, client, file_id, replies=len(row.answer_ids)))
                lines += parse_jsonl(content, f"batch file {file_id}")
        import_lines(project, row_id, lines, profile=profile)
    return status


def wait(project: Project, run_id: str, *, profile: ModelProfile | None = None, client: Any = None,
         interval_s: float = 30.0, timeout_s: float | None = None, sleep: Callable[[float], None] = time.sleep,
         progress: Progress = lambda done, total: None, cancelled: Cancelled = lambda: False) -> list[str]:
    """Poll the run's open API batches every `interval_s` until each is imported (or `timeout_s`, or cancelled).

    `progress(requests finished, requests)` after each poll, from the providers' request counts. Returns
    the statuses of the batches still open when it returned (empty when all were imported).
    """
    started = time.monotonic()
    while True:
        rows = open_batches(project, run_id, kind="api")
        done = total = 0
        for row in rows:
            refresh(project, row.id, profile=profile, client=client)
        rows = open_batches(project, run_id, kind="api")
        for row in run_batches(project, run_id):
            counts = row.request_counts or {}
            total += int(counts.get("total") or len(row.answer_ids))
            done += len(row.answer_ids) if row.imported_at is not None else \
                int(counts.get("completed") or 0) + int(counts.get("failed") or 0)
        progress(done, total)
        if not rows or cancelled() or (timeout_s is not None and time.monotonic() - started >= timeout_s):
            return [r.status for r in rows]
        _pause(interval_s, sleep, cancelled)


def _pause(seconds: float, sleep: Callable[[float], None], cancelled: Cancelled) -> None:
    """Sleep `seconds` in steps of at most 0.2 s, returning early once `cancelled()` (Ctrl-C, Stop)."""
    if seconds <= 0:
        sleep(0)
        return
    waited = 0.0
    while waited < seconds and not cancelled():
        step = min(0.2, seconds - waited)
        sleep(step)
        waited += step


def send_and_collect(project: Project, run_ids: list[str], profiles: list[ModelProfile | None] | None = None, *,
                     progress: Progress = lambda done, total: None, cancelled: Cancelled = lambda: False,
                     use_cache: bool = True, retry_failed: bool = False, interval_s: float = 30.0,
                     sleep: Callable[[float], None] = time.sleep) -> BatchResult:
    """Runs as batches, for the GUI: collect each run's open batches, submit what is unsent, then poll every
    `interval_s` until all are imported or `cancelled()` (waiting stops; the batches go on at the provider
    and a later call collects them).

    `profiles[i]` sends run i (None: its stored profile). `progress(requests finished, requests)` over
    every batch of these runs. Returns a `BatchResult` with one RunSummary per run (``cancelled`` when it
    stopped waiting with batches still open). Raises as `submit` and `refresh` do.
    """
    chosen = list(profiles or [None] * len(run_ids))
    for run_id, profile in zip(run_ids, chosen):
        if open_batches(project, run_id, kind="api"):
            wait(project, run_id, profile=profile, timeout_s=0)
        submit(project, run_id, profile=profile, use_cache=use_cache, retry_failed=retry_failed, cancelled=cancelled)
    while True:
        done = total = 0
        still_open = 0
        for run_id, profile in zip(run_ids, chosen):
            counted: list[tuple[int, int]] = []
            still_open += len(wait(project, run_id, profile=profile, timeout_s=0,
                                   progress=lambda d, t: counted.append((d, t))))
            done, total = done + counted[-1][0], total + counted[-1][1]
        progress(done, total)
        if not still_open or cancelled():
            break
        _pause(interval_s, sleep, cancelled)
    summaries = [run_summary(project, run_id) for run_id in run_ids]
    return BatchResult(summaries, cancelled=any(s.in_batch for s in summaries))


def cancel(project: Project, run_id: str, *, profile: ModelProfile | None = None, client: Any = None) -> int:
    """Cancel the run's open batches: API batches are asked to stop (what finished is still imported by
    `refresh`, the rest fails as ``batch_cancelled``); file batches are abandoned (their answers unsent
    again). Returns how many batches were cancelled."""
    rows = open_batches(project, run_id)
    for row in rows:
        if row.kind == "file" or row.provider_batch_id is None:
            with project.write() as s:
                stored = s.get(ProviderBatch, row.id)
                stored.status, stored.imported_at = "abandoned", utcnow()
            continue
        run = load_run(project, run_id)
        p = profile_for_run(project, run, profile)
        c = client or _client(p)
        batch = _call(p, f"cancelling batch {row.provider_batch_id}", lambda: c.batches.cancel(row.provider_batch_id))
        _apply(project, row.id, batch)
    update_run_status(project, run_id)
    return len(rows)
