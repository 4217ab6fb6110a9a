"""Executing runs: tasks x a model profile x a prompt strategy, in the background and resumable.

`create_run` (from `fieldstudio.inference.runs.run_records`, re-exported here with the other run helpers) stores a
``Run`` (with a copy of the profile's parameters, never its key, the strategy's version and template
hashes, the prices and their date) and one pending ``Answer`` per task. `execute_run` answers the pending ones: up to the profile's concurrency in flight (a small thread
pool), each answer committed in its own short write transaction as soon as it arrives, with its raw
text, parsed answer, tokens (None when not reported, never 0), latency, cost, retries, the SHA-256 of
every frame sent, and the request log. A killed or sleeping process loses at most the requests in
flight: a restarted `execute_run` skips finished answers, and every paid reply (except refusals and
filtered replies, which a retry should ask again) is also in the response cache
(`fieldstudio.inference.cache`), so nothing finished is paid for twice.

An answer is pending while both ``raw_text`` and ``error`` are NULL. A failed answer keeps
``error = "<kind>: <message>"`` (see `split_error`); kinds are the client's (``timeout``,
``rate_limited``, ``server_error``, ``bad_response``, ``too_many_images``, ``images_rejected``...), the
strategies' (``missing_media``, ``media_error``, ``malformed_json``), ``rejected_input`` (an input the task
import rejected: never sent) and ``refusal``,
``content_filter``, ``max_steps`` (agent), ``internal``. Such errors never stop the run. Errors that
would fail every task the same way (no key, bad key, wrong URL or model, server unreachable) stop it
and leave the answer pending, so that fixing the profile and resuming continues where it stopped.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import JSON, bindparam, func, select, update

from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.core.masking import mask_in_text, mask_known_secrets
from fieldstudio.inference import cache
from fieldstudio.inference.call_errors import ModelCallError
from fieldstudio.inference.client import ChatResult, chat, cost, make_client
from fieldstudio.inference.inputs import FrameEncoder, TaskSpec, load_task, load_tasks
from fieldstudio.inference.base_urls import ProfileError
from fieldstudio.inference.profiles import ModelProfile, get_profile
from fieldstudio.inference.runs.request_limits import Cut, fit_prompt, limits_of
from fieldstudio.privacy.gate import BLUR_FACES, GateRefused, redactor_for
from fieldstudio.inference.runs.run_context import add_record_entry, session_entry
from fieldstudio.inference.runs.run_records import (
    RunSummary,
    create_run,
    create_runs,
    delete_run,
    find_resumable_run,
    open_batch_answer_ids,
    run_summary,
    select_tasks,
    split_error,
)
from fieldstudio.inference.strategies import GENERAL_STRATEGY, get_strategy
from fieldstudio.inference.strategies.base import Prompt, Strategy, StrategyContext, StrategyError, StrategyOutcome
from fieldstudio.store.content_hashes import answer_hash_of
from fieldstudio.store.models import Answer, Run, utcnow
from fieldstudio.store.models import ModelProfile as ProfileRow
from fieldstudio.store.project import Project
from fieldstudio.core.progress import Cancelled, Progress

log = logging.getLogger(__name__)


#: Errors that would fail every remaining task the same way: the run stops and the answer stays pending.
FATAL_KINDS = frozenset({"no_key", "auth", "permission", "not_found", "model_not_found", "connection",
                         "privacy_gate"})
_PROMPT_TEXT_CHARS = 4000
_REFUSAL = re.compile(r"^\s*(i['’]m sorry,? but |sorry,? )?i (can(no|['’])t|am unable to|won['’]t) "
                      r"(help|assist|comply|provide|answer|do that)", re.I)


class RunCancelled(Exception):
    """Raised inside a worker when the run is cancelled between two requests of one answer."""


class RequestDeferred(Exception):
    """Raised by an executor's `send` that does not call the endpoint now (a request written into a batch).

    It leaves `AnswerExecutor.answer` untouched, the answer stays pending. Attributes: the profile, the
    prompt and its cache key, as the normal path would have sent them.
    """

    def __init__(self, profile: ModelProfile, prompt: Prompt, key: str):
        super().__init__(f"request of {profile.name} deferred")
        self.profile = profile
        self.prompt = prompt
        self.key = key


@dataclass
class RequestRecord:
    """One request made (or answered from the cache) for an answer, as its trace and totals record it.

    ``images`` are objects with ``record(request=i)`` (the encoded images sent, or their stored records).
    """

    purpose: str
    profile: str
    result: ChatResult | None
    from_cache: bool
    cost_usd: float | None
    original_cost_usd: float | None
    images: list
    cache_key: str
    prompt_text: list[str]
    documents: list = field(default_factory=list)  # where OCR'd document text came from (Prompt.documents)


class AnswerLog:
    """The requests made for one answer (cached or paid), in order."""

    def __init__(self) -> None:
        self.requests: list[RequestRecord] = []
        self.retries = 0
        self.flag: tuple[str, str] | None = None  # (kind, message) from the last reply: refusal, content filter
        self.unsaved: list[tuple[str, ChatResult, float | None]] = []  # paid replies not yet in the cache
        self.cuts: list[Cut] = []  # requests made to fit the provider's limits (request_limits), stated on the answer


def prompt_texts(messages: list[dict[str, Any]]) -> list[str]:
    """The text parts of chat messages as ``role: text`` lines (each cut at 4,000 characters), for a trace."""
    out = []
    for m in messages:
        content = m.get("content")
        texts = [content] if isinstance(content, str) else [
            p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text"]
        for t in texts:
            out.append(f"{m.get('role')}: " + (t if len(t) <= _PROMPT_TEXT_CHARS else t[:_PROMPT_TEXT_CHARS] + "…"))
    return out


def reply_flag(result: ChatResult) -> tuple[str, str] | None:
    """(``content_filter``, ``refusal`` or ``reply_cut``, message) when the reply was filtered, refused or cut at
    the profile's size cap (its text, up to the cap, is kept beside the flag), else None."""
    if result.cut:
        return "reply_cut", result.cut
    if result.finish_reason == "content_filter":
        return "content_filter", "the endpoint's content filter stopped the reply"
    message = cache._first_message(result.raw) or {}
    if message.get("refusal"):
        return "refusal", f"the model refused: {str(message['refusal'])[:200]}"
    if _REFUSAL.match(result.text or ""):
        return "refusal", f"the model refused: {result.text.strip()[:200]}"
    return None


def check_prompt(profile: ModelProfile, prompt: Prompt) -> None:
    """Refuse a request the profile says the endpoint would reject, before anything is sent.

    Raises ModelCallError ``too_many_images`` (more images than the profile's or the tested limit) or
    ``images_rejected`` (images for an endpoint `models test` found text-only).
    """
    limit = profile.max_images_per_request or profile.capabilities.max_images_per_request
    if limit and len(prompt.images) > limit:
        raise ModelCallError("too_many_images", f"{profile.name}: this request holds {len(prompt.images)} "
                             f"images and the profile allows at most {limit} per request; lower the number "
                             "of frames or raise the profile's limit", max_images=limit)
    if prompt.images and profile.capabilities.images_accepted is False:
        raise ModelCallError("images_rejected", f"{profile.name}: `models test` found that this endpoint "
                             "does not accept images; use a vision model or the blind strategy")


def check_privacy(profile: ModelProfile, prompt: Prompt) -> None:
    """Refuse a request whose frames the profile's ``blur-faces`` gate did not blur (the last check before sending).

    Raises ModelCallError ``privacy_gate`` naming the first such frame.
    """
    if profile.privacy_mode != BLUR_FACES:
        return
    blurred = set()
    for image in prompt.images:
        redaction = getattr(image, "redaction", None)
        if not redaction or redaction.get("gate") != BLUR_FACES:
            raise ModelCallError("privacy_gate", f"{profile.name}: the privacy gate blurs faces and frame "
                                 f"{getattr(image, 'frame_index', '?')} of {getattr(image, 'file_name', '?')} was not "
                                 "blurred; nothing was sent")
        blurred.add(image.data_url())
    for message in prompt.messages:         # an image part that is none of the blurred frames is never sent
        for part in message.get("content") if isinstance(message.get("content"), list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url" and \
                    (part.get("image_url") or {}).get("url") not in blurred:
                raise ModelCallError("privacy_gate", f"{profile.name}: the privacy gate blurs faces and the request "
                                     "holds an image that did not go through it; nothing was sent")


def request_key(profile: ModelProfile, strategy: Strategy, prompt: Prompt) -> str:
    """The response-cache key of one request of `strategy` (`cache.cache_key` with the prompt's frame hashes)."""
    hashes = {im.data_url(): im.sha256 for im in prompt.images}
    options = {"max_tokens": prompt.max_tokens, "response_format": prompt.response_format,
               "extra_body": prompt.extra_body}
    return cache.cache_key(profile, strategy.name, strategy.version, prompt.messages, image_hashes=hashes,
                           options=options)


class AnswerExecutor:
    """Shared state of one `execute_run` call; `answer` runs on worker threads.

    `send(profile, prompt, key, answer_log)` makes a request that the cache could not answer; by default it
    calls the endpoint (`chat`, with the profile's retries). `provider_batch_lines` replaces it with one that raises
    `RequestDeferred`, so a batch line is built exactly as a request of a normal run.
    """

    def __init__(self, project: Project, run: Run, profile: ModelProfile, vision: ModelProfile | None,
                 use_cache: bool, cancelled: Cancelled):
        self.project = project
        self.run = run
        self.profile = profile
        self.vision = vision
        self.use_cache = use_cache
        self.cancelled = cancelled
        self.strategy = get_strategy(run.strategy or GENERAL_STRATEGY)
        self.encoder = FrameEncoder(project, redactor=redactor_for(
            profile.privacy_mode, vision and vision.privacy_mode,
            bodies=profile.privacy_bodies or bool(vision and vision.privacy_bodies)))
        self.params = dict((run.params or {}).get("strategy_params") or {})
        self._clients: dict[str, Any] = {}
        self.tasks: dict[str, Any] = {}
        self.known_keys = cache.known_keys(project) if use_cache else set()
        self._lock = threading.Lock()
        self.send: Callable[[ModelProfile, Prompt, str, AnswerLog], ChatResult] = self._call_endpoint
        self.learned_max_images: int | None = None  # a limit the server announced during this run

    def _call_endpoint(self, profile: ModelProfile, prompt: Prompt, key: str, answer_log: AnswerLog) -> ChatResult:
        try:
            result = chat(profile, prompt.messages, max_tokens=prompt.max_tokens,
                          response_format=prompt.response_format, extra_body=prompt.extra_body,
                          client=self.client(profile), cancelled=self.cancelled)
        except ModelCallError as exc:
            answer_log.retries += max(exc.attempts - 1, 0)
            raise
        answer_log.retries += max(result.attempts - 1, 0)
        return result

    def client(self, profile: ModelProfile):  # noqa: ANN201 - openai.OpenAI
        with self._lock:
            c = self._clients.get(profile.name)
            if c is None:
                c = self._clients[profile.name] = make_client(profile)
            return c

    def close(self) -> None:
        self.encoder.close()
        for c in self._clients.values():
            c.close()

    def ask_for(self, answer_log: AnswerLog) -> Callable[..., ChatResult]:
        def ask(built: Prompt, profile: ModelProfile | None = None) -> ChatResult:
            profile = profile or self.profile
            if answer_log.requests and self.cancelled():
                raise RunCancelled()
            prompt, cut = fit_prompt(built, limits_of(profile, self.learned_max_images))
            check_prompt(profile, prompt)
            check_privacy(profile, prompt)
            key = request_key(profile, self.strategy, prompt)
            self.save_unsaved(answer_log)  # a multi-request answer keeps every paid reply as it goes
            maybe_cached = self.use_cache and (self.known_keys is None or key in self.known_keys)
            hit = cache.lookup_with_cost(self.project, key) if maybe_cached else None
            if hit is not None:
                (result, original), paid = hit, 0.0
            else:
                try:
                    result = self.send(profile, prompt, key, answer_log)
                except ModelCallError as exc:       # the server announced a limit: keep it for this run, fit again
                    if exc.kind != "too_many_images" or not exc.max_images or len(prompt.images) <= exc.max_images:
                        raise
                    self.learned_max_images = exc.max_images
                    return ask(built, profile)
                paid = original = cost(profile, result)
            if cut is not None:
                answer_log.cuts.append(cut)
            answer_log.requests.append(RequestRecord(prompt.purpose, profile.name, result, hit is not None, paid,
                                                     original, list(prompt.images), key,
                                                     prompt_texts(prompt.messages), list(prompt.documents)))
            answer_log.flag = reply_flag(result)
            if hit is None and answer_log.flag is None:  # refusals and filtered replies are not cached: a retry
                answer_log.unsaved.append((key, result, paid))  # (--retry-failed) asks the endpoint again
            return result
        return ask

    def save_unsaved(self, answer_log: AnswerLog, session: Any = None) -> None:
        """Put the paid replies of this answer not yet cached into the cache (in `session`, else its own write)."""
        if not answer_log.unsaved:
            return
        if session is None:
            with self.project.write() as s:
                for key, result, usd in answer_log.unsaved:
                    cache.store_in(s, key, result, cost_usd=usd)
        else:
            for key, result, usd in answer_log.unsaved:
                cache.store_in(session, key, result, cost_usd=usd)
        if self.known_keys is not None:
            with self._lock:
                self.known_keys.update(key for key, _, _ in answer_log.unsaved)
        answer_log.unsaved.clear()

    def answer(self, answer_id: str, task_id: str) -> tuple[str, str | None]:
        """Answer one task and commit it. Returns (state, error kind): state ``done`` or ``pending``."""
        answer_log = AnswerLog()
        try:
            return self._answer(answer_id, task_id, answer_log)
        finally:
            self.save_unsaved(answer_log)  # cancelled or stopped: what was paid is kept for the resume

    def _answer(self, answer_id: str, task_id: str, answer_log: AnswerLog) -> tuple[str, str | None]:
        try:
            task = self.tasks.get(task_id) or load_task(self.project, task_id)
            refuse_rejected_inputs(task)
            ctx = StrategyContext(self.project, self.encoder, self.profile, self.params, self.vision, self.cancelled)
            outcome = self.strategy.execute(ctx, task, self.ask_for(answer_log))
            cut = answer_log.flag is not None and answer_log.flag[0] == "reply_cut"   # the cause, whatever else
            if answer_log.flag is not None and (outcome.error_kind is None or cut):      # the parse then said
                outcome.error_kind, outcome.error = answer_log.flag
        except RunCancelled:
            return "pending", None
        except RequestDeferred:
            raise
        except GateRefused as exc:          # no detector, or a frame it cannot read: would refuse every frame
            raise ModelCallError("privacy_gate", str(exc)) from None
        except ModelCallError as exc:
            if exc.kind in FATAL_KINDS:
                raise
            outcome = StrategyOutcome(None, None, exc.kind, str(exc))
        except (StrategyError, FieldstudioError) as exc:
            outcome = StrategyOutcome(None, None, getattr(exc, "kind", "media_error"), str(exc))
        except Exception as exc:  # a bug must not stop the run; the traceback goes to the log
            log.exception("answer %s of run %s failed", answer_id, self.run.id)
            outcome = StrategyOutcome(None, None, "internal", f"{type(exc).__name__}: {exc}")
        self._commit(answer_id, outcome, answer_log)
        return "done", outcome.error_kind

    def _commit(self, answer_id: str, outcome: StrategyOutcome, answer_log: AnswerLog) -> None:
        values = self.answer_values(answer_id, outcome, answer_log)
        with self.project.write() as s:
            self.save_unsaved(answer_log, s)
            s.execute(UPDATE_PENDING, values)

    @staticmethod
    def answer_values(answer_id: str, outcome: StrategyOutcome, answer_log: AnswerLog) -> dict[str, Any]:
        """The columns a finished answer is stored with (the parameters of `UPDATE_PENDING`)."""
        results = [r.result for r in answer_log.requests if r.result is not None]

        def total(name: str) -> int | None:
            values = [getattr(r, name) for r in results]
            return None if not values or any(v is None for v in values) else int(sum(values))

        paid = [r.cost_usd for r in answer_log.requests if not r.from_cache]
        frames = [im.record(request=i) for i, r in enumerate(answer_log.requests) for im in r.images]
        trace: list[dict[str, Any]] = [{
            "type": "request", "purpose": r.purpose, "profile": r.profile, "from_cache": r.from_cache,
            "prompt_tokens": r.result.prompt_tokens, "completion_tokens": r.result.completion_tokens,
            "reasoning_tokens": r.result.reasoning_tokens, "latency_s": r.result.latency_s,
            "finish_reason": r.result.finish_reason, "attempts": r.result.attempts, "cost_usd": r.cost_usd,
            "original_cost_usd": r.original_cost_usd, "images": len(r.images), "cache_key": r.cache_key,
            "prompt": r.prompt_text, **({"documents_ocr": r.documents} if r.documents else {})}
            for r in answer_log.requests]
        trace += [{"type": "step", **step} for step in outcome.trace or []]
        trace += [c.record() for c in answer_log.cuts]
        values = {
            "raw_text": mask_known_secrets(outcome.raw_text), "parsed": outcome.parsed,
            "error": mask_in_text(f"{outcome.error_kind}: {outcome.error}") if outcome.error_kind else None,
            "prompt_tokens": total("prompt_tokens"), "completion_tokens": total("completion_tokens"),
            "reasoning_tokens": total("reasoning_tokens"), "cached_tokens": total("cached_tokens"),
            "latency_s": sum(r.latency_s for r in results) if results else None,
            "cost_usd": None if any(c is None for c in paid) else float(sum(paid)),
            "from_cache": bool(answer_log.requests) and all(r.from_cache for r in answer_log.requests),
            "retries": answer_log.retries, "frames": frames, "trace": trace, "created_at": utcnow(),
        }
        values["content_sha256"] = answer_hash_of(values)    # the hash a score of it is compared with
        values["b_answer_id"] = answer_id
        return values


#: Writes a finished answer (`AnswerExecutor.answer_values`); only a pending one, so an answer another executor
#: finished first stays as it is.
_ANSWER_COLUMNS = ("raw_text", "parsed", "error", "prompt_tokens", "completion_tokens", "reasoning_tokens",
                   "cached_tokens", "latency_s", "cost_usd", "from_cache", "retries", "frames", "trace", "created_at",
                   "content_sha256")
UPDATE_PENDING = (update(Answer).where(Answer.id == bindparam("b_answer_id"), Answer.raw_text.is_(None),
                                        Answer.error.is_(None))
                   .values({name: bindparam(name, type_=JSON(none_as_null=True)) if name in ("parsed", "frames", "trace")
                            else bindparam(name) for name in _ANSWER_COLUMNS}))  # None in a JSON column: SQL NULL


def refuse_rejected_inputs(task: TaskSpec) -> None:
    """Raise StrategyError(kind="rejected_input") naming each input the task import rejected, and why.

    Such a task is never sent, whatever the strategy: its task file named a file outside its folder.
    """
    rejected = task.rejected_inputs
    if rejected:
        reasons = "; ".join(f"{name!r} {reason}" for name, reason in rejected)
        raise StrategyError("rejected_input", f"task {task.label}: input(s) rejected at import: {reasons}; "
                                              "fix the task file and import it again")


def profile_for_run(project: Project, run: Run, given: ModelProfile | None) -> ModelProfile:
    """The profile to resume a run with: `given`, or the stored profile of the same name, checked unchanged."""
    with project.read() as s:
        row = s.get(ProfileRow, run.profile_id) if run.profile_id else None
    if given is not None:
        return given
    if row is None:
        raise ProfileError(f"run {run.id[:8]} has no model profile; pass one to resume it")
    profile = get_profile(row.name)
    if profile.model != row.model or profile.shown_url != row.base_url:
        raise ProfileError(f"the profile {row.name!r} changed since run {run.id[:8]} started (model or base URL); "
                           "start a new run instead of resuming this one")
    return profile


def make_failed_pending(session: Any, run_id: str) -> int:
    """In an open write session, make the run's failed answers pending again (to ask them again); returns how many."""
    count = 0
    for row in session.scalars(select(Answer).where(Answer.run_id == run_id, Answer.error.is_not(None))):
        row.error = row.raw_text = row.parsed = None
        row.cost_usd = row.prompt_tokens = row.completion_tokens = row.reasoning_tokens = None
        row.from_cache = False
        count += 1
    return count


def execute_run(project: Project, run_id: str, *, progress: Progress = lambda done, total: None,
                cancelled: Cancelled = lambda: False, profile: ModelProfile | None = None,
                vision_profile: ModelProfile | None = None, concurrency: int | None = None,
                use_cache: bool = True, retry_failed: bool = False) -> RunSummary:
    """Answer every pending task of a run; finished answers are skipped, so this also resumes a run.

    Args:
        profile: the profile to call (default: the user's stored profile named in the run, which must not
            have changed its model or base URL since). Its key is read from its environment variable or keyring.
        vision_profile: for agent mode, the profile that analyses images and videos (default: the one named
            in the run, else `profile`).
        concurrency: requests in flight (default: the profile's concurrency).
        use_cache: answer identical requests from the response cache (a cache hit costs 0).
        retry_failed: first make answers that failed pending again.
        progress: called with (finished answers, answers in the run) after each answer.
        cancelled: checked before each request; answers in flight finish and are stored.
    Returns:
        The run's RunSummary, with ``stopped`` set when an error that would fail every task stopped it.
    Raises:
        NotFound (no such run), ProfileError (profile missing or changed), ProjectReadOnly.

    Progress is reported from the calling thread; the requests run on `concurrency` worker threads that each
    take the next pending answer as soon as their previous one is stored. Run one executor per run at a
    time: a second one on the same run may send the same requests again (the answer stored first is kept).
    """
    started = time.monotonic()
    with project.read() as s:
        run = s.get(Run, run_id)
    if run is None:
        raise NotFound(f"no run {run_id!r} in {project.path.name}")
    if run.kind != "model":
        raise FieldstudioError(f"run {run.name!r} holds imported answers; there is nothing to execute")
    profile = profile_for_run(project, run, profile)
    vision = vision_profile
    if vision is None and (run.params or {}).get("vision_profile_name"):
        vision = get_profile(run.params["vision_profile_name"])
    workers = max(1, int(concurrency or profile.concurrency or 1))
    with project.write() as s:
        if retry_failed:
            make_failed_pending(s, run_id)
        s.get(Run, run_id).status = "running"
        todo = s.execute(select(Answer.id, Answer.task_id).where(
            Answer.run_id == run_id, Answer.raw_text.is_(None), Answer.error.is_(None))
            .order_by(Answer.id)).all()
        total = s.scalar(select(func.count()).select_from(Answer).where(Answer.run_id == run_id)) or 0
    in_batch = open_batch_answer_ids(project, run_id)
    if in_batch:  # their requests wait in a provider batch: sending them now would pay twice
        todo = [row for row in todo if row[0] not in in_batch]
    if todo:  # what this execution ran with, for the run's reproducibility record (inference.runs.run_context)
        add_record_entry(project, run_id, "sessions", session_entry(
            profile, vision, concurrency=workers, use_cache=use_cache, retry_failed=retry_failed))
    done = total - len(todo)
    progress(done, total)
    executor = AnswerExecutor(project, run, profile, vision, use_cache, cancelled)
    for start in range(0, len(todo), 500):  # one read per 500 tasks instead of one per answer
        batch = [task_id for _, task_id in todo[start:start + 500]]
        executor.tasks.update((t.id, t) for t in load_tasks(project, batch))
    stopped: list[str] = []
    stop = threading.Event()          # set by an error that would fail every task, or by an interrupt
    items = iter(todo)
    items_lock = threading.Lock()
    reports: queue.Queue[tuple[str, Any]] = queue.Queue()
    executor.cancelled = lambda: stop.is_set() or cancelled()

    def worker() -> None:
        # Each worker takes the next pending answer itself, so a reply is followed by the next request
        # at once; only the progress report goes through the calling thread.
        try:
            while not executor.cancelled():
                with items_lock:
                    item = next(items, None)
                if item is None:
                    break
                try:
                    state, _ = executor.answer(item[0], item[1])
                except ModelCallError as exc:
                    stopped.append(str(exc))
                    stop.set()
                    log.warning("run %s stopped: %s", run_id, exc)
                    break
                reports.put((state, None))
        except BaseException as exc:  # a crash of the worker itself is reported, not swallowed
            reports.put(("crash", exc))
        finally:
            reports.put(("exit", None))

    threads = [threading.Thread(target=worker, name=f"fieldstudio-run-{i}") for i in range(min(workers, len(todo)))]
    crash: BaseException | None = None
    try:
        for t in threads:
            t.start()
        running = len(threads)
        while running:
            state, payload = reports.get()
            if state == "exit":
                running -= 1
            elif state == "crash":
                crash = crash or payload
            elif state == "done":
                done += 1
                progress(done, total)
    except BaseException:
        stop.set()                    # Ctrl-C or a failing progress callback: answers in flight finish
        raise
    finally:
        for t in threads:
            t.join()
        executor.close()
    if crash is not None:
        raise crash
    summary = run_summary(project, run_id)
    status = "done" if summary.pending == 0 else ("failed" if stopped else "cancelled")
    if status == "cancelled" and summary.pending == summary.in_batch and not cancelled():
        status = "batch"  # every answer left waits in a provider batch
    with project.write() as s:
        row = s.get(Run, run_id)
        row.status = status
        row.finished_at = utcnow()
    summary.status = status
    summary.stopped = stopped[0] if stopped else None
    summary.elapsed_s = time.monotonic() - started
    return summary


__all__ = ["FATAL_KINDS", "RunCancelled", "RunSummary", "split_error", "select_tasks", "create_run", "create_runs",
           "find_resumable_run", "run_summary", "execute_run", "delete_run"]
