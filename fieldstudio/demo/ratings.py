"""The demo project's rating set: the sample photos and frames judged by three fictional raters.

The requirement asks for proof that a worker wears a hard hat and a hi-vis vest. The items are the four
sample photos and frames 0, 10, 20, 30, 55 and 70 of the worker clip, frame 30 of the store aisle and
frame 20 of the parking lot (12 items). Each item's ground truth holds the worker's box
(``target_box``, from the hand-placed boxes of ``demo.annotations``) where there is a worker,
so the acceptability measures look at the worker.

The raters ("Ana Ruiz", "Ben Okafor", "Chen Wei") are invented; their verdicts were written by hand to
be plausible for what each picture shows, with real disagreements (the worker cut by the frame's edge,
the worker far away, the head inside a cabinet), one item where the raters tie (accept, reject, unsure)
and one item Chen did not rate. Documentation fields: ``hard hat`` and ``vest`` (yes/no) and
``workers in view`` (a number, for interval alpha).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from fieldstudio.ratings.acceptability import rules as ar
from fieldstudio.demo.annotations import (ELECTRICIANS, HIVIS, PARKING_CLIP, PERSON_TRACK, PHOTO_BOXES,
                                                   STORE_CLIP, WORKER_CLIP, WORKER_PHOTO)
from fieldstudio.ratings import records as ratings
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project

__all__ = ["SET_NAME", "REQUIREMENT", "RATERS", "FIELDS", "DEMO_RULES", "DemoRatingsReport", "add_demo_ratings"]

SET_NAME = "PPE proof of work (demo)"
REQUIREMENT = ("Proof that the worker wears a hard hat and a hi-vis vest: the whole worker, head to feet, "
               "in frame and sharp, with the hard hat and the vest clearly visible.")
RATERS = ("Ana Ruiz", "Ben Okafor", "Chen Wei")
FIELDS = [{"name": "hard hat", "type": "yes_no"}, {"name": "vest", "type": "yes_no"},
          {"name": "workers in view", "type": "number"}]
GROCERY = "retail_grocery_Bravo-Orange-Juice_024.jpg"

_A, _R, _U = "accept", "reject", "unsure"
# (file, frame or None) -> per rater (Ana, Ben, Chen): (verdict, reasons, hard hat, vest, workers, seconds) or None
_VOTES: list[tuple[str, int | None, tuple]] = [
    (ELECTRICIANS, None, ((_A, (), "yes", "yes", 1, 9), (_A, (), "yes", "yes", 1, 6), (_A, (), "yes", "yes", 1, 11))),
    (HIVIS, None, ((_R, ("occluded",), "no", "yes", 1, 14), (_R, ("occluded", "wrong angle"), "no", "yes", 1, 10),
                   (_U, ("occluded",), None, "yes", 1, 21))),
    (WORKER_PHOTO, None, ((_A, (), "yes", "yes", 1, 7), (_A, (), "yes", "yes", 1, 5),
                          (_R, ("too far",), "yes", "yes", 1, 12))),
    (GROCERY, None, ((_R, ("other",), "no", "no", 0, 3), (_R, ("other",), "no", "no", 0, 2),
                     (_R, ("other", "target out of frame"), "no", "no", 0, 4))),
    (WORKER_CLIP, 0, ((_R, ("target out of frame",), "yes", "yes", 1, 6),
                      (_R, ("target out of frame",), "yes", "yes", 1, 4), (_A, (), "yes", "yes", 1, 8))),
    (WORKER_CLIP, 10, ((_R, ("target out of frame",), "yes", "yes", 1, 5), (_A, (), "yes", "yes", 1, 6),
                       (_R, ("target out of frame",), "yes", "yes", 1, 9))),
    (WORKER_CLIP, 20, ((_A, (), "yes", "yes", 1, 4), (_A, (), "yes", "yes", 1, 3), (_A, (), "yes", "yes", 1, 7))),
    (WORKER_CLIP, 30, ((_A, (), "yes", "yes", 1, 4), (_A, (), "yes", "yes", 1, 4),
                       (_U, ("blurry",), "yes", "yes", 1, 15))),
    (WORKER_CLIP, 55, ((_A, (), "yes", "yes", 1, 5), (_R, ("too far",), "yes", "yes", 1, 8),
                       (_U, ("too far",), "yes", "yes", 1, 13))),
    (WORKER_CLIP, 70, ((_A, (), "yes", "yes", 1, 5), (_R, ("too far",), "yes", "yes", 1, 6),
                       (_R, ("too far",), "yes", "yes", 1, 10))),
    (STORE_CLIP, 30, ((_R, ("other",), "no", "no", 0, 6), (_R, ("other",), "no", "no", 3, 9),
                      (_R, ("other",), "no", "no", 0, 5))),
    (PARKING_CLIP, 20, ((_R, ("other",), "no", "no", 0, 3), (_R, ("other",), "no", "no", 0, 2), None)),
]
DEMO_RULES = ar.Rules(tuple(ar.parse_term(t) for t in (
    "sharpness_norm >= 50 ± 10", "box_in_frame", "box_edge_distance_px >= 1", "box_area_share >= 0.05 ± 0.01",
    "highlights_clipped <= 0.05 ± 0.01", "shadows_clipped <= 0.05 ± 0.01")))
"""The scorer's rules for the demo set: ``DEFAULT_RULES`` without the occlusion term (the demo's other
boxes on a worker are his own hard hat and vest, not occluders) and with the worker's box at least one
pixel inside every edge (a box that touches the frame's edge is cut)."""
_COMMENTS = {(HIVIS, None, 2): "Can't see the head at all; maybe a hat inside the cabinet?",
             (WORKER_CLIP, 0, 2): "Legs cut, but hat and vest are obvious.",
             (STORE_CLIP, 30, 1): "Counted the three shoppers."}


def _target_box(file_name: str, frame: int | None) -> list[float] | None:
    if file_name == WORKER_CLIP and frame in PERSON_TRACK:
        return [float(v) for v in PERSON_TRACK[frame]]
    for label, box, _attrs in PHOTO_BOXES.get(file_name, []):
        if label == "person":
            return [float(v) for v in box]
    return None


@dataclass
class DemoRatingsReport:
    """The rating set's id, its item ids (queue order), the ratings written, the sample files that were
    not in the project (their items left out) and the scorer's verdict counts (None when not scored)."""

    set_id: str
    item_ids: list[str] = field(default_factory=list)
    ratings: int = 0
    missing_media: list[str] = field(default_factory=list)
    scorer_counts: dict[str, int] | None = None


def add_demo_ratings(project: Project, *, score: bool = True) -> DemoRatingsReport:
    """Add the demo rating set, its items, its scorer rules (:data:`DEMO_RULES`) and the three raters'
    verdicts; with ``score`` also the acceptability scorer's verdicts (``scorer:acceptability-rules``).

    Media are found by file name; items whose sample file is missing are skipped and listed. The videos'
    frame index must be built first (``build_demo`` does). Raises RatingError when a set named
    :data:`SET_NAME` already exists.
    """
    info = ratings.create_rating_set(project, SET_NAME, REQUIREMENT, fields=FIELDS)
    report = DemoRatingsReport(info.id)
    with project.read() as s:
        media = {m.file_name: m.id for m in s.scalars(select(Media).where(Media.status == "ok"))}
    refs, used = [], []
    for file_name, frame, votes in _VOTES:
        if file_name not in media:
            if file_name not in report.missing_media:
                report.missing_media.append(file_name)
            continue
        box = _target_box(file_name, frame)
        refs.append(ratings.ItemRef(media[file_name], frame, {"target_box": box} if box else None))
        used.append((file_name, frame, votes))
    report.item_ids = ratings.add_items(project, info.id, refs).added
    for item_id, (file_name, frame, votes) in zip(report.item_ids, used):
        for k, (rater, vote) in enumerate(zip(RATERS, votes)):
            if vote is None:
                continue
            verdict, reasons, hard_hat, vest, workers, seconds = vote
            ratings.record_rating(project, item_id, rater, verdict, reasons=reasons,
                                  fields={"hard hat": hard_hat, "vest": vest, "workers in view": workers},
                                  comment=_COMMENTS.get((file_name, frame, k)), seconds_spent=float(seconds))
            report.ratings += 1
    ratings.update_rating_set(project, info.id, rules=DEMO_RULES.to_dict())
    if score and report.item_ids:
        from fieldstudio.ratings.acceptability.service import score_rating_set

        report.scorer_counts = score_rating_set(project, info.id).counts
    return report
