"""The self-test's check of the people detector ("Detect people", the agent's detect_people, bodies in the privacy
gate): this OpenCV carries the HOG people detector and finds the worker in the demo's photo
(``sample_data/media/images/ppe_worker_hardhat_vest_warehouse_zone_frame045.png``, frame 45 of the Intel worker clip,
CC BY 4.0), whose box was marked by hand at (100, 57)-(160, 222)."""

from __future__ import annotations

import time

from fieldstudio.core.paths import sample_data_dir


class PeopleCheckFailed(Exception):
    """The people check failed; the message says what (the self-test shows it as the check's FAIL row)."""


PHOTO = "media/images/ppe_worker_hardhat_vest_warehouse_zone_frame045.png"
#: The worker marked by hand (x0, y0, x1, y1, pixels); a box with IoU >= 0.5 with it is the worker found.
WORKER = (100, 57, 160, 222)


def check_people() -> str:
    """HOG is in this OpenCV and finds the marked worker. Raises PeopleCheckFailed naming what went wrong."""
    from fieldstudio.core.box_overlap import box_iou
    from fieldstudio.core.errors import FieldstudioError
    from fieldstudio.media import images, people

    path = sample_data_dir() / PHOTO
    try:
        rgb = images.read_image(path)
    except (OSError, FieldstudioError) as exc:
        raise PeopleCheckFailed(f"{path}: cannot be read ({exc})") from exc
    started = time.perf_counter()
    try:
        found = people.detect_people(rgb)
    except FieldstudioError as exc:
        raise PeopleCheckFailed(str(exc)) from exc
    took = time.perf_counter() - started
    best = max((box_iou(b.xyxy, WORKER) for b in found), default=0.0)
    if best < 0.5:
        raise PeopleCheckFailed(f"{people.detector_version()} found {len(found)} person(s) in {path.name}, none on "
                                f"the worker marked at {WORKER} (best IoU {best:.2f})")
    return f"{people.detector_version()}: the worker found (IoU {best:.2f}) in {took:.2f} s"
