"""What the comparison view shows, computed without Qt: the tasks x sources grid, the detail of one answer,
the categories x sources summary cells, a per-category bar plot, and a person's score and ground-truth edits.

``load_view(project, scorer)`` reads the long table of answers (``answer_table.load_answers``: a person's
override wins) and summarises it (``summaries.source_summary`` / ``group_summary``: mean with its 95 %
stratified bootstrap interval, seeded, 2,000 resamples); ``build_grid`` turns the long table into dense
(tasks, sources) numpy arrays so that a Qt model answers ``data()`` by indexing, never by searching.

Row flags use the rules of ``answer_table.filter_answers`` (that function computes them): a task where the
models disagree has scored sources with more than one verdict (``correct``, else the value); a task is
"wrong" when at least one source is not correct (correct False, or value < 1 when the scorer has no verdict).

With a judge, ``load_view`` runs the deterministic matchers beside it (``audit.matcher_audit``): the grid's
``flag`` marks the judged cells they decide otherwise, for a person to check.

Overrides and promotion call the services of ``fieldstudio.scoring.service`` (``override_score``,
``score_history``, ``promote_answer_to_ground_truth``; ``score_store`` is preferred when it offers them).
The one thing added here: ``set_score`` also lets a person score an answer that has no score row yet under the
chosen scorer (a new row with ``author`` and ``reason`` and no ``overrides_id``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from sqlalchemy import func, select

from fieldstudio.compare import answer_table, audit, coverage, evidence, summaries
from fieldstudio.core.errors import NotFound
from fieldstudio.scoring import service as scoring
from fieldstudio.scoring import store as score_store
from fieldstudio.core.garbage_collection import gc_paused
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.store.data_version import data_version
from fieldstudio.store.models import Answer, Run, Score, Task, TaskInput
from fieldstudio.store.project import Project
from fieldstudio.tasks import ground_truth

__all__ = ["GridData", "ComparisonView", "AnswerDetail", "build_grid", "load_view", "available_scorers",
           "score_scale", "short_answer", "category_cells", "cell_text", "answer_detail", "media_target",
           "set_score", "promote", "category_bars", "UNIT_SCALE_SCORERS"]

UNIT_SCALE_SCORERS = frozenset(name for name, info in REGISTRY.items() if info.scale == 1.0)
"""Scorers whose values lie in 0-1; the others (llm-match, eqa-*) use 0-100 (benchmarks.md §3.3)."""
SHORT_CHARS = 60


def short_answer(text: Any, limit: int = SHORT_CHARS) -> str:
    """The first line-collapsed ``limit`` characters of an answer (with … when cut); "" for None/NaN."""
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return ""
    text = str(text)
    # the collapsed head of a long text is a prefix of the collapsed whole: enough of it decides the cut, without
    # splitting a reply of pages (18,000 answers in one Compare load, issue 37)
    head = " ".join(text[: 8 * limit].split())
    if len(head) > limit:
        return head[: limit - 1] + "…"
    one = head if len(text) <= 8 * limit else " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def score_scale(scorer: str | None, values: np.ndarray | None = None) -> float:
    """The top of the scorer's scale: 1.0 for the 0-1 scorers, 100.0 for llm-match / eqa-*; for an unknown
    scorer 1.0 unless a value exceeds 1."""
    if scorer in UNIT_SCALE_SCORERS:
        return 1.0
    if scorer in REGISTRY:
        return 100.0
    if values is not None and values.size and np.nanmax(np.where(np.isnan(values), 0, values)) > 1.0:
        return 100.0
    return 1.0


# ---------------------------------------------------------------- the grid
@dataclass
class GridData:
    """The tasks x sources grid as dense arrays (n tasks, k sources), row order = tasks sorted by external id.

    ``tasks``: DataFrame with n rows (RangeIndex) and columns task_id, external_id, category, sub_category,
    scenario, answer_type, query, ground_truth, disagree (bool), wrong (bool), flagged (bool: a cell of the task
    is flagged by the matcher audit), search (lower-case text of the task id, query, ground truth and every
    answer, for the text filter). Per cell: ``present`` (bool: the source
    answered), ``answer_id`` / ``score_id`` (object, None when absent), ``short`` (str), ``value`` (float, NaN
    when unscored or absent), ``correct`` (float 1/0, NaN unknown), ``overridden`` (bool), ``error`` (bool: the
    model call failed). ``scale`` is the top of the score scale (1 or 100). ``flag`` (bool): a judged cell
    where the deterministic matchers decided otherwise than the judge (``audit.matcher_audit``), for a person
    to check; ``matcher_note`` (object): the matchers' verdict and explanation on a judged cell, else None.
    ``stale`` (object): why the cell's score no longer stands (``scoring.staleness``), else None; its
    ``value`` is then NaN (not a current verdict) and ``stale_value`` the value it gave (NaN elsewhere).
    """

    sources: list[str]
    tasks: pd.DataFrame
    present: np.ndarray
    answer_id: np.ndarray
    score_id: np.ndarray
    short: np.ndarray
    value: np.ndarray
    correct: np.ndarray
    overridden: np.ndarray
    error: np.ndarray
    scale: float = 1.0
    flag: np.ndarray | None = None
    matcher_note: np.ndarray | None = None
    stale: np.ndarray | None = None
    stale_value: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.stale is None:
            self.stale = np.full(self.value.shape, None, dtype=object)
        if self.stale_value is None:
            self.stale_value = np.full(self.value.shape, np.nan)
        if self.flag is None:
            self.flag = np.zeros(self.value.shape, dtype=bool)
        if self.matcher_note is None:
            self.matcher_note = np.full(self.value.shape, None, dtype=object)

    @property
    def shape(self) -> tuple[int, int]:
        return self.value.shape

    def coverage(self) -> list[tuple[str, int, int]]:
        """(source, n scored, tasks) per source, in column order: the grid's coverage."""
        scored = (~np.isnan(self.value)).sum(axis=0) if self.value.size else np.zeros(len(self.sources), int)
        return [(src, int(scored[k]), self.shape[0]) for k, src in enumerate(self.sources)]

    def stale_counts(self) -> dict[str, int]:
        """source -> number of its cells whose score is stale."""
        return {src: int(sum(x is not None for x in self.stale[:, k])) for k, src in enumerate(self.sources)}

    def cell_of(self, task_id: str, source: str) -> tuple[int, int]:
        """(row, column) of a task and a source. Raises KeyError when either is not in the grid."""
        rows = np.flatnonzero(self.tasks["task_id"].to_numpy() == task_id)
        if rows.size == 0 or source not in self.sources:
            raise KeyError((task_id, source))
        return int(rows[0]), self.sources.index(source)


def build_grid(answers: pd.DataFrame, scorer: str | None = None, matchers: pd.DataFrame | None = None,
               coverage: pd.DataFrame | None = None) -> GridData:
    """Dense grid arrays from the long table of ``answer_table.load_answers`` (one row per answer), with the
    matcher audit's flags (``audit.matcher_audit``'s table) when given, and with ``coverage``
    (``evidence.answer_coverage``'s table) the tasks' ``saw`` / ``never_saw`` flags: some source was sent a frame
    of the ground truth's span / some source was never sent one.

    Costs O(answers) with numpy fancy indexing plus one ``filter_answers`` call per row flag.
    """
    sources = sorted(answers["source"].unique().tolist()) if not answers.empty else []
    task_cols = ["task_id", "external_id", "category", "sub_category", "scenario", "answer_type", "query",
                 "ground_truth"]
    tasks = (answers.drop_duplicates("task_id")[task_cols].sort_values("external_id", kind="stable")
             .reset_index(drop=True)) if not answers.empty else pd.DataFrame(columns=task_cols)
    n, k = len(tasks), len(sources)
    row_of = pd.Series(np.arange(n), index=tasks["task_id"].to_numpy())
    col_of = pd.Series(np.arange(k), index=sources, dtype=int)
    r = row_of.reindex(answers["task_id"].to_numpy()).to_numpy(dtype=int) if n else np.zeros(0, int)
    c = col_of.reindex(answers["source"].to_numpy()).to_numpy(dtype=int) if k else np.zeros(0, int)

    def filled(fill: Any, dtype: Any, column: np.ndarray) -> np.ndarray:
        out = np.full((n, k), fill, dtype=dtype)
        out[r, c] = column
        return out

    present = filled(False, bool, np.ones(len(answers), bool))
    texts = answers["answer"].to_numpy(dtype=object) if n else np.zeros(0, object)
    short = filled("", object, np.array([short_answer(t) for t in texts], dtype=object))
    value = filled(np.nan, float, answers["value"].to_numpy(dtype=float)) if n else np.zeros((0, k))
    corr = answers["correct_value"].to_numpy(dtype=float) if "correct_value" in answers else \
        np.array([np.nan if v is None or v != v else float(v) for v in answers["correct"]], dtype=float)
    correct = filled(np.nan, float, corr) if n else np.zeros((0, k))
    over = filled(False, bool, answers["overridden"].to_numpy(dtype=bool)) if n else np.zeros((0, k), bool)
    errors = answers["error"].notna().to_numpy() & answers["answer"].fillna("").str.strip().eq("").to_numpy() \
        if n else np.zeros(0, bool)
    error = filled(False, bool, errors)
    answer_id = filled(None, object, answers["answer_id"].to_numpy(dtype=object)) if n else np.zeros((0, k), object)
    score_id = filled(None, object, answers["score_id"].astype(object).where(answers["score_id"].notna(), None)
                      .to_numpy(dtype=object)) if n else np.zeros((0, k), object)

    if n:
        disagree = set(answer_table.filter_answers(answers, disagree=True)["task_id"])
        wrong = set(answer_table.filter_answers(answers, wrong_only=True)["task_id"])
        tasks["disagree"] = tasks["task_id"].isin(disagree).to_numpy()
        tasks["wrong"] = tasks["task_id"].isin(wrong).to_numpy()
        # each task's answers joined from plain lists: a groupby calling a Python function per task walked the
        # Arrow-backed text column one scalar at a time (issue 37)
        said: dict[str, list[str]] = {}
        for t, text in zip(answers["task_id"].tolist(), answers["answer"].tolist()):
            if text is not None and text == text:        # NaN is how the text column reads a missing answer
                said.setdefault(t, []).append(str(text))
        joined = [" ".join(said.get(t, ())) for t in tasks["task_id"].tolist()]
        tasks["search"] = (tasks["external_id"].astype(str) + " " + tasks["query"].fillna("").astype(str) + " "
                           + tasks["ground_truth"].fillna("").astype(str) + " " + np.array(joined, dtype=object)
                           ).str.lower()
    else:
        tasks["disagree"], tasks["wrong"], tasks["search"] = [], [], []
    stale = stale_value = None
    if n and "stale_reason" in answers:
        stale = filled(None, object, answers["stale_reason"].astype(object).where(answers["stale_reason"].notna(),
                                                                                  None).to_numpy(dtype=object))
        stale_value = filled(np.nan, float, answers["stale_value"].to_numpy(dtype=float))
    grid = GridData(sources, tasks, present, answer_id, score_id, short, value, correct, over, error,
                    score_scale(scorer, value), stale=stale, stale_value=stale_value)
    if matchers is not None and not matchers.empty and n:
        at = {aid: (int(rr), int(cc)) for aid, rr, cc in zip(answers["answer_id"], r, c)}
        for aid, m, why, judge, flag in matchers.itertuples(index=False, name=None):
            if aid not in at:
                continue
            cell = at[aid]
            grid.flag[cell] = bool(flag)
            verdict = "cannot decide" if m is None else ("correct" if m else "incorrect")
            grid.matcher_note[cell] = (f"deterministic matchers: {verdict} ({why})"
                                       + ("; the judge says " + ("correct" if judge else "incorrect")
                                          + ": check by hand" if flag else ""))
        tasks["flagged"] = grid.flag.any(axis=1)
    else:
        tasks["flagged"] = np.zeros(n, dtype=bool)
    status = (coverage.set_index("answer_id")["evidence"].reindex(answers["answer_id"]).to_numpy(dtype=object)
              if coverage is not None and n else np.full(len(answers), None, dtype=object))
    for column, wanted in (("saw", evidence.SAW), ("never_saw", evidence.NEVER_SAW)):
        hit = filled(False, bool, status == wanted) if n else np.zeros((0, k), bool)
        tasks[column] = hit.any(axis=1) if n else np.zeros(0, dtype=bool)
    return grid


# ---------------------------------------------------------------- everything the panel shows
@dataclass
class ComparisonView:
    """One scorer's comparison for the view: the long table, the grid, per-source and per-category summaries
    (see ``summaries.source_summary``), the scorers that have scores, and the label of the chosen one."""

    scorer: str | None
    scorer_label: str
    answers: pd.DataFrame
    grid: GridData
    summary: pd.DataFrame
    by_category: pd.DataFrame
    scorers: list[str] = field(default_factory=list)
    evidence_split: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Each source's accuracy by evidence status (``evidence.split_by_evidence``)."""

    def category_cells(self) -> pd.DataFrame:
        """See ``category_cells``."""
        return category_cells(self.by_category, self.summary)


def available_scorers(project: Project) -> list[str]:
    """Scorer names that have at least one score row in the project, most rows first."""
    with project.read() as s:
        rows = s.execute(select(Score.scorer, func.count()).group_by(Score.scorer)).all()
    return [name for name, _ in sorted(rows, key=lambda r: (-r[1], r[0]))]


_last: tuple[list[tuple], ComparisonView] | None = None
"""The last view ``load_view`` computed from a project file, with what it was computed from (one, the project
a window shows); given again while the file has not changed (``store.data_version``)."""
_last_lock = threading.Lock()


def load_view(project: Project, scorer: str | None = None, run_ids: Sequence[str] | None = None, *,
              n_resamples: int = 2000, seed: int | None = 0,
              progress: Callable[[int, int], None] = lambda done, total: None,
              cancelled: Callable[[], bool] = lambda: False) -> ComparisonView:
    """Read and summarise one scorer (None: the one with most scores) over the chosen runs (all when None).

    No paired differences are computed (the report does that); the summaries are those of
    ``summaries.source_summary`` and ``summaries.group_summary(by="category")``, from one set of draws
    (``summaries.summarise``).
    ``cancelled`` is checked between steps; a cancelled load still returns what it has read.

    A project file nothing was committed to since the last load with the same arguments gives that same
    view object back at once (SQLite's ``data_version``, ``store.data_version``: any commit, from this process
    or another, or a replaced file, computes it again); a PostgreSQL project is always read again. Callers
    treat the view as read-only.
    """
    global _last
    version = data_version(project)
    key = (str(project.path), version, scorer, tuple(run_ids) if run_ids is not None else None, n_resamples, seed)
    with _last_lock:
        if version is not None and _last is not None and key in _last[0]:
            progress(3, 3)
            return _last[1]
    # the read allocates ~10^5 short-lived containers (frames' dicts, score rows): the collector's full walks they
    # set off held the interpreter lock 200-350 ms on two loaded cores, and the window's thread waited (issue 37)
    with gc_paused():
        view = _read_view(project, scorer, run_ids, n_resamples=n_resamples, seed=seed, progress=progress,
                          cancelled=cancelled)
    if version is not None and not cancelled():
        with _last_lock:   # found again by the scorer asked for (None: the most scored) and by the one chosen
            _last = ([key, (*key[:2], view.scorer, *key[3:])], view)
    return view


def _read_view(project: Project, scorer: str | None, run_ids: Sequence[str] | None, *, n_resamples: int,
               seed: int | None, progress: Callable[[int, int], None],
               cancelled: Callable[[], bool]) -> ComparisonView:
    scorers = available_scorers(project)
    scorer = scorer or answer_table.most_scored_scorer(project, run_ids)
    progress(0, 3)
    answers = answer_table.load_answers(project, scorer, run_ids)
    coverage_of_answers = evidence.answer_coverage(project, answers["answer_id"].tolist()) if len(answers) else None
    progress(1, 3)
    grid = build_grid(answers, scorer, audit.matcher_audit(project, answers, scorer), coverage_of_answers)
    if cancelled():
        return ComparisonView(scorer, "", answers, grid, pd.DataFrame(), pd.DataFrame(), scorers)
    progress(2, 3)
    summary, tables, _ = summaries.summarise(answers, n_resamples=n_resamples, seed=seed, groups=("category",),
                                             scorer=scorer, tasks=answer_table.load_scope(project, answers))
    by_category = tables["category"]
    progress(3, 3)
    label = scoring.scorer_description(scorer) if scorer else "no scores yet"
    split = (evidence.split_by_evidence(answers, coverage_of_answers, scorer) if coverage_of_answers is not None
             else pd.DataFrame())
    return ComparisonView(scorer, label, answers, grid, summary, by_category, scorers, split)


# ---------------------------------------------------------------- the summary table
def category_cells(by_category: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """The seeds' table as a long frame: one row per (category, source) with n (scored), total (tasks),
    answers, headline, headline_ci_low, headline_ci_high (unscored counted as ``coverage.unscored_rule``
    says), mean, ci_low, ci_high (over the scored answers), accuracy, interval_note; categories sorted, then
    "all" (the per-source figures over every task, intervals stratified by category). Empty frame (same
    columns) when nothing is there."""
    cols = ["category", "source", "n", "total", "answers", "headline", "headline_ci_low", "headline_ci_high",
            "mean", "ci_low", "ci_high", "accuracy", "interval_note"]
    parts = []
    if not by_category.empty:
        part = by_category.reset_index()
        part = part.rename(columns={part.columns[1]: "category"})
        parts.append(part.reindex(columns=cols).sort_values(["category", "source"], kind="stable"))
    if not summary.empty:
        part = summary.reset_index().assign(category="all")
        parts.append(part.reindex(columns=cols))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)


def cell_text(mean: float, ci_low: float, ci_high: float, n: int, total: int | None = None, *,
              decimals: int = 3) -> str:
    """'0.625 [0.500–0.750] 12/16 scored' ('0.625 (n too small) 8/10 scored' below
    ``coverage.MIN_INTERVAL_N`` scored; '— 0/4 scored' when nothing is scored; 'n=12' for the coverage
    when ``total`` is None)."""
    count = f"n={int(n)}" if total is None else coverage.coverage_text(n, total)
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return f"— {count}"
    ci = coverage.interval_text(ci_low, ci_high, n, decimals=decimals)
    return f"{mean:.{decimals}f}{' ' + ci if ci else ''} {count}"


def category_bars(by_category: pd.DataFrame, *, title: str = "headline mean by category",
                  value: str = "headline") -> Figure:
    """Grouped horizontal bars: one group per category, one bar per source, with the 95 % bootstrap interval
    as error bars (none below ``coverage.MIN_INTERVAL_N`` scored) and each source's coverage in the legend;
    ``value``: "headline" (unscored counted as the benchmark counts them) or "mean" (of scored answers).
    The figure is attached to an Agg canvas; a Qt canvas may adopt it."""
    if value not in by_category:
        value = "mean"
    low, high = ("ci_low", "ci_high") if value == "mean" else (f"{value}_ci_low", f"{value}_ci_high")
    fig = Figure(figsize=(7.0, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    if by_category.empty or by_category["mean"].notna().sum() == 0:
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, "no scored answers", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    table = by_category[value].unstack(level=0).dropna(how="all")      # categories with a scored answer
    lo = by_category[low].unstack(level=0).reindex_like(table)
    hi = by_category[high].unstack(level=0).reindex_like(table)
    cats = [str(c) for c in table.index]
    sources = [f"{s} ({int(by_category.xs(s, level=0)['n'].sum())}/{int(by_category.xs(s, level=0)['total'].sum())}"
               " scored)" if "total" in by_category else str(s) for s in table.columns]
    fig.set_size_inches(7.0, 1.5 + 0.22 * len(cats) * max(1, len(sources)) ** 0.8)
    ax = fig.add_subplot()
    height = 0.8 / max(1, len(sources))
    y = np.arange(len(cats))
    colours = matplotlib_cycle(len(sources))
    for j, src in enumerate(table.columns):
        m = table[src].to_numpy(dtype=float)
        err = np.vstack([np.clip(np.nan_to_num(m - lo[src].to_numpy(dtype=float)), 0, None),
                         np.clip(np.nan_to_num(hi[src].to_numpy(dtype=float) - m), 0, None)])
        ax.barh(y + (j - (len(sources) - 1) / 2) * height, np.nan_to_num(m), height=height * 0.95, xerr=err,
                color=colours[j], ecolor="#333333", capsize=2, label=sources[j])
    ax.set_yticks(y, cats)
    ax.invert_yaxis()
    ax.set_xlabel(("headline mean" if value == "headline" else "mean of scored answers")
                  + f", 95 % bootstrap interval (none below {coverage.MIN_INTERVAL_N} scored)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_title(title, fontsize=9)
    return fig


def matplotlib_cycle(k: int) -> list[str]:
    """``k`` distinct colours from matplotlib's tab10/tab20 palettes."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if k <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(k)]


# ---------------------------------------------------------------- one answer
@dataclass
class AnswerDetail:
    """Everything the detail pane shows about one answer under one scorer.

    ``frames``: what the model saw, in request order: dicts with media_id, file_name, frame_index (None for a
    still image or a document page), pts_s (seconds, None when unknown). ``inputs``: the task's inputs, dicts
    with position, name, media_id, start_s, end_s. ``score``: the row in force (score_id, value, correct,
    explanation, author, reason, judge_raw, judge_cost_usd, scorer_version, stale_reason) or None when unscored;
    ``history``: the override chain, oldest first (``scoring.score_history``). ``evidence``: whether a frame
    sent lies in the task's ground-truth span (``compare.evidence``): status, text, span (its text, None without
    one), distance_s, ``frames_in_span`` (frame indices of that video that lie in it), ``span_s`` (its first and
    last frame's PTS seconds) and ``timeline`` (``evidence.video_timeline``: the video the filmstrip draws).
    ``pending_ground_truth``: the change the annotations would make to a linked ground truth, not accepted yet
    (``tasks.ground_truth.GroundTruthChange.text``), else None. ``cuts``: what was cut from its requests to fit
    the provider's limits (``inference.runs.request_limits.Cut.text``: "32 asked, 16 sent: ..."), empty when nothing.
    """

    answer_id: str
    task_id: str
    external_id: str
    source: str
    run_id: str
    query: str
    ground_truth: str | None
    raw_text: str | None
    parsed: dict | None
    error: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    reasoning_tokens: int | None
    cached_tokens: int | None
    cost_usd: float | None
    latency_s: float | None
    frames: list[dict[str, Any]]
    inputs: list[dict[str, Any]]
    scorer: str | None
    score: dict[str, Any] | None
    history: list[dict[str, Any]]
    evidence: dict[str, Any] | None = None
    pending_ground_truth: str | None = None
    cuts: tuple[str, ...] = ()

    @property
    def answer_text(self) -> str:
        """The answer as scored: parsed direct answer / verdict when there is one, else the raw text."""
        parsed = self.parsed or {}
        for key in ("direct_answer", "answer", "verdict"):
            if parsed.get(key) not in (None, ""):
                return str(parsed[key])
        return self.raw_text or ""


def answer_detail(project: Project, answer_id: str, scorer: str | None) -> AnswerDetail:
    """Read one answer, its task's inputs and its score in force under ``scorer``.

    Raises NotFound for an unknown answer id.
    """
    with project.read() as s:
        a = s.get(Answer, answer_id)
        if a is None:
            raise NotFound(f"no answer {answer_id!r} in {project.path.name}")
        t = s.get(Task, a.task_id)
        run = s.get(Run, a.run_id)
        inputs = [{"position": i.position, "name": i.name, "media_id": i.media_id, "start_s": i.start_s,
                   "end_s": i.end_s}
                  for i in s.scalars(select(TaskInput).where(TaskInput.task_id == t.id).order_by(TaskInput.position))]
        frames = [{k: f.get(k) for k in ("media_id", "file_name", "frame_index", "pts_s", "request", "sha256",
                                           "width", "height", "quality", "bytes")}
                  for f in (a.frames or []) if isinstance(f, dict)]
        detail = AnswerDetail(a.id, t.id, t.external_id or t.id, run.name if run else a.run_id, a.run_id, t.query,
                              t.ground_truth, a.raw_text, a.parsed, a.error, a.prompt_tokens, a.completion_tokens,
                              a.reasoning_tokens, a.cached_tokens, a.cost_usd, a.latency_s, frames, inputs, scorer,
                              None, [])
        detail.cuts = tuple(str(t.get("text")) for t in a.trace or [] if isinstance(t, dict) and t.get("type") == "cut")
    detail.evidence = _evidence(project, detail)
    if scorer:
        scores = scoring.current_scores(project, scorer, [detail.run_id])
        row = scores[scores["answer_id"] == answer_id]
        if not row.empty:
            r = row.iloc[0]
            detail.score = {key: _none_if_nan(r[key]) for key in ("score_id", "value", "correct", "explanation",
                                                                   "author", "reason", "judge_raw", "judge_cost_usd",
                                                                   "scorer_version", "stale_reason")}
            detail.history = _service("score_history")(project, r["score_id"])
    pending = [c for c in ground_truth.pending_changes(project, [detail.task_id]) if c.ok]
    detail.pending_ground_truth = pending[0].text if pending else None
    return detail


def _evidence(project: Project, detail: AnswerDetail) -> dict[str, Any]:
    found = evidence.answer_coverages(project, [detail.answer_id]).get(detail.answer_id)
    span, cov = (found.span, found.coverage) if found else (None, evidence.coverage_of(None, None))
    inside = [] if span is None else [f["frame_index"] for f in detail.frames if f.get("media_id") == span.media_id
                                      and isinstance(f.get("frame_index"), int)
                                      and span.start_frame <= f["frame_index"] <= span.end_frame]
    return {"status": cov.status, "text": cov.text(), "span": None if span is None else span.text(),
            "span_media_id": None if span is None else span.media_id, "distance_s": cov.distance_s,
            "frames_in_span": inside, "span_s": None if span is None else (span.start_s, span.end_s),
            "timeline": evidence.video_timeline(project, span, detail.frames)}


def _none_if_nan(v: Any) -> Any:
    """None for None / NaN / pandas NA, numpy scalars as Python numbers, anything else unchanged."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    return v.item() if isinstance(v, np.generic) else v


def media_target(project: Project, detail: AnswerDetail) -> tuple[str, int] | None:
    """(media_id, frame index) to open for an answer: the earliest frame the model saw in its first video
    media; else the frame shown at the first input's ``start_s`` (from the media's frame table, PTS-based,
    never index / fps); else frame 0 of the first input that names a media; None when no media is known."""
    seen = [f for f in detail.frames if f.get("media_id")]
    if seen:
        media_id = seen[0]["media_id"]
        indices = [f["frame_index"] for f in seen if f["media_id"] == media_id and f.get("frame_index") is not None]
        return media_id, int(min(indices)) if indices else 0
    for inp in detail.inputs:
        if not inp.get("media_id"):
            continue
        if inp.get("start_s") is not None:
            from fieldstudio.media import library, video_index  # media is a headless sibling package

            try:
                media = library.find_media(project, inp["media_id"])
                table = video_index.load_frame_table(project, media)
            except Exception:  # noqa: BLE001 - a missing or unindexed video opens at its first frame
                table = None
            if table is not None and len(table):
                return inp["media_id"], max(0, int(table.index_at(float(inp["start_s"]))))
        return inp["media_id"], 0
    return None


# ---------------------------------------------------------------- a person's edits
def _service(name: str) -> Callable[..., Any]:
    """``score_store.<name>`` when the store module offers it, else ``scoring.<name>``."""
    return getattr(score_store, name, None) or getattr(scoring, name)


def set_score(project: Project, answer_id: str, scorer: str, value: float | None, reason: str, who: str) -> str:
    """A person sets the score of ``answer_id`` under ``scorer``; returns the new score row's id.

    When the answer has a score in force, this is ``override_score`` (a new row chained by ``overrides_id``,
    the old row kept as history). When it has none (never scored under that scorer), a first row is written
    with ``author = who`` and ``reason`` and the scorer's registered version. ``correct`` follows
    ``override_score``'s rule (value > the scorer's ``threshold``, where it has one).

    Raises:
        NotFound: unknown answer; ScoringError: empty reason or name, value not finite or off the 0-1 scale.
    """
    scores = scoring.current_scores(project, scorer)
    row = scores[scores["answer_id"] == answer_id]
    if not row.empty:
        return _service("override_score")(project, row.iloc[0]["score_id"], value, reason, who)
    reason, who = (reason or "").strip(), (who or "").strip()
    if not reason:
        raise scoring.ScoringError("a score set by a person needs a reason")
    if not who:
        raise scoring.ScoringError("a score set by a person needs the name of the person who sets it")
    if value is not None:
        value = float(value)
        if not math.isfinite(value):
            raise scoring.ScoringError(f"score {value!r} is not a finite number")
        if scorer in UNIT_SCALE_SCORERS and not 0.0 <= value <= 1.0:
            raise scoring.ScoringError(f"{scorer} scores lie between 0 and 1; {value:g} is outside")
    threshold = REGISTRY[scorer].threshold if scorer in REGISTRY else None
    correct = None if value is None or threshold is None else value > threshold
    version = REGISTRY[scorer].version if scorer in REGISTRY else "manual"
    with project.write() as s:
        if s.get(Answer, answer_id) is None:
            raise NotFound(f"no answer {answer_id!r} in {project.path.name}")
        new = Score(answer_id=answer_id, scorer=scorer, scorer_version=version, value=value, correct=correct,
                    explanation=f"set by {who}: {reason}", author=who, reason=reason,
                    **score_store.hashes_now(s, answer_id))
        s.add(new)
        s.flush()
        return new.id


def promote(project: Project, answer_id: str, who: str, reason: str = "") -> str:
    """Make the answer's text its task's ground truth (``promote_answer_to_ground_truth``); returns the task id.
    The previous ground truth is kept in ``Task.extra["ground_truth_history"]``; scores are not recomputed."""
    return _service("promote_answer_to_ground_truth")(project, answer_id, who, reason)
