"""What the rater-mode and agreement panels read about a rating set, computed headless.

* :func:`set_agreement` is the AgreementSummary of ``fieldstudio ratings agreement`` (the same
  ``ratings.records.verdict_tables`` + ``core.agreement.agreement_summary``), human raters only in the
  rater statistics, scorers and models (``ratings.is_machine``) compared with the rater majority.
* :func:`item_votes` lists each item's human votes, majority and machine verdicts;
  :func:`rater_disagreements` keeps the items where at least one rater accepted and another rejected.
* :func:`others_on_item` is what rater mode shows when the rater turns blind mode off.
* :func:`measure_item` measures one item with the acceptability measures and applies the set's rules
  (issue 10: "measures shown live for the current item in rater mode only when the rater asks").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from fieldstudio.core.agreement import DEFAULT_RESAMPLES, AgreementSummary, agreement_summary, majority
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.media.frames import FrameSource
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.ratings.acceptability import rules as ar
from fieldstudio.ratings.acceptability import service as acceptability
from fieldstudio.ratings.acceptability.measures import measure_all
from fieldstudio.store.models import Rating, RatingItem
from fieldstudio.store.project import Project

__all__ = ["set_agreement", "ItemVotes", "item_votes", "rater_disagreements", "verdict_counts", "others_on_item",
           "TermCheck", "ItemMeasures", "measure_item", "find_item", "stored_source_verdict"]


def set_agreement(project: Project, ref: str, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                  progress: Callable[[int, int], None] = lambda done, total: None,
                  cancelled: Callable[[], bool] = lambda: False) -> AgreementSummary:
    """Every agreement statistic of one rating set (see ``core.agreement.agreement_summary``).

    Human raters give the verdict table and the numeric-field tables; scorer and model verdicts are
    compared with the raters' majority. Bootstrap: ``n_resamples`` replicates over items, ``seed``.
    Raises NotFound for an unknown rating set.
    """
    progress(0, 1)
    humans, sources = ratings.verdict_tables(project, ref)
    summary = agreement_summary(humans, sources=sources, numeric_fields=ratings.numeric_field_tables(project, ref),
                                n_resamples=n_resamples, seed=seed)
    progress(1, 1)
    return summary


@dataclass(frozen=True)
class ItemVotes:
    """One item's human ``votes`` ({rater: verdict}), their counts, the ``majority`` verdict (None on a
    tie or with no decided vote) with its ``status`` ("majority", "tie", "none"), and the machine
    ``sources`` ({"scorer:...": verdict})."""

    item: ratings.ItemView
    votes: dict[str, str]
    accept: int
    reject: int
    unsure: int
    majority: str | None
    status: str
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def raters_disagree(self) -> bool:
        """True when at least one rater accepted and another rejected (unsure does not count)."""
        return self.accept > 0 and self.reject > 0


def item_votes(project: Project, ref: str) -> list[ItemVotes]:
    """Every item of the set in queue order with its votes and majority."""
    items = ratings.list_items(project, ref)
    humans: dict[str, dict[str, str]] = {i.id: {} for i in items}
    sources: dict[str, dict[str, str]] = {i.id: {} for i in items}
    for r in ratings.list_ratings(project, ref):
        (sources if ratings.is_machine(r.rater) else humans).setdefault(r.item_id, {})[r.rater] = r.verdict
    out = []
    for item in items:
        votes = humans[item.id]
        c = Counter(votes.values())
        verdict, status = majority(votes.values())
        out.append(ItemVotes(item, votes, c["accept"], c["reject"], c["unsure"], verdict, status, sources[item.id]))
    return out


def rater_disagreements(project: Project, ref: str) -> list[ItemVotes]:
    """The items (queue order) where the human raters disagree: one accepted and another rejected."""
    return [v for v in item_votes(project, ref) if v.raters_disagree]


def verdict_counts(project: Project, ref: str) -> dict[str, int]:
    """Human ratings per verdict: ``{"accept": n, "reject": n, "unsure": n}``."""
    c = Counter(r.verdict for r in ratings.list_ratings(project, ref, include_machine=False))
    return {v: c[v] for v in ratings.VERDICT_VALUES}


def find_item(project: Project, item_id: str) -> ratings.ItemView:
    """The ItemView of one rating item (with its queue place). Raises NotFound."""
    with project.read() as s:
        row = s.get(RatingItem, item_id)
        set_id = None if row is None else row.rating_set_id
    if set_id is None:
        raise NotFound(f"no rating item with id {item_id!r}")
    return next(i for i in ratings.list_items(project, set_id) if i.id == item_id)


def others_on_item(project: Project, item_id: str, rater: str) -> list[ratings.RatingView]:
    """Every rating of one item except ``rater``'s own: the other raters first, then scorers and models.

    Only for the open (not blind) view: rater mode never calls it while rating blind.
    """
    item = find_item(project, item_id)
    rows = [r for r in ratings.list_ratings(project, item.rating_set_id)
            if r.item_id == item_id and r.rater != rater]
    return sorted(rows, key=lambda r: (ratings.is_machine(r.rater), r.rater))


@dataclass(frozen=True)
class TermCheck:
    """One rule term on one item: its written ``term``, the measured ``value``, ``status`` pass / fail /
    gray, and the checklist ``reason`` it stands for."""

    term: str
    measure: str
    value: Any
    status: str
    reason: str


@dataclass(frozen=True)
class ItemMeasures:
    """One item measured now: ``measured`` (measures, target box and why, other boxes, or the error),
    the rules' ``verdict`` (None when it could not be measured) and each term's check."""

    measured: acceptability.MeasuredItem
    verdict: ar.RuleVerdict | None
    terms: list[TermCheck]


def measure_item(project: Project, item_id: str, *, rules: ar.Rules | None = None,
                 progress: Callable[[int, int], None] = lambda done, total: None,
                 cancelled: Callable[[], bool] = lambda: False) -> ItemMeasures:
    """Measure one item (the exact photo or frame the rater sees) and apply the set's rules.

    The target box is chosen as ``ratings.acceptability.service`` chooses it for a whole set (ground truth box,
    then the box marked target, the only box, the largest box; else the whole frame). ``rules``
    defaults to the set's stored rules, else ``DEFAULT_RULES``. Nothing is written. A file that cannot
    be read gives ``measured.error`` and no verdict. Raises NotFound for an unknown item.
    """
    item = find_item(project, item_id)
    rules = rules or acceptability.rules_of(project, item.rating_set_id)
    progress(0, 1)
    source = FrameSource(project, max_readers=1)
    try:
        if item.media_id is None:
            raise FieldstudioError("its media was removed from the project")
        frame = source.get(item.media_id, item.frame_index or 0)
        box, why, others = acceptability._target(project, item)  # noqa: SLF001 - same rule as the set scorer
        measured = acceptability.MeasuredItem(item.id, item.label, measure_all(frame.rgb, box, others), box, why,
                                              others)
    except (FieldstudioError, IndexError, ValueError) as exc:
        measured = acceptability.MeasuredItem(item.id, item.label, None, None, "none", [], str(exc))
    finally:
        source.close()
    progress(1, 1)
    if measured.measures is None:
        return ItemMeasures(measured, None, [])
    checks = [TermCheck(t.name, t.measure, measured.measures.get(t.measure), t.status(measured.measures.get(t.measure)),
                        t.checklist_reason) for t in rules.terms]
    return ItemMeasures(measured, ar.evaluate(rules, measured.measures), checks)


def stored_source_verdict(project: Project, item_id: str, source: str = acceptability.SOURCE) -> dict[str, Any] | None:
    """A scorer's stored verdict on one item: ``{"verdict", "reasons", "failing", "undecided",
    "target_box", "explanation"}``, or None when it has not scored the item."""
    with project.read() as s:
        row = s.scalars(select(Rating).where(Rating.item_id == item_id, Rating.rater == source)).one_or_none()
        if row is None:
            return None
        f = dict(row.fields or {})
        return {"verdict": row.verdict, "reasons": list(row.reasons or []),
                "failing": list(f.get("_failing_terms") or []), "undecided": list(f.get("_undecided_terms") or []),
                "target_box": f.get("_target_box"), "explanation": f.get("_explanation")}
