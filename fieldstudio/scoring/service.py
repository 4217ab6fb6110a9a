"""Scoring answers stored in a project: the one service behind ``fieldstudio score`` and the GUI's Score button.

``score_answers`` runs one named, versioned scorer from :data:`fieldstudio.scoring.scorers.REGISTRY` over the
answers of some runs (all runs by default) and writes one ``Score`` row per answer, in one short write
transaction per batch. ``override_score`` records a person's correction as a new row chained to the one it
replaces (``Score.overrides_id``) with a reason; ``current_scores`` returns the value in force for every
(answer, scorer); ``score_history`` walks a chain.

Rules (DESIGN.md "Scoring", benchmarks.md §1.4-§4.2, §5 pitfalls 4, 6, 14, 18):

* Names say where a number comes from: an official scorer (``fwa-official``, ``llm-match``, ``eqa-direct``,
  ``eqa-reasoning``) asks its judge with the benchmark's own prompt and settings, read from the user's
  located copy of the benchmark (``scoring.official``; an unknown file version is refused); a
  ``+fs-prompt`` scorer applies the same rules to fieldstudio's own prompts; ``fs-match`` is fieldstudio's
  judge-free matchers. A scorer that needs a judge refuses to start without one.
* Without a judge only what the deterministic matchers decide is scored; every other answer gets a row
  with ``value`` None and an explanation saying why ("needs a judge: ..."), never a guess.
* An answer whose model call failed (``Answer.error`` set and no text) is stored unscored with the error,
  and counted in ``ScoringReport.failed_answers``: a failed request says nothing about the model.
* Every score row keeps the hashes of the answer, the ground truth and the scorer it judged
  (``scoring.staleness``). Scoring again scores exactly the answers without a score and those whose score is
  stale (one of the three changed; with a judge also those the matchers left undecided or whose judge call
  failed); a score that stands is not recomputed (``ScoringReport.current``). A row a person set (``author``
  not None) is never changed: while it stands it is kept, once stale a new machine row takes over beside it
  (the history keeps it). A judged value is not replaced by an unscored result from a run without a judge
  when the answer and the reference are unchanged (``judge["inputs_sha256"]``). Unchanged rows are not
  rewritten.
* The judge (a model profile) gets the official scorer's settings (system message, temperature, top_p,
  seed, token cap) or, for the other scorers, the profile's own; each usable reply is cached in
  ``ResponseCache`` under a hash of the judge's model, endpoint, settings and prompt, so scoring again
  costs nothing. A failed or empty reply is never cached ("judge failed": the next scoring asks again).
  ``Score.judge`` holds the judge model, its settings, the prompt source (files, SHA-256, versions), the
  raw reply text, the tokens and the cost in USD; never a key.
* Per-task inputs: ``Task.eval_func`` (else derived from ``answer_type``), ``Task.tolerances`` for
  fwa-paper (``alpha``, ``r_th``, ``T_th``; the ``params`` argument wins), ``ground_truth_extra``
  (``extra_answers`` for llm-match, ``reasoning_answer`` for eqa-reasoning, ``fields`` for documentation),
  ``Task.extra["reasoning_status"]``; per answer, ``Answer.parsed`` (``direct_answer``,
  ``reasoning_answer``, ``verdict``, ``fields``) else ``Answer.raw_text``.

The parts live beside this module: ``scoring.inputs`` (the columns read, ``score_one``), ``scoring.deterministic``
(the path without a judge), ``scoring.judged`` (the path with one), ``scoring.report`` (``ScoringReport``).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import func, select

from fieldstudio import benchmarks
from fieldstudio.core.errors import NotFound
from fieldstudio.core.paths import resources_dir
from fieldstudio.scoring.deterministic import Memo, score_chunk
from fieldstudio.scoring import currency, currency_records
from fieldstudio.scoring.inputs import ScoringError, check_params, read_chunk
from fieldstudio.scoring.judged import finish_judge, judge_chunk
from fieldstudio.scoring.judging import JudgeCaller, load_judge
from fieldstudio.scoring.official.settings import JudgeSettings
from fieldstudio.scoring.official.source import load_source
from fieldstudio.scoring.scoring_record import record_scoring
from fieldstudio.scoring.scoring_report import ScoringReport
from fieldstudio.scoring.staleness import ScoreCheck, scorer_sha
from fieldstudio.scoring.scorers import get as get_scorer
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.scoring.store import ScoreWriter, hashes_now, heads, score_rows, stamp_reader
from fieldstudio.store.models import Answer, Run, Score, Task, utcnow
from fieldstudio.store.project import Project
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.core.garbage_collection import gc_paused

__all__ = ["ScoringError", "ScoringReport", "score_answers", "override_score", "current_scores", "score_history",
           "promote_answer_to_ground_truth", "DETERMINISTIC_BATCH", "JUDGE_BATCH", "resolve_runs",
           "scorer_description", "fs_prompt_record", "default_scorer"]

DETERMINISTIC_BATCH = 10_000
"""Answers scored per write transaction without a judge."""
JUDGE_BATCH = 20
"""Answers scored per write transaction with a judge (each may wait for a model call)."""


# ---------------------------------------------------------------- runs
def resolve_runs(project: Project, runs: Sequence[str] | None) -> list[str] | None:
    """Run ids from ids, unique id prefixes (at least 4 characters) or run names; None means every run.

    Raises NotFound naming the first reference that matches no run, ScoringError when one is ambiguous.
    """
    if not runs:
        return None
    with project.read() as s:
        rows = s.execute(select(Run.id, Run.name)).all()
    out: list[str] = []
    for ref in runs:
        hits = [r.id for r in rows if r.id == ref] or [r.id for r in rows if r.name == ref] or \
               ([r.id for r in rows if r.id.startswith(ref)] if len(ref) >= 4 else [])
        if not hits:
            raise NotFound(f"no run {ref!r} in {project.path.name}; runs: "
                           + (", ".join(f"{r.name} ({r.id[:8]})" for r in rows) or "none"))
        if len(hits) > 1:
            raise ScoringError(f"run {ref!r} is ambiguous: it names {len(hits)} runs; use the run id")
        out.extend(h for h in hits if h not in out)
    return out


def default_scorer(project: Project, run_ids: Sequence[str] | None = None, *, judged: bool = True) -> str:
    """The scorer proposed for the answers of ``run_ids`` (None: every run; ids as ``resolve_runs`` takes
    them): the default of the benchmark most of those answers' tasks belong to
    (``benchmarks.default_scorer``), with a judge or without one (``judged``). What ``fieldstudio score``
    uses without ``--scorer`` and what the Score dialog shows first.

    Raises NotFound or ScoringError for a run reference ``resolve_runs`` refuses."""
    ids = resolve_runs(project, run_ids)
    q = select(Task.source, func.count()).join(Answer, Answer.task_id == Task.id).group_by(Task.source)
    if ids is not None:
        q = q.where(Answer.run_id.in_(ids))
    with project.read() as s:
        counts = [(source, n) for source, n in s.execute(q).all()]
    return benchmarks.default_scorer(counts, judged)


# ---------------------------------------------------------------- the service
def score_answers(project: Project, scorer_name: str, run_ids: Sequence[str] | None = None,
                  judge_profile: Any = None, *, params: Mapping[str, Any] | None = None,
                  progress: Progress = lambda done, total: None, cancelled: Cancelled = lambda: False,
                  chat: Callable[..., Any] | None = None, official_source: Path | str | None = None) -> ScoringReport:
    """Score every answer of the given runs (all runs when None) with one scorer and store the scores.

    Args:
        project: an open, writable project.
        scorer_name: a name in ``fieldstudio.scoring.scorers.REGISTRY`` (e.g. "fwa-official", "fs-match").
        run_ids: run ids, names or id prefixes (see ``resolve_runs``); None for every run.
        judge_profile: a ``ModelProfile``, a profile name, or None for deterministic matchers only.
        params: scorer parameters (fwa-paper: alpha, r_th, T_th, partial_credit; llm-match: truncate).
        progress: ``progress(done, total)`` in answers, after every batch (every answer with a judge).
        cancelled: checked before every batch (every answer with a judge); batches already written stay.
        chat: replaces ``inference.client.chat`` (tests).
        official_source: folder of the benchmark's own judge files for this call (an official scorer);
            None uses the folder remembered by ``scoring.official.source.locate``.
    Returns:
        ScoringReport with the counts, unscored reasons, judge calls and cost, and the prompt source and
        judge settings used.
    Raises:
        ScoringError for an unknown scorer or a scorer that needs a judge called without one;
        OfficialSourceError when an official scorer's benchmark files are not located, missing or of an
        unknown version; NotFound for an unknown run; ProfileError for an unknown judge profile; the
        judge's ModelCallError when the judge cannot be used at all (bad key, unknown model): the batches
        scored before it are kept.

    Speed (benchmarks/bench_scoring.py): inputs are read with raw SQL, answers sharing a task and a text
    are scored once (FieldWorkArena scorers, which read nothing else) and the per-answer bookkeeping runs
    in C (``deterministic.score_new``), new ids (UUID7, ascending) come from one random draw per batch, and rows are
    written in answer-id order with executemany over one held connection (``ScoreWriter``). Without a
    judge, Python's cyclic garbage collector is paused for the call (``core.garbage_collection.gc_paused``).
    """
    try:
        info = get_scorer(scorer_name)
    except KeyError as exc:
        raise ScoringError(str(exc.args[0])) from None
    params = check_params(info.name, params)
    if info.needs_judge and judge_profile is None:
        owner = benchmarks.for_scorer(info.name)
        judge_free = owner.judge_free_scorer if owner is not None else None
        raise ScoringError(f"{info.name} needs a judge (a model profile): it is scored from judge replies"
                           + (f"; judge-free scoring of {owner.title} answers is {judge_free} (fieldstudio's "
                              "deterministic matchers)" if judge_free else ""))
    if official_source is not None and not info.benchmark:
        raise ScoringError(f"{info.name} does not read a benchmark's own judge files; an official source folder is "
                           "for fwa-official, llm-match, eqa-direct and eqa-reasoning")
    source = load_source(info.benchmark, official_source) if info.benchmark else None
    ids = resolve_runs(project, run_ids)
    judge = load_judge(project, judge_profile, chat)
    report = ScoringReport(info.name, info.version, judge=None if judge is None else judge.profile.name)
    if judge is not None:
        if source is not None:
            judge.configure(source.settings, source.record())
            report.prompt_source = source.describe()
            if source.settings.model and source.settings.model != judge.profile.model:
                report.official_model = source.settings.model
        else:
            judge.configure(None, fs_prompt_record(info.name))
            report.prompt_source = ("fieldstudio's own judge prompts (" + ", ".join(
                f"{f['file']} sha256 {f['sha256'][:12]}" for f in judge.prompt_source["files"])
                + "): not the benchmark's, not comparable with published tables")
        eff = judge.params
        report.judge_settings = JudgeSettings(None, eff["temperature"], eff.get("top_p"), eff["seed"],
                                              eff["max_tokens"], eff.get("system")).describe()
    with gc_paused() if judge is None else contextlib.nullcontext():
        # what the scoring allocates is local to _score_all and freed when it returns, with the collector
        # still paused: its first pass after the pause would otherwise walk every answer tuple read
        _score_all(project, info.name, ids, judge, params, report, progress, cancelled, source)
    if judge is not None:
        finish_judge(report, judge)
    report.per_run = dict(sorted(report.per_run.items()))
    with project.read() as s:
        report.never_sent = currency.count_never_sent(s, ids)
    if report.written:  # a scoring that changed nothing leaves the records as they are
        record_scoring(project, report, params, judge, source)
    return report


def fs_prompt_record(scorer: str) -> dict[str, Any]:
    """What a verdict from fieldstudio's own prompts stores of them: the template files and their SHA-256."""
    names = get_scorer(scorer).judge_prompts
    folder = resources_dir() / "prompts"
    return {"benchmark": None, "files": [{"role": n.removesuffix(".txt"), "file": n, "version": "fieldstudio",
                                          "sha256": hashlib.sha256((folder / n).read_bytes()).hexdigest()}
                                         for n in names]}


def _score_all(project: Project, scorer: str, ids: Sequence[str] | None, judge: JudgeCaller | None,
               params: Mapping[str, Any], report: ScoringReport, progress: Progress, cancelled: Cancelled,
               source: Any = None) -> None:
    """The body of ``score_answers``: return the counts of the last scoring of this selection when they still
    stand (``scoring.currency_records``), else count the answers whose score is current by its columns in SQL
    (``scoring.currency``), then read the others in chunks by answer id (keyset pagination), score and write
    chunk by chunk into ``report``: what one chunk reads is freed before the next, so memory stays that of a
    chunk whatever the number of answers."""
    version = get_scorer(scorer).version
    check = ScoreCheck(scorer, version, scorer_sha(scorer, version, params, None if source is None else source.sha256),
                       judged=judge is not None)
    selection = currency.Selection(scorer, version, check.scorer_now, None if ids is None else tuple(ids),
                                   judged=judge is not None)
    with project.read() as s:
        if currency_records.restore(s, selection, report):
            progress(report.answers, report.answers)
            return                               # every score stood and nothing changed since: as counted then
    done = currency_records.count(project, selection, report)
    total = report.answers
    progress(done, total)
    if done == total:
        return                                   # every score stands: nothing to read, score or write
    batch = JUDGE_BATCH if judge is not None else DETERMINISTIC_BATCH
    memo = Memo()
    tasks: dict[str, Any] = {}
    after = ""
    with ScoreWriter(project) as writer:
        while True:
            if cancelled():
                report.cancelled = True
                break
            with project.read() as s:
                rows = currency.to_score(s, selection, after, batch)
                # the answers as the scorers read them; their stored hashes apart
                chunk, stored_shas = [r[:6] for r in rows], [r[6] for r in rows]
                in_force = read_chunk(project, s, scorer, chunk, tasks)
            if not chunk:
                break
            after = chunk[-1][0]
            now = utcnow()
            if judge is None:
                inserts, updates = score_chunk(scorer, chunk, tasks, in_force, params, memo, report, check,
                                               stored_shas)
                pending: dict[str, Any] = {}
                sent: list[dict[str, Any]] = []
            else:
                inserts, updates = judge_chunk(scorer, chunk, tasks, in_force, judge, params, report,
                                                cancelled, lambda i, s=done: progress(min(s + i + 1, total), total),
                                                source, check)
                pending, sent = judge.take_pending(), judge.take_sent()
            writer.write(scorer, now, inserts, updates, pending, check.scorer_now, judge_requests=sent)
            report.written += len(inserts) + len(updates)
            if judge is not None and judge.fatal is not None:
                finish_judge(report, judge)
                raise judge.fatal
            done += len(chunk)
            progress(min(done, total), total)
            if report.cancelled:
                break
    if report.written and not report.cancelled:
        # counted again, with the rows just written, so that the next scoring of this selection can return at
        # once (when every answer is now current by its columns)
        currency_records.count(project, selection, ScoringReport(scorer, version))


# ---------------------------------------------------------------- reading and overriding
def current_scores(project: Project, scorer: str | None = None, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """The score in force for every (answer, scorer): one row each.

    Columns: score_id, answer_id, run_id, task_id, scorer, scorer_version, value (float, NaN when unscored),
    correct (object: True/False/None), explanation, author and reason (set on a person's override),
    overridden (True when a person set the value), judge_raw, judge_cost_usd, created_at, stale_reason (why the
    row no longer stands, ``scoring.staleness``; None when it does: a stale row's value is what it judged
    earlier, never a current verdict).
    ``run_ids`` accepts ids, names or prefixes (``resolve_runs``).
    """
    ids = resolve_runs(project, run_ids)
    with project.read() as s:
        in_force = heads(score_rows(s, scorer, ids))
        to_stamp = stamp_reader(s)
        stale = currency.stale_reasons_in_force(s, list(in_force.values()))
    cols = ["score_id", "answer_id", "run_id", "task_id", "scorer", "scorer_version", "value", "correct",
            "explanation", "author", "reason", "overridden", "judge_raw", "judge_cost_usd", "created_at",
            "stale_reason"]
    records = [(r.id, r.answer_id, r.run_id, r.task_id, r.scorer, r.scorer_version,
                float("nan") if r.value is None else float(r.value), r.correct, r.explanation, r.author, r.reason,
                r.author is not None, (r.judge or {}).get("raw"), (r.judge or {}).get("cost_usd"),
                to_stamp(r.created_at), stale.get(r.id)) for r in in_force.values()]
    df = pd.DataFrame.from_records(records, columns=cols)
    df["value"] = df["value"].astype(float)
    df["correct"] = df["correct"].astype(object)
    df["stale_reason"] = df["stale_reason"].astype(object).where(df["stale_reason"].notna(), None)
    return df.sort_values(["scorer", "run_id", "task_id"], kind="stable").reset_index(drop=True)


def override_score(project: Project, score_id: str, value: float | None, reason: str, who: str) -> str:
    """A person sets the score of an answer: a new ``Score`` row overriding ``score_id``; returns its id.

    The replaced row stays (history); the new row has ``author = who``, ``reason``, ``overrides_id =
    score_id`` and the same scorer name and version. ``correct`` is ``value > 0.5`` for scorers that
    have that threshold (FieldWorkArena, acceptability), otherwise None. ``value`` None marks the answer
    as not scorable.

    Raises:
        NotFound: no score ``score_id``.
        ScoringError: empty reason or name, a value that is not a finite number (or outside 0-1 for the
            scorers on that scale), or a score that was already overridden (override the newer row).
    """
    reason, who = (reason or "").strip(), (who or "").strip()
    if not reason:
        raise ScoringError("an override needs a reason")
    if not who:
        raise ScoringError("an override needs the name of the person who sets it")
    if value is not None:
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ScoringError(f"score {value!r} is not a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ScoringError(f"score {value!r} is not a finite number")
    with project.write() as s:
        old = s.get(Score, score_id)
        if old is None:
            raise NotFound(f"no score {score_id!r} in {project.path.name}")
        newer = s.execute(select(Score.id).where(Score.overrides_id == score_id)).scalars().first()
        if newer is not None:
            raise ScoringError(f"score {score_id} was already overridden by {newer}; override that one")
        info = REGISTRY.get(old.scorer)
        if value is not None and info is not None and info.scale == 1.0 and not 0.0 <= value <= 1.0:
            raise ScoringError(f"{old.scorer} scores lie between 0 and 1; {value:g} is outside")
        correct = None if value is None or info is None or info.threshold is None else value > info.threshold
        row = Score(answer_id=old.answer_id, scorer=old.scorer, scorer_version=old.scorer_version, value=value,
                    correct=correct, explanation=f"set by {who}: {reason}", author=who, reason=reason,
                    overrides_id=old.id, scorer_sha256=old.scorer_sha256, **hashes_now(s, old.answer_id))
        s.add(row)
        s.flush()
        return row.id


def score_history(project: Project, score_id: str) -> list[dict[str, Any]]:
    """The chain a score belongs to, oldest first: dicts with id, value, correct, explanation, author,
    reason, overrides_id, created_at, judge_raw. Raises NotFound for an unknown id."""
    with project.read() as s:
        start = s.get(Score, score_id)
        if start is None:
            raise NotFound(f"no score {score_id!r} in {project.path.name}")
        rows = {r.id: r for r in s.scalars(select(Score).where(Score.answer_id == start.answer_id,
                                                                Score.scorer == start.scorer))}
    chain = [start]
    while chain[0].overrides_id and chain[0].overrides_id in rows:
        chain.insert(0, rows[chain[0].overrides_id])
    by_parent = {r.overrides_id: r for r in rows.values() if r.overrides_id}
    while chain[-1].id in by_parent:
        chain.append(by_parent[chain[-1].id])
    return [{"id": r.id, "value": r.value, "correct": r.correct, "explanation": r.explanation, "author": r.author,
             "reason": r.reason, "overrides_id": r.overrides_id, "created_at": r.created_at,
             "judge_raw": (r.judge or {}).get("raw")} for r in chain]


def promote_answer_to_ground_truth(project: Project, answer_id: str, who: str, reason: str = "") -> str:
    """Make an answer's text the ground truth of its task; returns the task id.

    The previous ground truth is kept in ``Task.extra["ground_truth_history"]`` (list of {value, replaced_by,
    answer_id, reason, at}); scores are not recomputed (run ``score_answers`` again). Raises NotFound for an
    unknown answer and ScoringError for an answer without text or an empty ``who``.
    """
    who = (who or "").strip()
    if not who:
        raise ScoringError("promoting an answer needs the name of the person who does it")
    with project.write() as s:
        answer = s.get(Answer, answer_id)
        if answer is None:
            raise NotFound(f"no answer {answer_id!r} in {project.path.name}")
        if not (answer.raw_text or "").strip():
            raise ScoringError(f"answer {answer_id} has no text to promote")
        task = s.get(Task, answer.task_id)
        extra = dict(task.extra or {})
        history = list(extra.get("ground_truth_history") or [])
        history.append({"value": task.ground_truth, "replaced_by": who, "answer_id": answer_id, "reason": reason,
                        "at": utcnow().isoformat()})
        extra["ground_truth_history"] = history
        task.extra = extra
        task.ground_truth = answer.raw_text
        return task.id


def scorer_description(name: str) -> str:
    """'name version: description' for labels in tables, plots and exports."""
    info = REGISTRY.get(name)
    return name if info is None else f"{info.name} {info.version}: {info.description}"

