"""Runs sent through a provider's Batch API (OpenAI's), or written as the same JSONL for ``vllm run-batch``.

A run's pending answers become one line each of an OpenAI Batch input file::

    {"custom_id": "<answer id>", "method": "POST", "url": "/v1/chat/completions", "body": {...}}

The body is the request the normal run path would send: each answer goes through
`run_queue.AnswerExecutor` (task loading, refused inputs, the strategy's prompt, the profile's image
limits, the response cache) with a `send` that defers the request instead of calling the endpoint. So a
cache hit or a task refused before sending is finished at once, and only requests that would be paid
become lines. Only strategies of one request per task (`Strategy.single_request`) can run as a batch.

Sending (`submit`): the batch is recorded in the project (``provider_batch`` row, status ``submitting``,
with its answer ids) before anything is uploaded; then the file is uploaded (``POST /v1/files``,
purpose ``batch``), the batch created (``POST /v1/batches``, endpoint ``/v1/chat/completions``, window
24 h, metadata naming our row) and its id stored. A submission interrupted after the batch was created is
found again by that metadata (`refresh` lists the provider's batches), so it is never created twice.

Polling (`refresh`, `wait`): ``GET /v1/batches/{id}`` until a final status; then the output and error
files are downloaded (``GET /v1/files/{id}/content``) and imported (`import_lines`): answers, tokens and the
cost at the profile's batch price (``batch_discount``); a line that failed, and an answer with no line,
is stored as a failed answer (``error = "<kind>: ..."``), so ``retry_failed`` sends those lines alone.
While a batch is open (``imported_at`` NULL) its answers are never sent again, by a batch or a normal run.

Files (`write_file`, `import_file`): the same lines written to a JSONL file for ``vllm run-batch -i``
and the file it writes (``-o``) imported, with the same bookkeeping (a ``file`` batch is open until its
output is imported, `cancel` abandons it).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.core.atomic import atomic_writer
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.inference import cache
from fieldstudio.inference.client import (ChatResult, ModelCallError, cost, explain_error, make_client, request_body,
                                          result_from_body)
from fieldstudio.inference.inputs import load_tasks
from fieldstudio.inference.profiles import ModelProfile, mask_url
from fieldstudio.inference.runs.batch import BatchResult
from fieldstudio.inference.runs.queue import (UPDATE_PENDING, AnswerExecutor, AnswerLog, RequestDeferred, RequestRecord,
                                              make_failed_pending, profile_for_run, prompt_texts, reply_flag)
from fieldstudio.inference.runs.run_records import open_batch_answer_ids, run_summary
from fieldstudio.inference.strategies import get_strategy
from fieldstudio.inference.strategies.base import Prompt, StrategyOutcome
from fieldstudio.store.models import Answer, ProviderBatch, Run, utcnow
from fieldstudio.store.project import Project
from fieldstudio.core.progress import Cancelled, Progress

log = logging.getLogger(__name__)

ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
#: OpenAI's limits for one batch input file: requests and bytes (200 MB; we stay below it).
MAX_LINES = 50_000
MAX_BYTES = 190_000_000
#: Provider statuses after which a batch changes no more.
FINAL_STATUSES = frozenset({"completed", "failed", "expired", "cancelled"})
#: Answers of a batch that ended without a line for them fail with this kind, by the batch's final status.
_NO_LINE_KIND = {"completed": "batch_missing", "failed": "batch_failed", "expired": "batch_expired",
                 "cancelled": "batch_cancelled", "written": "batch_missing"}
#: How far back (seconds) `refresh` looks for a batch created by an interrupted submission.
_FIND_WINDOW_S = 3600.0


class BatchError(FieldstudioError):
    """A run cannot be sent or imported as a batch; the message says why and what to do."""


# -- building the lines --------------------------------------------------------------------------


@dataclass
class BatchRequests:
    """Requests built for a batch, as the normal run path builds them.

    Attributes:
        encoded: per answer id, its JSONL line (UTF-8 bytes with the newline), in answer id order.
        traces: per answer id, the ``frames`` sent and the ``trace`` of the request, kept with the batch
            (``ProviderBatch.requests``) until the reply arrives and becomes the answer's.
        settled: answers finished while building: answered from the cache, or refused before sending
            (missing media, rejected inputs, too many images...); they are in no line.
        size: bytes of the lines in `encoded`.
    """

    encoded: dict[str, bytes] = field(default_factory=dict)
    traces: dict[str, dict[str, Any]] = field(default_factory=dict)
    settled: int = 0
    size: int = 0

    @property
    def lines(self) -> list[dict[str, Any]]:
        """The Batch API input objects (``custom_id`` = answer id), decoded."""
        return [json.loads(data) for data in self.encoded.values()]

    def full(self) -> bool:
        """True when one more line could exceed OpenAI's `MAX_LINES` or `MAX_BYTES` for one input file."""
        return len(self.encoded) >= MAX_LINES or self.size >= MAX_BYTES - _LARGEST_LINE


#: Room kept below `MAX_BYTES` for the line after the last one that fits (30 frames at ~250 KB, base64).
_LARGEST_LINE = 12_000_000


def _load_run(project: Project, run_id: str) -> Run:
    with project.read() as s:
        run = s.get(Run, run_id)
    if run is None:
        raise NotFound(f"no run {run_id!r} in {project.path.name}")
    if run.kind != "model":
        raise BatchError(f"run {run.name!r} holds imported answers; there is nothing to send")
    return run


def _prepare(project: Project, run_id: str, profile: ModelProfile | None, retry_failed: bool
             ) -> tuple[Run, ModelProfile, list[tuple[str, str]]]:
    """The run, the profile to send with and its (answer id, task id) pending and in no open batch."""
    run = _load_run(project, run_id)
    strategy = get_strategy(run.strategy or "fieldworkarena")
    if not strategy.single_request:
        raise BatchError(f"the {strategy.name} strategy sends several requests per task, each depending on the "
                         "replies before it; only one-request strategies (fieldworkarena, industryeqa, blind, "
                         "acceptability) can run as a batch")
    profile = profile_for_run(project, run, profile)
    if retry_failed:
        with project.write() as s:
            make_failed_pending(s, run_id)
    with project.read() as s:
        todo = s.execute(select(Answer.id, Answer.task_id).where(
            Answer.run_id == run_id, Answer.raw_text.is_(None), Answer.error.is_(None)).order_by(Answer.id)).all()
    in_batch = open_batch_answer_ids(project, run_id)
    return run, profile, [(a, t) for a, t in todo if a not in in_batch]


def _iter_requests(project: Project, run: Run, profile: ModelProfile, todo: list[tuple[str, str]], *,
                   use_cache: bool, progress: Progress, cancelled: Cancelled
                   ) -> Iterator[tuple[str, bytes, dict[str, Any]] | None]:
    """For each answer of `todo`: (answer id, JSONL line, its frames and trace), or None when the normal run
    path finished it without a request (cache hit, refused input). Tasks are read 500 at a time, so only
    the lines a caller keeps are in memory."""
    executor = AnswerExecutor(project, run, profile, None, use_cache, cancelled)

    def defer(p: ModelProfile, prompt: Prompt, key: str, answer_log: AnswerLog) -> ChatResult:
        raise RequestDeferred(p, prompt, key)

    executor.send = defer
    try:
        for done, (answer_id, task_id) in enumerate(todo):
            if cancelled():
                return
            if task_id not in executor.tasks:
                executor.tasks.clear()
                executor.tasks.update((t.id, t) for t in load_tasks(project, [t for _, t in todo[done:done + 500]]))
            try:
                executor.answer(answer_id, task_id)
                yield None
            except RequestDeferred as deferred:
                prompt = deferred.prompt
                body = request_body(deferred.profile, prompt.messages, max_tokens=prompt.max_tokens,
                                    response_format=prompt.response_format, extra_body=prompt.extra_body)
                line = {"custom_id": answer_id, "method": "POST", "url": ENDPOINT, "body": body}
                yield answer_id, json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n", {
                    "frames": [im.record(request=0) for im in prompt.images],
                    "trace": [{"type": "request", "purpose": prompt.purpose, "profile": deferred.profile.name,
                               "cache_key": deferred.key, "images": len(prompt.images),
                               "prompt": prompt_texts(prompt.messages)}]}
            progress(done + 1, len(todo))
    finally:
        executor.close()


def _batches_of(requests: Iterator[tuple[str, bytes, dict[str, Any]] | None], *, limit: bool
                ) -> Iterator[BatchRequests]:
    """Group built requests into BatchRequests, each within one input file's limits when `limit`.

    The last one may be empty (holding only the count of settled answers)."""
    part = BatchRequests()
    for item in requests:
        if item is None:
            part.settled += 1
            continue
        answer_id, data, trace = item
        part.encoded[answer_id] = data
        part.traces[answer_id] = trace
        part.size += len(data)
        if limit and part.full():
            yield part
            part = BatchRequests()
    yield part


def build_requests(project: Project, run_id: str, *, profile: ModelProfile | None = None, use_cache: bool = True,
                   retry_failed: bool = False, progress: Progress = lambda done, total: None,
                   cancelled: Cancelled = lambda: False) -> tuple[ModelProfile, BatchRequests]:
    """Every batch line of a run's pending answers that are in no open batch (all in memory: for small runs
    and checks; `submit` and `write_file` stream them).

    Each answer goes through the normal run path (`AnswerExecutor.answer`) with a `send` that defers the
    request, so cached and refused answers are finished here and only requests to pay become lines.
    With `retry_failed`, failed answers are made pending first (a resubmission sends only those).
    Returns (the profile used, the requests). Raises NotFound, BatchError (a strategy of several requests
    per task), ProfileError (profile missing or changed since the run started).
    """
    run, profile, todo = _prepare(project, run_id, profile, retry_failed)
    requests = _iter_requests(project, run, profile, todo, use_cache=use_cache, progress=progress,
                              cancelled=cancelled)
    return profile, next(_batches_of(requests, limit=False))


def _record_batch(project: Project, run_id: str, requests: BatchRequests, answer_ids: list[str],
                  **values: Any) -> tuple[str | None, list[str]]:
    """Store a batch row with its answers' frames and request traces (`BatchRequests.traces`).

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
                            requests={a: requests.traces[a] for a in answer_ids}, **values)
        s.add(row)
        s.get(Run, run_id).status = "batch"
        return row.id, answer_ids


# -- the Batch API -------------------------------------------------------------------------------


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
            raise ModelCallError("not_found", f"{what}: {profile.name} ({mask_url(profile.base_url)}) answered 404: "
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
    run = _load_run(project, run_id)
    checked = profile_for_run(project, run, profile)
    if not checked.batch_api:
        raise BatchError(f"the profile {checked.name!r} does not offer a Batch API; add it again with "
                         f"`fieldstudio models add {checked.name} ... --batch-api --replace`, or write the requests "
                         "to a file for vllm run-batch")
    run, profile, todo = _prepare(project, run_id, checked, retry_failed)
    made: list[str] = []
    once = None
    requests = _iter_requests(project, run, profile, todo, use_cache=use_cache, progress=progress,
                              cancelled=cancelled)
    for part in _batches_of(requests, limit=True):   # one input file in memory at a time
        if not part.encoded:
            continue
        row_id, answer_ids = _record_batch(project, run_id, part, list(part.encoded), kind="api", status="submitting")
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
            _drop_batch(project, row_id)     # nothing exists at the provider: the answers are simply unsent
            raise
        _update_batch(project, row_id, input_file_id=uploaded.id)
        _create(project, profile, once, row_id, run_id, uploaded.id)
    if not made:
        _finish_run(project, run_id)
    return made


def _create(project: Project, profile: ModelProfile, client: Any, row_id: str, run_id: str, file_id: str) -> None:
    try:
        batch = _call(profile, "creating the batch", lambda: client.batches.create(
            input_file_id=file_id, endpoint=ENDPOINT, completion_window=COMPLETION_WINDOW,
            metadata={"fieldstudio_batch": row_id, "fieldstudio_run": run_id}))
    except ModelCallError as exc:
        if exc.status is not None and 400 <= exc.status < 500:
            _drop_batch(project, row_id)  # refused: no batch was made
        raise
    _apply(project, row_id, batch)


def _drop_batch(project: Project, row_id: str) -> None:
    with project.write() as s:
        row = s.get(ProviderBatch, row_id)
        if row is not None:
            s.delete(row)


def _update_batch(project: Project, row_id: str, **values: Any) -> None:
    with project.write() as s:
        row = s.get(ProviderBatch, row_id)
        for name, value in values.items():
            setattr(row, name, value)


def _apply(project: Project, row_id: str, batch: Any) -> None:
    """Store what the provider says of a batch (id, status, files, counts, errors)."""
    counts = getattr(batch, "request_counts", None)
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    _update_batch(project, row_id, provider_batch_id=batch.id, status=str(batch.status),
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
    run = _load_run(project, row.run_id)
    profile = profile_for_run(project, run, profile)
    client = client or _client(profile)
    if row.provider_batch_id is None:
        found = _call(profile, "looking for the batch", lambda: _find_created(client, row))
        if found is not None:
            _apply(project, row_id, found)
        elif row.input_file_id:
            _create(project, profile, client.with_options(max_retries=0), row_id, row.run_id, row.input_file_id)
        else:
            _drop_batch(project, row_id)
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
                content = _call(profile, f"downloading file {file_id}", lambda: client.files.content(file_id))
                lines += parse_jsonl(content.content, f"batch file {file_id}")
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
        rows = _open_batches(project, run_id, kind="api")
        done = total = 0
        for row in rows:
            refresh(project, row.id, profile=profile, client=client)
        rows = _open_batches(project, run_id, kind="api")
        for row in _batches(project, run_id):
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
        if _open_batches(project, run_id, kind="api"):
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
    rows = _open_batches(project, run_id)
    for row in rows:
        if row.kind == "file" or row.provider_batch_id is None:
            with project.write() as s:
                stored = s.get(ProviderBatch, row.id)
                stored.status, stored.imported_at = "abandoned", utcnow()
            continue
        run = _load_run(project, run_id)
        p = profile_for_run(project, run, profile)
        c = client or _client(p)
        batch = _call(p, f"cancelling batch {row.provider_batch_id}", lambda: c.batches.cancel(row.provider_batch_id))
        _apply(project, row.id, batch)
    _finish_run(project, run_id)
    return len(rows)


# -- files for vllm run-batch --------------------------------------------------------------------


def write_file(project: Project, run_id: str, path: Path, *, profile: ModelProfile | None = None,
               use_cache: bool = True, retry_failed: bool = False,
               progress: Progress = lambda done, total: None) -> tuple[str | None, int]:
    """Write the run's unsent requests as Batch JSONL to `path` (for ``vllm run-batch -i``) and record the batch.

    Returns (the batch row id, or None when nothing needed sending; the number of lines). The file is
    written atomically. Raises BatchError when `path` cannot be written (the batch is then not recorded).
    """
    path = Path(path)
    run, profile, todo = _prepare(project, run_id, profile, retry_failed)
    requests = _iter_requests(project, run, profile, todo, use_cache=use_cache, progress=progress,
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
            row_id, recorded = _record_batch(project, run_id, BatchRequests(traces=traces), ids, kind="file",
                                             status="written", path=str(path))
            if len(recorded) != len(ids):
                if row_id is not None:
                    _drop_batch(project, row_id)
                raise BatchError(f"{path}: another process sent {len(ids) - len(recorded)} of these requests "
                                 "meanwhile; nothing was written, write the file again")
    except _NothingToWrite:
        _finish_run(project, run_id)
        return None, 0
    except OSError as exc:
        raise BatchError(f"{path}: cannot write the batch file ({exc.strerror or exc})") from None
    return row_id, len(recorded)


class _NothingToWrite(Exception):
    """Every request was settled without a line: no file is written."""


def parse_jsonl(data: bytes | str, source: str) -> list[dict[str, Any]]:
    """The objects of a JSONL text (blank lines skipped). Raises BatchError naming `source` and the bad line."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise BatchError(f"{source}: line {number} is not JSON ({exc})") from None
        if not isinstance(value, dict) or "custom_id" not in value:
            raise BatchError(f"{source}: line {number} is not a batch output line (no custom_id)")
        out.append(value)
    return out


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
    run = _load_run(project, run_id)
    profile = profile_for_run(project, run, profile)
    report = ImportReport()
    by_batch: dict[str, list[dict[str, Any]]] = {}
    owners = {a: row.id for row in _open_batches(project, run_id) for a in row.answer_ids}
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


# -- importing results ---------------------------------------------------------------------------


@dataclass
class ImportReport:
    """What `import_lines` stored: answered, failed (a failed line), missing (no line), and lines ignored
    because their ``custom_id`` is not in the batch (unknown) or was seen before (duplicates)."""

    answered: int = 0
    failed: int = 0
    missing: int = 0
    unknown: int = 0
    duplicates: int = 0


class _StoredFrame:
    """A frame record kept on a pending answer, standing in for the encoded image in a RequestRecord."""

    def __init__(self, record: dict[str, Any]):
        self._record = record

    def record(self, request: int = 0) -> dict[str, Any]:
        return {**self._record, "request": request}


_STATUS_KINDS = {400: "bad_request", 401: "auth", 403: "permission", 404: "not_found", 408: "server_error",
                 409: "server_error", 413: "bad_request", 422: "bad_request", 429: "rate_limited"}


def _line_error(line: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, message) of a failed output line, or None for a successful one."""
    response = line.get("response") if isinstance(line.get("response"), dict) else None
    error = line.get("error") if isinstance(line.get("error"), dict) else None
    status = response.get("status_code") if response else None
    if error is None and response is not None and status == 200:
        return None
    body = (response or {}).get("body")
    detail = body.get("error") if isinstance(body, dict) else None
    detail = detail if isinstance(detail, dict) else error or {}
    message = str(detail.get("message") or detail.get("code") or "no reason given")
    code = str(detail.get("code") or "")
    if code in ("batch_expired", "batch_cancelled"):
        return code, f"the provider did not run this request: {message}"
    if status is None:
        return "batch_error", f"the batch line failed: {message}"
    kind = _STATUS_KINDS.get(int(status), "server_error" if int(status) >= 500 else "bad_request")
    return kind, f"the batch line failed ({status}): {message}"


def import_lines(project: Project, row_id: str, lines: Iterable[dict[str, Any]], *,
                 profile: ModelProfile | None = None) -> ImportReport:
    """Store the output (and error) lines of a batch as its answers and close the batch, in one transaction.

    A successful line (``response.status_code`` 200) gives the answer's text, parsed answer (the strategy's
    `parse`), tokens and cost at the batch price (`cost(..., batch=True)`); refusals and filtered replies
    fail as in a normal run; the reply goes into the response cache. A failed line fails its answer with
    the kind its status says (``bad_request``, ``rate_limited``, ``server_error``, ``batch_expired``...). The
    batch's answers without a line fail with a kind from the batch's status (``batch_missing`` for a
    completed batch). Answers already finished are left as they are. Raises NotFound.
    """
    with project.read() as s:
        row = s.get(ProviderBatch, row_id)
        if row is None:
            raise NotFound(f"no batch {row_id!r} in {project.path.name}")
        run = s.get(Run, row.run_id)
        sent = row.requests or {}
        answers = {a: (t, (sent.get(a) or {}).get("frames"), (sent.get(a) or {}).get("trace"))
                   for a, t in s.execute(select(Answer.id, Answer.task_id).where(
                       Answer.id.in_(list(row.answer_ids)), Answer.raw_text.is_(None), Answer.error.is_(None)))}
    if row.imported_at is not None:
        return ImportReport()
    profile = profile_for_run(project, run, profile)
    strategy = get_strategy(run.strategy or "fieldworkarena")
    tasks = {}
    task_ids = sorted({t for t, _, _ in answers.values()})
    for start in range(0, len(task_ids), 500):
        tasks.update((t.id, t) for t in load_tasks(project, task_ids[start:start + 500]))
    where = f"batch {row.provider_batch_id or row.path or row.id[:8]}"
    report = ImportReport()
    members = set(row.answer_ids)
    seen: set[str] = set()
    values: list[dict[str, Any]] = []
    to_cache: list[tuple[str, ChatResult, float | None]] = []
    for line in lines:
        answer_id = str(line.get("custom_id"))
        if answer_id not in members:
            report.unknown += 1
            continue
        if answer_id in seen:
            report.duplicates += 1
            continue
        seen.add(answer_id)
        if answer_id not in answers:
            continue  # finished meanwhile (e.g. imported from a file before): never overwritten
        task_id, frames, trace = answers[answer_id]
        request = (trace or [{}])[0]
        answer_log = AnswerLog()
        failure = _line_error(line)
        outcome: StrategyOutcome
        if failure is None:
            try:
                result = result_from_body(line["response"].get("body"))
            except ValueError as exc:
                failure = ("bad_response", f"the batch line holds no readable chat completion ({exc})")
        if failure is not None:
            outcome = StrategyOutcome(None, None, failure[0], f"{profile.name} {where}: {failure[1]}")
            report.failed += 1
        else:
            paid = cost(profile, result, batch=True)
            answer_log.requests.append(RequestRecord(
                request.get("purpose", "answer"), profile.name, result, False, paid, paid,
                [_StoredFrame(f) for f in frames or []], request.get("cache_key", ""), request.get("prompt", [])))
            parsed, kind, message = strategy.parse(tasks[task_id], result.text)  # type: ignore[misc]
            outcome = StrategyOutcome(result.text, parsed, kind, message)
            flag = reply_flag(result)
            if outcome.error_kind is None and flag is not None:
                outcome.error_kind, outcome.error = flag
            if flag is None and request.get("cache_key"):
                to_cache.append((request["cache_key"], result, paid))
            report.failed += outcome.error_kind is not None
            report.answered += outcome.error_kind is None
        values.append(_batch_values(answer_id, outcome, answer_log, row.id, frames, trace))
    with project.read() as s:
        stored = s.get(ProviderBatch, row_id)
        status, batch_error = stored.status, stored.error
    no_line = _NO_LINE_KIND.get(status, "batch_missing")
    for answer_id in sorted(set(answers) - seen):
        _task_id, frames, trace = answers[answer_id]
        outcome = StrategyOutcome(None, None, no_line, f"{profile.name} {where} ended ({status}) without a reply "
                                  "for this request" + (f"; the provider said: {batch_error}" if batch_error else ""))
        values.append(_batch_values(answer_id, outcome, AnswerLog(), row.id, frames, trace))
        report.missing += 1
    with project.write() as s:
        for key, result, usd in to_cache:
            cache.store_in(s, key, result, cost_usd=usd)
        if values:  # executemany on the connection: one statement for the whole batch
            s.connection().execute(UPDATE_PENDING, values)
        stored = s.get(ProviderBatch, row_id)
        stored.imported_at = utcnow()
        if stored.kind == "file":
            stored.status = "imported"
    _finish_run(project, row.run_id)
    log.info("%s: imported %d answered, %d failed, %d without a line", where, report.answered, report.failed,
             report.missing)
    return report


def _batch_values(answer_id: str, outcome: StrategyOutcome, answer_log: AnswerLog, row_id: str,
                  frames: list[Any] | None, trace: list[Any] | None) -> dict[str, Any]:
    """`AnswerExecutor.answer_values` for a batch reply; a failed line keeps the request recorded when it was sent."""
    values = AnswerExecutor.answer_values(answer_id, outcome, answer_log)
    values["latency_s"] = None              # a batch reply's latency is not known (hours, shared with others)
    values["frames"] = values["frames"] or frames
    values["trace"] = [{**t, "batch": row_id} if t.get("type") == "request" else t
                       for t in values["trace"] or trace or []]
    return values


def _finish_run(project: Project, run_id: str) -> None:
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


# -- state ---------------------------------------------------------------------------------------


def _batches(project: Project, run_id: str) -> list[ProviderBatch]:
    with project.read() as s:
        return list(s.scalars(select(ProviderBatch).where(ProviderBatch.run_id == run_id)
                              .order_by(ProviderBatch.created_at)))


def _open_batches(project: Project, run_id: str, kind: str | None = None) -> list[ProviderBatch]:
    return [b for b in _batches(project, run_id) if b.imported_at is None and (kind is None or b.kind == kind)]


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


__all__ = ["BatchError", "BatchRequests", "BatchState", "ImportReport", "ENDPOINT", "FINAL_STATUSES",
           "build_requests", "submit", "refresh", "wait", "send_and_collect", "cancel", "write_file", "import_file",
           "import_lines",
           "parse_jsonl", "batch_states"]
