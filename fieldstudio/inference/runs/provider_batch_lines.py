"""The Batch API input lines of a run's pending answers, built by the normal run path.

A run's pending answers become one line each of an OpenAI Batch input file::

    {"custom_id": "<answer id>", "method": "POST", "url": "/v1/chat/completions", "body": {...}}

The body is the request the normal run path would send: each answer goes through
`run_queue.AnswerExecutor` (task loading, refused inputs, the strategy's prompt, the profile's image
limits, the response cache) with a `send` that defers the request instead of calling the endpoint. So a
cache hit or a task refused before sending is finished at once, and only requests that would be paid
become lines. Only strategies of one request per task (`Strategy.single_request`) can run as a batch.
The lines go to the provider (``provider_batch``) or to a file for ``vllm run-batch`` (``vllm_batch_files``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.inference.client import ChatResult, request_body
from fieldstudio.inference.inputs import load_tasks
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs.provider_batch_records import BatchError, load_run
from fieldstudio.inference.runs.queue import (AnswerExecutor, AnswerLog, RequestDeferred, make_failed_pending,
                                              profile_for_run, prompt_texts)
from fieldstudio.inference.runs.run_records import open_batch_answer_ids
from fieldstudio.inference.strategies import GENERAL_STRATEGY, get_strategy
from fieldstudio.inference.strategies.base import Prompt
from fieldstudio.store.models import Answer, Run
from fieldstudio.store.project import Project


ENDPOINT = "/v1/chat/completions"
#: OpenAI's limits for one batch input file: requests and bytes (200 MB; we stay below it).
MAX_LINES = 50_000
MAX_BYTES = 190_000_000


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


def pending_answers(project: Project, run_id: str, profile: ModelProfile | None, retry_failed: bool
                    ) -> tuple[Run, ModelProfile, list[tuple[str, str]]]:
    """The run, the profile to send with and its (answer id, task id) pending and in no open batch."""
    run = load_run(project, run_id)
    strategy = get_strategy(run.strategy or GENERAL_STRATEGY)
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


def iter_requests(project: Project, run: Run, profile: ModelProfile, todo: list[tuple[str, str]], *,
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


def group_requests(requests: Iterator[tuple[str, bytes, dict[str, Any]] | None], *, limit: bool
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
    run, profile, todo = pending_answers(project, run_id, profile, retry_failed)
    requests = iter_requests(project, run, profile, todo, use_cache=use_cache, progress=progress,
                             cancelled=cancelled)
    return profile, next(group_requests(requests, limit=False))
