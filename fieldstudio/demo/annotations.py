"""Annotations of the demo project, placed by hand on the sample media (``sample_data/media``).

Boxes were read off the upright frames with a pixel grid laid over them:

* ``ppe_worker_hardhat_vest_warehouse_zone_frame045.png`` (480x270, frame 45 of the worker clip):
  the worker, his hard hat and his vest.
* ``ppe_electricians_hardhat_vest_wire_room_mta.jpg`` (1200x1600): the electrician on the ladder,
  his blue hard hat, his vest, and the two electrical panels beside him.
* ``ppe_electrician_hivis_systems_equipment_mta.jpg`` (1200x1600, EXIF-rotated): the worker in the
  hi-vis shirt with his head inside the cabinet (hard hat not visible), and the control panel.
* ``worker_zone_hardhat_vest_from_gif.mp4`` (71 frames, 15 fps): a ``person`` track and a ``helmet``
  track with keyframes on frames 0-70 (interpolated between), a ``walking`` segment (frames 0-48) and a
  ``standing`` one (49-70), a ``crosses hazard tape`` event on frame 36 (the rear foot on the tape),
  and a floor ruler from the worker's feet to the base of the large column on frame 45.

The floor calibration belongs to the camera group ``worker-zone camera`` (the clip and its frame-45
photo: one camera, 480x270). Its four points are the corners of the red tape rectangle, found as the
intersections of straight lines fitted to the red tape pixels of the clip's median frame; the corner
nearest the camera lies just below the picture (y = 324.7). The rectangle's size, 4.0 m x 4.0 m, is
an assumption (the tape was not measured on site); with it the worker walks 1.5 m between frames 20
and 45 (1.67 s), 0.9 m/s, a plausible slow walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from fieldstudio.annotations import records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import labels
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project

WORKER_CLIP = "worker_zone_hardhat_vest_from_gif.mp4"
WORKER_PHOTO = "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"
ELECTRICIANS = "ppe_electricians_hardhat_vest_wire_room_mta.jpg"
HIVIS = "ppe_electrician_hivis_systems_equipment_mta.jpg"
STORE_CLIP = "store_aisle_shoppers_from_gif.mp4"
PARKING_CLIP = "parking_lot_car_bicycle_from_gif.mp4"
CAMERA_GROUP = "worker-zone camera"

LABELS = (  # name, colour
    ("person", "#e69f00"), ("helmet", "#f0e442"), ("vest", "#d55e00"), ("panel", "#56b4e9"),
    ("forklift", "#009e73"), ("walking", "#0072b2"), ("standing", "#cc79a7"), ("crosses hazard tape", "#ff4f79"),
)

#: Floor rectangle corners (image pixels) in order around it (left, near, right, far); 4.0 m x 4.0 m.
#: Which corner comes first only mirrors the floor axes; distances are the same.
FLOOR_QUAD = ((160.6, 197.3), (313.3, 324.7), (439.4, 214.3), (290.0, 148.9))
FLOOR_SIZE_M = (4.0, 4.0)

# x1, y1, x2, y2 in upright pixels
PHOTO_BOXES = {
    WORKER_PHOTO: [("person", (98, 57, 162, 222), None), ("helmet", (110, 57, 134, 80), None),
                   ("vest", (100, 84, 152, 144), None)],
    ELECTRICIANS: [("person", (400, 90, 740, 1150), None), ("helmet", (464, 90, 596, 200), {"colour": "blue"}),
                   ("vest", (400, 270, 730, 710), None),
                   ("panel", (0, 420, 210, 1080), {"sign": "LIVE"}), ("panel", (220, 390, 420, 830), None)],
    HIVIS: [("person", (500, 650, 860, 1560), {"hard hat": "not visible"}), ("vest", (500, 650, 775, 880), None),
            ("panel", (904, 580, 1156, 876), None)],
}
PERSON_TRACK = {0: (244, 138, 342, 270), 10: (150, 104, 256, 270), 20: (144, 82, 212, 264),
                30: (104, 70, 184, 254), 45: (98, 57, 162, 222), 55: (88, 54, 152, 210), 70: (90, 52, 152, 210)}
HELMET_TRACK = {0: (262, 140, 312, 184), 10: (192, 106, 230, 138), 20: (158, 84, 190, 112),
                30: (132, 70, 160, 96), 45: (110, 57, 134, 80), 70: (102, 52, 124, 74)}
FEET_TO_COLUMN = ((128.0, 216.0), (252.0, 126.0))   # on frame 45


@dataclass
class DemoAnnotationReport:
    """What was added: annotation ids per kind, and the sample files that were not in the project."""

    ids: dict[str, list[str]] = field(default_factory=dict)
    missing_media: list[str] = field(default_factory=list)
    calibration_id: str | None = None


def _xywh(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    return (x1, y1, x2 - x1, y2 - y1)


def add_demo_annotations(project: Project) -> DemoAnnotationReport:
    """Add the labels, boxes, tracks, calibration, ruler, segments, events and tags described above.

    Media are found by file name; a sample file that is not in the project is skipped (listed in the
    report). The videos' frame index must be built (``library.index_videos``), as ``build_demo`` does.
    """
    report = DemoAnnotationReport()

    def keep(kind: str, annotation_id: str) -> None:
        report.ids.setdefault(kind, []).append(annotation_id)

    label_id = {name: labels.ensure_label(project, name, colour) for name, colour in LABELS}
    with project.read() as s:
        media = {m.file_name: m for m in s.scalars(select(Media).where(Media.status == "ok"))}
    wanted = [WORKER_CLIP, WORKER_PHOTO, ELECTRICIANS, HIVIS, STORE_CLIP, PARKING_CLIP]
    report.missing_media = [name for name in wanted if name not in media]

    for name, boxes in PHOTO_BOXES.items():
        if name in media:
            for label, box, attrs in boxes:
                keep("box", ann.add_box(project, media[name].id, _xywh(box), label_id[label], attributes=attrs))
    if ELECTRICIANS in media:
        keep("tag", ann.add_tag(project, media[ELECTRICIANS].id, "live panels"))
    if HIVIS in media:
        keep("tag", ann.add_tag(project, media[HIVIS].id, "head inside cabinet"))

    clip = media.get(WORKER_CLIP)
    if clip is not None:
        for track, (label, keys) in enumerate((("person", PERSON_TRACK), ("helmet", HELMET_TRACK)), start=1):
            for frame, box in keys.items():
                keep("box", ann.add_box(project, clip.id, _xywh(box), label_id[label], frame_index=frame,
                                        track_id=track))
        keep("box", ann.add_box(project, clip.id, _xywh(PHOTO_BOXES[WORKER_PHOTO][2][1]), label_id["vest"],
                                frame_index=45))
        group = [clip.id] + ([media[WORKER_PHOTO].id] if WORKER_PHOTO in media else [])
        cal.set_camera_group(project, group, CAMERA_GROUP)
        report.calibration_id = cal.save_calibration(
            project, "floor", FLOOR_QUAD, camera_group=CAMERA_GROUP,
            width_m=FLOOR_SIZE_M[0], depth_m=FLOOR_SIZE_M[1])
        keep("ruler", ann.add_ruler(project, clip.id, *FEET_TO_COLUMN, frame_index=45, on_floor=True,
                                    label_id=label_id["person"], text="worker to column base"))
        if WORKER_PHOTO in media:
            keep("ruler", ann.add_ruler(project, media[WORKER_PHOTO].id, *FEET_TO_COLUMN, on_floor=True,
                                        label_id=label_id["person"], text="worker to column base"))
        keep("segment", ann.add_segment(project, clip.id, label_id["walking"], 0, 48))
        keep("segment", ann.add_segment(project, clip.id, label_id["standing"], 49, 70))
        keep("event", ann.add_event(project, clip.id, 36, label_id["crosses hazard tape"],
                                    text="rear foot on the hazard tape"))
    if STORE_CLIP in media:
        keep("tag", ann.add_tag(project, media[STORE_CLIP].id, "retail aisle"))
    if PARKING_CLIP in media:
        keep("tag", ann.add_tag(project, media[PARKING_CLIP].id, "outdoor"))
        keep("tag", ann.add_tag(project, media[PARKING_CLIP].id, "no workers"))
    return report
