"""A batch's output lines imported as its answers, in one transaction that also closes the batch.

A successful line gives the answer's text, parsed answer, tokens and the cost at the profile's batch price
(``batch_discount``); a line that failed, and an answer with no line, is stored as a failed answer
(``error = "<kind>: ..."``), so a resubmission with ``retry_failed`` sends those lines alone. The lines come
from the provider's output and error files (``provider_batch.refresh``) or from a ``vllm run-batch`` output
file (``vllm_batch_files.import_file``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import NotFound
from fieldstudio.inference import cache
from fieldstudio.inference.client import ChatResult, cost, result_from_body
from fieldstudio.inference.inputs import load_tasks
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs.provider_batch_records import BatchError, update_run_status
from fieldstudio.inference.runs.queue import (UPDATE_PENDING, AnswerExecutor, AnswerLog, RequestRecord, profile_for_run,
                                              reply_flag)
from fieldstudio.inference.strategies import GENERAL_STRATEGY, get_strategy
from fieldstudio.inference.strategies.base import StrategyOutcome
from fieldstudio.store.models import Answer, ProviderBatch, Run, utcnow
from fieldstudio.store.project import Project

log = logging.getLogger(__name__)


#: Answers of a batch that ended without a line for them fail with this kind, by the batch's final status.
_NO_LINE_KIND = {"completed": "batch_missing", "failed": "batch_failed", "expired": "batch_expired",
                 "cancelled": "batch_cancelled", "written": "batch_missing"}


@dataclass
class ImportReport:
    """What `import_lines` stored: answered, failed (a failed line), missing (no line), and lines ignored
    because their ``custom_id`` is not in the batch (unknown) or was seen before (duplicates)."""

    answered: int = 0
    failed: int = 0
    missing: int = 0
    unknown: int = 0
    duplicates: int = 0


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
    strategy = get_strategy(run.strategy or GENERAL_STRATEGY)
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
    update_run_status(project, row.run_id)
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
