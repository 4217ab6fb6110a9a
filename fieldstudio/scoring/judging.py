"""The LLM judge as the scoring service calls it: a model profile behind an ``ask(prompt) -> reply`` callable,
with a project-wide response cache and cost accounting.

The prompts and the parsing of replies live in ``fieldstudio.scoring.scorers.judge``; this module only sends
prompts (``fieldstudio.inference.client.chat``), prices the calls (``client.cost``) and caches the replies
in ``ResponseCache``. Keys never reach the project: the stored parameters hold the masked endpoint.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.scoring.official.settings import JudgeSettings
from fieldstudio.store.models import ResponseCache, utcnow
from fieldstudio.store.project import Project

__all__ = ["JUDGE_MAX_TOKENS", "UNREACHABLE_ANSWERS", "JudgeCaller", "JudgeUnreachable", "load_judge"]

JUDGE_MAX_TOKENS = 768
"""Completion-token cap of a judge call (FieldWorkArena's evaluator uses 768, benchmarks.md §1.4)."""
_FATAL_KINDS = {"auth", "no_key", "permission", "not_found", "model_not_found"}
UNREACHABLE_ANSWERS = 3
"""Answers in a row whose judge call could not connect before scoring stops (a dead server would otherwise
cost every remaining answer its retries)."""


class JudgeUnreachable(FieldstudioError):
    """The judge's server did not accept a connection for ``UNREACHABLE_ANSWERS`` answers in a row."""


def _cannot_connect(exc: BaseException) -> bool:
    """A call that never reached the server: refused or unresolvable (kind "connection"), or a timeout while
    connecting. A read timeout is not: the server is there, only slow."""
    kind = getattr(exc, "kind", None)
    if kind == "connection":
        return True
    if kind != "timeout":
        return False
    seen, cause = set(), exc
    while cause is not None and id(cause) not in seen:   # the HTTP library's exception, under openai's
        seen.add(id(cause))
        if type(cause).__name__ == "ConnectTimeout":     # by name: the openai SDK ships its own httpx fork
            return True
        cause = cause.__cause__ or cause.__context__
    return False


class JudgeCaller:
    """An ``ask(prompt) -> reply`` callable over a model profile with a project-wide response cache.

    How it asks: by default the prompt is the only message, with the profile's temperature and seed and
    ``max_tokens``; after ``configure(settings)`` (an official scorer: the benchmark's own settings) the
    settings' system message comes first and their temperature, top_p, seed and token cap replace the
    profile's (None: not sent). The model asked is always the profile's; ``params`` shows the benchmark's
    own judge model beside it.

    Cache key: SHA-256 of the judge's model id, base URL, temperature, seed, token cap and the prompt (and
    the system message and top_p when set). Hits are read from ``ResponseCache`` (or from this batch's new
    entries); misses call the model through ``fieldstudio.inference.client.chat`` and are kept in
    ``pending`` until the caller writes them in its batch transaction. An empty reply is never cached,
    and ``forget_answer`` drops the current answer's new replies (a reply the scorer could not use: the
    next scoring asks again). ``calls`` lists the requests made for the current answer (``begin_answer``
    clears it); ``sent`` the requests that reached the endpoint (``take_sent``). A fatal error (bad key, unknown model or endpoint) is kept in ``fatal`` and re-raised; so is
    a :class:`JudgeUnreachable` once ``UNREACHABLE_ANSWERS`` answers in a row failed to connect (any reply
    resets the count).
    """

    def __init__(self, project: Project, profile: Any, *, max_tokens: int = JUDGE_MAX_TOKENS,
                 chat: Callable[..., Any] | None = None):
        from fieldstudio.inference import client as model_client  # imported here: only a judge needs openai

        self.project = project
        self.profile = profile
        self.max_tokens = max_tokens
        self.settings: JudgeSettings | None = None
        self.prompt_source: dict[str, Any] | None = None
        self._client = model_client
        self._chat = chat or model_client.chat
        self._openai = None
        self.pending: dict[str, dict[str, Any]] = {}
        self.sent: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.fatal: Exception | None = None
        self.unreachable_answers = 0
        self._answer_unreachable = False
        self.requests = 0
        self.cache_hits = 0
        self.cost_usd = 0.0
        self.cost_complete = True

    def configure(self, settings: JudgeSettings | None, prompt_source: dict[str, Any] | None = None) -> None:
        """Ask with ``settings`` from now on (None: the profile's own, see the class docstring) and record
        ``prompt_source`` (the prompt files' names, fingerprints and versions) with every verdict."""
        self.settings = settings
        self.prompt_source = prompt_source

    def _effective(self) -> dict[str, Any]:
        """temperature, top_p, seed, max_tokens and system of the next call."""
        st = self.settings
        if st is None:
            return {"temperature": self.profile.temperature, "top_p": None, "seed": self.profile.seed,
                    "max_tokens": self.max_tokens, "system": None}
        return {"temperature": st.temperature, "top_p": st.top_p, "seed": st.seed, "max_tokens": st.max_tokens,
                "system": st.system}

    @property
    def params(self) -> dict[str, Any]:
        """What is stored with every judged score: profile name, model, masked endpoint, the settings the
        calls were made with, and (when set) the benchmark's own judge model and the prompt source."""
        eff = self._effective()
        out = {"profile": self.profile.name, "model": self.profile.model, "base_url": self.profile.shown_url,
               "temperature": eff["temperature"], "seed": eff["seed"], "max_tokens": eff["max_tokens"]}
        if eff["top_p"] is not None:
            out["top_p"] = eff["top_p"]
        if eff["system"] is not None:
            out["system"] = eff["system"]
        if self.settings is not None:
            out["official_model"] = self.settings.model
        if self.prompt_source is not None:
            out["prompt_source"] = self.prompt_source
        return out

    def key(self, prompt: str) -> str:
        """The cache key of one prompt for this judge (64 hex characters)."""
        eff = self._effective()
        # the shown (masked) URL: the same before and after a secret in it moved to the keyring, and no secret
        payload = {"kind": "judge", "model": self.profile.model, "base_url": self.profile.shown_url,
                   "temperature": eff["temperature"], "seed": eff["seed"],
                   "max_tokens": eff["max_tokens"], "prompt": prompt}
        for extra in ("system", "top_p"):            # only when set: the keys of earlier scorings stay valid
            if eff[extra] is not None:
                payload[extra] = eff[extra]
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()

    def begin_answer(self) -> None:
        """Start recording the calls of a new answer."""
        self.calls = []
        self._answer_unreachable = False

    def forget_answer(self) -> None:
        """Drop the replies the current answer got from the model from the pending cache entries (a failed
        judge reply is never cached: the next scoring asks again)."""
        for call in self.calls:
            if not call.get("from_cache"):
                self.pending.pop(call.get("key"), None)

    def __call__(self, prompt: str) -> str:
        if self.fatal is not None:
            raise self.fatal
        key = self.key(prompt)
        cached = self.pending.get(key)
        if cached is None:
            with self.project.read() as s:
                row = s.get(ResponseCache, key)
                cached = dict(row.response) if row is not None else None
        if cached is not None:
            self.cache_hits += 1
            self.calls.append({**cached, "from_cache": True, "key": key})
            return str(cached.get("text", ""))
        eff = self._effective()
        profile = self.profile
        if self.settings is not None:
            profile = dataclasses.replace(profile, temperature=eff["temperature"], seed=eff["seed"])
        messages = ([{"role": "system", "content": eff["system"]}] if eff["system"] is not None else []) + \
            [{"role": "user", "content": prompt}]
        extra_body = {"top_p": eff["top_p"]} if eff["top_p"] is not None else {}
        cap = eff["max_tokens"]
        if self.settings is not None and self.settings.request_extra():
            # the benchmark's own parameter names (FieldWorkArena's evaluator: max_completion_tokens, "stop": null)
            extra_body.update(self.settings.request_extra())
            cap = None if self.settings.token_parameter != "max_tokens" else cap
        extra_body = extra_body or None
        try:
            if self._openai is None:
                self._openai = self._client.make_client(self.profile)
            if extra_body is None:
                result = self._chat(profile, messages, max_tokens=cap, client=self._openai)
            else:
                result = self._chat(profile, messages, max_tokens=cap, client=self._openai, extra_body=extra_body)
        except FieldstudioError as exc:
            if not _cannot_connect(exc):              # the text reached the endpoint even though the call failed
                self._record_sent(prompt, eff["system"])
            if getattr(exc, "kind", None) in _FATAL_KINDS:
                self.fatal = exc
            elif _cannot_connect(exc) and not self._answer_unreachable:
                self._answer_unreachable = True
                self.unreachable_answers += 1
                if self.unreachable_answers >= UNREACHABLE_ANSWERS:
                    self.fatal = self._unreachable(exc)
            raise
        self.unreachable_answers = 0
        self._record_sent(prompt, eff["system"])
        cost = self._client.cost(self.profile, result)
        self.requests += 1
        if cost is None:
            self.cost_complete = False
        else:
            self.cost_usd += cost
        if getattr(result, "cut", None):   # a verdict cut at the size cap is a failed judge call, never cached
            raise self._client.ModelCallError("reply_cut", f"judge profile {self.profile.name!r}: {result.cut}")
        entry = {"text": result.text, "prompt_tokens": result.prompt_tokens,
                 "completion_tokens": result.completion_tokens, "reasoning_tokens": result.reasoning_tokens,
                 "model": result.model, "cost_usd": cost}
        if (result.text or "").strip():                # an empty reply is a failed judge call: never cached
            self.pending[key] = entry
        self.calls.append({**entry, "from_cache": False, "key": key})
        return result.text or ""

    def _unreachable(self, last: BaseException) -> JudgeUnreachable:
        url = self.profile.shown_url
        return JudgeUnreachable(
            f"judge profile {self.profile.name!r}: the judge at {url} does not answer: is the server running? "
            f"({self.unreachable_answers} answers in a row could not connect; last error: {last})")

    def _record_sent(self, prompt: str, system: str | None) -> None:
        self.sent.append({"sent_at": utcnow(), "endpoint": self.profile.shown_url, "profile": self.profile.name,
                          "model": self.profile.model, "characters": len(prompt) + len(system or "")})

    def take_sent(self) -> list[dict[str, Any]]:
        """The requests that reached the endpoint since the last call (``sent_at``, ``endpoint`` (masked),
        ``profile``, ``model``, ``characters`` of text sent), to be written by the caller as ``JudgeRequest``
        rows; replies from the response cache and calls that could not connect are not among them."""
        out, self.sent = self.sent, []
        return out

    def take_pending(self) -> dict[str, dict[str, Any]]:
        """The new cache entries since the last call, to be written by the caller."""
        out, self.pending = self.pending, {}
        return out


def load_judge(project: Project, judge_profile: Any, chat: Callable[..., Any] | None) -> JudgeCaller | None:
    """A JudgeCaller for a ModelProfile or a profile name (ProfileError if unknown); None for None."""
    if judge_profile is None:
        return None
    if isinstance(judge_profile, str):
        from fieldstudio.inference.profiles import get_profile

        judge_profile = get_profile(judge_profile)
    return JudgeCaller(project, judge_profile, chat=chat)
