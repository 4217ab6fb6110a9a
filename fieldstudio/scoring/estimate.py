"""What a scoring will ask of its judge before it starts: calls, tokens and USD, and what stays as it is.

``estimate_scoring`` runs the scorer over every answer with a stand-in judge that records the prompts it
is given and replies nothing useful (no request is sent, nothing is written), so the prompts counted are
exactly the ones ``score_answers`` will send. Each prompt's cache key is the judge's own
(``judging.JudgeCaller.key``): a prompt already in ``ResponseCache`` costs nothing, and identical prompts
are asked once. That is how scoring again re-asks only what changed: answers, references or judge
settings that differ give other prompts, hence other keys.

Tokens: prompt text at about 4 characters per token (``inference.runs.estimate.text_tokens``); completion
tokens from the judge's cached replies of the same model when there are some (their mean), else
``DEFAULT_COMPLETION_TOKENS``, capped at the judge's token limit. Cost from the profile's prices
(``inference.runs.estimate.price``; None when a price is unknown).

An official scorer (``REGISTRY[name].benchmark`` set) is estimated as it will be scored: with the
benchmark's own prompts and judge settings read from its located files (``scoring.official.source``), so
its prompts, cache keys and token cap (e.g. FieldWorkArena's 768 completion tokens) are the file's.

``judge_use`` says per scorer whether it needs a judge, from the registry: "required" (``needs_judge``:
nothing is scored without one), "optional" (a judge is asked when given, the deterministic matchers decide
without one: ``judge_optional``) or "none".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.inference.runs.estimate import price, text_tokens
from fieldstudio.scoring.inputs import AnswerInputs, check_params, json_or_none, read_inputs, score_one
from fieldstudio.scoring.judging import JudgeCaller, load_judge
from fieldstudio.scoring.official.source import load_source
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.scoring.staleness import ScoreCheck, answer_sha, scorer_sha
from fieldstudio.scoring.service import fs_prompt_record, resolve_runs
from fieldstudio.store.models import ResponseCache
from fieldstudio.store.project import Project

__all__ = ["ScoringEstimate", "estimate_scoring", "judge_use", "DEFAULT_COMPLETION_TOKENS"]

DEFAULT_COMPLETION_TOKENS = 60
"""Completion tokens assumed per judge call when the cache holds no reply of the judge's model."""


def judge_use(scorer: str) -> str:
    """"required", "optional" or "none" for a registered scorer (see the module doc). KeyError if unknown."""
    info = REGISTRY[scorer]
    if info.needs_judge:
        return "required"
    return "optional" if info.judge_optional else "none"


@dataclass
class ScoringEstimate:
    """What ``score_answers`` would do: ``answers`` considered, ``kept`` (a person set the score),
    ``failed`` (the model call failed: no judge call), ``current`` (their score still stands: not judged again,
    ``scoring.staleness``), ``judged`` answers that go to the judge, ``prompts``
    distinct prompts, ``cached`` of them already answered (free), ``calls`` = prompts - cached requests,
    ``prompt_tokens`` / ``completion_tokens`` of those calls (estimates), ``cost_usd`` (None when a price
    is unknown), ``completion_basis`` ("cache" or "default"); ``needs_judge`` (the scorer's), the
    ``prompt_source`` the judge is asked with (an official scorer: ``OfficialSource.describe()``) and the
    judge's completion-token cap ``max_tokens`` (None: not sent)."""

    scorer: str
    judge: str | None
    answers: int = 0
    needs_judge: bool = False
    prompt_source: str = ""
    max_tokens: int | None = None
    kept: int = 0
    failed: int = 0
    current: int = 0
    judged: int = 0
    prompts: int = 0
    cached: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    completion_basis: str = "default"

    def text(self) -> str:
        """One paragraph for the score dialog."""
        if self.judge is None:
            if self.needs_judge:
                return (f"{self.answers} answers; {self.scorer} needs a judge: without one nothing is scored. "
                        "No model is called.")
            return (f"{self.answers} answers; no judge: the deterministic matchers decide what they can, every other "
                    "answer stays unscored. No model is called.")
        cost = "unknown (the judge profile has no prices)" if self.cost_usd is None else f"about ${self.cost_usd:.4f}"
        basis = "completion from the judge’s earlier replies" if self.completion_basis == "cache" else \
            "completion assumed"
        return (f"{self.answers} answers: {self.judged} go to the judge {self.judge}, {self.kept} set by a person are "
                f"kept, " + (f"{self.current} already scored and current are not judged again, " if self.current
                             else "") +
                f"{self.failed} failed model calls stay unscored. {self.prompts} distinct prompts, {self.cached} "
                f"already answered in the cache (no cost): {self.calls} judge calls, about "
                f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens ({basis}"
                + ("" if self.max_tokens is None else f", at most {self.max_tokens} per call") + f"), cost {cost}.")


class _Recorder:
    """A stand-in judge: records each prompt and replies with an empty verdict."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return ""


def estimate_scoring(project: Project, scorer: str, run_ids: Sequence[str] | None = None, judge_profile: Any = None,
                     *, params: Mapping[str, Any] | None = None,
                     official_source: Path | str | None = None) -> ScoringEstimate:
    """Estimate ``score_answers(project, scorer, run_ids, judge_profile, official_source=...)`` without
    calling any model.

    Raises KeyError for an unknown scorer, ProfileError for an unknown judge profile, NotFound for an
    unknown run and, with a judge, OfficialSourceError when an official scorer's benchmark files are not
    located, missing or of an unknown version (as ``score_answers`` would)."""
    info = REGISTRY[scorer] if scorer in REGISTRY else None
    if info is None:
        raise KeyError(f"unknown scorer {scorer!r}; known: {', '.join(sorted(REGISTRY))}")
    params = check_params(scorer, params)
    judge: JudgeCaller | None = load_judge(project, judge_profile, None)
    est = ScoringEstimate(scorer, None if judge is None else judge.profile.name, needs_judge=info.needs_judge)
    answers, tasks, in_force = read_inputs(project, resolve_runs(project, run_ids), scorer)
    est.answers = len(answers)
    if judge is None:
        return est
    # the judge asks as score_answers will: the benchmark's own prompts and settings, or fieldstudio's prompts
    source = load_source(info.benchmark, official_source) if info.benchmark else None
    if source is not None:
        judge.configure(source.settings, source.record())
        est.prompt_source = source.describe()
    elif info.needs_judge:
        judge.configure(None, fs_prompt_record(info.name))
        est.prompt_source = "fieldstudio's own judge prompts"
    est.max_tokens = judge.params["max_tokens"]
    check = ScoreCheck(scorer, info.version, scorer_sha(scorer, info.version, params,
                                                        None if source is None else source.sha256), judged=True)
    keys: dict[str, int] = {}
    for aid, run_id, task_id, raw_text, parsed, error in answers:
        old = in_force.get(aid)
        if old is not None and old.author is not None and check.stands(old, answer_sha(raw_text, parsed, error),
                                                                        tasks[task_id]):
            est.kept += 1
            continue
        if error and not (raw_text or "").strip():
            est.failed += 1
            continue
        if old is not None and check.stands(old, answer_sha(raw_text, parsed, error), tasks[task_id]):
            est.current += 1                     # score_answers leaves it as it is
            continue
        recorder = _Recorder()
        try:
            score_one(scorer, tasks[task_id], AnswerInputs(aid, run_id, task_id, raw_text, json_or_none(parsed), error),
                      judge=recorder, params=params, source=source)
        except Exception:  # noqa: BLE001 - the empty stand-in reply may trip a parser; the prompts are recorded
            pass
        if recorder.prompts:
            est.judged += 1
        for prompt in recorder.prompts:
            keys.setdefault(judge.key(prompt), len(prompt))
    est.prompts = len(keys)
    cached = _cached(project, list(keys))
    est.cached = len(cached)
    new = [chars for key, chars in keys.items() if key not in cached]
    est.calls = len(new)
    est.prompt_tokens = sum(text_tokens(c) for c in new)
    per_call, est.completion_basis = _completion_tokens(project, judge.profile.model)
    est.completion_tokens = (per_call if est.max_tokens is None else min(per_call, est.max_tokens)) * est.calls
    est.cost_usd = price(judge.profile, est.prompt_tokens, est.completion_tokens)
    return est


def _cached(project: Project, keys: list[str]) -> set[str]:
    """The keys among ``keys`` that ``ResponseCache`` holds (in chunks of 500: SQLite's parameter limit)."""
    found: set[str] = set()
    with project.read() as s:
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            found.update(s.execute(select(ResponseCache.key).where(ResponseCache.key.in_(chunk))).scalars())
    return found


def _completion_tokens(project: Project, model: str) -> tuple[int, str]:
    """Mean completion tokens of the cached judge replies of ``model`` (at most 2,000 read), else the default."""
    with project.read() as s:
        rows = s.execute(select(ResponseCache.response).limit(2000)).scalars().all()
    seen = []
    for r in rows:
        entry = r if isinstance(r, dict) else json.loads(r)
        if entry.get("model") == model and isinstance(entry.get("completion_tokens"), int):
            seen.append(entry["completion_tokens"])
    if not seen:
        return DEFAULT_COMPLETION_TOKENS, "default"
    return max(1, round(sum(seen) / len(seen))), "cache"
