"""The demo project's task set: questions with ground truth over the sample media (``sample_data/media``).

``add_demo_tasks`` writes about forty tasks over every answer type of ``tasks.records.ANSWER_TYPES`` and
the three scenarios (factory, warehouse, retail). It runs after ``demo_annotations.add_demo_annotations``
(it uses the demo's labels, floor calibration, rulers, segments and event) and adds the few annotations
it needs of its own, each placed by hand on frames viewed with a pixel grid:

* two more floor rulers on the worker clip (``worker_zone_hardhat_vest_from_gif.mp4``, camera group
  ``worker-zone camera``, 4.0 m x 4.0 m floor rectangle): on frame 70 from the midpoint of the worker's
  feet (133, 205) to the base of the large column (252, 126); and on frame 45 from where his feet were
  on frame 20 (175, 260) to where they are on frame 45 (128, 216), the distance he walks (the camera
  does not move);
* three ``person`` tracks on the store clip (``store_aisle_shoppers_from_gif.mp4``, 67 frames): the man
  in the hat and the woman in the teal top from frame 0 to 66, and the woman in the brown jacket from
  frame 14, the first frame on which her head shows at the bottom-right corner (a faint blur is
  there on frame 13 already; the count tasks avoid frames 11-16).

Ground truth, per kind of task (each task's ``notes`` says which):

* **linked** to annotations through ``tasks.ground_truth`` (kept up to date by ``refresh_linked``):
  floor distances (``ruler_distance``: the demo ruler of frame 45 and of the frame-45 photo, the two
  rulers above), the worker's walking and standing segments (``segment_range``, ``segment_duration``),
  the hazard-tape event (``event_time``, ``count`` of events), the first box of the third shopper
  (``event_time``), and counts of ``person`` boxes (``count``: distinct objects, most on one frame);
* **read off the pictures** by a person (PPE on the photos and the clips, colours, goods), looked at
  full size;
* **read in the OSHA fact sheet** (``osha_factsheet_lockout_tagout_2002.pdf``, 2 pages, text from
  ``media.documents``): the page (1-based) and the sentence are kept in ``ground_truth_extra["evidence"]``.

A choice task keeps its options (A-E, in order) in ``ground_truth_extra["options"]``; a JSON report task
keeps the field schema of the expected reply in ``ground_truth_extra["field_schema"]`` ({field: type}).

``write_sample_task_file`` exports the set as fieldstudio's task CSV (``tasks.formats.csv_table``), the format
that keeps the most of a task (scenario, category, sub-category, inputs with time ranges, metadata);
the fields the CSV has no column for travel in the ``extra`` JSON under ``"fieldstudio"``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.tasks.formats import csv_table as csv_tasks
from fieldstudio.demo.annotations import (CAMERA_GROUP, ELECTRICIANS, HIVIS, STORE_CLIP, WORKER_CLIP,
                                                   WORKER_PHOTO)
from fieldstudio.tasks.formats.records import ParsedTask
from fieldstudio.tasks.exporting import tasks_from_project
from fieldstudio.annotations import records as ann
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.annotations import labels
from fieldstudio.tasks import records as ts
from fieldstudio.store.models import Media, Task
from fieldstudio.store.project import Project

__all__ = ["TASK_IDS", "SOURCE", "MANUAL", "GROCERY", "FILE_EXTRA_KEY", "DemoTasksReport", "add_demo_tasks",
           "sample_task_records", "write_sample_task_file", "STORE_TRACKS", "EXTRA_RULERS"]

SOURCE = "manual"
MANUAL = "osha_factsheet_lockout_tagout_2002.pdf"
GROCERY = "retail_grocery_Bravo-Orange-Juice_024.jpg"
FILE_EXTRA_KEY = "fieldstudio"
"""Key of ``extra`` in the exported file holding the fields the task CSV has no column for."""

#: (name, frame, p, q) of the rulers added here, on the worker clip, measured on the floor plane.
EXTRA_RULERS = (
    ("feet to column base, frame 70", 70, (133.0, 205.0), (252.0, 126.0)),
    ("feet on frame 20 to feet on frame 45", 45, (175.0, 260.0), (128.0, 216.0)),
)
#: Store clip person tracks: {keyframe: (x1, y1, x2, y2)} in upright pixels (480x270).
STORE_TRACKS = (
    ("man in hat", {0: (240, 63, 319, 232), 20: (243, 63, 319, 230), 40: (265, 63, 339, 237),
                    66: (262, 57, 317, 230)}),
    ("woman in teal top", {0: (347, 87, 417, 268), 20: (343, 55, 403, 270), 40: (343, 53, 400, 230),
                           66: (350, 53, 400, 257)}),
    ("woman in brown jacket", {14: (447, 227, 480, 270), 20: (397, 190, 480, 270), 40: (332, 127, 413, 270),
                               66: (290, 107, 368, 270)}),
)

TASK_IDS = tuple([f"ppe-{i:02d}" for i in range(1, 13)] + [f"ret-{i:02d}" for i in range(1, 7)]
                 + [f"doc-{i:02d}" for i in range(1, 10)] + [f"dist-{i:02d}" for i in range(1, 5)]
                 + [f"time-{i:02d}" for i in range(1, 6)] + [f"cnt-{i:02d}" for i in range(1, 7)])
"""External ids of the set (source ``manual``)."""

_TOL_DIST = {"r_th": 0.25}
_TOL_TIME = {"T_th": 0.5}
_PPE_JSON_SCHEMA = {"total_workers": "integer",
                    "details": "list of {id: integer, hard_hat: colour or 'none' or 'unknown', "
                               "hi_vis: 'yes' or 'no'}"}


@dataclass
class DemoTasksReport:
    """What ``add_demo_tasks`` did: task ids in creation order, counts per answer type and scenario,
    the annotations it added (ids per kind), the sample files not in the project (their tasks left out)
    and the tasks skipped for another reason (external id, why)."""

    task_ids: list[str] = field(default_factory=list)
    per_answer_type: Counter = field(default_factory=Counter)
    per_scenario: Counter = field(default_factory=Counter)
    annotation_ids: dict[str, list[str]] = field(default_factory=dict)
    missing_media: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _xywh(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    return (x1, y1, x2 - x1, y2 - y1)


def _evidence(page: int, quote: str) -> dict[str, Any]:
    return {"evidence": {"document": MANUAL, "page": page, "quote": quote}}


def _plain_tasks() -> list[dict[str, Any]]:
    """Tasks whose ground truth a person read off a picture or the manual (no link)."""
    elec = [(ELECTRICIANS, None, None)]
    hivis = [(HIVIS, None, None)]
    photo = [(WORKER_PHOTO, None, None)]
    store = [(STORE_CLIP, None, None)]
    man = [(MANUAL, None, None)]
    seen = "Read off the photo at full size (1200x1600) by a person."
    return [
        # ---- PPE, factory (electrical rooms)
        dict(external_id="ppe-01", inputs=elec, scenario="factory", category="PPE", sub_category="hard hat",
             answer_type="yes_no", query="Is the worker standing on the ladder wearing a hard hat?",
             ground_truth="Yes", notes=seen + " He wears a blue hard hat (demo box 'helmet', colour blue)."),
        dict(external_id="ppe-02", inputs=elec, scenario="factory", category="PPE", sub_category="hi-vis",
             answer_type="yes_no", query="Is the worker on the ladder wearing a high-visibility vest?",
             ground_truth="Yes", notes=seen + " Orange vest with yellow and silver reflective stripes."),
        dict(external_id="ppe-03", inputs=elec, scenario="factory", category="PPE", sub_category="hard hat",
             answer_type="choice",
             query="What colour is the hard hat of the worker on the ladder? A) white B) yellow C) blue "
                   "D) red E) he wears no hard hat. Answer with the letter.",
             ground_truth="C", ground_truth_extra={"options": ["white", "yellow", "blue", "red", "no hard hat"]},
             notes=seen),
        dict(external_id="ppe-04", inputs=hivis, scenario="factory", category="PPE", sub_category="hard hat",
             answer_type="yes_no",
             query="Does this photo show that the worker is wearing a hard hat?", ground_truth="No",
             notes=seen + " His head is inside the equipment cabinet; no hard hat can be seen "
                          "(demo box attribute 'hard hat: not visible')."),
        dict(external_id="ppe-05", inputs=hivis, scenario="factory", category="PPE", sub_category="hi-vis",
             answer_type="yes_no", query="Is the worker wearing high-visibility clothing?", ground_truth="Yes",
             notes=seen + " A fluorescent yellow shirt with reflective stripes on the sleeves."),
        dict(external_id="ppe-06", inputs=hivis, scenario="factory", category="PPE", sub_category="hi-vis",
             answer_type="choice",
             query="Which high-visibility garment does the worker wear? A) an orange vest B) a yellow "
                   "hi-vis shirt C) none D) a full coverall E) a rain jacket. Answer with the letter.",
             ground_truth="B", ground_truth_extra={"options": ["an orange vest", "a yellow hi-vis shirt", "none",
                                                               "a full coverall", "a rain jacket"]},
             notes=seen),
        dict(external_id="ppe-07", inputs=elec, scenario="factory", category="PPE", sub_category="report",
             answer_type="json_report", output_format="json",
             query="Report the PPE of every worker in the photo as JSON: {\"total_workers\": <integer>, "
                   "\"details\": [{\"id\": <integer>, \"hard_hat\": <colour, or none, or unknown>, "
                   "\"hi_vis\": <yes or no>}]}.",
             ground_truth='{"total_workers": 1, "details": [{"id": 1, "hard_hat": "blue", "hi_vis": "yes"}]}',
             ground_truth_extra={"field_schema": _PPE_JSON_SCHEMA}, notes=seen),
        dict(external_id="ppe-08", inputs=hivis, scenario="factory", category="PPE", sub_category="report",
             answer_type="json_report", output_format="json",
             query="Report the PPE of every worker in the photo as JSON: {\"total_workers\": <integer>, "
                   "\"details\": [{\"id\": <integer>, \"hard_hat\": <colour, or none, or unknown>, "
                   "\"hi_vis\": <yes or no>}]}.",
             ground_truth='{"total_workers": 1, "details": [{"id": 1, "hard_hat": "unknown", "hi_vis": "yes"}]}',
             ground_truth_extra={"field_schema": _PPE_JSON_SCHEMA},
             notes=seen + " The head is inside the cabinet, so the hard hat is 'unknown'."),
        dict(external_id="ppe-09", inputs=elec, scenario="factory", category="Hazards", sub_category="signs",
             answer_type="count", query="How many signs reading \"LIVE\" can you see in the photo?",
             ground_truth="2", notes=seen + " One on the tall panel at the left, one on the grey box at "
                                            "the right (both hand-written 'LIVE' labels)."),
        # ---- PPE, warehouse (the worker-zone hall)
        dict(external_id="ppe-10", inputs=photo, scenario="warehouse", category="PPE", sub_category="hard hat",
             answer_type="yes_no", query="Is the worker wearing both a hard hat and a high-visibility vest?",
             ground_truth="Yes", notes="Read off the 480x270 frame by a person; demo boxes 'helmet' and 'vest'."),
        dict(external_id="ppe-11", inputs=photo, scenario="warehouse", category="PPE", sub_category="inventory",
             answer_type="list", query="List the items of personal protective equipment the worker visibly wears.",
             ground_truth="hard hat; high-visibility vest",
             notes="Read off the frame by a person: a yellow hard hat and an orange vest with reflective "
                   "stripes; gloves and safety shoes cannot be made out at this size."),
        dict(external_id="ppe-12", inputs=[(WORKER_CLIP, None, None)], scenario="warehouse", category="PPE",
             sub_category="colours", answer_type="free_text",
             query="What colours are the worker's hard hat and vest?",
             ground_truth="The hard hat is yellow and the vest is orange with silver reflective stripes.",
             notes="Read off frames 0-70 by a person."),
        # ---- retail
        dict(external_id="ret-01", inputs=store, scenario="retail", category="Shoppers", sub_category="clothing",
             answer_type="choice",
             query="What does the man in the aisle wear on his head? A) a hard hat B) a brimmed straw hat "
                   "C) a baseball cap D) nothing E) a hood. Answer with the letter.",
             ground_truth="B", ground_truth_extra={"options": ["a hard hat", "a brimmed straw hat", "a baseball cap",
                                                               "nothing", "a hood"]},
             notes="Read off frames 0-66 by a person: a light straw hat with a dark band."),
        dict(external_id="ret-02", inputs=store, scenario="retail", category="Store", sub_category="goods",
             answer_type="free_text", query="What kind of goods are on the shelves of this aisle?",
             ground_truth="White ceramic tableware: bowls, plates, cups, mugs and teapots.",
             notes="Read off the frames by a person."),
        dict(external_id="ret-03", inputs=store, scenario="retail", category="Shoppers", sub_category="carts",
             answer_type="yes_no", query="Is any shopper pushing a shopping cart?", ground_truth="No",
             notes="Read off all 67 frames by a person: no cart or basket is in view."),
        dict(external_id="ret-04", inputs=store, scenario="retail", category="Shoppers", sub_category="report",
             answer_type="json_report", output_format="json",
             query="Describe the shoppers in the clip as JSON: {\"total_shoppers\": <integer>, \"details\": "
                   "[{\"id\": <integer, in order of appearance, left to right>, \"top_colour\": <one word>, "
                   "\"headwear\": <hat or none>}]}.",
             ground_truth=json.dumps({"total_shoppers": 3, "details": [
                 {"id": 1, "top_colour": "olive", "headwear": "hat"},
                 {"id": 2, "top_colour": "teal", "headwear": "none"},
                 {"id": 3, "top_colour": "brown", "headwear": "none"}]}),
             ground_truth_extra={"field_schema": {"total_shoppers": "integer",
                                                  "details": "list of {id: integer, top_colour: one word, "
                                                             "headwear: 'hat' or 'none'}"}},
             notes="Read off the frames by a person; the count agrees with the linked count of task cnt-01."),
        dict(external_id="ret-05", inputs=[(GROCERY, None, None)], scenario="retail", category="Products",
             sub_category="identification", answer_type="list",
             query="Name the brand, the product and the flavour of the carton held in the hand.",
             ground_truth="Bravo; juice; orange",
             notes="Read off the photo by a person: 'BRAVO Original Apelsin Juice' (Swedish: orange juice)."),
        # ---- the OSHA fact sheet, factory
        dict(external_id="doc-01", inputs=man, scenario="factory", category="Safety manual",
             sub_category="standards", answer_type="free_text",
             query="Which OSHA standard addresses the control of hazardous energy (lockout/tagout)?",
             ground_truth="29 CFR 1910.147", ground_truth_extra=_evidence(1, "The OSHA standard for The Control "
                          "of Hazardous Energy (Lockout/Tagout), Title 29 Code of Federal Regulations (CFR) Part "
                          "1910.147"), notes="From the fact sheet's text, page 1."),
        dict(external_id="doc-02", inputs=man, scenario="factory", category="Safety manual",
             sub_category="figures", answer_type="count",
             query="By OSHA's estimate, how many fatalities a year does compliance with the lockout/tagout "
                   "standard prevent?", ground_truth="120",
             ground_truth_extra=_evidence(1, "Compliance with the lockout/tagout standard prevents an estimated "
                                             "120 fatalities and 50,000 injuries each year."),
             notes="From the fact sheet's text, page 1."),
        dict(external_id="doc-03", inputs=man, scenario="factory", category="Safety manual",
             sub_category="training", answer_type="count",
             query="At least how many areas must the lockout/tagout training of employees cover?",
             ground_truth="3", ground_truth_extra=_evidence(1, "The training must cover at least three areas"),
             notes="From the fact sheet's text, page 1."),
        dict(external_id="doc-04", inputs=man, scenario="factory", category="Safety manual",
             sub_category="energy", answer_type="list",
             query="List the kinds of hazardous energy the fact sheet names (leave out 'other').",
             ground_truth="electrical; mechanical; hydraulic; pneumatic; chemical; thermal",
             ground_truth_extra=_evidence(1, "The standard outlines measures for controlling hazardous "
                                             "energies—electrical, mechanical, hydraulic, pneumatic, chemical, "
                                             "thermal, and other energy sources."),
             notes="From the fact sheet's text, page 1."),
        dict(external_id="doc-05", inputs=man, scenario="factory", category="Safety manual",
             sub_category="devices", answer_type="yes_no",
             query="May tagout devices be used instead of lockout devices?",
             ground_truth="Yes, but only if the tagout program protects employees as well as a lockout "
                          "program would.",
             ground_truth_extra=_evidence(1, "Tagout devices may be used in lieu of lockout devices only if the "
                                             "tagout program provides employee protection equivalent to that "
                                             "provided through a lockout program."),
             notes="From the fact sheet's text, page 1."),
        dict(external_id="doc-06", inputs=man, scenario="factory", category="Safety manual",
             sub_category="devices", answer_type="choice",
             query="Who may remove a lockout/tagout device? A) any supervisor B) only the employee who "
                   "applied it C) any trained employee D) the safety officer E) an outside contractor. "
                   "Answer with the letter.",
             ground_truth="B", ground_truth_extra={"options": ["any supervisor", "only the employee who applied it",
                                                               "any trained employee", "the safety officer",
                                                               "an outside contractor"],
                                                   **_evidence(2, "Establish a policy that permits only the "
                                                                  "employee who applied a lockout/tagout device "
                                                                  "to remove it.")},
             notes="From the fact sheet's text, page 2 (the standard allows an exception, 29 CFR 1910.147(e)(3))."),
        dict(external_id="doc-07", inputs=man, scenario="factory", category="Safety manual",
             sub_category="procedures", answer_type="free_text",
             query="How often must energy control procedures be inspected?", ground_truth="At least annually.",
             ground_truth_extra=_evidence(2, "Inspect energy control procedures at least annually."),
             notes="From the fact sheet's text, page 2."),
        dict(external_id="doc-08", inputs=man, scenario="factory", category="Safety manual",
             sub_category="figures", answer_type="json_report", output_format="json",
             query="Summarise the fact sheet's figures as JSON: {\"standard\": <the lockout/tagout standard>, "
                   "\"fatalities_prevented_per_year\": <integer>, \"injuries_prevented_per_year\": <integer>, "
                   "\"average_workdays_lost\": <integer>}.",
             ground_truth=json.dumps({"standard": "29 CFR 1910.147", "fatalities_prevented_per_year": 120,
                                      "injuries_prevented_per_year": 50000, "average_workdays_lost": 24}),
             ground_truth_extra={"field_schema": {"standard": "text", "fatalities_prevented_per_year": "integer",
                                                  "injuries_prevented_per_year": "integer",
                                                  "average_workdays_lost": "integer"},
                                 **_evidence(1, "prevents an estimated 120 fatalities and 50,000 injuries each "
                                                "year ... lose an average of 24 workdays for recuperation")},
             notes="From the fact sheet's text, page 1."),
        dict(external_id="doc-09", inputs=[(HIVIS, None, None), (MANUAL, None, None)], scenario="factory",
             category="Safety manual", sub_category="standards", answer_type="free_text",
             query="This worker is servicing electrical equipment. Which section of 29 CFR does the fact sheet "
                   "name for protecting employees who work on electric circuits and equipment?",
             ground_truth="29 CFR 1910.333",
             ground_truth_extra=_evidence(1, "29 CFR 1910.333 sets forth requirements to protect employees "
                                             "working on electric circuits and equipment."),
             notes="From the fact sheet's text, page 1; the photo gives the context only."),
    ]


def _add_annotations(project: Project, media: dict[str, str], report: DemoTasksReport) -> dict[str, Any]:
    """The rulers and store tracks this module adds; returns the ids the linked tasks need."""
    found: dict[str, Any] = {}
    person = labels.ensure_label(project, "person", "#e69f00")
    found["person"] = person
    clip = media.get(WORKER_CLIP)
    if clip is not None:
        found["extra_rulers"] = []
        for text, frame, p, q in EXTRA_RULERS:
            rid = ann.add_ruler(project, clip, p, q, frame_index=frame, on_floor=True, label_id=person, text=text)
            report.annotation_ids.setdefault("ruler", []).append(rid)
            found["extra_rulers"].append(rid)
    store = media.get(STORE_CLIP)
    if store is not None:
        found["store_first_boxes"] = []
        for name, keys in STORE_TRACKS:
            track = ann.next_track_id(project, store)
            first = None
            for frame, box in sorted(keys.items()):
                bid = ann.add_box(project, store, _xywh(box), person, frame_index=frame, track_id=track,
                                  attributes={"shopper": name})
                report.annotation_ids.setdefault("box", []).append(bid)
                first = first or bid
            found["store_first_boxes"].append(first)
    return found


def _demo_annotation(project: Project, media_id: str, kind: str, *, label: str | None = None,
                     frame: int | None = None) -> str | None:
    """The id of the demo's first live annotation of ``kind`` (and label / frame) on a media, or None."""
    for rec in ann.list_annotations(project, media_id=media_id, kinds=[kind]):
        if rec.deleted or (label is not None and rec.label_name != label):
            continue
        if frame is None or rec.frame_index == frame:
            return rec.id
    return None


def _linked_tasks(project: Project, media: dict[str, str], ids: dict[str, Any]) -> list[dict[str, Any]]:
    """Tasks whose ground truth is linked to annotations (``link`` key: a GroundTruthLink)."""
    out: list[dict[str, Any]] = []
    clip, photo, store = media.get(WORKER_CLIP), media.get(WORKER_PHOTO), media.get(STORE_CLIP)
    floor = (f"Linked to a floor ruler; metres from the floor calibration of camera group {CAMERA_GROUP!r} "
             "(red tape rectangle, 4.0 m x 4.0 m assumed, not measured on site), so the value follows any "
             "change of the calibration.")
    if clip is not None:
        demo_ruler = _demo_annotation(project, clip, "ruler", frame=45)
        walking = _demo_annotation(project, clip, "segment", label="walking")
        standing = _demo_annotation(project, clip, "segment", label="standing")
        tape = _demo_annotation(project, clip, "event", label="crosses hazard tape")
        far, walked = ids["extra_rulers"]
        whole = [(WORKER_CLIP, None, None)]
        seg = "Linked to the demo segment '{}' (frames {}); times are PTS seconds from the frame table."
        out += [
            dict(external_id="dist-01", inputs=[(WORKER_CLIP, 2.9, 3.1)], scenario="warehouse", category="Distance",
                 sub_category="worker to structure", tolerances=_TOL_DIST,
                 query="At 3.0 s, how far is the worker (his feet) from the base of the large white column to "
                       "his right, measured along the floor, in metres?",
                 link=gt.GroundTruthLink("ruler_distance", annotation_id=demo_ruler),
                 notes=floor + " Demo ruler 'worker to column base' on frame 45."),
            dict(external_id="dist-02", inputs=[(WORKER_CLIP, 4.5, None)], scenario="warehouse",
                 category="Distance", sub_category="worker to structure", tolerances=_TOL_DIST,
                 query="At the end of the clip, how far is the standing worker (his feet) from the base of the "
                       "large white column, along the floor, in metres?",
                 link=gt.GroundTruthLink("ruler_distance", annotation_id=far),
                 notes=floor + " Ruler on frame 70, feet (133, 205) to column base (252, 126), placed by hand."),
            dict(external_id="dist-03", inputs=[(WORKER_CLIP, 1.3, 3.1)], scenario="warehouse",
                 category="Distance", sub_category="walked distance", tolerances=_TOL_DIST,
                 query="How far does the worker walk between 1.33 s and 3.0 s, in metres?",
                 link=gt.GroundTruthLink("ruler_distance", annotation_id=walked),
                 notes=floor + " Ruler from the feet on frame 20 (175, 260) to the feet on frame 45 (128, 216)."),
            dict(external_id="time-01", inputs=whole, scenario="warehouse", category="Timing",
                 sub_category="activity range", tolerances=_TOL_TIME,
                 query="From when to when does the worker walk towards the zone beyond the yellow-and-black "
                       "hazard tape? Give the start and end times.",
                 link=gt.GroundTruthLink("segment_range", annotation_id=walking), notes=seg.format("walking", "0-48")),
            dict(external_id="time-02", inputs=whole, scenario="warehouse", category="Timing",
                 sub_category="activity range", tolerances=_TOL_TIME,
                 query="After entering the zone beyond the hazard tape the worker stops. Give the start and "
                       "end times of his standing still.",
                 link=gt.GroundTruthLink("segment_range", annotation_id=standing),
                 notes=seg.format("standing", "49-70")),
            dict(external_id="time-03", inputs=whole, scenario="warehouse", category="Timing",
                 sub_category="duration", tolerances=_TOL_TIME,
                 query="For how many seconds does the worker stand still inside the zone?",
                 link=gt.GroundTruthLink("segment_duration", annotation_id=standing),
                 notes=seg.format("standing", "49-70") + " Duration = end PTS - start PTS."),
            dict(external_id="time-04", inputs=whole, scenario="warehouse", category="Timing",
                 sub_category="duration", tolerances=_TOL_TIME,
                 query="For how many seconds does the worker walk before he stops?",
                 link=gt.GroundTruthLink("segment_duration", annotation_id=walking),
                 notes=seg.format("walking", "0-48") + " Duration = end PTS - start PTS."),
            dict(external_id="time-05", inputs=whole, scenario="warehouse", category="Timing",
                 sub_category="event time", tolerances=_TOL_TIME,
                 query="At what time does the worker step onto the yellow-and-black hazard tape?",
                 link=gt.GroundTruthLink("event_time", annotation_id=tape),
                 notes="Linked to the demo event 'crosses hazard tape' (frame 36, the rear foot on the tape)."),
            dict(external_id="cnt-01", inputs=whole, scenario="warehouse", category="Counting",
                 sub_category="events",
                 query="How many times does the worker step over the hazard tape in this clip?",
                 link=gt.GroundTruthLink("count", media_id=clip, label_id=_label_id(project, "crosses hazard tape"),
                                         mode="events"),
                 notes="Linked count of 'crosses hazard tape' events on the clip (checked by eye: once)."),
            dict(external_id="cnt-02", inputs=whole, scenario="warehouse", category="Counting",
                 sub_category="people",
                 query="How many people appear in this clip?",
                 link=gt.GroundTruthLink("count", media_id=clip, label_id=ids["person"], mode="objects"),
                 notes="Linked count of distinct 'person' objects (the demo's person track)."),
        ]
    if photo is not None and _demo_annotation(project, photo, "ruler") is not None:
        out.append(dict(
            external_id="dist-04", inputs=[(WORKER_PHOTO, None, None)], scenario="warehouse", category="Distance",
            sub_category="worker to structure", tolerances=_TOL_DIST,
            query="How far is the worker (his feet) from the base of the large white column, along the floor, "
                  "in metres?",
            link=gt.GroundTruthLink("ruler_distance", annotation_id=_demo_annotation(project, photo, "ruler")),
            notes=floor + " Demo ruler on the frame-45 photo (same camera group as the clip)."))
    if ELECTRICIANS in media:
        out.append(dict(
            external_id="cnt-03", inputs=[(ELECTRICIANS, None, None)], scenario="factory", category="Counting",
            sub_category="people", query="How many workers are in the photo?",
            link=gt.GroundTruthLink("count", media_id=media[ELECTRICIANS], label_id=ids["person"], mode="objects"),
            notes="Linked count of the demo's 'person' boxes on the photo (checked by eye: one electrician)."))
    if store is not None:
        first_third = ids["store_first_boxes"][2]
        track_note = ("Linked count of 'person' boxes on the store clip (three tracks placed by hand, the third "
                      "from frame 14); checked by eye frame by frame.")
        out += [
            dict(external_id="cnt-04", inputs=[(STORE_CLIP, None, None)], scenario="retail", category="Counting",
                 sub_category="shoppers", query="How many different shoppers appear in the aisle during the clip?",
                 link=gt.GroundTruthLink("count", media_id=store, label_id=ids["person"], mode="objects"),
                 notes=track_note + " Mode: distinct objects over the whole clip."),
            dict(external_id="cnt-05", inputs=[(STORE_CLIP, 0.0, 0.667)], scenario="retail", category="Counting",
                 sub_category="shoppers", query="How many shoppers are in the aisle during the first 0.6 s?",
                 link=gt.GroundTruthLink("count", media_id=store, label_id=ids["person"], start_frame=0,
                                         end_frame=10, mode="max_per_frame"),
                 notes=track_note + " Mode: most boxes on one frame, frames 0-10."),
            dict(external_id="cnt-06", inputs=[(STORE_CLIP, 2.667, 4.4)], scenario="retail", category="Counting",
                 sub_category="shoppers", query="How many shoppers are in the aisle between 2.7 s and 4.4 s?",
                 link=gt.GroundTruthLink("count", media_id=store, label_id=ids["person"], start_frame=40,
                                         end_frame=66, mode="max_per_frame"),
                 notes=track_note + " Mode: most boxes on one frame, frames 40-66."),
            dict(external_id="ret-06", inputs=[(STORE_CLIP, None, None)], scenario="retail", category="Timing",
                 sub_category="event time", tolerances=_TOL_TIME,
                 query="At what time does the third shopper (the woman in the brown jacket) first come into "
                       "the picture?",
                 link=gt.GroundTruthLink("event_time", annotation_id=first_third),
                 notes="Linked to the first keyframe box of her track (frame 14; a faint blur shows on frame 13, "
                       "within the 0.5 s tolerance)."),
        ]
    return out


def _label_id(project: Project, name: str) -> str | None:
    return next((lab.id for lab in labels.list_labels(project) if lab.name == name), None)


def add_demo_tasks(project: Project) -> DemoTasksReport:
    """Add the demo task set (module docstring) and the annotations it needs; returns a DemoTasksReport.

    Run it after ``add_demo_annotations`` on a project holding the sample media with their frame index
    (``build_demo`` does both). Media are found by file name; a task whose media is missing is left out
    (its files listed in ``missing_media``). A linked task whose annotation gives no value is skipped and
    listed in ``skipped``. Raises TaskError, before adding anything, when a task of source ``manual``
    with one of the set's ids (:data:`TASK_IDS`) exists already (the set was added before).
    """
    report = DemoTasksReport()
    with project.read() as s:
        media = {m.file_name: m.id for m in s.scalars(select(Media).where(Media.status == "ok"))}
        taken = set(s.scalars(select(Task.external_id).where(Task.source == SOURCE, Task.external_id.in_(TASK_IDS))))
    if taken:  # checked before any annotation is added, so a second call changes nothing
        raise ts.TaskError(f"{project.path.name} holds the demo task set already ({len(taken)} of its ids, "
                           f"e.g. {sorted(taken)[0]}); nothing was added")
    wanted = (WORKER_CLIP, WORKER_PHOTO, ELECTRICIANS, HIVIS, STORE_CLIP, GROCERY, MANUAL)
    report.missing_media = [name for name in wanted if name not in media]
    ids = _add_annotations(project, media, report)
    for spec in _plain_tasks() + _linked_tasks(project, media, ids):
        spec = dict(spec)
        names = [name for name, _s, _e in spec["inputs"]]
        if any(name not in media for name in names):
            missing = ", ".join(n for n in names if n not in media)
            report.skipped.append((spec["external_id"], f"media missing: {missing}"))
            continue
        spec["inputs"] = [{"media_id": media[name], "start_s": start, "end_s": end}
                          for name, start, end in spec["inputs"]]
        link = spec.pop("link", None)
        if link is not None:
            try:
                spec.update(gt.link_fields(project, spec.pop("ground_truth_extra", None), link))
            except gt.LinkError as exc:
                report.skipped.append((spec["external_id"], str(exc)))
                continue
        task_id = ts.create_task(project, source=SOURCE, **spec)
        report.task_ids.append(task_id)
        report.per_answer_type[spec["answer_type"]] += 1
        report.per_scenario[spec["scenario"]] += 1
    return report


# ---------------------------------------------------------------- the sample file
def sample_task_records(project: Project, task_ids: list[str] | None = None) -> list[ParsedTask]:
    """The tasks (all manual ones, or ``task_ids``) as the exporter reads them, with the fields the task CSV
    has no column for moved into ``extra[FILE_EXTRA_KEY]``: ``answer_type`` (the CSV importer knows
    only ``records.ANSWER_TYPES``), ``tolerances``, ``notes`` and ``ground_truth_extra``; a ground-truth
    link is written as ``linked_to`` (its kind and what it reads now), because annotation ids mean
    nothing outside this project."""
    out = []
    for exported in tasks_from_project(project, source=SOURCE, task_ids=task_ids):
        record = ts.get_task(project, exported.task_id)
        parsed = exported.parsed
        kept: dict[str, Any] = {"answer_type": record.answer_type}
        if record.tolerances:
            kept["tolerances"] = record.tolerances
        if record.notes:
            kept["notes"] = record.notes
        gt_extra = dict(record.ground_truth_extra or {})
        link = gt.link_of(gt_extra)
        gt_extra.pop(gt.LINK_KEY, None)
        if gt_extra:
            kept["ground_truth_extra"] = gt_extra
        if link is not None:
            kept["linked_to"] = {"kind": link.kind, "explanation": gt.compute(project, link).explanation}
        parsed.extra = {**parsed.extra, FILE_EXTRA_KEY: kept}
        out.append(parsed)
    return out


def write_sample_task_file(project: Project, path: Path) -> int:
    """Write the demo task set as a task CSV (``csv_tasks.export_task_csv``, atomic); returns the count.

    See :func:`sample_task_records` for what ``extra`` holds. Raises OSError when ``path`` cannot be written.
    """
    return csv_tasks.export_task_csv(sample_task_records(project), Path(path))
