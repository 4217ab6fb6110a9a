"""Evidence coverage: whether a model was sent any frame of the moment its task's ground truth is about.

A task's **evidence** is a span of frames of one video, taken from what the supervisor marked or wrote:

* the annotation its ground truth is linked to (``tasks.ground_truth``): a segment's first to last frame, an
  event's, box's or ruler's frame; a count's frame range over its video;
* else, for a time or time-range task with one video input, the time(s) in its reference text
  (``core.matchers.parse_time_range_s`` / ``parse_time_s``, seconds from the video's first PTS), as the frames
  shown at those times (``FrameTable.index_at``).

An answer **saw** the evidence when one of the frames it was sent (``Answer.frames``, recorded by the run queue:
media id, frame index, PTS) is of that video and its index lies in the span; it **never saw** it otherwise, with
the distance in seconds from the nearest frame it was sent of that video to the span (None when it was sent no
frame of that video). All comparisons are on frame indices of the stored frame table, so "saw" is exact; the
distance uses the table's PTS seconds. Tasks without such evidence, and videos whose frame index is not built,
are "no evidence" / "unknown": they never count as saw or never saw.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import select

from fieldstudio.compare.coverage import coverage_text
from fieldstudio.core import matchers
from fieldstudio.media import video_index
from fieldstudio.media.frame_table import FrameTable
from fieldstudio.scoring.scorers.temporal_iou import MS_SLACK_S
from fieldstudio.store.models import Annotation, Answer, Media, Task
from fieldstudio.store.portable import in_chunks
from fieldstudio.store.project import Project
from fieldstudio.tasks.ground_truth import LINK_KEY
from fieldstudio.tasks.task_records import video_inputs

SAW, NEVER_SAW, NO_EVIDENCE, UNKNOWN = "saw", "never saw", "no evidence", "unknown"
STATUSES = (SAW, NEVER_SAW, UNKNOWN, NO_EVIDENCE)
"""Every coverage status, in the order they are listed."""

__all__ = ["SAW", "NEVER_SAW", "NO_EVIDENCE", "UNKNOWN", "STATUSES", "EvidenceSpan", "Coverage", "task_spans",
           "task_evidence", "coverage_of", "AnswerCoverage", "answer_coverages", "answer_coverage", "split_by_evidence", "split_lines", "STATUS_WORDS", "video_timeline", "EvidenceReport", "evidence_report"]


@dataclass(frozen=True)
class EvidenceSpan:
    """Frames ``start_frame``..``end_frame`` (inclusive) of video ``media_id``; ``start_s``/``end_s`` their PTS in
    seconds; ``origin`` says where the span comes from ("segment 'lifting'", "the reference's time range")."""

    media_id: str
    start_frame: int
    end_frame: int
    start_s: float
    end_s: float
    origin: str

    def text(self) -> str:
        """``frames 12–60 (0.800–4.000 s), segment 'walking'``."""
        frames = (f"frame {self.start_frame}" if self.start_frame == self.end_frame
                  else f"frames {self.start_frame}–{self.end_frame}")
        times = (f"{self.start_s:.3f} s" if self.start_frame == self.end_frame
                 else f"{self.start_s:.3f}–{self.end_s:.3f} s")
        return f"{frames} ({times}), {self.origin}"


@dataclass(frozen=True)
class Coverage:
    """One answer against its task's evidence: ``status`` (one of ``STATUSES``), ``distance_s`` (0 when it saw
    the span; seconds from its nearest frame of that video otherwise; None when unknown), ``frames_sent`` (of any
    media), ``frames_in_span``, and ``note``: why, when the status alone does not say it."""

    status: str
    distance_s: float | None = None
    frames_sent: int = 0
    frames_in_span: int = 0
    note: str = ""

    def text(self) -> str:
        """What a person reads: ``saw the evidence (2 of 8 frames sent in it)``, ``never saw it: the nearest of 8
        frames sent is 2.400 s away``."""
        if self.status == SAW:
            return f"saw the evidence ({self.frames_in_span} of {self.frames_sent} frames sent in it)"
        if self.status == NEVER_SAW:
            if self.note:
                return f"never saw it: {self.note}"
            return f"never saw it: the nearest of {self.frames_sent} frames sent is {self.distance_s:.3f} s away"
        if self.status == UNKNOWN:
            return f"unknown: {self.note}"
        return "no evidence: the ground truth names no frame or time of a video"


def _span(table: FrameTable, media_id: str, first: int, last: int, origin: str) -> EvidenceSpan | None:
    n = len(table)
    if n == 0:
        return None
    first, last = max(0, min(first, last)), min(n - 1, max(first, last))
    if first > n - 1 or last < 0:
        return None
    return EvidenceSpan(media_id, first, last, table.seconds(first), table.seconds(last), origin)


def _link(task: Task) -> Mapping[str, Any] | None:
    link = (task.ground_truth_extra or {}).get(LINK_KEY)
    return link if isinstance(link, Mapping) else None


def task_evidence(project: Project, task_ids: Iterable[str] | None = None) -> dict[str, EvidenceSpan | None]:
    """The evidence of each task of ``task_ids`` (None: every task) that has some (module docstring), by task
    id: its span, or None when the ground truth names frames or times of a video whose frame index is not built
    (the coverage of its answers is then unknown). A linked annotation that was deleted leaves the reference's
    time, if any; a reference time range written backwards, or starting after the video's last frame, is no
    evidence."""
    wanted = None if task_ids is None else set(task_ids)
    tables: dict[str, FrameTable | None] = {}
    out: dict[str, EvidenceSpan | None] = {}
    with project.read() as s:
        if wanted is None:
            tasks = list(s.scalars(select(Task)))
        else:     # only the tasks asked for (one answer's detail reads one task, not the project's)
            tasks = [t for part in in_chunks(wanted) for t in s.scalars(select(Task).where(Task.id.in_(part)))]
        videos, inputs = video_inputs(s, [t.id for t in tasks])
        links = [_link(t) for t in tasks]
        wanted_annotations = [str(link["annotation_id"]) for link in links if link and link.get("annotation_id")]
        linked = {a.id: a for part in in_chunks(wanted_annotations)
                  for a in s.scalars(select(Annotation).where(Annotation.id.in_(part)))}

    def table(media_id: str) -> FrameTable | None:
        if media_id not in tables:
            tables[media_id] = video_index.load_frame_table(project, videos[media_id])
        return tables[media_id]

    for t in tasks:
        link = _link(t) or {}
        ann = linked.get(str(link.get("annotation_id"))) if link.get("annotation_id") else None
        if ann is not None and not ann.deleted and ann.media_id in videos and ann.frame_index is not None:
            last = ann.end_frame_index if ann.end_frame_index is not None else ann.frame_index
            name = f"{ann.kind} {ann.text!r}" if ann.text else ann.kind
            tb = table(ann.media_id)
            out[t.id] = None if tb is None else _span(tb, ann.media_id, ann.frame_index, last,
                                                      f"{name} linked to the ground truth")
            continue
        if link.get("kind") == "count" and link.get("media_id") in videos:
            tb = table(str(link["media_id"]))
            if tb is None:
                out[t.id] = None
            else:
                last = link.get("end_frame") if link.get("end_frame") is not None else len(tb) - 1
                out[t.id] = _span(tb, str(link["media_id"]), int(link.get("start_frame") or 0), int(last),
                                  "the counted frame range")
            continue
        if t.answer_type not in ("time", "time_range") or len(set(inputs.get(t.id, []))) != 1 or not t.ground_truth:
            continue
        media_id = inputs[t.id][0]
        times = matchers.parse_time_range_s(t.ground_truth)
        origin = "the reference's time range"
        if times is None and (one := matchers.parse_time_s(t.ground_truth)) is not None:
            times, origin = (one, one), "the reference's time"
        if times is None or times[0] > times[1]:
            continue
        tb = table(media_id)
        if tb is None or not len(tb):
            out[t.id] = None
            continue
        start = float(tb.seconds(0))
        if start + times[0] > float(tb.seconds(len(tb) - 1)):
            continue                  # after the last frame: the video does not hold that moment
        # the frame a time written to the millisecond names, as fs-tiou reads it (0.033 s is the frame at 0.0333 s)
        out[t.id] = _span(tb, media_id, tb.index_at(start + times[0] + MS_SLACK_S),
                          tb.index_at(start + times[1] + MS_SLACK_S), origin)
    return out


def task_spans(project: Project, task_ids: Iterable[str] | None = None) -> dict[str, EvidenceSpan]:
    """The evidence spans of :func:`task_evidence` that are known (tasks without one are left out)."""
    return {k: v for k, v in task_evidence(project, task_ids).items() if v is not None}


def coverage_of(span: EvidenceSpan | None, frames: Sequence[Mapping[str, Any]] | None,
                table: FrameTable | None = None) -> Coverage:
    """One answer's coverage of ``span`` from the ``frames`` it was sent (``Answer.frames``: dicts with media_id
    and an integer frame_index; None when the answer records none, an empty list when it was sent no frame).
    ``table`` (the span's video's frame table) gives the distance in seconds; without it a frame's own
    ``pts_s`` is used."""
    if span is None:
        return Coverage(NO_EVIDENCE, frames_sent=len(frames or []))
    if frames is None:
        return Coverage(UNKNOWN, note="the answer records no frames (imported, or made before frames were kept)")
    frames = [f for f in frames if isinstance(f, Mapping)]
    if not frames:
        return Coverage(NEVER_SAW, note="no frame was sent with its request(s)")
    same = [f for f in frames if f.get("media_id") == span.media_id]
    placed = [f for f in same if isinstance(f.get("frame_index"), int) and not isinstance(f.get("frame_index"), bool)]
    inside = [f for f in placed if span.start_frame <= f["frame_index"] <= span.end_frame]
    if inside:
        return Coverage(SAW, 0.0, len(frames), len(inside))
    if same and not placed:
        return Coverage(UNKNOWN, frames_sent=len(frames), note="the frames sent of that video carry no frame index")
    if not same:
        return Coverage(NEVER_SAW, frames_sent=len(frames),
                        note=f"none of the {len(frames)} frames sent is of that video")
    distances = []
    for f in placed:
        i = f["frame_index"]
        if table is not None and 0 <= i < len(table):
            t = table.seconds(i)
        elif isinstance(f.get("pts_s"), (int, float)):
            t = float(f["pts_s"])
        else:
            continue
        distances.append(span.start_s - t if t < span.start_s else t - span.end_s)
    if not distances:
        return Coverage(NEVER_SAW, frames_sent=len(frames), note=f"none of the {len(placed)} frames sent of that "
                        "video is in it (their time is unknown)")
    return Coverage(NEVER_SAW, min(distances), len(frames), 0)


@dataclass(frozen=True)
class AnswerCoverage:
    """One answer's coverage: its ``task_id``, its ``coverage`` and its task's ``span`` (None without one)."""

    task_id: str
    coverage: Coverage
    span: EvidenceSpan | None


def answer_coverages(project: Project, answer_ids: Sequence[str] | None = None) -> dict[str, AnswerCoverage]:
    """The coverage of every answer of ``answer_ids`` (None: all), by answer id."""
    with project.read() as s:
        q = select(Answer.id, Answer.task_id, Answer.frames)
        rows = (s.execute(q).all() if answer_ids is None else
                [r for part in in_chunks(answer_ids) for r in s.execute(q.where(Answer.id.in_(part))).all()])
        found = task_evidence(project, {r[1] for r in rows})
        medias = {m.id: m for m in s.scalars(select(Media).where(Media.id.in_(
            {span.media_id for span in found.values() if span is not None})))}
    tables = {media_id: video_index.load_frame_table(project, media) for media_id, media in medias.items()}
    out = {}
    for answer_id, task_id, frames in rows:
        span = found.get(task_id)
        if task_id in found and span is None:
            cov = Coverage(UNKNOWN, note="the video's frame index is not built yet (the window builds it while the "
                                         "project is open)")
        else:
            cov = coverage_of(span, frames if isinstance(frames, list) else None,
                              None if span is None else tables.get(span.media_id))
        out[answer_id] = AnswerCoverage(task_id, cov, span)
    return out


def answer_coverage(project: Project, answer_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """:func:`answer_coverages` as a table. Columns: answer_id, task_id, evidence (a status of ``STATUSES``),
    evidence_distance_s (float, NaN when none), frames_sent (int), evidence_span (the span's text, None without
    one), evidence_text (what a person reads)."""
    rows = [(answer_id, a.task_id, a.coverage.status,
             math.nan if a.coverage.distance_s is None else a.coverage.distance_s, a.coverage.frames_sent,
             None if a.span is None else a.span.text(), a.coverage.text())
            for answer_id, a in answer_coverages(project, answer_ids).items()]
    return pd.DataFrame(rows, columns=["answer_id", "task_id", "evidence", "evidence_distance_s", "frames_sent",
                                       "evidence_span", "evidence_text"])


def split_by_evidence(answers: pd.DataFrame, coverage: pd.DataFrame, scorer: str | None = None) -> pd.DataFrame:
    """Accuracy of each source split by coverage: one row per (source, evidence status) present, with answers
    (int), scored (int: answers with a value), mean (mean value of the scored ones, NaN when none), accuracy (share
    of the scored ones the scorer counts correct, NaN when none has a verdict) and coverage (``"12/20 scored"``,
    with ``", 2 stale"`` when some scores no longer stand). ``answers`` is ``compare.answer_table.load_answers``'s
    table (answer_id, source, value, and correct and stale_reason when present); ``coverage`` is
    :func:`answer_coverage`'s. A stale score has no value there, so it is never counted as scored. Tasks ``scorer``
    does not apply to (``summaries.applicable``) are left out, as from the summary, so each source's answers here
    add up to its total there."""
    from fieldstudio.compare.summaries import applicable

    answers = applicable(answers, scorer)
    cols = ["answer_id", "source", "value"] + [c for c in ("correct", "stale_reason") if c in answers]
    merged = answers[cols].merge(coverage[["answer_id", "evidence"]], on="answer_id", how="left")
    merged["evidence"] = merged["evidence"].fillna(UNKNOWN)
    rows = []
    for (source, status), group in merged.groupby(["source", "evidence"], sort=True):
        values = group["value"].to_numpy(dtype=float)
        finite = np.isfinite(values)
        scored = int(finite.sum())
        accuracy = math.nan
        if "correct" in group and scored:
            verdicts = pd.to_numeric(group["correct"], errors="coerce").to_numpy(dtype=float)[finite]
            verdicts = verdicts[np.isfinite(verdicts)]
            accuracy = float(verdicts.mean()) if verdicts.size else math.nan
        stale = int(group["stale_reason"].notna().sum()) if "stale_reason" in group else 0
        rows.append((source, status, len(group), scored, float(values[finite].mean()) if scored else math.nan,
                     accuracy, coverage_text(scored, len(group)) + (f", {stale} stale" if stale else "")))
    frame = pd.DataFrame(rows, columns=["source", "evidence", "answers", "scored", "mean", "accuracy", "coverage"])
    order = {s: i for i, s in enumerate(STATUSES)}
    return frame.sort_values(["source", "evidence"], key=lambda c: c.map(order) if c.name == "evidence" else c,
                             kind="stable").reset_index(drop=True)


STATUS_WORDS = {SAW: "saw the evidence", NEVER_SAW: "never saw it", UNKNOWN: "unknown", NO_EVIDENCE: "no evidence"}
"""How each status reads in a sentence."""


def split_lines(split: pd.DataFrame) -> list[str]:
    """:func:`split_by_evidence` as one line per source, what the Summary tab and ``fieldstudio report`` print:
    ``alpha — saw the evidence: mean 0.750, accuracy 0.750 (4/4 scored); never saw it: mean 0.000 (1/2 scored)``
    ("—" for a mean or accuracy with nothing scored)."""
    def num(v: float) -> str:
        return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"

    lines = []
    for source, group in split.groupby("source", sort=False):
        parts = [f"{STATUS_WORDS.get(r.evidence, r.evidence)}: mean {num(r.mean)}"
                 + ("" if math.isnan(r.accuracy) else f", accuracy {num(r.accuracy)}") + f" ({r.coverage})"
                 for r in group.itertuples(index=False)]
        lines.append(f"{source} — " + "; ".join(parts))
    return lines


def video_timeline(project: Project, span: EvidenceSpan | None, frames: Sequence[Mapping[str, Any]]
                   ) -> dict[str, Any] | None:
    """The video a filmstrip's timeline draws for one answer: the span's video, else the first video one of the
    ``frames`` sent is of. Returns {"media_id", "start_s", "end_s"} (PTS seconds of its first and last frame in
    the stored frame table, the clock of ``EvidenceSpan`` and of a frame's ``pts_s``), or None when no frame
    sent or span names a video whose frame index is built."""
    media_ids = ([span.media_id] if span is not None else []) + [str(f["media_id"]) for f in frames
                                                                  if f.get("media_id")]
    with project.read() as s:
        videos = [m for m in (s.get(Media, media_id) for media_id in dict.fromkeys(media_ids))
                  if m is not None and m.kind == "video"]
    for media in videos:
        table = video_index.load_frame_table(project, media)
        if table is not None and len(table):
            return {"media_id": media.id, "start_s": float(table.seconds(0)),
                    "end_s": float(table.seconds(len(table) - 1))}
    return None


@dataclass(frozen=True)
class EvidenceReport:
    """What ``fieldstudio evidence`` prints: the scorer whose values are
    split (None: nothing scored), the split (:func:`split_by_evidence`) and every answer's coverage with its
    source and external id (:func:`answer_coverage` plus source, external_id, value)."""

    scorer: str | None
    split: pd.DataFrame
    answers: pd.DataFrame


def evidence_report(project: Project, scorer: str | None = None, run_ids: Sequence[str] | None = None
                    ) -> EvidenceReport:
    """Coverage and the split of accuracy for the answers of ``run_ids`` (None: every run) under ``scorer``
    (None: the scorer with the most scores, ``answer_table.most_scored_scorer``). Raises NotFound for an
    unknown run reference."""
    from fieldstudio.compare import answer_table

    scorer = scorer or answer_table.most_scored_scorer(project, run_ids)
    answers = answer_table.load_answers(project, scorer, run_ids)
    cov = answer_coverage(project, answers["answer_id"].tolist())
    table = answers[["answer_id", "source", "external_id", "value"]].merge(cov, on="answer_id", how="left")
    return EvidenceReport(scorer, split_by_evidence(answers, cov, scorer), table)
