"""The acceptability pre-screen of a rating set: measure its items, tune the rules on the raters, score.

Each item's pixels come from ``FrameSource`` (the exact photo or video frame the raters saw). The target
box is, in order: the item's ground truth ``target_box``; the box annotation on that photo or frame
whose ``attributes`` mark it as the target (``{"target": true}`` or ``{"role": "target"}``); the only
box there; the largest box there. The other boxes on the frame are the possible occluders. With no box
the whole frame is the target (the box terms then always hold). ``MeasuredItem.target_source`` says
which rule picked the box, so the GUI can draw it and a user can check it.

The scorer's verdicts are stored as ratings of the source ``scorer:acceptability-rules`` (see
``ratings.records``), so the agreement panel compares them with the raters' majority like a model's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.media.frames import FrameSource
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.ratings.acceptability import rules as ar
from fieldstudio.ratings.acceptability.measures import measure_all
from fieldstudio.store.models import Annotation, Rating
from fieldstudio.store.project import Project

__all__ = ["SOURCE", "MeasuredItem", "ScoreReport", "Disagreement", "measure_rating_set", "rules_of",
           "tune_rating_set", "score_rating_set", "disagreements"]

SOURCE = f"scorer:{ar.NAME}"


@dataclass(frozen=True)
class MeasuredItem:
    """One item's measures (``ratings.acceptability.measures.measure_all`` keys), the ``target_box`` measured
    (None = whole frame), why it was chosen (``target_source``), the ``others`` boxes, or the ``error``
    that stopped it (missing file, undecodable frame)."""

    item_id: str
    label: str
    measures: dict[str, Any] | None
    target_box: list[float] | None
    target_source: str
    others: list[list[float]] = field(default_factory=list)
    error: str | None = None


def _boxes(project: Project, item: ratings.ItemView) -> list[Annotation]:
    with project.read() as s:
        q = select(Annotation).where(Annotation.media_id == item.media_id, Annotation.kind == "box",
                                     Annotation.deleted.is_(False))
        q = q.where(Annotation.frame_index.is_(None) | (Annotation.frame_index == 0)) if item.frame_index is None \
            else q.where(Annotation.frame_index == item.frame_index)
        return [b for b in s.scalars(q) if isinstance(b.geometry, list) and len(b.geometry) == 4]


def _target(project: Project, item: ratings.ItemView) -> tuple[list[float] | None, str, list[list[float]]]:
    gt_box = (item.ground_truth or {}).get("target_box")
    boxes = _boxes(project, item)
    geoms = [[float(v) for v in b.geometry] for b in boxes]
    if gt_box:
        return [float(v) for v in gt_box], "ground truth", geoms
    if not boxes:
        return None, "whole frame", []
    marked = [k for k, b in enumerate(boxes)
              if (b.attributes or {}).get("target") is True or (b.attributes or {}).get("role") == "target"]
    if marked:
        k, source = marked[0], "annotation marked target"
    elif len(boxes) == 1:
        k, source = 0, "only box"
    else:
        k = max(range(len(geoms)), key=lambda j: (geoms[j][2] - geoms[j][0]) * (geoms[j][3] - geoms[j][1]))
        source = "largest box"
    return geoms[k], source, geoms[:k] + geoms[k + 1:]


def measure_rating_set(project: Project, ref: str, *,
                       progress: Callable[[int, int], None] = lambda done, total: None,
                       cancelled: Callable[[], bool] = lambda: False) -> list[MeasuredItem]:
    """Measure every item of a rating set, in queue order (stops early when ``cancelled()``).

    An item whose file is missing or whose frame cannot be decoded gets ``error`` and no measures;
    the others go on. Raises NotFound for an unknown rating set.
    """
    items = ratings.list_items(project, ref)
    source = FrameSource(project, max_readers=2)
    out: list[MeasuredItem] = []
    try:
        for done, item in enumerate(items):
            if cancelled():
                break
            try:
                if item.media_id is None:
                    raise FieldstudioError("its media was removed from the project")
                frame = source.get(item.media_id, item.frame_index or 0)
                box, why, others = _target(project, item)
                measures = measure_all(frame.rgb, box, others)
                out.append(MeasuredItem(item.id, item.label, measures, box, why, others))
            except (FieldstudioError, IndexError, ValueError) as exc:
                out.append(MeasuredItem(item.id, item.label, None, None, "none", [], str(exc)))
            progress(done + 1, len(items))
    finally:
        source.close()
    return out


def rules_of(project: Project, ref: str) -> ar.Rules:
    """The rules stored with a rating set, or ``DEFAULT_RULES`` when none were stored yet."""
    info = ratings.get_rating_set(project, ref)
    return ar.Rules.from_dict(info.rules) if info.rules else ar.DEFAULT_RULES


def tune_rating_set(project: Project, ref: str, *, rules: ar.Rules | None = None, seed: int = 0,
                    n_resamples: int = 1000, measured: list[MeasuredItem] | None = None,
                    progress: Callable[[int, int], None] = lambda done, total: None,
                    cancelled: Callable[[], bool] = lambda: False) -> ar.TuneReport:
    """Tune the set's rules (or ``rules``) on a seeded 60 % of its rated items, report on the other 40 %,
    and store the tuned rules (with seed and date) in the rating set.

    Raises RulesError when too few items have a majority and measures; NotFound for an unknown set.
    """
    rules = rules or rules_of(project, ref)
    measured = measured if measured is not None else measure_rating_set(project, ref, progress=progress,
                                                                        cancelled=cancelled)
    humans, _ = ratings.verdict_tables(project, ref)
    measures = {m.item_id: m.measures for m in measured if m.measures is not None}
    report = ar.tune(rules, measures, humans, seed=seed, n_resamples=n_resamples)
    ratings.update_rating_set(project, ref, rules=report.rules.to_dict())
    return report


@dataclass(frozen=True)
class ScoreReport:
    """Verdict counts of the scorer over a set, the items that could not be measured (label, reason),
    and each scored item's RuleVerdict by item id."""

    counts: dict[str, int]
    errors: list[tuple[str, str]]
    verdicts: dict[str, ar.RuleVerdict]


def score_rating_set(project: Project, ref: str, *, rules: ar.Rules | None = None,
                     measured: list[MeasuredItem] | None = None,
                     progress: Callable[[int, int], None] = lambda done, total: None,
                     cancelled: Callable[[], bool] = lambda: False) -> ScoreReport:
    """Apply the rules to every item and store the verdicts as the source ``scorer:acceptability-rules``
    (failing and undecided terms, the explanation and the rules' tuning stamp kept with each verdict).

    Items that cannot be measured get no verdict and are listed in ``errors``.
    """
    rules = rules or rules_of(project, ref)
    measured = measured if measured is not None else measure_rating_set(project, ref, progress=progress,
                                                                        cancelled=cancelled)
    verdicts: dict[str, ar.RuleVerdict] = {}
    errors: list[tuple[str, str]] = []
    by_item = {m.item_id: m for m in measured}
    for m in measured:
        if m.measures is None:
            errors.append((m.label, m.error or "not measured"))
            continue
        verdicts[m.item_id] = ar.evaluate(rules, m.measures)
    stamp = (rules.tuned or {}).get("date")
    ratings.record_source_verdicts(project, ref, SOURCE, {
        item_id: (v.verdict, v.reasons, {"_failing_terms": v.failing, "_undecided_terms": v.undecided,
                                         "_explanation": v.explanation, "_rules_tuned": stamp,
                                         "_scorer_version": ar.VERSION, "_measures": by_item[item_id].measures,
                                         "_target_box": by_item[item_id].target_box,
                                         "_target_source": by_item[item_id].target_source})
        for item_id, v in verdicts.items()})
    counts = {k: sum(v.verdict == k for v in verdicts.values()) for k in ("accept", "reject", "unsure")}
    return ScoreReport(counts, errors, verdicts)


@dataclass(frozen=True)
class Disagreement:
    """An item where a source's stored verdict differs from the raters' majority, with what the GUI
    draws on it: the ``failing`` and ``undecided`` terms, the ``target_box`` measured (None = whole
    frame) and the ``measures``, as stored when the item was scored."""

    item: ratings.ItemView
    majority: str
    verdict: str
    failing: list[str]
    undecided: list[str]
    target_box: list[float] | None
    measures: dict[str, Any] | None


def disagreements(project: Project, ref: str, *, source: str = SOURCE) -> list[Disagreement]:
    """Items (queue order) where ``source`` decided (accept/reject) and differs from the raters' majority;
    ties and items without a majority are left out, as are the source's unsure verdicts."""
    from fieldstudio.core.agreement import majority

    items = {i.id: i for i in ratings.list_items(project, ref)}
    humans: dict[str, list[str]] = {}
    mine: dict[str, str] = {}
    stored: dict[str, dict[str, Any]] = {}
    with project.read() as s:
        for r in s.scalars(select(Rating).where(Rating.item_id.in_(list(items)))):
            if r.rater == source:
                stored[r.item_id] = dict(r.fields or {})
                mine[r.item_id] = r.verdict
            elif not ratings.is_machine(r.rater):
                humans.setdefault(r.item_id, []).append(r.verdict)
    out = []
    for item_id, item in items.items():
        verdict = mine.get(item_id)
        major, status = majority(humans.get(item_id, []))
        if verdict in ("accept", "reject") and status == "majority" and verdict != major:
            f = stored[item_id]
            out.append(Disagreement(item, major, verdict, list(f.get("_failing_terms") or []),
                                    list(f.get("_undecided_terms") or []), f.get("_target_box"), f.get("_measures")))
    return out
