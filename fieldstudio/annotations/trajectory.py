"""The trajectory of a tracked box on the calibrated floor: where its ground point was on each frame, the distance
walked and the speed, as Kinovea gives them.

A box stands on its bottom edge, so its ground point is the bottom centre ``((x1 + x2) / 2, y2)`` (pixels). On
every frame of the track (keyframes and the boxes interpolated between them, ``box_tracks.track_boxes``) that
point is put on the floor with the calibration in use for the video (``calibrations.calibration_in_use``):

* floor calibration: ``(X, Y) = (u / w, v / w)``, ``[u, v, w] = H [x, y, 1]`` (the homography of the floor
  rectangle, ``core.calibration.image_to_floor``), metres on the floor;
* scale calibration: ``(X, Y) = (x, y) * metres per pixel``, metres in the image plane (right only for motion in
  the plane of the reference line, across the view; the trajectory says so).

Step distance ``d_i = hypot(X_i - X_{i-1}, Y_i - Y_{i-1})`` (m), distance walked = the sum of the steps, speed
``d_i / (t_i - t_{i-1})`` (m/s) with ``t`` the frame's PTS in seconds from the video's first frame (the frame
table: a variable-rate video's real times, never index / fps). Optional smoothing: a centred moving average of
the floor positions over ``smooth`` frames (odd; fewer at the track's ends), stated with the result, because a
box that shakes by a pixel a frame adds distance a person did not walk. A ground point on or beyond the floor's
horizon has no floor position: its row has none, and the step after it is measured from the last point that had
one. Errors: NotFound (media), AnnotationError (no such track, a video without a frame table).

A floor calibration is measured on its reference rectangle: a ground point outside the four image corners the
person clicked gets metres all the same, the homography's extrapolation, less trustworthy the farther out. Each
point says whether it lies outside that quadrilateral, and the summary counts "N of M frame(s) outside the
calibrated area (extrapolated)". The homography maps the (convex, validated) quadrilateral onto the floor rectangle
``0 <= X <= W, 0 <= Y <= D`` and the horizon's far side onto nothing, so a point is inside exactly when its floor
position lies in that rectangle: one comparison per point on positions already computed (a point-in-polygon loop
in Python cost 18 ms a 9,000-frame track, more than the rest of the computation). A point on an edge or a corner
counts as inside (within 1 µm, the homography's rounding); a point on or beyond the horizon is outside. The
tests check the rule against OpenCV's ``pointPolygonTest`` on the image corners. A scale calibration (two points)
has no area: ``outside_area`` is None and nothing is said.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from sqlalchemy import select

from fieldstudio.annotations import calibrations
from fieldstudio.annotations.annotation_records import AnnotationError
from fieldstudio.core import calibration as core_cal
from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.core.errors import NotFound
from fieldstudio.media.video_index import load_frame_table
from fieldstudio.store.models import Annotation, Media
from fieldstudio.store.project import Project

CSV_COLUMNS = ("frame", "time_s", "ground_x_px", "ground_y_px", "x_m", "y_m", "step_m", "distance_m", "speed_m_s",
               "keyframe", "calibration", "smoothed_over_frames", "outside_calibrated_area")


class TrajectoryPoint(NamedTuple):
    """The ground point of a track on one frame (a named tuple, not a frozen dataclass: a trajectory makes one a
    frame, and a frozen dataclass's ``__init__`` cost 0.8 µs each, 7 ms of a 9,000-frame track's 31 ms, for the
    same immutable record read by attribute).

    ``seconds``: PTS from the video's first frame; ``ground_px``: bottom centre of the box (pixels); ``position_m``:
    (X, Y) metres (None without a calibration or beyond the floor's horizon), smoothed when the trajectory is;
    ``step_m``: distance from the previous point with a position (None for the first); ``distance_m``: walked so
    far; ``speed_m_s``: step over the time since that point (None for the first); ``outside_area``: the ground
    point lies outside the floor calibration's reference quadrilateral, so its metres are extrapolated (None
    without a floor calibration: no area to be outside of).
    """

    frame_index: int
    seconds: float
    ground_px: tuple[float, float]
    keyframe: bool
    position_m: tuple[float, float] | None
    step_m: float | None
    distance_m: float | None
    speed_m_s: float | None
    outside_area: bool | None = None


@dataclass(frozen=True)
class Trajectory:
    """A track's trajectory: ``points`` by frame; ``calibration`` the one used (None: pixels only); ``how`` says
    which calibration and in what plane, or how to calibrate; ``smooth`` the moving-average window in frames
    (1: none)."""

    media_id: str
    track_id: int
    points: tuple[TrajectoryPoint, ...]
    calibration: calibrations.CalibrationRecord | None
    how: str
    smooth: int

    @property
    def distance_m(self) -> float | None:
        """Metres walked over the whole track (None without a calibration)."""
        known = [p.distance_m for p in self.points if p.distance_m is not None]
        return known[-1] if known else None

    @property
    def duration_s(self) -> float:
        """Seconds from the track's first frame to its last."""
        return self.points[-1].seconds - self.points[0].seconds if self.points else 0.0

    @property
    def outside_count(self) -> int | None:
        """Frames whose ground point lies outside the floor calibration's reference quadrilateral (metres
        extrapolated); None without a floor calibration."""
        flags = [p.outside_area for p in self.points if p.outside_area is not None]
        return sum(flags) if flags else None

    def outside_text(self) -> str:
        """"N of M frame(s) outside the calibrated area (extrapolated)", or "" when none is or there is no area."""
        n = self.outside_count
        return f"{n} of {len(self.points)} frame(s) outside the calibrated area (extrapolated)" if n else ""

    @property
    def mean_speed_m_s(self) -> float | None:
        """Distance walked over the track's duration (None without a calibration or a duration)."""
        d = self.distance_m
        return None if d is None or self.duration_s <= 0 else d / self.duration_s

    def summary(self) -> str:
        """One line: "12.34 m in 8.20 s, mean 1.50 m/s (floor plane: ...)" or the pixels-only reason."""
        if self.distance_m is None:
            return f"track {self.track_id}: {len(self.points)} frame(s), {self.duration_s:.2f} s; {self.how}"
        smooth = f", positions smoothed over {self.smooth} frames" if self.smooth > 1 else ""
        outside = self.outside_text()
        return (f"track {self.track_id}: {self.distance_m:.2f} m in {self.duration_s:.2f} s, mean "
                f"{self.mean_speed_m_s or 0.0:.2f} m/s over {len(self.points)} frame(s){smooth}"
                f"{'; ' + outside if outside else ''} ({self.how})")

    def rows(self) -> list[dict[str, object]]:
        """The table: one dict per frame with :data:`CSV_COLUMNS` (numbers rounded for reading: 3 decimals for
        seconds, 1 for pixels, 4 for metres and m/s; None where there is no value; ``outside_calibrated_area``
        None without a floor calibration)."""
        kind = self.calibration.kind if self.calibration is not None else "none"

        def r(v: float | None, n: int) -> float | None:
            return None if v is None else round(v, n)
        return [{"frame": p.frame_index, "time_s": round(p.seconds, 3), "ground_x_px": round(p.ground_px[0], 1),
                 "ground_y_px": round(p.ground_px[1], 1),
                 "x_m": r(p.position_m[0], 4) if p.position_m else None,
                 "y_m": r(p.position_m[1], 4) if p.position_m else None,
                 "step_m": r(p.step_m, 4), "distance_m": r(p.distance_m, 4), "speed_m_s": r(p.speed_m_s, 4),
                 "keyframe": p.keyframe, "calibration": kind, "smoothed_over_frames": self.smooth,
                 "outside_calibrated_area": p.outside_area}
                for p in self.points]

    def write_csv(self, path: str | Path) -> Path:
        """Write :meth:`rows` as CSV (header :data:`CSV_COLUMNS`, empty cells for no value), atomically."""
        import io

        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in self.rows():
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
        target = Path(path)
        atomic_write_text(target, buffer.getvalue())
        return target


def ground_point(box: Sequence[float]) -> tuple[float, float]:
    """Bottom centre ``((x1 + x2) / 2, y2)`` of a box ``(x1, y1, x2, y2)`` in pixels: where it stands."""
    x1, _y1, x2, y2 = (float(v) for v in box)
    return (x1 + x2) / 2.0, y2


def _smoothed(xy: np.ndarray, window: int) -> np.ndarray:
    """Centred moving average over ``window`` frames of the rows that have a position (not NaN), fewer at the ends
    and beside a gap; rows without a position stay NaN."""
    if window <= 1:
        return xy
    ok = ~np.isnan(xy[:, 0])
    filled = np.where(ok[:, None], xy, 0.0)
    kernel = np.ones(window)
    sums = np.column_stack([np.convolve(filled[:, i], kernel, mode="same") for i in range(2)])
    counts = np.convolve(ok.astype(float), kernel, mode="same")
    out = np.full_like(xy, np.nan)
    out[ok] = sums[ok] / counts[ok, None]
    return out


def _keyframes(project: Project, media_id: str, track_id: int) -> tuple[np.ndarray, np.ndarray]:
    """(frames (K,), boxes (K, 4)) of the track's live keyframes by frame: two columns read, not whole records (a
    track of thousands of keyframes is read again after every edit while its window is open)."""
    with project.read() as s:
        rows = s.execute(select(Annotation.frame_index, Annotation.geometry).where(
            Annotation.media_id == media_id, Annotation.kind == "box", Annotation.track_id == track_id,
            Annotation.is_keyframe.is_(True), Annotation.deleted.is_(False), Annotation.frame_index.is_not(None))
            .order_by(Annotation.frame_index)).all()
    frames = np.array([f for f, _g in rows], dtype=np.int64)
    boxes = np.array([g for _f, g in rows], dtype=np.float64).reshape(-1, 4)
    return frames, boxes


def track_trajectory(project: Project, media_id: str, track_id: int, *, smooth: int = 1) -> Trajectory:
    """The trajectory of track ``track_id`` on video ``media_id`` (see the module docstring for the formulas).

    ``smooth``: moving-average window in frames (1: none; an even number is made odd by adding one).
    Raises NotFound (media), AnnotationError (the track has no keyframe on the video, or the video has no frame
    table yet), ValueError (smooth < 1).
    """
    if smooth < 1:
        raise ValueError(f"smooth must be 1 (none) or more frames, not {smooth}")
    smooth = smooth + 1 if smooth % 2 == 0 else smooth
    with project.read() as s:
        media = s.get(Media, media_id)
        if media is None:
            raise NotFound(f"no media with id {media_id!r} in {project.path.name}")
        name = media.file_name
    table = load_frame_table(project, media)
    if table is None or len(table) == 0:
        raise AnnotationError(f"{name}: no frame table yet (the video is being indexed); try again when it is ready")
    keys, boxes = _keyframes(project, media_id, track_id)
    if not len(keys):
        raise AnnotationError(f"{name}: no track {track_id}")
    if keys[-1] >= len(table):
        raise AnnotationError(f"{name}: track {track_id} reaches frame {keys[-1]}, past the frame table's "
                              f"{len(table)} frames")
    # every frame from the first keyframe to the last; between two keyframes the box is their linear
    # interpolation corner by corner (core.tracks.interpolate_track's rule), here for all frames at once
    frames = np.arange(keys[0], keys[-1] + 1)
    corners = np.column_stack([np.interp(frames, keys, boxes[:, i]) for i in range(4)])
    grounds = np.column_stack([(corners[:, 0] + corners[:, 2]) / 2.0, corners[:, 3]])
    seconds = table.seconds_array()[frames] - table.seconds(0)
    record = calibrations.calibration_in_use(project, media_id)
    core = record.to_core() if record is not None else None
    beyond = 0
    outside: list[bool | None] = [None] * len(frames)
    if core is None:
        xy = np.full_like(grounds, np.nan)
    elif core.kind == "floor":
        xy, ok = _image_to_floor_many(core.homography, grounds)
        beyond = int((~ok).sum())
        # the raw ground point, before smoothing: the question is where the measurement was taken
        outside = _outside_rectangle(xy, ok, core.width_m, core.depth_m).tolist()
    else:
        xy = grounds * core.metres_per_pixel
    xy = _smoothed(xy, smooth)
    has = np.flatnonzero(~np.isnan(xy[:, 0]))
    step = np.full(len(frames), np.nan)
    speed = np.full(len(frames), np.nan)
    walked = np.full(len(frames), np.nan)
    if len(has):        # a step runs from the last point that had a position
        d = np.hypot(*np.diff(xy[has], axis=0).T)
        dt = np.diff(seconds[has])
        step[has[1:]] = d
        speed[has[1:]] = np.where(dt > 0, d / np.where(dt > 0, dt, 1.0), np.nan)
        walked[has] = np.concatenate([[0.0], np.cumsum(d)])
    is_key = np.isin(frames, keys)

    # plain Python numbers first (.tolist()): numpy scalars made one at a time cost more than the arithmetic;
    # NaN (v != v) is "no value", tested inline: a helper function called three times a frame cost 2 ms a 9,000
    points = tuple(
        TrajectoryPoint(f, t, (gx, gy), k, None if x != x else (x, y), None if st != st else st,
                        None if w != w else w, None if sp != sp else sp, out)
        for f, t, gx, gy, k, x, y, st, w, sp, out in zip(
            frames.tolist(), seconds.tolist(), grounds[:, 0].tolist(), grounds[:, 1].tolist(), is_key.tolist(),
            xy[:, 0].tolist(), xy[:, 1].tolist(), step.tolist(), walked.tolist(), speed.tolist(), outside))
    if record is None:
        how = ("pixels only: no calibration; calibrate the floor with C (four corners of a floor rectangle) to get "
               "metres walked")
    elif record.kind == "floor":
        how = record.describe() + (f"; {beyond} ground point(s) beyond the floor's horizon have no position"
                                   if beyond else "")
    else:
        how = (f"{record.describe()}, in the image plane: right only for walking across the view; a floor "
               "calibration measures walking on the floor")
    return Trajectory(media_id, track_id, points, record, how, smooth)


def tracks_of(project: Project, media_id: str) -> list[int]:
    """Track ids with at least one live keyframe on a media, ascending."""
    from fieldstudio.annotations.annotation_records import list_annotations

    return sorted({r.track_id for r in list_annotations(project, media_id=media_id, kinds=["box"])
                   if r.track_id is not None})


#: Metres by which a floor position may pass the reference rectangle's edge and still count as on it (the
#: homography's floating-point rounding of a point exactly on an edge).
EDGE_TOL_M = 1e-6


def _outside_rectangle(xy: np.ndarray, ok: np.ndarray, width_m: float, depth_m: float) -> np.ndarray:
    """(N,) bool: floor positions ``xy`` (N, 2) metres outside ``0..width_m x 0..depth_m`` (edges inside within
    :data:`EDGE_TOL_M`), or without a position (``ok`` False: on or beyond the horizon)."""
    x, y = xy[:, 0], xy[:, 1]
    with np.errstate(invalid="ignore"):
        inside = (ok & (x >= -EDGE_TOL_M) & (x <= width_m + EDGE_TOL_M)
                  & (y >= -EDGE_TOL_M) & (y <= depth_m + EDGE_TOL_M))
    return ~inside


def _image_to_floor_many(h_img_to_floor: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``core.calibration.image_to_floor`` of many points at once: ``points`` (N, 2) image pixels -> ((N, 2)
    metres, (N,) bool "has a floor position"). A point on or beyond the horizon (as ``image_to_floor`` decides)
    gets NaN and False instead of raising."""
    h = np.asarray(h_img_to_floor, dtype=np.float64)
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    uvw = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    grad = math.hypot(h[2, 0], h[2, 1])
    ok = uvw[:, 2] / grad > core_cal.HORIZON_TOL_PX if grad > 0 else uvw[:, 2] > 0
    out = np.full((len(pts), 2), np.nan)
    out[ok] = uvw[ok, :2] / uvw[ok, 2:3]
    return out, ok
