"""What a sampling sweep found: per arm, the frames sent, the cost, the score with its interval, evidence coverage,
and the paired difference from the first arm on the tasks every arm has a score for.

The sweep's runs are made by ``inference.runs.sweep``; the scores are the scorer's rows in force
(``answer_table.load_answers``: stale scores count as unscored), evidence coverage is ``compare.evidence``'s.
A paired difference is arm minus the reference arm (the first), over the tasks EVERY arm scored, so all
differences are on one task set (``statistics.paired_difference``: both arms resampled on the same tasks);
its ``n_paired`` of ``n_tasks`` says how many that is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sqlalchemy import select

from fieldstudio.compare import answer_table, evidence
from fieldstudio.compare.coverage import MIN_INTERVAL_N, N_TOO_SMALL
from fieldstudio.core import costs, statistics
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs.batch import BatchResult
from fieldstudio.inference.runs.sweep import SweepRuns, execute_sweep
from fieldstudio.store.models import Answer
from fieldstudio.store.portable import in_chunks
from fieldstudio.store.project import Project

__all__ = ["ArmResult", "SweepResult", "SweepOutcome", "sweep_result", "sweep_frame", "score_sweep", "run_sweep"]


@dataclass(frozen=True)
class ArmResult:
    """One arm of a sweep.

    Attributes:
        label, run_id: the arm as written (``uniform:8``) and its run.
        tasks, answered, failed: answers in the run, finished without error, finished with an error.
        frames_sent: mean number of frames sent per finished answer (every request of it; NaN when none finished).
        cost_usd, cost_priced, cost_unknown: the sum of the known costs and how many finished answers have one.
        score: mean score of the scored answers with its bootstrap interval (``statistics.Interval``).
        correct: share of the scored answers the scorer judged correct (NaN when none is scored).
        saw, never_saw: answers that were / were not sent a frame of their task's evidence (``compare.evidence``);
            answers whose coverage is unknown or whose task has no evidence are in neither.
        difference: this arm minus the first over the tasks every arm scored (None for the first arm).
        frames_asked: mean frames per finished answer the strategy built, before the provider's limits cut any.
        cut: why frames were cut or re-encoded (``inference.runs.request_limits``), with how many requests; "" if none.
    """

    label: str
    run_id: str
    tasks: int
    answered: int
    failed: int
    frames_sent: float
    cost_usd: float
    cost_priced: int
    cost_unknown: int
    score: statistics.Interval
    correct: float
    saw: int
    never_saw: int
    difference: statistics.PairedDifference | None
    frames_asked: float = math.nan
    cut: str = ""

    @property
    def evidence_coverage(self) -> float:
        """saw / (saw + never saw): the share of answers with a known coverage that were sent the evidence; NaN
        when no answer has one."""
        known = self.saw + self.never_saw
        return self.saw / known if known else math.nan

    @property
    def cost_text(self) -> str:
        """The arm's cost as ``core.costs.cost_text`` states it (``unknown (0 of 6 answers priced)``, never $0)."""
        return costs.cost_text(self.cost_usd, self.cost_priced, self.cost_unknown, digits=6)

    @property
    def cost_known(self) -> float | None:
        """The total cost when every finished answer's cost is known, else None."""
        return self.cost_usd if costs.cost_status(self.cost_priced, self.cost_unknown) == "complete" else None


@dataclass(frozen=True)
class SweepResult:
    """A sweep's ``arms`` (the first is the reference of the differences), the ``scorer`` read (None: nothing
    scored), ``n_tasks`` in the sweep and ``n_paired`` tasks every arm scored."""

    sweep: SweepRuns
    scorer: str | None
    arms: tuple[ArmResult, ...]
    n_tasks: int
    n_paired: int


@dataclass
class _Finished:
    """The finished answers of one run: frames sent and asked (before a provider limit cut them), costs (None
    when unknown), and the reasons of the cuts (``request_limits.Cut``, from the answers' traces)."""

    sent: list[int]
    asked: list[int]
    costs: list[float | None]
    cuts: dict[str, int]


def _finished(project: Project, run_ids: Sequence[str]) -> dict[str, _Finished]:
    out = {r: _Finished([], [], [], {}) for r in run_ids}
    with project.read() as s:
        for part in in_chunks(list(run_ids)):
            rows = s.execute(select(Answer.run_id, Answer.frames, Answer.cost_usd, Answer.trace)
                             .where(Answer.run_id.in_(part), Answer.raw_text.is_not(None) | Answer.error.is_not(None)))
            for run_id, frames, usd, trace in rows:
                cuts = [t for t in trace or [] if isinstance(t, dict) and t.get("type") == "cut"]
                sent = len(frames) if isinstance(frames, list) else 0
                mine = out[run_id]
                mine.sent.append(sent)
                mine.asked.append(sent + sum(int(c.get("asked", 0)) - int(c.get("sent", 0)) for c in cuts))
                mine.costs.append(usd)
                for c in cuts:
                    mine.cuts[str(c.get("reason"))] = mine.cuts.get(str(c.get("reason")), 0) + 1
    return out


def sweep_result(project: Project, sweep: SweepRuns, scorer: str | None = None, *, n_resamples: int = 2000,
                 seed: int | None = 0) -> SweepResult:
    """Read a sweep's runs, their scores under ``scorer`` (None: the scorer with the most scores on them) and
    their evidence coverage. Raises NotFound when a run of the sweep was deleted."""
    run_ids = sweep.run_ids
    scorer = scorer or answer_table.most_scored_scorer(project, run_ids)
    answers = answer_table.load_answers(project, scorer, run_ids)
    coverage = evidence.answer_coverage(project, answers["answer_id"].tolist()).set_index("answer_id")["evidence"]
    finished = _finished(project, run_ids)
    per_run = {run_id: answers[answers["run_id"] == run_id] for run_id in run_ids}
    values = {run_id: dict(zip(rows["task_id"], rows["value"].astype(float))) for run_id, rows in per_run.items()}
    scored = [{t for t, v in m.items() if not math.isnan(v)} for m in values.values()]
    paired = sorted(set.intersection(*scored)) if scored else []
    n_tasks = int(answers["task_id"].nunique())
    reference = run_ids[0] if run_ids else None
    arms = []
    for label, run_id in sweep.arms:
        rows = per_run[run_id]
        frames, usd = finished[run_id].sent, finished[run_id].costs
        asked = finished[run_id].asked
        failed = int(rows["error"].notna().sum())
        answered = int((rows["answer"].notna() & rows["error"].isna()).sum())
        status = rows["answer_id"].map(coverage)
        difference = None
        if run_id != reference:
            difference = statistics.paired_difference({t: values[run_id][t] for t in paired},
                                                      {t: values[reference][t] for t in paired},
                                                      n_resamples=n_resamples, seed=seed)
        vals = rows["value"].to_numpy(dtype=float)
        verdicts = rows["correct_value"].to_numpy(dtype=float)    # the scorer's own verdict (fs-tiou: >= min_iou)
        verdicts = verdicts[~np.isnan(verdicts)]
        arms.append(ArmResult(
            label, run_id, len(rows), answered, failed, float(np.mean(frames)) if frames else math.nan,
            float(sum(u for u in usd if u is not None)), sum(u is not None for u in usd), sum(u is None for u in usd),
            statistics.bootstrap_ci(vals, n_resamples=n_resamples, seed=seed),
            float(verdicts.mean()) if verdicts.size else math.nan,
            int((status == evidence.SAW).sum()), int((status == evidence.NEVER_SAW).sum()), difference,
            float(np.mean(asked)) if asked else math.nan,
            "; ".join(f"{reason} ({n} request(s))" for reason, n in finished[run_id].cuts.items())))
    return SweepResult(sweep, scorer, tuple(arms), n_tasks, len(paired))


def _interval_text(estimate: float | None, low: float | None, high: float | None, n: int, *,
                   signed: bool = False) -> str:
    """``0.741 [0.667, 0.816]``; the interval only from ``MIN_INTERVAL_N`` values on (the Summary's rule)."""
    if estimate is None:
        return "—"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    if low is None:
        return fmt.format(estimate)
    shown = n >= MIN_INTERVAL_N
    return fmt.format(estimate) + (f" [{fmt.format(low)}, {fmt.format(high)}]" if shown else f" [{N_TOO_SMALL}]")


def _frames_text(arm: ArmResult) -> str:
    """``16.0``; ``16.0 (32.0 asked: the server accepts 16 images per request (found by models test) (2 request(s)))``
    when the provider's limits cut the frames."""
    if math.isnan(arm.frames_sent):
        return "—"
    if not arm.cut:
        return f"{arm.frames_sent:.1f}"
    return f"{arm.frames_sent:.1f} ({arm.frames_asked:.1f} asked: {arm.cut})"


def sweep_frame(result: SweepResult) -> pd.DataFrame:
    """The sweep table a person reads, one row per arm (the CLI prints it; the Sweep dialog and the plot show it).

    Columns: arm, run (id prefix), answered (``5/6``, with failures), frames sent (mean per answer, with the frames
    asked and why when a provider limit cut them), cost (text),
    score (mean of scored with its 95 % interval, and ``n/N scored``), correct (share), evidence (``saw 4 of 5``
    and the share), difference (arm minus the first arm with its paired interval, ``n paired of N``). Intervals
    are shown from ``coverage.MIN_INTERVAL_N`` values on, as in the Summary."""
    rows = []
    for arm in result.arms:
        d = arm.difference
        if d is None:
            diff = "reference"
        elif d.difference is None:
            diff = f"— (0 paired of {result.n_tasks})"
        else:
            diff = (_interval_text(d.difference, d.ci_low, d.ci_high, d.n_shared, signed=True)
                    + f" ({d.n_shared} paired of {result.n_tasks})")
        known = arm.saw + arm.never_saw
        rows.append({
            "arm": arm.label, "run": arm.run_id[:8],
            "answered": f"{arm.answered}/{arm.tasks}" + (f" ({arm.failed} failed)" if arm.failed else ""),
            "frames sent": _frames_text(arm),
            "cost": arm.cost_text,
            "score": _interval_text(arm.score.estimate, arm.score.ci_low, arm.score.ci_high, arm.score.n)
                     + f" ({arm.score.n}/{arm.tasks} scored)",
            "correct": "—" if math.isnan(arm.correct) else f"{arm.correct:.0%}",
            "evidence": f"saw {arm.saw} of {known}" + ("" if not known else f" ({arm.evidence_coverage:.0%})"),
            "difference": diff})
    return pd.DataFrame(rows, columns=["arm", "run", "answered", "frames sent", "cost", "score", "correct", "evidence",
                                       "difference"])


def score_sweep(project: Project, sweep: SweepRuns, scorer: str | None = None, judge_profile: object = None, *,
                progress: Progress = lambda done, total: None, cancelled: Cancelled = lambda: False) -> str:
    """Score every arm's answers with ``scorer`` (None: the default scorer of their tasks' benchmark,
    ``scoring.service.default_scorer``, with a judge when ``judge_profile`` is given) and return the scorer's name.
    What the CLI's ``sweep`` and the Sweep dialog call after the runs. Raises ScoringError (unknown scorer, a judge
    needed) and the judge's errors as ``scoring.service.score_answers``."""
    from fieldstudio.scoring import service as scoring

    name = scorer or scoring.default_scorer(project, sweep.run_ids, judged=judge_profile is not None)
    scoring.score_answers(project, name, sweep.run_ids, judge_profile, progress=progress, cancelled=cancelled)
    return name


@dataclass(frozen=True)
class SweepOutcome:
    """What `run_sweep` did: the runs' ``batch`` result and the sweep's ``result`` (None when it was cancelled or
    stopped by an error before every arm finished: nothing is scored then)."""

    batch: BatchResult
    result: SweepResult | None


def run_sweep(project: Project, sweep: SweepRuns, profile: ModelProfile, scorer: str | None = None,
              judge_profile: object = None, *, progress: Progress = lambda done, total: None,
              cancelled: Cancelled = lambda: False, use_cache: bool = True) -> SweepOutcome:
    """Answer the sweep's pending tasks (``inference.runs.sweep.execute_sweep``), score them (`score_sweep`) and read
    the result (`sweep_result`): the one call of the Sweep dialog's worker. Raises as those three."""
    done = execute_sweep(project, sweep, profile, progress=progress, cancelled=cancelled, use_cache=use_cache)
    if done.cancelled or done.stopped:
        return SweepOutcome(done, None)
    name = score_sweep(project, sweep, scorer, judge_profile, cancelled=cancelled)
    return SweepOutcome(done, sweep_result(project, sweep, name))
